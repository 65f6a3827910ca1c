/** How the console prints sizes, counts and durations. */

export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined || Number.isNaN(n)) return '–';
  const units = ['b', 'kb', 'mb', 'gb', 'tb'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v}b` : `${v.toFixed(1)}${units[u]}`;
}

export function count(n: number | null | undefined): string {
  return n === null || n === undefined || Number.isNaN(n) ? '–' : n.toLocaleString('en-US');
}

export function millis(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** A number from a `_cat` JSON cell (they are strings, or null for an unassigned copy). */
export function num(v: unknown): number | null {
  if (v === null || v === undefined || v === '') return null;
  const n = Number(v);
  return Number.isNaN(n) ? null : n;
}
