/**
 * Time zones for date_histogram and date_range: fixed offsets (`+01:00`,
 * `-0800`, `Z`, `UTC`) and IANA region ids (`Europe/Paris`), as Elasticsearch
 * accepts them in `time_zone`. Offsets of region zones come from Intl and are
 * cached per quarter hour (every real transition falls on one).
 */
import { illegalArgument } from '../../errors/es-errors.ts';

export interface TimeZone {
  readonly id: string;
  /** True when the offset never changes (no per-instant lookups needed). */
  readonly fixed: boolean;
  /** Offset from UTC in ms at a UTC instant. */
  offsetAt(utcMillis: number): number;
  /** UTC instant of a local wall-clock time (earlier offset in overlaps, shifted forward in gaps). */
  localToUtc(localMillis: number): number;
}

const QUARTER_HOUR = 15 * 60 * 1000;
const FIXED = /^([+-])(\d{1,2})(?::?(\d{2}))?$/;

class FixedZone implements TimeZone {
  readonly fixed = true;
  constructor(
    readonly id: string,
    private readonly offset: number,
  ) {}
  offsetAt(): number {
    return this.offset;
  }
  localToUtc(localMillis: number): number {
    return localMillis - this.offset;
  }
}

class RegionZone implements TimeZone {
  readonly fixed = false;
  private readonly cache = new Map<number, number>();
  private readonly fmt: Intl.DateTimeFormat;

  constructor(readonly id: string) {
    this.fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: id,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
  }

  offsetAt(utcMillis: number): number {
    const slot = Math.floor(utcMillis / QUARTER_HOUR);
    let off = this.cache.get(slot);
    if (off === undefined) {
      off = this.compute(slot * QUARTER_HOUR);
      if (this.cache.size > 100_000) this.cache.clear();
      this.cache.set(slot, off);
    }
    return off;
  }

  private compute(utcMillis: number): number {
    const parts = this.fmt.formatToParts(new Date(utcMillis));
    let y = 0;
    let mo = 0;
    let d = 0;
    let h = 0;
    let mi = 0;
    let s = 0;
    let bc = false;
    for (const p of parts) {
      switch (p.type) {
        case 'year':
          y = Number(p.value);
          break;
        case 'month':
          mo = Number(p.value);
          break;
        case 'day':
          d = Number(p.value);
          break;
        case 'hour':
          h = Number(p.value);
          break;
        case 'minute':
          mi = Number(p.value);
          break;
        case 'second':
          s = Number(p.value);
          break;
        case 'era':
          bc = p.value.startsWith('B');
          break;
        default:
          break;
      }
    }
    const year = bc ? 1 - y : y;
    const date = new Date(0);
    date.setUTCFullYear(year, mo - 1, d);
    date.setUTCHours(h, mi, s, 0);
    return date.getTime() - utcMillis;
  }

  localToUtc(localMillis: number): number {
    const offsetLocal = this.offsetAt(localMillis);
    const offset = this.offsetAt(localMillis - offsetLocal);
    if (offsetLocal !== offset) {
      // In an overlap take the earlier instant; in a gap the later offset (as Joda's convertLocalToUTC non-strict).
      const alt = this.offsetAt(localMillis - offset);
      if (alt === offset) return localMillis - offset;
      return localMillis - Math.max(offsetLocal, offset);
    }
    return localMillis - offset;
  }
}

const UTC_ZONE = new FixedZone('UTC', 0);
const zones = new Map<string, TimeZone>();

/** Resolves a `time_zone` value; throws Elasticsearch's error for an unknown id. */
export function timeZone(id: string | null): TimeZone {
  if (id === null || id === 'UTC' || id === 'Z' || id === 'utc' || id === 'GMT' || id === 'Etc/UTC') return UTC_ZONE;
  const cached = zones.get(id);
  if (cached) return cached;
  let zone: TimeZone;
  const m = FIXED.exec(id);
  if (m) {
    const hours = Number(m[2]);
    const minutes = m[3] === undefined ? 0 : Number(m[3]);
    if (hours > 18 || minutes > 59) throw illegalArgument(`The datetime zone id '${id}' is not recognised`);
    const sign = m[1] === '-' ? -1 : 1;
    zone = new FixedZone(id, sign * (hours * 3600_000 + minutes * 60_000));
  } else {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: id });
    } catch {
      throw illegalArgument(`The datetime zone id '${id}' is not recognised`);
    }
    zone = new RegionZone(id);
  }
  zones.set(id, zone);
  return zone;
}
