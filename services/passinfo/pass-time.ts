/**
 * Pass times: `yyyy-MM-dd HH:mm:ss`, the checkpoint's local time with no zone.
 * Elasticsearch reads a zone-less date as UTC, so we do the same: a pass time
 * maps to epoch milliseconds as if it were UTC, and every day boundary and
 * day/night window is computed on that scale. Nothing here depends on the
 * machine's time zone.
 */

const PASS_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
export const DAY_MS = 86_400_000;

/** Epoch ms of a pass time, or null when it is not a valid `yyyy-MM-dd HH:mm:ss`. */
export function parsePassTime(s: string): number | null {
  const m = PASS_TIME.exec(s);
  if (m === null) return null;
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59) return null;
  const t = Date.UTC(y, mo - 1, d, h, mi, se);
  // Date.UTC rolls 31 February over into March; a real date does not change when printed back.
  return formatPassTime(t) === s ? t : null;
}

const pad2 = (n: number): string => (n < 10 ? '0' : '') + n;

export function formatPassTime(ms: number): string {
  const t = new Date(ms);
  return `${t.getUTCFullYear()}-${pad2(t.getUTCMonth() + 1)}-${pad2(t.getUTCDate())} ${pad2(t.getUTCHours())}:${pad2(t.getUTCMinutes())}:${pad2(t.getUTCSeconds())}`;
}

/** Epoch ms of a day's midnight, or null. */
export function parseDay(s: string): number | null {
  const m = DAY.exec(s);
  if (m === null) return null;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return formatDay(t) === s ? t : null;
}

export function formatDay(ms: number): string {
  return formatPassTime(ms).slice(0, 10);
}

/**
 * A time bound given by a user: `yyyy-MM-dd HH:mm:ss`, or a day `yyyy-MM-dd`
 * (its midnight). Throws with the parameter's name when it is neither.
 */
export function parseTimeBound(name: string, s: string): number {
  const t = parsePassTime(s) ?? parseDay(s);
  if (t === null) throw new RangeError(`[${name}] [${s}] is neither yyyy-MM-dd HH:mm:ss nor yyyy-MM-dd`);
  return t;
}

/** `HH:mm` (or `HH`) to minutes after midnight; `24:00` is allowed as an end. */
export function parseClock(name: string, s: string): number {
  const m = /^(\d{1,2})(?::(\d{2}))?$/.exec(s);
  const minutes = m === null ? NaN : Number(m[1]) * 60 + Number(m[2] ?? 0);
  if (!(minutes >= 0 && minutes <= 24 * 60) || (m !== null && Number(m[2] ?? 0) > 59)) {
    throw new RangeError(`[${name}] [${s}] is not a time of day HH:mm`);
  }
  return minutes;
}
