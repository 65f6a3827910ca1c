/**
 * Elasticsearch 6.8's date math (JodaDateMathParser), as range queries, date
 * range aggregations and index names use it:
 *
 *   now, now-1d/d, now+1h, 2020-01-01||+1M/d, 2020-01-01 (no math)
 *
 * Units: y M w d h H m s. `/unit` rounds down, or, with `roundUp` (gt and lte
 * in range queries), up to the last millisecond of the unit. A date without
 * math is parsed onto 1970-01-01T00:00:00.000, or 23:59:59.999 when rounding
 * up, so fields the format leaves out round up too. Calendar units and rounding
 * work in `timeZone` (default UTC); hours, minutes and seconds are exact.
 */
import { elasticsearchParseException, isEsError, javaCause, parseExceptionCausedBy, type EsError } from '../../errors/es-errors.ts';
import { MILLIS_PER_DAY, MILLIS_PER_HOUR, MILLIS_PER_MINUTE, MILLIS_PER_SECOND, civilFromDays, daysFromCivil, daysInMonth, floorDiv, isoDayOfWeek } from './calendar.ts';
import { JodaDateFormatter } from './date-format.ts';
import { UTC, timeZoneOrUtc, type TimeZone } from './time-zone.ts';
import type { DateFormatter } from './types.ts';

export interface DateMathOptions {
  /** Round up (gt, lte) instead of down (gte, lt). */
  readonly roundUp: boolean;
  /** `time_zone` for parsing dates without an offset and for calendar arithmetic and rounding. */
  readonly timeZone?: string;
  /** The field's format, or the query's `format` override. */
  readonly formatter: DateFormatter;
}

/** Epoch millis of a date math expression; throws Elasticsearch's parse_exception when it cannot. */
export function parseDateMath(expr: string, nowMillis: number, opts: DateMathOptions): number {
  const zone = opts.timeZone === undefined ? null : timeZoneOrUtc(opts.timeZone);
  let time: number;
  let math: string;
  if (expr.startsWith('now')) {
    time = nowMillis;
    math = expr.slice(3);
  } else {
    const index = expr.indexOf('||');
    if (index === -1) return parseDateTime(expr, opts.formatter, zone, opts.roundUp);
    time = parseDateTime(expr.slice(0, index), opts.formatter, zone, false);
    math = expr.slice(index + 2);
  }
  return applyMath(math, time, opts.roundUp, zone ?? UTC);
}

function parseDateTime(value: string, formatter: DateFormatter, zone: TimeZone | null, roundUp: boolean): number {
  try {
    if (!(formatter instanceof JodaDateFormatter)) return formatter.parse(value, zone?.id);
    const r = formatter.parseInto(value, zone ?? UTC, roundUp);
    if (r.end < 0) throw javaCause('illegal_argument_exception', `Parse failure at index [${~r.end}] of [${value}]`);
    if (r.end !== value.length) {
      throw javaCause('illegal_argument_exception', `Unrecognized chars at the end of [${value}]: [${value.slice(r.end)}]`);
    }
    return r.millis;
  } catch (e) {
    if (!isEsError(e)) throw e;
    throw parseExceptionCausedBy(`failed to parse date field [${value}] with format [${formatter.pattern}]`, e);
  }
}

function mathError(reason: string): EsError {
  return elasticsearchParseException(reason);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Local wall-clock arithmetic on an instant in `zone`, converted back preferring the instant's own offset (Joda's ZonedDurationField). */
function inLocalTime(utc: number, zone: TimeZone, change: (local: number) => number): number {
  const offset = zone.offsetAt(utc);
  const local = change(utc + offset);
  if (zone.offsetAt(local - offset) === offset) return local - offset;
  return zone.localToUtc(local);
}

const ymd = new Int32Array(3);

function addMonths(local: number, months: number): number {
  const days = floorDiv(local, MILLIS_PER_DAY);
  const msOfDay = local - days * MILLIS_PER_DAY;
  civilFromDays(days, ymd);
  const total = ymd[0] * 12 + (ymd[1] - 1) + months;
  const y = Math.floor(total / 12);
  const m = total - y * 12 + 1;
  const d = Math.min(ymd[2], daysInMonth(y, m));
  return daysFromCivil(y, m, d) * MILLIS_PER_DAY + msOfDay;
}

function floorLocal(local: number, unit: string): number {
  const days = floorDiv(local, MILLIS_PER_DAY);
  switch (unit) {
    case 'y':
      civilFromDays(days, ymd);
      return daysFromCivil(ymd[0], 1, 1) * MILLIS_PER_DAY;
    case 'M':
      civilFromDays(days, ymd);
      return daysFromCivil(ymd[0], ymd[1], 1) * MILLIS_PER_DAY;
    case 'w':
      return (days - (isoDayOfWeek(days) - 1)) * MILLIS_PER_DAY;
    default:
      return days * MILLIS_PER_DAY;
  }
}

const TIME_UNITS: Readonly<Record<string, number>> = { h: MILLIS_PER_HOUR, H: MILLIS_PER_HOUR, m: MILLIS_PER_MINUTE, s: MILLIS_PER_SECOND };

/** Adds `n` units: calendar units in local time, time units exactly. */
function add(utc: number, unit: string, n: number, zone: TimeZone): number {
  const exact = TIME_UNITS[unit];
  if (exact !== undefined) return utc + n * exact;
  switch (unit) {
    case 'y':
      return inLocalTime(utc, zone, (l) => addMonths(l, 12 * n));
    case 'M':
      return inLocalTime(utc, zone, (l) => addMonths(l, n));
    case 'w':
      return inLocalTime(utc, zone, (l) => l + 7 * n * MILLIS_PER_DAY);
    default:
      return inLocalTime(utc, zone, (l) => l + n * MILLIS_PER_DAY);
  }
}

/** Rounds down to the start of the unit (roundFloor of the matching Joda property). */
function roundFloor(utc: number, unit: string, zone: TimeZone): number {
  const exact = TIME_UNITS[unit];
  if (exact !== undefined) {
    const offset = zone.offsetAt(utc);
    return Math.floor((utc + offset) / exact) * exact - offset;
  }
  return inLocalTime(utc, zone, (l) => floorLocal(l, unit));
}

function applyMath(math: string, start: number, roundUp: boolean, zone: TimeZone): number {
  let time = start;
  let i = 0;
  while (i < math.length) {
    const c = math[i++];
    let round = false;
    let sign = 1;
    if (c === '/') round = true;
    else if (c === '-') sign = -1;
    else if (c !== '+') throw mathError(`operator not supported for date math [${math}]`);
    if (i >= math.length) throw mathError(`truncated date math [${math}]`);
    let num = 1;
    if (isDigit(math.charCodeAt(i))) {
      const from = i;
      while (i < math.length && isDigit(math.charCodeAt(i))) i++;
      if (i >= math.length) throw mathError(`truncated date math [${math}]`);
      num = Number(math.slice(from, i));
    }
    if (round && num !== 1) throw mathError(`rounding \`/\` can only be used on single unit types [${math}]`);
    const unit = math[i++];
    if (!'yMwdhHms'.includes(unit)) throw mathError(`unit [${unit}] not supported for date math [${math}]`);
    if (!round) {
      time = add(time, unit, sign * num, zone);
    } else if (roundUp) {
      // up to the next whole unit, even when already on one, minus one millisecond
      time = roundFloor(add(time, unit, 1, zone), unit, zone) - 1;
    } else {
      time = roundFloor(time, unit, zone);
    }
  }
  return time;
}
