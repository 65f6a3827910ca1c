/**
 * Prints epoch milliseconds with date steps as Joda-Time's printers do
 * (`key_as_string`, `docvalue_fields`, `_source` of dates shown back):
 * zero-padded numbers, fractions trimmed to their minimum digits, offsets as
 * `Z` / `+08:00` / `+0800`.
 */
import {
  MILLIS_PER_DAY,
  MILLIS_PER_HOUR,
  MILLIS_PER_MINUTE,
  MILLIS_PER_SECOND,
  civilFromDays,
  daysFromCivil,
  floorDiv,
  isoDayOfWeek,
  weekyearOf,
  weekyearStart,
} from './calendar.ts';
import {
  DAY_NAMES,
  MONTH_NAMES,
  F_CLOCKHOUR_OF_DAY,
  F_CLOCKHOUR_OF_HALFDAY,
  F_DAY,
  F_DAY_OF_WEEK,
  F_DAY_OF_YEAR,
  F_ERA,
  F_FRACTION_OF_HOUR,
  F_FRACTION_OF_MINUTE,
  F_HALFDAY,
  F_HOUR,
  F_HOUR_OF_HALFDAY,
  F_MINUTE,
  F_MONTH,
  F_SECOND,
  F_WEEK,
  F_WEEKYEAR,
  F_YEAR,
  OP_ALTERNATIVES,
  OP_EPOCH,
  OP_FRACTION,
  OP_LITERAL,
  OP_NUMBER,
  OP_OFFSET,
  OP_TEXT,
  OP_TWO_DIGIT_YEAR,
  OP_ZONE_ID,
  type DateStep,
  type Steps,
} from './date-steps.ts';
import type { TimeZone } from './time-zone.ts';

/** FormatUtils.appendPaddedInteger. */
function padded(value: number, size: number): string {
  const negative = value < 0;
  let s = String(Math.abs(value));
  while (s.length < size) s = '0' + s;
  return negative ? '-' + s : s;
}

interface LocalFields {
  y: number;
  m: number;
  d: number;
  days: number;
  msOfDay: number;
}

function fieldValue(field: number, f: LocalFields): number {
  const hour = Math.floor(f.msOfDay / MILLIS_PER_HOUR);
  switch (field) {
    case F_YEAR:
      return f.y;
    case F_WEEKYEAR:
      return weekyearOf(f.days);
    case F_MONTH:
      return f.m;
    case F_WEEK: {
      const wy = weekyearOf(f.days);
      return Math.floor((f.days - weekyearStart(wy)) / 7) + 1;
    }
    case F_DAY_OF_YEAR:
      return f.days - daysFromCivil(f.y, 1, 1) + 1;
    case F_DAY:
      return f.d;
    case F_DAY_OF_WEEK:
      return isoDayOfWeek(f.days);
    case F_HALFDAY:
      return hour >= 12 ? 1 : 0;
    case F_HOUR:
      return hour;
    case F_CLOCKHOUR_OF_DAY:
      return hour === 0 ? 24 : hour;
    case F_HOUR_OF_HALFDAY:
      return hour % 12;
    case F_CLOCKHOUR_OF_HALFDAY:
      return hour % 12 === 0 ? 12 : hour % 12;
    case F_MINUTE:
      return Math.floor((f.msOfDay % MILLIS_PER_HOUR) / MILLIS_PER_MINUTE);
    case F_SECOND:
      return Math.floor((f.msOfDay % MILLIS_PER_MINUTE) / MILLIS_PER_SECOND);
    case F_ERA:
      return f.y > 0 ? 1 : 0;
    default:
      return 0;
  }
}

/** Fraction.printTo: the fraction of the unit with up to maxDigits digits, trailing zeros trimmed down to minDigits. */
function printFraction(step: DateStep, f: LocalFields): string {
  const unit = step.field === F_FRACTION_OF_HOUR ? MILLIS_PER_HOUR : step.field === F_FRACTION_OF_MINUTE ? MILLIS_PER_MINUTE : MILLIS_PER_SECOND;
  const fraction = f.msOfDay % unit;
  let minDigits = step.minDigits;
  if (fraction === 0) return '0'.repeat(Math.max(minDigits, 0));
  let maxDigits = step.maxDigits;
  // Joda scales down when unit * 10^maxDigits would overflow a long.
  while (maxDigits > 0 && unit * 10 ** maxDigits > Number.MAX_SAFE_INTEGER * 1024) maxDigits--;
  const str = String(Math.floor((fraction * 10 ** maxDigits) / unit));
  let out = '';
  let length = str.length;
  let digits = maxDigits;
  while (length < digits) {
    out += '0';
    minDigits--;
    digits--;
  }
  if (minDigits < digits) {
    while (minDigits < digits) {
      if (length <= 1 || str[length - 1] !== '0') break;
      digits--;
      length--;
    }
    if (length < str.length) return out + str.slice(0, length);
  }
  return out + str;
}

/** TimeZoneOffset.printTo. */
function printOffset(step: DateStep, offset: number): string {
  if (offset === 0 && step.zeroPrint !== null) return step.zeroPrint;
  let out = offset >= 0 ? '+' : '-';
  let rest = Math.abs(offset);
  const hours = Math.floor(rest / MILLIS_PER_HOUR);
  out += padded(hours, 2);
  if (step.maxFields === 1) return out;
  rest -= hours * MILLIS_PER_HOUR;
  if (rest === 0 && step.minFields <= 1) return out;
  const minutes = Math.floor(rest / MILLIS_PER_MINUTE);
  if (step.separators) out += ':';
  out += padded(minutes, 2);
  if (step.maxFields === 2) return out;
  rest -= minutes * MILLIS_PER_MINUTE;
  if (rest === 0 && step.minFields <= 2) return out;
  const seconds = Math.floor(rest / MILLIS_PER_SECOND);
  if (step.separators) out += ':';
  out += padded(seconds, 2);
  if (step.maxFields === 3) return out;
  rest -= seconds * MILLIS_PER_SECOND;
  if (rest === 0 && step.minFields <= 3) return out;
  if (step.separators) out += '.';
  return out + padded(rest, 3);
}

function printText(step: DateStep, f: LocalFields): string {
  const value = fieldValue(step.field, f);
  const long = step.text === 'long';
  switch (step.field) {
    case F_MONTH:
      return (long ? MONTH_NAMES.long : MONTH_NAMES.short)[value - 1];
    case F_DAY_OF_WEEK:
      return (long ? DAY_NAMES.long : DAY_NAMES.short)[value - 1];
    case F_HALFDAY:
      return value === 1 ? 'PM' : 'AM';
    default:
      return value === 1 ? 'AD' : 'BC';
  }
}

function printSteps(steps: Steps, utcMillis: number, offset: number, zone: TimeZone, f: LocalFields): string {
  let out = '';
  for (const step of steps) {
    switch (step.op) {
      case OP_NUMBER:
        out += padded(fieldValue(step.field, f), step.minDigits);
        break;
      case OP_TWO_DIGIT_YEAR:
        out += padded(((f.y % 100) + 100) % 100, 2);
        break;
      case OP_FRACTION:
        out += printFraction(step, f);
        break;
      case OP_LITERAL:
        out += step.text;
        break;
      case OP_TEXT:
        out += printText(step, f);
        break;
      case OP_OFFSET:
        out += printOffset(step, offset);
        break;
      case OP_ZONE_ID:
        out += zone.id;
        break;
      case OP_EPOCH:
        out += String(step.millis ? utcMillis : Math.trunc(utcMillis / 1000) + 0);
        break;
      case OP_ALTERNATIVES: {
        const first = step.alternatives?.find((a) => a !== null);
        if (first) out += printSteps(first, utcMillis, offset, zone, f);
        break;
      }
    }
  }
  return out;
}

const civil = new Int32Array(3);

export function printDate(steps: Steps, utcMillis: number, zone: TimeZone): string {
  const offset = zone.offsetAt(utcMillis);
  const local = utcMillis + offset;
  const days = floorDiv(local, MILLIS_PER_DAY);
  civilFromDays(days, civil);
  const f: LocalFields = { y: civil[0], m: civil[1], d: civil[2], days, msOfDay: local - days * MILLIS_PER_DAY };
  return printSteps(steps, utcMillis, offset, zone, f);
}
