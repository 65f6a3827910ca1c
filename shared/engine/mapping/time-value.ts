/**
 * Elasticsearch 6.8's time values (`TimeValue.parseTimeValue`): `500ms`, `1s`,
 * `1m`, `2h`, `1d`, `10micros`, `100nanos`, and the unit-less `-1` and `0`.
 * Units are case-insensitive except `m` (minutes), because `M` would read as
 * months. Errors are Elasticsearch's IllegalArgumentExceptions, word for word.
 */
import { javaCause, javaCauseChain, numberFormatException, type EsError } from '../../errors/es-errors.ts';
import { format1Decimals } from './byte-size-value.ts';

const NANOS_PER_MILLI = 1_000_000;
const MICROS_PER_MILLI = 1_000;

interface Unit {
  readonly suffix: string;
  /** Milliseconds per unit; sub-millisecond units divide instead. */
  readonly millis: number;
  readonly divisor: number;
}

const UNITS_BY_SUFFIX: readonly Unit[] = [
  { suffix: 'nanos', millis: 1, divisor: NANOS_PER_MILLI },
  { suffix: 'micros', millis: 1, divisor: MICROS_PER_MILLI },
  { suffix: 'ms', millis: 1, divisor: 1 },
  { suffix: 's', millis: 1000, divisor: 1 },
  { suffix: 'm', millis: 60_000, divisor: 1 },
  { suffix: 'h', millis: 3_600_000, divisor: 1 },
  { suffix: 'd', millis: 86_400_000, divisor: 1 },
];

function unitOf(raw: string, normalized: string): Unit | null {
  for (const u of UNITS_BY_SUFFIX) {
    // Minutes are matched on the raw text: `1M` is not a time value.
    const text = u.suffix === 'm' ? raw : normalized;
    if (text.endsWith(u.suffix)) return u;
  }
  return null;
}

/** Java's Long.parseLong: optional sign, decimal digits only. */
function parseJavaLong(s: string): number | null {
  let i = 0;
  if (s.length > 0 && (s[0] === '-' || s[0] === '+')) i = 1;
  if (i === s.length) return null;
  for (let j = i; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c < 48 || c > 57) return null;
  }
  return Number(s);
}

function isJavaDouble(s: string): boolean {
  return /^[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?)$/.test(s.trim());
}

/**
 * Milliseconds for a time value (`-1` for `-1`, which Elasticsearch uses to
 * mean "disabled"). `settingName` names the setting in the error messages.
 */
export function parseTimeValue(value: string | number, settingName: string): number {
  const raw = String(value);
  const normalized = raw.toLowerCase().trim();
  const unit = unitOf(raw, normalized);
  if (unit === null) {
    if (/^-0*1$/.test(normalized)) return -1;
    if (/^0+$/.test(normalized)) return 0;
    throw timeValueError(
      `failed to parse setting [${settingName}] with value [${raw}] as a time value: unit is missing or unrecognized`,
    );
  }
  const number = normalized.slice(0, normalized.length - unit.suffix.length).trim();
  const n = parseJavaLong(number);
  if (n === null) {
    const cause = numberFormatException(`For input string: "${number}"`);
    if (isJavaDouble(number)) {
      throw javaCauseChain('illegal_argument_exception', `failed to parse [${raw}], fractional time values are not supported`, cause);
    }
    throw javaCauseChain('illegal_argument_exception', `failed to parse [${raw}]`, cause);
  }
  if (n < -1) {
    throw timeValueError(
      `failed to parse setting [${settingName}] with value [${raw}] as a time value: negative durations are not supported`,
    );
  }
  return unit.divisor === 1 ? n * unit.millis : Math.trunc(n / unit.divisor);
}

function timeValueError(reason: string): EsError {
  return javaCause('illegal_argument_exception', reason);
}

const TIME_UNITS_NANOS: readonly (readonly [suffix: string, nanos: number])[] = [
  ['d', 86_400e9],
  ['h', 3_600e9],
  ['m', 60e9],
  ['s', 1e9],
  ['ms', 1e6],
  ['micros', 1e3],
];

/** TimeValue.toString of a duration in milliseconds: `0s`, `850ms`, `1.2s`, `2.5m`, `1h`; negative durations as the number. */
export function formatTimeValue(ms: number): string {
  if (ms < 0) return String(Math.trunc(ms));
  const nanos = Math.round(ms * 1e6);
  if (nanos === 0) return '0s';
  for (const [suffix, size] of TIME_UNITS_NANOS) if (nanos >= size) return format1Decimals(nanos / size, suffix);
  return format1Decimals(nanos, 'nanos');
}

/** A duration in one unit as `time=` asks for it (`d`, `h`, `m`, `s`, `ms`, `micros`, `nanos`): whole units, truncated; null for an unknown unit. */
export function timeValueIn(ms: number, unit: string): number | null {
  const nanos = Math.round(ms * 1e6);
  if (unit === 'nanos') return nanos;
  const u = TIME_UNITS_NANOS.find(([suffix]) => suffix === unit);
  return u === undefined ? null : Math.trunc(nanos / u[1]);
}
