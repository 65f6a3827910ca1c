/**
 * Elasticsearch 6.8's time values (`TimeValue.parseTimeValue`): `500ms`, `1s`,
 * `1m`, `2h`, `1d`, `10micros`, `100nanos`, and the unit-less `-1` and `0`.
 * Units are case-insensitive except `m` (minutes), because `M` would read as
 * months. Errors are Elasticsearch's IllegalArgumentExceptions, word for word.
 */
import { javaCause, javaCauseChain, numberFormatException, type EsError } from '../../errors/es-errors.ts';

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

/** Elasticsearch's TimeValue.toString: `850ms`, `1.2s`, `2.5m`, `1h`. */
export function formatTimeValue(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'm'],
    [1000, 's'],
  ];
  for (const [size, suffix] of units) {
    if (ms >= size) {
      const v = ms / size;
      return `${Number.isInteger(Math.round(v * 10) / 10) ? Math.round(v) : (Math.round(v * 10) / 10).toFixed(1)}${suffix}`;
    }
  }
  return `${Math.max(0, Math.round(ms))}ms`;
}
