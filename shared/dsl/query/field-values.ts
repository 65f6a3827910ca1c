/**
 * Query values parsed with the field's type, as Elasticsearch 6.8's field
 * types do for term and range queries (NumberFieldMapper.NumberType.parse,
 * BooleanFieldMapper, DateFieldMapper.parseToMilliseconds), with the same
 * failures: Java's NumberFormatException text, "out of range" messages.
 */
import { illegalArgumentCause, numberFormatException } from '../../errors/es-errors.ts';
import type { DateFormatter, FieldMapping, NumericFieldType } from '../../engine/mapping/types.ts';
import { dateFormatter } from '../../engine/mapping/date-format.ts';
import { parseDateMath } from '../../engine/mapping/date-math.ts';
import type { DslValue } from './query-builders.ts';

/** Java's Double.parseDouble grammar (decimal forms; hex floats are not accepted here). */
const JAVA_DOUBLE = /^[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?)$/;

/** Double.parseDouble(value.toString()). */
export function javaParseDouble(value: DslValue): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  const s = String(value);
  const t = s.trim();
  if (t === '') throw numberFormatException(s === '' ? 'empty String' : `For input string: "${s}"`);
  if (!JAVA_DOUBLE.test(t)) throw numberFormatException(`For input string: "${s}"`);
  return Number(t.replace(/[fFdD]$/, ''));
}

const INTEGER_RANGES: Readonly<Partial<Record<NumericFieldType, readonly [number, number, string]>>> = {
  long: [-(2 ** 63), 2 ** 63, 'a long'],
  integer: [-2147483648, 2147483647, 'an integer'],
  short: [-32768, 32767, 'a short'],
  byte: [-128, 127, 'a byte'],
};

export function isIntegerType(type: string): boolean {
  return type === 'long' || type === 'integer' || type === 'short' || type === 'byte';
}

/**
 * A numeric query value for a field of `type`: doubles as Java parses them,
 * floats rounded to single precision, integer types range-checked (decimals
 * kept: callers decide how bounds round).
 */
export function parseNumeric(type: NumericFieldType, value: DslValue): number {
  const d = javaParseDouble(value);
  const range = INTEGER_RANGES[type];
  if (range !== undefined) {
    if (d < range[0] || d > range[1] || Number.isNaN(d)) {
      throw illegalArgumentCause(`Value [${String(value)}] is out of range for ${range[2]}`);
    }
    return d;
  }
  if (type === 'float' || type === 'half_float') return Math.fround(d);
  return d;
}

/** BooleanFieldMapper's search value: 1 or 0. */
export function parseBooleanValue(value: DslValue): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  const s = String(value);
  if (s === 'true') return 1;
  if (s === 'false') return 0;
  throw illegalArgumentCause(`Can't parse boolean value [${s}], expected [true] or [false]`);
}

export interface DateBoundOptions {
  readonly nowMillis: number;
  readonly roundUp: boolean;
  readonly timeZone: string | null;
  /** A range's `format`, overriding the field's. */
  readonly format: string | null;
}

/** A date value or date-math expression (`now-1d/d`, `2020-01-01||+1M`) in epoch millis. */
export function parseDateBound(field: FieldMapping, value: DslValue, opts: DateBoundOptions): number {
  const formatter: DateFormatter | null = opts.format !== null ? dateFormatter(opts.format) : field.dateFormat;
  if (formatter === null) throw illegalArgumentCause(`field [${field.path}] has no date format`);
  return parseDateMath(String(value), opts.nowMillis, {
    roundUp: opts.roundUp,
    formatter,
    ...(opts.timeZone !== null ? { timeZone: opts.timeZone } : {}),
  });
}
