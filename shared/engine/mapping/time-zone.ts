/**
 * Time zones for date parsing, printing and date math: `UTC`, fixed offsets
 * (`+08:00`, `-0530`, `+8`) and region ids (`Asia/Shanghai`), the latter
 * through `Intl` (no tz database of our own). Offsets of region zones are
 * cached per hour of UTC time, so bulk parsing in a zone stays cheap.
 */
import { javaCause } from '../../errors/es-errors.ts';
import { MILLIS_PER_HOUR, MILLIS_PER_MINUTE, MILLIS_PER_SECOND } from './calendar.ts';

export interface TimeZone {
  /** The id as Joda prints it (`UTC`, `+08:00`, `Asia/Shanghai`). */
  readonly id: string;
  /** True for UTC and zero offsets (epoch formats accept only these). */
  readonly isUtc: boolean;
  /** Offset in milliseconds (local = utc + offset) at a UTC instant. */
  offsetAt(utcMillis: number): number;
  /**
   * The UTC instant of a local wall-clock time, as Joda's `getOffsetFromLocal`
   * chooses it: in an overlap the earlier instant; in a gap the offset before
   * the gap (the result then lies after the gap).
   */
  localToUtc(localMillis: number): number;
  /** True when the local time falls into a gap (it does not exist in this zone). */
  isGap(localMillis: number): boolean;
}

class FixedZone implements TimeZone {
  readonly isUtc: boolean;
  constructor(
    readonly id: string,
    private readonly offset: number,
  ) {
    this.isUtc = offset === 0;
  }
  offsetAt(): number {
    return this.offset;
  }
  localToUtc(localMillis: number): number {
    return localMillis - this.offset;
  }
  isGap(): boolean {
    return false;
  }
}

export const UTC: TimeZone = new FixedZone('UTC', 0);

/** Intl cannot format instants beyond ±8.64e15 ms; clamp so far-away dates use the nearest known offset. */
const INTL_LIMIT = 8.64e15 - 2 * 86_400_000;
/** Offsets are at most ±18h; transitions are assumed further apart than twice that. */
const PROBE = 18 * MILLIS_PER_HOUR;
const CACHE_LIMIT = 200_000;

class RegionZone implements TimeZone {
  readonly isUtc = false;
  private readonly fmt: Intl.DateTimeFormat;
  /** Hour bucket (floor(utc / 1h)) → offset, or NaN when the offset changes inside the hour. */
  private readonly cache = new Map<number, number>();

  constructor(readonly id: string) {
    this.fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: id,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  private exactOffset(utcMillis: number): number {
    const t = Math.max(-INTL_LIMIT, Math.min(INTL_LIMIT, utcMillis));
    const seconds = Math.floor(t / MILLIS_PER_SECOND) * MILLIS_PER_SECOND;
    let year = 0;
    let month = 1;
    let day = 1;
    let hour = 0;
    let minute = 0;
    let second = 0;
    let bc = false;
    for (const p of this.fmt.formatToParts(seconds)) {
      switch (p.type) {
        case 'year':
          year = Number(p.value);
          break;
        case 'month':
          month = Number(p.value);
          break;
        case 'day':
          day = Number(p.value);
          break;
        case 'hour':
          hour = Number(p.value);
          break;
        case 'minute':
          minute = Number(p.value);
          break;
        case 'second':
          second = Number(p.value);
          break;
        case 'era':
          bc = p.value.startsWith('B');
          break;
      }
    }
    if (bc) year = 1 - year;
    const d = new Date(0);
    d.setUTCFullYear(year, month - 1, day);
    d.setUTCHours(hour, minute, second, 0);
    return d.getTime() - seconds;
  }

  offsetAt(utcMillis: number): number {
    const bucket = Math.floor(utcMillis / MILLIS_PER_HOUR);
    const cached = this.cache.get(bucket);
    if (cached !== undefined && !Number.isNaN(cached)) return cached;
    if (cached === undefined) {
      const start = bucket * MILLIS_PER_HOUR;
      const a = this.exactOffset(start);
      const b = this.exactOffset(start + MILLIS_PER_HOUR - 1);
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(bucket, a === b ? a : NaN);
      if (a === b) return a;
    }
    return this.exactOffset(utcMillis);
  }

  localToUtc(localMillis: number): number {
    const before = this.offsetAt(localMillis - PROBE);
    const after = this.offsetAt(localMillis + PROBE);
    if (before === after) return localMillis - before;
    const beforeValid = this.offsetAt(localMillis - before) === before;
    const afterValid = this.offsetAt(localMillis - after) === after;
    // Overlap: both offsets are valid; Joda picks the earlier instant (the larger offset).
    if (beforeValid && afterValid) return localMillis - Math.max(before, after);
    if (afterValid) return localMillis - after;
    return localMillis - before; // valid before, or a gap: keep the offset in force before it
  }

  isGap(localMillis: number): boolean {
    const before = this.offsetAt(localMillis - PROBE);
    const after = this.offsetAt(localMillis + PROBE);
    if (before === after) return false;
    return this.offsetAt(localMillis - before) !== before && this.offsetAt(localMillis - after) !== after;
  }
}

/** Joda's offset id: `+08:00`, `-05:30`, `+05:45:30`. */
function offsetId(offset: number): string {
  const sign = offset < 0 ? '-' : '+';
  let rest = Math.abs(offset);
  const h = Math.floor(rest / MILLIS_PER_HOUR);
  rest -= h * MILLIS_PER_HOUR;
  const m = Math.floor(rest / MILLIS_PER_MINUTE);
  rest -= m * MILLIS_PER_MINUTE;
  const s = Math.floor(rest / MILLIS_PER_SECOND);
  const two = (n: number) => (n < 10 ? '0' + n : String(n));
  return `${sign}${two(h)}:${two(m)}${s > 0 ? ':' + two(s) : ''}`;
}

/** `+08:00`, `+0800`, `+08`, `+8`, `-05:30:15`, optionally after `UTC`/`GMT`; null when not an offset. */
function parseOffset(id: string): number | null {
  const m = /^(?:UTC|GMT|UT)?([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?$/.exec(id);
  if (m === null) return null;
  const h = Number(m[2]);
  const min = m[3] === undefined ? 0 : Number(m[3]);
  const s = m[4] === undefined ? 0 : Number(m[4]);
  if (h > 18 || min > 59 || s > 59) return null;
  const offset = h * MILLIS_PER_HOUR + min * MILLIS_PER_MINUTE + s * MILLIS_PER_SECOND;
  return m[1] === '-' ? -offset : offset;
}

const UTC_IDS: ReadonlySet<string> = new Set(['UTC', 'Z', 'GMT', 'UT', 'Etc/UTC', 'Etc/GMT', 'Etc/UCT', 'UCT', 'Etc/Universal', 'Universal', 'Zulu', 'Etc/Zulu']);
const zones = new Map<string, TimeZone>();

/**
 * The time zone for a `time_zone` parameter or a parsed zone id. Unknown ids
 * are refused with Joda's message, as Elasticsearch 6.8 refuses them.
 */
export function resolveTimeZone(id: string): TimeZone {
  const known = zones.get(id);
  if (known !== undefined) return known;
  let zone: TimeZone;
  const offset = UTC_IDS.has(id) ? 0 : parseOffset(id);
  if (offset !== null) {
    zone = offset === 0 ? UTC : new FixedZone(offsetId(offset), offset);
  } else {
    try {
      zone = new RegionZone(id);
    } catch {
      throw javaCause('illegal_argument_exception', `The datetime zone id '${id}' is not recognised`);
    }
  }
  zones.set(id, zone);
  return zone;
}

/** Time zone from an optional id; undefined/empty means UTC. */
export function timeZoneOrUtc(id: string | undefined): TimeZone {
  return id === undefined || id === '' ? UTC : resolveTimeZone(id);
}

let regionIds: readonly string[] | null = null;

/** Known region ids, longest first (for parsing a zone id out of a date string, Joda's `ZZZ`). */
export function knownZoneIds(): readonly string[] {
  if (regionIds === null) {
    const ids = [...Intl.supportedValuesOf('timeZone'), 'UTC'];
    regionIds = ids.sort((a, b) => b.length - a.length);
  }
  return regionIds;
}
