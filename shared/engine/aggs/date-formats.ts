/**
 * Date formatters by pattern for the aggregations (key_as_string,
 * value_as_string, parsing bounds, ranges and `missing`).
 *
 * Interim: until the mapping's `date-format.ts` lands, this prints and parses
 * the default `strict_date_optional_time||epoch_millis` family and
 * `epoch_millis`; it will delegate to `dateFormatter(pattern)`.
 */
import { illegalArgument } from '../../errors/es-errors.ts';
import type { DateFormatter } from '../mapping/types.ts';
import { timeZone } from './time-zone.ts';

/** Elasticsearch 6.8's default date format. */
export const DEFAULT_DATE_FORMAT = 'strict_date_optional_time||epoch_millis';

const cache = new Map<string, DateFormatter>();

function pad(n: number, w: number): string {
  return String(n).padStart(w, '0');
}

function offsetString(off: number): string {
  if (off === 0) return 'Z';
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off) / 60000;
  return `${sign}${pad(Math.floor(a / 60), 2)}:${pad(a % 60, 2)}`;
}

function printIso(ms: number, tz: string | undefined): string {
  const zone = timeZone(tz ?? null);
  const off = zone.offsetAt(ms);
  const d = new Date(ms + off);
  const y = d.getUTCFullYear();
  const year = y < 0 ? `-${pad(-y, 4)}` : pad(y, 4);
  return `${year}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${pad(d.getUTCMilliseconds(), 3)}${offsetString(off)}`;
}

const ISO = /^(-?\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?:T(\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

function parseIso(value: string, tz: string | undefined): number | null {
  const m = ISO.exec(value);
  if (!m) return null;
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  const d = new Date(0);
  d.setUTCFullYear(Number(m[1]), m[2] === undefined ? 0 : Number(m[2]) - 1, m[3] === undefined ? 1 : Number(m[3]));
  d.setUTCHours(m[4] === undefined ? 0 : Number(m[4]), m[5] === undefined ? 0 : Number(m[5]), m[6] === undefined ? 0 : Number(m[6]), ms);
  const local = d.getTime();
  const zone = timeZone(m[8] === undefined ? (tz ?? null) : m[8] === 'Z' ? 'UTC' : m[8]);
  return zone.localToUtc(local);
}

function build(pattern: string): DateFormatter {
  const alternatives = pattern.split('||');
  const first = alternatives[0]!;
  return {
    pattern,
    parse(value: string | number, tz?: string): number {
      if (typeof value === 'number') return value;
      for (const alt of alternatives) {
        if (alt === 'epoch_millis' && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
        if (alt === 'epoch_second' && /^-?\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
        if (alt !== 'epoch_millis' && alt !== 'epoch_second') {
          const parsed = parseIso(value, tz);
          if (parsed !== null) return parsed;
        }
      }
      throw illegalArgument(`failed to parse date field [${value}] with format [${pattern}]`);
    },
    format(epochMillis: number, tz?: string): string {
      if (first === 'epoch_millis') return String(epochMillis);
      if (first === 'epoch_second') return String(Math.floor(epochMillis / 1000));
      return printIso(epochMillis, tz);
    },
  };
}

export function dateFormatterFor(pattern: string): DateFormatter {
  let f = cache.get(pattern);
  if (!f) {
    f = build(pattern);
    cache.set(pattern, f);
  }
  return f;
}

const MATH_UNITS: Readonly<Record<string, import('./spec.ts').CalendarUnit>> = {
  y: 'year',
  M: 'month',
  w: 'week',
  d: 'day',
  h: 'hour',
  H: 'hour',
  m: 'minute',
  s: 'second',
};

/**
 * A date value as range bounds and extended_bounds take it: epoch millis, a
 * date in the field's format, or date math (`now-1d/d`, `2015-01-01||+1M`),
 * rounding down (Elasticsearch parses aggregation bounds with roundUp=false).
 */
export function resolveDateValue(value: string | number, formatter: DateFormatter, tz: string | null, nowMillis: number): number {
  if (typeof value === 'number') return value;
  let base: number;
  let math: string;
  if (value.startsWith('now')) {
    base = nowMillis;
    math = value.slice(3);
  } else {
    const at = value.indexOf('||');
    if (at < 0) return formatter.parse(value, tz ?? undefined);
    base = formatter.parse(value.slice(0, at), tz ?? undefined);
    math = value.slice(at + 2);
  }
  const zone = timeZone(tz);
  let local = base + zone.offsetAt(base);
  let i = 0;
  while (i < math.length) {
    const op = math[i]!;
    if (op === '/') {
      const unit = MATH_UNITS[math[i + 1] ?? ''];
      if (!unit) throw illegalArgument(`operator not supported for date math [${value}]`);
      local = floorToUnit(local, unit);
      i += 2;
    } else if (op === '+' || op === '-') {
      const m = /^(\d*)([yMwdhHms])/.exec(math.slice(i + 1));
      if (!m) throw illegalArgument(`operator not supported for date math [${value}]`);
      const n = (m[1] === '' ? 1 : Number(m[1])) * (op === '-' ? -1 : 1);
      local = addUnits(local, MATH_UNITS[m[2]!]!, n);
      i += 1 + m[0].length;
    } else {
      throw illegalArgument(`operator not supported for date math [${value}]`);
    }
  }
  return zone.localToUtc(local);
}

function floorToUnit(local: number, unit: import('./spec.ts').CalendarUnit): number {
  const d = new Date(local);
  switch (unit) {
    case 'year':
      return Date.UTC(d.getUTCFullYear(), 0, 1);
    case 'quarter':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - (d.getUTCMonth() % 3), 1);
    case 'month':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    case 'week': {
      const day = Math.floor(local / 86400000);
      return (day - (((day + 3) % 7) + 7) % 7) * 86400000;
    }
    case 'day':
      return Math.floor(local / 86400000) * 86400000;
    case 'hour':
      return Math.floor(local / 3600000) * 3600000;
    case 'minute':
      return Math.floor(local / 60000) * 60000;
    case 'second':
      return Math.floor(local / 1000) * 1000;
  }
}

function addUnits(local: number, unit: import('./spec.ts').CalendarUnit, n: number): number {
  const d = new Date(local);
  switch (unit) {
    case 'year':
      d.setUTCFullYear(d.getUTCFullYear() + n);
      return d.getTime();
    case 'quarter':
    case 'month':
      d.setUTCMonth(d.getUTCMonth() + (unit === 'quarter' ? 3 * n : n));
      return d.getTime();
    case 'week':
      return local + n * 7 * 86400000;
    case 'day':
      return local + n * 86400000;
    case 'hour':
      return local + n * 3600000;
    case 'minute':
      return local + n * 60000;
    case 'second':
      return local + n * 1000;
  }
}
