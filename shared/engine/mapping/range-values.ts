/**
 * The range field types of Elasticsearch 6.8 (RangeFieldMapper):
 * `integer_range`, `long_range`, `float_range`, `double_range`, `date_range`
 * and `ip_range`. A value is an object of `gte`/`gt`/`lte`/`lt` (a missing
 * end is the type's minimum or maximum; an exclusive end moves one step
 * inward), or for `ip_range` also a CIDR block. Each range is kept as its two
 * ends, each end as `words` numbers: one for numbers and dates (epoch
 * millis), four 32-bit words for addresses (compared in order).
 */
import { illegalArgumentCause, mapperParsing } from '../../errors/es-errors.ts';
import type { JodaDateFormatter } from './date-format.ts';
import { bytesOfHex, cidrRange, ipHex } from './ip-address.ts';
import { toDouble, toFloat, toInteger, toLong } from './value-coercion.ts';

export type RangeFieldType = 'integer_range' | 'long_range' | 'float_range' | 'double_range' | 'date_range' | 'ip_range';

export const RANGE_TYPES: ReadonlySet<string> = new Set(['integer_range', 'long_range', 'float_range', 'double_range', 'date_range', 'ip_range']);

/** Numbers per end of a range. */
export function wordsPerEnd(type: RangeFieldType): number {
  return type === 'ip_range' ? 4 : 1;
}

const LONG_MIN = -(2 ** 63);
const LONG_MAX = 2 ** 63;

function nextUp(x: number): number {
  if (x === Infinity || Number.isNaN(x)) return x;
  if (x === 0) return Number.MIN_VALUE;
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const bits = buf.getBigInt64(0);
  buf.setBigInt64(0, x > 0 ? bits + 1n : bits - 1n);
  return buf.getFloat64(0);
}

function nextDown(x: number): number {
  return -nextUp(-x);
}

/** Math.nextUp of a float (single precision). */
function nextUpFloat(x: number): number {
  const f = new Float32Array(1);
  const i = new Int32Array(f.buffer);
  f[0] = x;
  if (x === Infinity) return x;
  if (x === 0) return 1.401298464324817e-45;
  i[0] = x > 0 ? i[0]! + 1 : i[0]! - 1;
  return f[0]!;
}

function nextDownFloat(x: number): number {
  return -nextUpFloat(-x);
}

function ipWords(hex: string): number[] {
  const b = bytesOfHex(hex);
  const out: number[] = [];
  for (let i = 0; i < 16; i += 4) out.push(((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!) >>> 0);
  return out;
}

function ipWordsStep(words: number[], up: boolean): number[] {
  const w = [...words];
  for (let i = 3; i >= 0; i--) {
    if (up ? w[i]! < 0xffffffff : w[i]! > 0) {
      w[i] = w[i]! + (up ? 1 : -1);
      return w;
    }
    w[i] = up ? 0 : 0xffffffff;
  }
  return words;
}

export interface RangeEndContext {
  readonly coerce: boolean;
  readonly formatter: JodaDateFormatter | null;
}

/** One end of a range: `value` parsed for the type, moved inward when exclusive. */
export function rangeEnd(type: RangeFieldType, value: unknown, lower: boolean, inclusive: boolean, ctx: RangeEndContext): number[] {
  switch (type) {
    case 'ip_range': {
      const w = ipWords(ipHex(String(value)));
      return inclusive ? w : ipWordsStep(w, lower);
    }
    case 'date_range': {
      const v = typeof value === 'number' ? value : (ctx.formatter as JodaDateFormatter).parseText(String(value));
      return [inclusive ? v : lower ? v + 1 : v - 1];
    }
    case 'integer_range':
    case 'long_range': {
      const v = (type === 'integer_range' ? toInteger : toLong)(value, ctx.coerce);
      if (v === null) throw illegalArgumentCause('empty String');
      return [inclusive ? v : lower ? v + 1 : v - 1];
    }
    case 'float_range': {
      const v = toFloat(value, ctx.coerce);
      if (v === null) throw illegalArgumentCause('empty String');
      return [inclusive ? v : lower ? nextUpFloat(v) : nextDownFloat(v)];
    }
    case 'double_range': {
      const v = toDouble(value, ctx.coerce);
      if (v === null) throw illegalArgumentCause('empty String');
      return [inclusive ? v : lower ? nextUp(v) : nextDown(v)];
    }
  }
}

/** RangeType.minValue / maxValue. */
export function rangeLimit(type: RangeFieldType, lower: boolean): number[] {
  switch (type) {
    case 'ip_range':
      return lower ? [0, 0, 0, 0] : [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff];
    case 'integer_range':
      return [lower ? -2147483648 : 2147483647];
    case 'long_range':
    case 'date_range':
      return [lower ? LONG_MIN : LONG_MAX];
    case 'float_range':
    case 'double_range':
      return [lower ? -Infinity : Infinity];
  }
}

/** Compares two ends of `words` numbers each. */
export function compareEnds(a: ArrayLike<number>, ai: number, b: ArrayLike<number>, bi: number, words: number): number {
  for (let k = 0; k < words; k++) {
    const d = a[ai + k]! - b[bi + k]!;
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The ranges of a document's value, flattened as [lower words..., upper words...]
 * per range: an object of gte/gt/lte/lt, an array of those, or (ip_range) a CIDR block.
 */
export function parseRangeValues(type: RangeFieldType, raw: unknown, field: string, ctx: RangeEndContext): number[] {
  if (Array.isArray(raw)) return raw.flatMap((r) => (r === null ? [] : parseRangeValues(type, r, field, ctx)));
  const words = wordsPerEnd(type);
  let lo: number[];
  let hi: number[];
  if (type === 'ip_range' && typeof raw === 'string') {
    const [a, b] = cidrRange(raw);
    lo = ipWords(a);
    hi = ipWords(b);
  } else if (raw !== null && typeof raw === 'object') {
    lo = rangeLimit(type, true);
    hi = rangeLimit(type, false);
    for (const key of Object.keys(raw)) {
      const v = (raw as Record<string, unknown>)[key];
      switch (key) {
        case 'gt':
        case 'gte':
          if (v !== null) lo = rangeEnd(type, v, true, key === 'gte', ctx);
          break;
        case 'lt':
        case 'lte':
          if (v !== null) hi = rangeEnd(type, v, false, key === 'lte', ctx);
          break;
        default:
          throw mapperParsing(`error parsing field [${field}], with unknown parameter [${key}]`);
      }
    }
  } else {
    throw mapperParsing(`error parsing field [${field}], expected an object but got ${field}`);
  }
  if (compareEnds(lo, 0, hi, 0, words) > 0) {
    throw illegalArgumentCause(`min value (${lo.join(',')}) is greater than max value (${hi.join(',')})`);
  }
  return [...lo, ...hi];
}
