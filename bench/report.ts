/** Small helpers the benchmarks share: percentiles and a printed table a note can quote. */

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

export function printTable(title: string, rows: readonly (readonly string[])[]): void {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  process.stdout.write(`\n${title}\n`);
  for (const r of rows) process.stdout.write(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ') + '\n');
}
