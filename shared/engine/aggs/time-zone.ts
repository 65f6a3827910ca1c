/**
 * Time zones for date_histogram and date_range, on the mapping's zone rules
 * (fixed offsets, UTC ids, IANA regions through Intl), plus whether a zone's
 * offset never changes (then rounding is plain arithmetic).
 */
import { resolveTimeZone, type TimeZone as MappingTimeZone } from '../mapping/time-zone.ts';

export interface TimeZone {
  readonly id: string;
  /** True when the offset never changes (no per-instant lookups needed). */
  readonly fixed: boolean;
  /** Offset from UTC in ms at a UTC instant. */
  offsetAt(utcMillis: number): number;
  /** UTC instant of a local wall-clock time (earlier offset in overlaps, as Joda). */
  localToUtc(localMillis: number): number;
}

const FIXED_ID = /^[+-]\d{2}:\d{2}$/;
const zones = new Map<string, TimeZone>();

function adapt(zone: MappingTimeZone): TimeZone {
  return {
    id: zone.id,
    fixed: zone.isUtc || FIXED_ID.test(zone.id),
    offsetAt: (t) => zone.offsetAt(t),
    localToUtc: (l) => zone.localToUtc(l),
  };
}

const UTC_ZONE = adapt(resolveTimeZone('UTC'));

/** Resolves a `time_zone` value (null = UTC); throws Elasticsearch's error for an unknown id. */
export function timeZone(id: string | null): TimeZone {
  if (id === null || id === '') return UTC_ZONE;
  let zone = zones.get(id);
  if (zone === undefined) {
    zone = adapt(resolveTimeZone(id));
    zones.set(id, zone);
  }
  return zone;
}
