/**
 * Date rounding for date_histogram, as Elasticsearch 6.8's Rounding: calendar
 * units (TimeUnitRounding) floor the local wall-clock time of the time zone
 * and convert back to UTC; fixed intervals (TimeIntervalRounding) floor local
 * time to a multiple of the interval since the epoch.
 */
import type { CalendarUnit, DateInterval } from './spec.ts';
import type { TimeZone } from './time-zone.ts';

export interface Rounding {
  /** Start (UTC ms) of the bucket holding `utcMillis`. */
  round(utcMillis: number): number;
  /** Start of the next bucket after the one holding `utcMillis`. */
  nextRoundingValue(utcMillis: number): number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

/** Fixed lengths of the calendar units that have one (in local time). */
const UNIT_MILLIS: Partial<Record<CalendarUnit, number>> = {
  second: SECOND,
  minute: MINUTE,
  hour: HOUR,
  day: DAY,
  week: WEEK,
};

function floorDiv(a: number, b: number): number {
  return Math.floor(a / b);
}

/** Floors a local instant (ms since the local epoch) to the unit. */
function floorLocal(local: number, unit: CalendarUnit): number {
  switch (unit) {
    case 'second':
    case 'minute':
    case 'hour':
    case 'day':
      return floorDiv(local, UNIT_MILLIS[unit]!) * UNIT_MILLIS[unit]!;
    case 'week': {
      // 1970-01-01 was a Thursday; ISO weeks start on Monday.
      const days = floorDiv(local, DAY);
      const monday = days - ((days + 3) % 7 + 7) % 7;
      return monday * DAY;
    }
    case 'month':
    case 'quarter':
    case 'year': {
      const d = new Date(local);
      const y = d.getUTCFullYear();
      const m = d.getUTCMonth();
      if (unit === 'year') return utcDate(y, 0);
      if (unit === 'quarter') return utcDate(y, m - (m % 3));
      return utcDate(y, m);
    }
  }
}

function utcDate(year: number, month: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 1);
  d.setUTCHours(0, 0, 0, 0);
  return d.getTime();
}

/** Adds one unit to a local instant. */
function addLocal(local: number, unit: CalendarUnit, n: number): number {
  const fixed = UNIT_MILLIS[unit];
  if (fixed !== undefined) return local + n * fixed;
  const d = new Date(local);
  const months = unit === 'year' ? 12 * n : unit === 'quarter' ? 3 * n : n;
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.getTime();
}

class TimeUnitRounding implements Rounding {
  constructor(
    private readonly unit: CalendarUnit,
    private readonly zone: TimeZone,
  ) {}

  private roundFloor(utc: number): number {
    const local = utc + this.zone.offsetAt(utc);
    return this.zone.localToUtc(floorLocal(local, this.unit));
  }

  round(utcMillis: number): number {
    const zone = this.zone;
    if (zone.fixed) {
      const off = zone.offsetAt(utcMillis);
      return floorLocal(utcMillis + off, this.unit) - off;
    }
    let rounded = this.roundFloor(utcMillis);
    if (zone.offsetAt(utcMillis) !== zone.offsetAt(rounded)) {
      // crossed a transition: round again so the result is itself a rounded value
      rounded = this.roundFloor(rounded);
    }
    return rounded;
  }

  nextRoundingValue(utcMillis: number): number {
    const floor = this.round(utcMillis);
    const local = floor + this.zone.offsetAt(floor);
    let next = this.round(this.zone.localToUtc(addLocal(local, this.unit, 1)));
    if (next === floor) next = this.round(this.zone.localToUtc(addLocal(local, this.unit, 2)));
    return next;
  }
}

class TimeIntervalRounding implements Rounding {
  constructor(
    private readonly interval: number,
    private readonly zone: TimeZone,
  ) {}

  round(utcMillis: number): number {
    const off = this.zone.offsetAt(utcMillis);
    const local = floorDiv(utcMillis + off, this.interval) * this.interval;
    return this.zone.fixed ? local - off : this.zone.localToUtc(local);
  }

  nextRoundingValue(utcMillis: number): number {
    const local = utcMillis + this.zone.offsetAt(utcMillis);
    return this.zone.localToUtc(local + this.interval);
  }
}

export function createRounding(interval: DateInterval, zone: TimeZone): Rounding {
  return interval.kind === 'calendar'
    ? new TimeUnitRounding(interval.unit, zone)
    : new TimeIntervalRounding(interval.millis, zone);
}
