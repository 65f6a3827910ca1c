/**
 * Turning a JSON value into a field's value as Elasticsearch 6.8's field
 * mappers do (NumberFieldMapper, BooleanFieldMapper, IpFieldMapper, ...):
 * numbers coerce from strings and truncate decimals, each numeric type checks
 * its range, booleans take only true/false. Failures throw the Java exception
 * Elasticsearch raises (it becomes the cause of "failed to parse field ...").
 *
 * A value of `null` from these functions means "treat as null" (Elasticsearch
 * reads an empty string as null for numbers when coercing).
 */
import { javaCause, numberFormatException, type EsError } from '../../errors/es-errors.ts';

function iae(reason: string): EsError {
  return javaCause('illegal_argument_exception', reason);
}

/** Java's Double.toString, for the numbers Elasticsearch puts in messages. */
export function javaDoubleString(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(v);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(v);
    return s.includes('.') ? s : s + '.0';
  }
  const [mantissa, exp] = v.toExponential().split('e');
  const m = mantissa.includes('.') ? mantissa : mantissa + '.0';
  return `${m}E${exp.startsWith('+') ? exp.slice(1) : exp}`;
}

/** Java's Double.parseDouble (and Float.parseFloat's grammar): null when it would throw. */
export function javaParseDouble(text: string): number | null {
  // FloatingDecimal trims ASCII control characters and spaces
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 32) start++;
  while (end > start && text.charCodeAt(end - 1) <= 32) end--;
  const s = text.slice(start, end);
  if (s.length === 0) return null;
  const m = /^([+-]?)(?:(NaN)|(Infinity)|((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[fFdD]?|(0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+)[fFdD]?)$/.exec(s);
  if (m === null) return null;
  const negative = m[1] === '-';
  let v: number;
  if (m[2] !== undefined) return NaN;
  if (m[3] !== undefined) v = Infinity;
  else if (m[4] !== undefined) v = Number(m[4]);
  else v = parseHexFloat(m[5]);
  return negative ? -v : v;
}

function parseHexFloat(s: string): number {
  const p = s.search(/[pP]/);
  const [intPart, fracPart = ''] = s.slice(2, p).split('.');
  const mantissa = parseInt(intPart === '' ? '0' : intPart, 16) + (fracPart === '' ? 0 : parseInt(fracPart, 16) / 16 ** fracPart.length);
  return mantissa * 2 ** Number(s.slice(p + 1));
}

function trimmedForMessage(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 32) start++;
  while (end > start && text.charCodeAt(end - 1) <= 32) end--;
  return text.slice(start, end);
}

/** Double.parseDouble, throwing Java's NumberFormatException. */
function parseDoubleOrThrow(text: string): number {
  const v = javaParseDouble(text);
  if (v === null) {
    const t = trimmedForMessage(text);
    throw numberFormatException(t.length === 0 ? 'empty String' : `For input string: "${t}"`);
  }
  return v;
}

/**
 * Java's Long range. As a double, Long.MAX_VALUE reads as 2^63, so 2^63 is
 * accepted (and the few larger integers that round to it with it).
 */
const LONG_MAX = 2 ** 63;
const LONG_MIN = -(2 ** 63);

/**
 * Whether text is a decimal number as BigDecimal reads it (`[+-]digits[.digits][e[+-]digits]`,
 * at least one digit before the exponent): 'integer' when only digits follow
 * the sign. A scan, one step per character: the regular expression it
 * replaces took quadratic time on a long run of digits.
 */
function decimalShape(text: string): 'integer' | 'decimal' | null {
  let i = 0;
  const n = text.length;
  const digits = (): number => {
    const from = i;
    while (i < n && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
    return i - from;
  };
  if (text[i] === '+' || text[i] === '-') i++;
  const whole = digits();
  if (i === n) return whole > 0 ? 'integer' : null;
  let fraction = 0;
  if (text[i] === '.') {
    i++;
    fraction = digits();
  }
  if (whole + fraction === 0) return null;
  if (text[i] === 'e' || text[i] === 'E') {
    i++;
    if (text[i] === '+' || text[i] === '-') i++;
    if (digits() === 0) return null;
  }
  return i === n ? 'decimal' : null;
}

/** AbstractXContentParser.toLong: Long.parseLong, else BigDecimal with range and decimal checks. */
function stringToLong(text: string, coerce: boolean): number {
  const shape = decimalShape(text);
  if (shape === 'integer') {
    const v = Number(text);
    if (v <= LONG_MAX && v >= LONG_MIN) return v;
  }
  if (shape === null) throw iae(`For input string: "${text}"`);
  const v = Number(text);
  if (v > LONG_MAX || v < LONG_MIN) throw iae(`Value [${text}] is out of range for a long`);
  if (!coerce && v % 1 !== 0) throw iae(`Value [${text}] has a decimal part`);
  return Math.trunc(v) + 0;
}

function coerceString(coerce: boolean, javaClass: string): void {
  if (!coerce) throw iae(`${javaClass} value passed as String`);
}

/** AbstractXContentParser.ensureNumberConversion (coerce: false refuses truncation). */
function ensureNoDataLoss(coerce: boolean, value: number, result: number, javaClass: string): void {
  if (!coerce && result !== value) throw iae(`${javaDoubleString(value)} cannot be converted to ${javaClass} without data loss`);
}

function jsonIntegerOutOfRange(value: number, javaType: string): EsError {
  return javaCause('json_parse_exception', `Numeric value (${javaDoubleString(value).replace(/\.0$/, '')}) out of range of ${javaType}`);
}

function notNumeric(value: unknown): EsError {
  const token = Array.isArray(value) ? 'START_ARRAY' : typeof value === 'object' ? 'START_OBJECT' : 'VALUE_BOOLEAN';
  return javaCause('json_parse_exception', `Current token (${token}) not numeric, can not use numeric value accessors`);
}

export type Coerced = number | null;

/** `long`. */
export function toLong(value: unknown, coerce: boolean): Coerced {
  if (typeof value === 'number') {
    if (value > LONG_MAX || value < LONG_MIN) throw jsonIntegerOutOfRange(value, 'long');
    const r = Math.trunc(value) + 0;
    ensureNoDataLoss(coerce, value, r, 'Long');
    return r;
  }
  if (typeof value === 'string') {
    if (coerce && value.length === 0) return null;
    coerceString(coerce, 'Long');
    return stringToLong(value, coerce);
  }
  throw notNumeric(value);
}

function stringToIntegral(text: string, min: number, max: number, name: string): number {
  const d = parseDoubleOrThrow(text);
  if (d < min || d > max) throw iae(`Value [${text}] is out of range for ${name}`);
  return Math.trunc(d) + 0;
}

/** `integer`. */
export function toInteger(value: unknown, coerce: boolean): Coerced {
  if (typeof value === 'number') {
    if (value > 2147483647 || value < -2147483648) throw jsonIntegerOutOfRange(value, 'int');
    const r = Math.trunc(value) + 0;
    ensureNoDataLoss(coerce, value, r, 'Integer');
    return r;
  }
  if (typeof value === 'string') {
    if (coerce && value.length === 0) return null;
    coerceString(coerce, 'Integer');
    return stringToIntegral(value, -2147483648, 2147483647, 'an integer');
  }
  throw notNumeric(value);
}

/** `short`. */
export function toShort(value: unknown, coerce: boolean): Coerced {
  if (typeof value === 'number') {
    if (value > 32767 || value < -32768) throw jsonIntegerOutOfRange(value, 'Java short');
    const r = Math.trunc(value) + 0;
    ensureNoDataLoss(coerce, value, r, 'Short');
    return r;
  }
  if (typeof value === 'string') {
    if (coerce && value.length === 0) return null;
    coerceString(coerce, 'Short');
    return stringToIntegral(value, -32768, 32767, 'a short');
  }
  throw notNumeric(value);
}

/** `byte`: read as an integer, then range-checked. */
export function toByte(value: unknown, coerce: boolean): Coerced {
  const v = toInteger(value, coerce);
  if (v !== null && (v < -128 || v > 127)) throw iae(`Value [${v}] is out of range for a byte`);
  return v;
}

function finite(type: string, v: number): number {
  if (!Number.isFinite(v)) throw iae(`[${type}] supports only finite values, but got [${javaDoubleString(v)}]`);
  return v;
}

/** `double`. */
export function toDouble(value: unknown, coerce: boolean): Coerced {
  if (typeof value === 'number') return finite('double', value);
  if (typeof value === 'string') {
    if (coerce && value.length === 0) return null;
    coerceString(coerce, 'Double');
    return finite('double', parseDoubleOrThrow(value));
  }
  throw notNumeric(value);
}

/** `float`: rounded to single precision, as the doc value will hold it. */
export function toFloat(value: unknown, coerce: boolean): Coerced {
  if (typeof value === 'number') return finite('float', Math.fround(value));
  if (typeof value === 'string') {
    if (coerce && value.length === 0) return null;
    coerceString(coerce, 'Float');
    return finite('float', Math.fround(parseDoubleOrThrow(value)));
  }
  throw notNumeric(value);
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Rounds a float to the nearest IEEE half-precision value (round half to even), as Lucene's HalfFloatPoint stores it. */
export function roundToHalfFloat(v: number): number {
  f32[0] = v;
  const bits = u32[0];
  const sign = bits >>> 31 ? -1 : 1;
  const abs = Math.abs(f32[0]);
  if (Number.isNaN(abs)) return NaN;
  if (abs >= 65520) return sign * Infinity; // rounds past the largest half (65504)
  if (abs < 2 ** -24 / 2) return sign * 0;
  const exp = Math.max(Math.floor(Math.log2(abs)), -14);
  const ulp = 2 ** (exp - 10);
  const q = abs / ulp;
  let r = Math.floor(q);
  const diff = q - r;
  if (diff > 0.5 || (diff === 0.5 && r % 2 === 1)) r++;
  return sign * r * ulp;
}

/** `half_float`. */
export function toHalfFloat(value: unknown, coerce: boolean): Coerced {
  let v: number;
  if (typeof value === 'number') v = Math.fround(value);
  else if (typeof value === 'string') {
    if (coerce && value.length === 0) return null;
    coerceString(coerce, 'Float');
    v = Math.fround(parseDoubleOrThrow(value));
  } else throw notNumeric(value);
  if (!Number.isFinite(roundToHalfFloat(v))) throw iae(`[half_float] supports only finite values, but got [${javaDoubleString(v)}]`);
  return roundToHalfFloat(v);
}

/** `scaled_float`: the value as its doc value reads back (round(v * factor) / factor). */
export function toScaledFloat(value: unknown, coerce: boolean, factor: number): Coerced {
  let v: number;
  if (typeof value === 'number') v = value;
  else if (typeof value === 'string') {
    if (coerce && value.length === 0) return null;
    coerceString(coerce, 'Double');
    v = parseDoubleOrThrow(value);
  } else throw notNumeric(value);
  if (!Number.isFinite(v)) throw iae(`[scaled_float] only supports finite values, but got [${javaDoubleString(v)}]`);
  return Math.round(v * factor) / factor;
}

/** `boolean`: true/false, "true"/"false", and "" as false (6.x strict booleans). */
export function toBoolean(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    if (value === 'true') return true;
    if (value === 'false' || value.length === 0) return false;
    throw iae(`Failed to parse value [${value}] as only [true] or [false] are allowed.`);
  }
  if (typeof value === 'number') {
    const token = Number.isInteger(value) ? 'VALUE_NUMBER_INT' : 'VALUE_NUMBER_FLOAT';
    throw javaCause('json_parse_exception', `Current token (${token}) not of boolean type`);
  }
  const token = Array.isArray(value) ? 'START_ARRAY' : 'START_OBJECT';
  throw javaCause('json_parse_exception', `Current token (${token}) not of boolean type`);
}

/** The text of a scalar for string fields (numbers and booleans as their JSON text). */
export function toText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw javaCause('illegal_state_exception', `Can't get text on a ${Array.isArray(value) ? 'START_ARRAY' : 'START_OBJECT'}`);
}

// ---- IP addresses (InetAddresses.forString / toAddrString) -----------------------------

function notAnIp(text: string): EsError {
  return iae(`'${text}' is not an IP string literal.`);
}

function parseV4(text: string, out: number[], at: number): boolean {
  const parts = text.split('.');
  if (parts.length !== 4) return false;
  for (let i = 0; i < 4; i++) {
    const p = parts[i];
    if (p.length === 0 || p.length > 3 || !/^\d+$/.test(p)) return false;
    const v = Number(p);
    if (v > 255 || (p.length > 1 && p[0] === '0')) return false;
    out[at + i] = v;
  }
  return true;
}

/** 16 bytes of an IPv6 address, or null. */
function parseV6(text: string): number[] | null {
  let s = text;
  const bytes = new Array<number>(16).fill(0);
  let tailV4: number[] | null = null;
  const lastColon = s.lastIndexOf(':');
  if (s.includes('.')) {
    tailV4 = [0, 0, 0, 0];
    if (!parseV4(s.slice(lastColon + 1), tailV4, 0)) return null;
    s = s.slice(0, lastColon + 1) + '0:0';
  }
  const doubleColon = s.indexOf('::');
  if (doubleColon !== -1 && s.indexOf('::', doubleColon + 1) !== -1) return null;
  const groups: number[] = [];
  const parseGroups = (part: string): boolean => {
    if (part.length === 0) return true;
    for (const g of part.split(':')) {
      if (g.length === 0 || g.length > 4 || !/^[0-9a-fA-F]+$/.test(g)) return false;
      groups.push(parseInt(g, 16));
    }
    return true;
  };
  if (doubleColon === -1) {
    if (!parseGroups(s) || groups.length !== 8) return null;
  } else {
    const head: number[] = [];
    if (!parseGroups(s.slice(0, doubleColon))) return null;
    head.push(...groups.splice(0));
    if (!parseGroups(s.slice(doubleColon + 2))) return null;
    const tail = groups.splice(0);
    if (head.length + tail.length > 7) return null;
    groups.push(...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail);
  }
  for (let i = 0; i < 8; i++) {
    bytes[2 * i] = groups[i] >> 8;
    bytes[2 * i + 1] = groups[i] & 0xff;
  }
  if (tailV4 !== null) for (let i = 0; i < 4; i++) bytes[12 + i] = tailV4[i];
  return bytes;
}

function formatV6(bytes: readonly number[]): string {
  const groups: number[] = [];
  for (let i = 0; i < 8; i++) groups.push((bytes[2 * i] << 8) | bytes[2 * i + 1]);
  // RFC 5952: compress the longest run (at least two) of zero groups, the first on a tie
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestStart === -1) return groups.map((g) => g.toString(16)).join(':');
  const head = groups.slice(0, bestStart).map((g) => g.toString(16)).join(':');
  const tail = groups.slice(bestStart + bestLen).map((g) => g.toString(16)).join(':');
  return `${head}::${tail}`;
}

/**
 * The 16 bytes of an address (IPv4 as IPv4-mapped IPv6, as Lucene's
 * InetAddressPoint encodes it), or null when the text is not one.
 */
export function ipBytes(text: string): number[] | null {
  if (!text.includes(':')) {
    const v4 = [0, 0, 0, 0];
    if (!parseV4(text, v4, 0)) return null;
    return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4];
  }
  return parseV6(text);
}

/** The canonical text of 16 address bytes (the inverse of ipBytes). */
export function ipText(bytes: readonly number[]): string {
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) return bytes.slice(12).join('.');
  return formatV6(bytes);
}

/** `ip`: the canonical text of an IPv4/IPv6 address (IPv4-mapped IPv6 prints as IPv4, as Java does). */
export function toIp(value: unknown): string {
  const text = toText(value);
  if (!text.includes(':')) {
    const v4 = [0, 0, 0, 0];
    if (!parseV4(text, v4, 0)) throw notAnIp(text);
    return v4.join('.');
  }
  const bytes = parseV6(text);
  if (bytes === null) throw notAnIp(text);
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) return bytes.slice(12).join('.');
  return formatV6(bytes);
}
