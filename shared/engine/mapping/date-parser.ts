/**
 * Parses text against date steps the way Joda-Time does (Elasticsearch 6.8's
 * date parsing): number widths, case-insensitive literals, alternatives that
 * keep the longest match (`MatchingParser`), the error position Joda reports,
 * and `computeMillis`' field-by-field validation ("Value 13 for monthOfYear
 * must be in the range [1,12]").
 *
 * Hot path: no regular expressions and no allocation per value. The parse
 * state lives in module-level typed arrays (parsing is synchronous and never
 * re-entered).
 */
import { javaCause, type EsError } from '../../errors/es-errors.ts';
import {
  MILLIS_PER_DAY,
  MILLIS_PER_HOUR,
  MILLIS_PER_MINUTE,
  MILLIS_PER_SECOND,
  civilFromDays,
  daysFromCivil,
  daysInMonth,
  daysInYear,
  floorDiv,
  isoDayOfWeek,
  weekyearOf,
  weekyearStart,
  weeksInWeekyear,
} from './calendar.ts';
import {
  FIELD_COUNT,
  FIELD_NAMES,
  F_CLOCKHOUR_OF_DAY,
  F_CLOCKHOUR_OF_HALFDAY,
  F_DAY,
  F_DAY_OF_WEEK,
  F_DAY_OF_YEAR,
  F_ERA,
  F_FRACTION_OF_HOUR,
  F_FRACTION_OF_MINUTE,
  F_FRACTION_OF_SECOND,
  F_HALFDAY,
  F_HOUR,
  F_HOUR_OF_HALFDAY,
  F_MILLIS,
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
  DAY_NAMES,
  MONTH_NAMES,
  type DateStep,
  type Steps,
} from './date-steps.ts';
import { knownZoneIds, resolveTimeZone, type TimeZone } from './time-zone.ts';

// ---- parse state (Joda's DateTimeParserBucket) ----------------------------------------
// Field values, which are set (bit mask), the parsed offset/epoch/zone. Undoing
// a failed alternative must be cheap (the ISO parsers nest many): overwritten
// values go to a journal, so a light snapshot is a handful of scalars.

const values = new Float64Array(FIELD_COUNT);
let mask = 0;
let hasOffset = false;
let offsetMs = 0;
let hasEpoch = false;
let epochMs = 0;
let parsedZone: TimeZone | null = null;
/** The zone the text is parsed in (epoch formats insist on UTC). */
let bucketZone: TimeZone | null = null;
let journalLength = 0;
let journalFields = new Int32Array(64);
let journalValues = new Float64Array(64);
let depth = 0;

/** Light snapshots, one per nesting level of alternatives. */
const snapMask: number[] = [];
const snapHasOffset: boolean[] = [];
const snapOffset: number[] = [];
const snapHasEpoch: boolean[] = [];
const snapEpoch: number[] = [];
const snapZone: (TimeZone | null)[] = [];
const snapJournal: number[] = [];
/** Full copies of the best partial match, one per nesting level. */
const bestValues: Float64Array[] = [];
const bestMask: number[] = [];
const bestHasOffset: boolean[] = [];
const bestOffset: number[] = [];
const bestHasEpoch: boolean[] = [];
const bestEpoch: number[] = [];
const bestZone: (TimeZone | null)[] = [];

function saveField(field: number, value: number): void {
  const bit = 1 << field;
  if ((mask & bit) !== 0) {
    if (journalLength === journalFields.length) {
      const f = new Int32Array(journalLength * 2);
      f.set(journalFields);
      journalFields = f;
      const v = new Float64Array(journalLength * 2);
      v.set(journalValues);
      journalValues = v;
    }
    journalFields[journalLength] = field;
    journalValues[journalLength++] = values[field];
  }
  values[field] = value;
  mask |= bit;
}

function has(m: number, field: number): boolean {
  return (m & (1 << field)) !== 0;
}

function snapshot(d: number): void {
  snapMask[d] = mask;
  snapHasOffset[d] = hasOffset;
  snapOffset[d] = offsetMs;
  snapHasEpoch[d] = hasEpoch;
  snapEpoch[d] = epochMs;
  snapZone[d] = parsedZone;
  snapJournal[d] = journalLength;
}

function rollback(d: number): void {
  const until = snapJournal[d];
  while (journalLength > until) {
    journalLength--;
    values[journalFields[journalLength]] = journalValues[journalLength];
  }
  mask = snapMask[d];
  hasOffset = snapHasOffset[d];
  offsetMs = snapOffset[d];
  hasEpoch = snapHasEpoch[d];
  epochMs = snapEpoch[d];
  parsedZone = snapZone[d];
}

function saveBest(d: number): void {
  let v = bestValues[d];
  if (v === undefined) {
    v = new Float64Array(FIELD_COUNT);
    bestValues[d] = v;
  }
  v.set(values);
  bestMask[d] = mask;
  bestHasOffset[d] = hasOffset;
  bestOffset[d] = offsetMs;
  bestHasEpoch[d] = hasEpoch;
  bestEpoch[d] = epochMs;
  bestZone[d] = parsedZone;
}

/** Re-applies the best match over the rolled-back state, journaling what it overwrites. */
function restoreBest(d: number): void {
  const v = bestValues[d];
  const m = bestMask[d];
  for (let f = 0; f < FIELD_COUNT; f++) {
    if (has(m, f) && (!has(mask, f) || values[f] !== v[f])) saveField(f, v[f]);
  }
  hasOffset = bestHasOffset[d];
  offsetMs = bestOffset[d];
  hasEpoch = bestHasEpoch[d];
  epochMs = bestEpoch[d];
  parsedZone = bestZone[d];
}

function resetState(zone: TimeZone): void {
  mask = 0;
  hasOffset = false;
  offsetMs = 0;
  hasEpoch = false;
  epochMs = 0;
  parsedZone = null;
  bucketZone = zone;
  journalLength = 0;
  depth = 0;
}

// ---- step parsers: each returns the new position, or ~position of the failure ---------

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** NumberFormatter / FixedNumber.parseInto. */
function parseNumber(step: DateStep, text: string, pos: number): number {
  const len = text.length;
  let limit = Math.min(step.maxDigits, len - pos);
  let negative = false;
  let signed = false;
  let length = 0;
  while (length < limit) {
    const c = text.charCodeAt(pos + length);
    if (length === 0 && (c === 45 || c === 43) && step.signed) {
      if (length + 1 >= limit || !isDigit(text.charCodeAt(pos + length + 1))) break;
      negative = c === 45;
      signed = true;
      length++;
      limit = Math.min(limit + 1, len - pos);
      continue;
    }
    if (!isDigit(c)) break;
    length++;
  }
  if (length === 0) return ~pos;
  let value = 0;
  for (let i = pos + (signed ? 1 : 0); i < pos + length; i++) value = value * 10 + (text.charCodeAt(i) - 48);
  const end = pos + length;
  if (step.fixed) {
    const expected = pos + step.minDigits + (signed ? 1 : 0);
    if (end < expected) return ~end;
  }
  saveField(step.field, negative ? -value : value);
  return end;
}

const FRACTION_UNIT = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, MILLIS_PER_HOUR, MILLIS_PER_MINUTE, MILLIS_PER_SECOND, 0];

/** Fraction.parseInto: the digits as a fraction of the unit, truncated to milliseconds. */
function parseFraction(step: DateStep, text: string, pos: number): number {
  const limit = Math.min(step.maxDigits, text.length - pos);
  let value = 0;
  let n = FRACTION_UNIT[step.field] * 10;
  let length = 0;
  while (length < limit) {
    const c = text.charCodeAt(pos + length);
    if (!isDigit(c)) break;
    length++;
    const nn = Math.floor(n / 10);
    value += (c - 48) * nn;
    n = nn;
  }
  if (length === 0) return ~pos;
  saveField(step.field, Math.floor(value / 10));
  return pos + length;
}

function upper(c: number): number {
  return c >= 97 && c <= 122 ? c - 32 : c;
}

/** CharacterLiteral / StringLiteral: case-insensitive. */
function parseLiteral(lit: string, text: string, pos: number): number {
  if (pos + lit.length > text.length) return ~pos;
  for (let i = 0; i < lit.length; i++) {
    const a = text.charCodeAt(pos + i);
    const b = lit.charCodeAt(i);
    if (a !== b && upper(a) !== upper(b)) return ~pos;
  }
  return pos + lit.length;
}

interface TextTable {
  readonly values: ReadonlyMap<string, number>;
  readonly maxLength: number;
}

/** Joda's TextField accepts the short and long texts, as written, lower- or upper-cased. */
function textTable(names: readonly (readonly [string, number])[]): TextTable {
  const values = new Map<string, number>();
  let maxLength = 0;
  for (const [name, value] of names) {
    for (const variant of [name, name.toLowerCase(), name.toUpperCase()]) values.set(variant, value);
    maxLength = Math.max(maxLength, name.length);
  }
  return { values, maxLength };
}

const TEXT_TABLES: (TextTable | undefined)[] = [];
TEXT_TABLES[F_MONTH] = textTable([
  ...MONTH_NAMES.short.map((n, i) => [n, i + 1] as const),
  ...MONTH_NAMES.long.map((n, i) => [n, i + 1] as const),
]);
TEXT_TABLES[F_DAY_OF_WEEK] = textTable([
  ...DAY_NAMES.short.map((n, i) => [n, i + 1] as const),
  ...DAY_NAMES.long.map((n, i) => [n, i + 1] as const),
]);
TEXT_TABLES[F_HALFDAY] = textTable([
  ['AM', 0],
  ['PM', 1],
]);
TEXT_TABLES[F_ERA] = textTable([
  ['BC', 0],
  ['AD', 1],
]);

/** TextField.parseInto: the longest valid text at `pos`. */
function parseText(step: DateStep, text: string, pos: number): number {
  const table = TEXT_TABLES[step.field] as TextTable;
  const limit = Math.min(text.length, pos + table.maxLength);
  for (let i = limit; i > pos; i--) {
    const value = table.values.get(text.slice(pos, i));
    if (value !== undefined) {
      saveField(step.field, value);
      return i;
    }
  }
  return ~pos;
}

function digitCount(text: string, pos: number, amount: number): number {
  const limit = Math.min(text.length - pos, amount);
  let n = 0;
  while (n < limit && isDigit(text.charCodeAt(pos + n))) n++;
  return n;
}

function twoDigits(text: string, pos: number): number {
  return (text.charCodeAt(pos) - 48) * 10 + (text.charCodeAt(pos + 1) - 48);
}

function setOffset(ms: number): void {
  offsetMs = ms;
  hasOffset = true;
}

/** TimeZoneOffset.parseInto: `Z`, or a sign and hh[[:]mm[[:]ss[[.]SSS]]]. */
function parseOffset(step: DateStep, text: string, pos: number): number {
  let limit = text.length - pos;
  const zero = step.zeroParse;
  if (zero !== null) {
    if (zero.length === 0) {
      const c = limit > 0 ? text.charCodeAt(pos) : 0;
      if (c !== 45 && c !== 43) {
        setOffset(0);
        return pos;
      }
    } else if (parseLiteral(zero, text, pos) >= 0) {
      setOffset(0);
      return pos + zero.length;
    }
  }
  if (limit <= 1) return ~pos;
  const sign = text.charCodeAt(pos);
  if (sign !== 45 && sign !== 43) return ~pos;
  limit--;
  pos++;
  if (digitCount(text, pos, 2) < 2) return ~pos;
  const hours = twoDigits(text, pos);
  if (hours > 23) return ~pos;
  let offset = hours * MILLIS_PER_HOUR;
  limit -= 2;
  pos += 2;
  parse: {
    if (limit <= 0) break parse;
    let c = text.charCodeAt(pos);
    let separators: boolean;
    if (c === 58) {
      separators = true;
      limit--;
      pos++;
    } else if (isDigit(c)) {
      separators = false;
    } else {
      break parse;
    }
    let count = digitCount(text, pos, 2);
    if (count === 0 && !separators) break parse;
    if (count < 2) return ~pos;
    const minutes = twoDigits(text, pos);
    if (minutes > 59) return ~pos;
    offset += minutes * MILLIS_PER_MINUTE;
    limit -= 2;
    pos += 2;
    if (limit <= 0) break parse;
    if (separators) {
      if (text.charCodeAt(pos) !== 58) break parse;
      limit--;
      pos++;
    }
    count = digitCount(text, pos, 2);
    if (count === 0 && !separators) break parse;
    if (count < 2) return ~pos;
    const seconds = twoDigits(text, pos);
    if (seconds > 59) return ~pos;
    offset += seconds * MILLIS_PER_SECOND;
    limit -= 2;
    pos += 2;
    if (limit <= 0) break parse;
    if (separators) {
      c = text.charCodeAt(pos);
      if (c !== 46 && c !== 44) break parse;
      pos++;
    }
    count = digitCount(text, pos, 3);
    if (count === 0 && !separators) break parse;
    if (count < 1) return ~pos;
    offset += (text.charCodeAt(pos++) - 48) * 100;
    if (count > 1) {
      offset += (text.charCodeAt(pos++) - 48) * 10;
      if (count > 2) offset += text.charCodeAt(pos++) - 48;
    }
  }
  setOffset(sign === 45 ? -offset : offset);
  return pos;
}

/** TimeZoneId.parseInto: the longest known zone id at `pos`. */
function parseZoneId(text: string, pos: number): number {
  for (const id of knownZoneIds()) {
    if (text.startsWith(id, pos)) {
      parsedZone = resolveTimeZone(id);
      return pos + id.length;
    }
  }
  return ~pos;
}

/** TwoDigitYear.parseInto. */
function parseTwoDigitYear(step: DateStep, text: string, pos: number): number {
  let limit = text.length - pos;
  if (!step.lenient) {
    limit = Math.min(2, limit);
    if (limit < 2) return ~pos;
  } else {
    let hasSign = false;
    let negative = false;
    let length = 0;
    while (length < limit) {
      const c = text.charCodeAt(pos + length);
      if (length === 0 && (c === 45 || c === 43)) {
        hasSign = true;
        negative = c === 45;
        if (negative) length++;
        else {
          pos++;
          limit--;
        }
        continue;
      }
      if (!isDigit(c)) break;
      length++;
    }
    if (length === 0) return ~pos;
    if (hasSign || length !== 2) {
      let value = 0;
      for (let i = pos + (negative ? 1 : 0); i < pos + length; i++) value = value * 10 + (text.charCodeAt(i) - 48);
      saveField(step.field, negative ? -value : value);
      return pos + length;
    }
  }
  const c0 = text.charCodeAt(pos);
  const c1 = text.charCodeAt(pos + 1);
  if (!isDigit(c0) || !isDigit(c1)) return ~pos;
  let year = (c0 - 48) * 10 + (c1 - 48);
  const low = step.pivot - 50;
  const t = low >= 0 ? low % 100 : 99 + ((low + 1) % 100);
  year += low + (year < t ? 100 : 0) - t;
  saveField(step.field, year);
  return pos + 2;
}

/** java.math.BigDecimal's grammar: sign, digits with an optional point, optional exponent. */
function isBigDecimal(text: string): boolean {
  let i = 0;
  const len = text.length;
  if (i < len && (text.charCodeAt(i) === 45 || text.charCodeAt(i) === 43)) i++;
  let digits = 0;
  while (i < len && isDigit(text.charCodeAt(i))) {
    i++;
    digits++;
  }
  if (i < len && text.charCodeAt(i) === 46) {
    i++;
    while (i < len && isDigit(text.charCodeAt(i))) {
      i++;
      digits++;
    }
  }
  if (digits === 0) return false;
  if (i < len && (text.charCodeAt(i) === 101 || text.charCodeAt(i) === 69)) {
    i++;
    if (i < len && (text.charCodeAt(i) === 45 || text.charCodeAt(i) === 43)) i++;
    let exp = 0;
    while (i < len && isDigit(text.charCodeAt(i))) {
      i++;
      exp++;
    }
    if (exp === 0) return false;
  }
  return i === len;
}

/** Elasticsearch's Joda.EpochTimeParser: the whole text as a (possibly fractional) epoch value. */
function parseEpoch(step: DateStep, text: string): number {
  if (bucketZone !== null && !bucketZone.isUtc) {
    throw javaCause('illegal_argument_exception', `time_zone must be UTC for format [${step.millis ? 'epoch_millis' : 'epoch_second'}]`);
  }
  const positive = !text.startsWith('-');
  const dot = text.indexOf('.');
  const integerDigits = dot === -1 ? text.length : dot;
  if (positive && integerDigits > (step.millis ? 19 : 16)) return -1;
  if (!isBigDecimal(text)) return -1;
  const units = Math.trunc(Number(text)) + 0;
  epochMs = step.millis ? units : units * 1000;
  hasEpoch = true;
  return text.length;
}

/** MatchingParser.parseInto: the longest successful alternative, else the furthest failure. */
function parseAlternatives(step: DateStep, text: string, pos: number): number {
  const alts = step.alternatives as readonly (Steps | null)[];
  const d = depth++;
  snapshot(d);
  let isOptional = false;
  let bestValidPos = pos;
  let haveBest = false;
  let bestInvalidPos = pos;
  let result = 0;
  let done = false;
  for (let i = 0; i < alts.length; i++) {
    const alt = alts[i];
    if (alt === null) {
      if (bestValidPos <= pos) {
        result = pos;
        done = true;
        break;
      }
      isOptional = true;
      break;
    }
    const parsePos = runSteps(alt, text, pos);
    if (parsePos >= pos) {
      if (parsePos > bestValidPos) {
        if (parsePos >= text.length || i + 1 >= alts.length || alts[i + 1] === null) {
          result = parsePos;
          done = true;
          break;
        }
        bestValidPos = parsePos;
        saveBest(d);
        haveBest = true;
      }
    } else if (parsePos < 0) {
      const failed = ~parsePos;
      if (failed > bestInvalidPos) bestInvalidPos = failed;
    }
    rollback(d);
  }
  depth = d;
  if (done) return result;
  if (bestValidPos > pos || (bestValidPos === pos && isOptional)) {
    if (haveBest) restoreBest(d);
    return bestValidPos;
  }
  return ~bestInvalidPos;
}

function runSteps(steps: Steps, text: string, pos: number): number {
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    switch (step.op) {
      case OP_NUMBER:
        pos = parseNumber(step, text, pos);
        break;
      case OP_LITERAL:
        pos = parseLiteral(step.text, text, pos);
        break;
      case OP_FRACTION:
        pos = parseFraction(step, text, pos);
        break;
      case OP_TEXT:
        pos = parseText(step, text, pos);
        break;
      case OP_OFFSET:
        pos = parseOffset(step, text, pos);
        break;
      case OP_ZONE_ID:
        pos = parseZoneId(text, pos);
        break;
      case OP_TWO_DIGIT_YEAR:
        pos = parseTwoDigitYear(step, text, pos);
        break;
      case OP_ALTERNATIVES:
        pos = parseAlternatives(step, text, pos);
        break;
      case OP_EPOCH:
        pos = parseEpoch(step, text);
        break;
    }
    if (pos < 0) return pos;
  }
  return pos;
}

// ---- computeMillis ----------------------------------------------------------------------

/** Joda's year limits (ISOChronology). */
const MIN_YEAR = -292275054;
const MAX_YEAR = 292278993;

function check(text: string, field: number, value: number, lo: number, hi: number): void {
  if (value < lo || value > hi) {
    throw javaCause(
      'illegal_argument_exception',
      `Cannot parse "${text}": Value ${value} for ${FIELD_NAMES[field]} must be in the range [${lo},${hi}]`,
    );
  }
}

const ymd = new Int32Array(3);

/**
 * DateTimeParserBucket.computeMillis: applies the parsed fields, largest unit
 * first, onto the base local time, validating each against the date built so
 * far, then converts to UTC with the parsed offset or zone, else `zone`.
 */
function computeMillis(text: string, baseLocal: number, zone: TimeZone): number {
  if (hasEpoch) return epochMs;
  let days = floorDiv(baseLocal, MILLIS_PER_DAY);
  let msOfDay = baseLocal - days * MILLIS_PER_DAY;
  let hour = Math.floor(msOfDay / MILLIS_PER_HOUR);
  let minute = Math.floor((msOfDay % MILLIS_PER_HOUR) / MILLIS_PER_MINUTE);
  let second = Math.floor((msOfDay % MILLIS_PER_MINUTE) / MILLIS_PER_SECOND);
  let millis = msOfDay % MILLIS_PER_SECOND;
  civilFromDays(days, ymd);
  let y = ymd[0];
  let m = ymd[1];
  let d = ymd[2];
  if (mask !== 0) {
    if (has(mask, F_YEAR)) {
      const v = values[F_YEAR];
      check(text, F_YEAR, v, MIN_YEAR, MAX_YEAR);
      y = v;
      d = Math.min(d, daysInMonth(y, m));
    }
    if (has(mask, F_WEEKYEAR)) {
      const v = values[F_WEEKYEAR];
      check(text, F_WEEKYEAR, v, MIN_YEAR, MAX_YEAR);
      const cur = daysFromCivil(y, m, d);
      const wy = weekyearOf(cur);
      const week = Math.min(Math.floor((cur - weekyearStart(wy)) / 7) + 1, weeksInWeekyear(v));
      days = weekyearStart(v) + (week - 1) * 7 + (isoDayOfWeek(cur) - 1);
      civilFromDays(days, ymd);
      y = ymd[0];
      m = ymd[1];
      d = ymd[2];
    }
    if (has(mask, F_MONTH)) {
      const v = values[F_MONTH];
      check(text, F_MONTH, v, 1, 12);
      m = v;
      d = Math.min(d, daysInMonth(y, m));
    }
    if (has(mask, F_WEEK)) {
      const cur = daysFromCivil(y, m, d);
      const wy = weekyearOf(cur);
      const v = values[F_WEEK];
      check(text, F_WEEK, v, 1, weeksInWeekyear(wy));
      days = weekyearStart(wy) + (v - 1) * 7 + (isoDayOfWeek(cur) - 1);
      civilFromDays(days, ymd);
      y = ymd[0];
      m = ymd[1];
      d = ymd[2];
    }
    if (has(mask, F_DAY_OF_YEAR)) {
      const v = values[F_DAY_OF_YEAR];
      check(text, F_DAY_OF_YEAR, v, 1, daysInYear(y));
      civilFromDays(daysFromCivil(y, 1, 1) + v - 1, ymd);
      m = ymd[1];
      d = ymd[2];
    }
    if (has(mask, F_DAY)) {
      const v = values[F_DAY];
      check(text, F_DAY, v, 1, daysInMonth(y, m));
      d = v;
    }
    if (has(mask, F_DAY_OF_WEEK)) {
      const v = values[F_DAY_OF_WEEK];
      check(text, F_DAY_OF_WEEK, v, 1, 7);
      const cur = daysFromCivil(y, m, d);
      civilFromDays(cur + v - isoDayOfWeek(cur), ymd);
      y = ymd[0];
      m = ymd[1];
      d = ymd[2];
    }
    if (has(mask, F_HALFDAY)) {
      const v = values[F_HALFDAY];
      check(text, F_HALFDAY, v, 0, 1);
      hour = (hour % 12) + 12 * v;
    }
    if (has(mask, F_HOUR)) {
      const v = values[F_HOUR];
      check(text, F_HOUR, v, 0, 23);
      hour = v;
    }
    if (has(mask, F_CLOCKHOUR_OF_DAY)) {
      const v = values[F_CLOCKHOUR_OF_DAY];
      check(text, F_CLOCKHOUR_OF_DAY, v, 1, 24);
      hour = v % 24;
    }
    if (has(mask, F_HOUR_OF_HALFDAY)) {
      const v = values[F_HOUR_OF_HALFDAY];
      check(text, F_HOUR_OF_HALFDAY, v, 0, 11);
      hour = (hour >= 12 ? 12 : 0) + v;
    }
    if (has(mask, F_CLOCKHOUR_OF_HALFDAY)) {
      const v = values[F_CLOCKHOUR_OF_HALFDAY];
      check(text, F_CLOCKHOUR_OF_HALFDAY, v, 1, 12);
      hour = (hour >= 12 ? 12 : 0) + (v % 12);
    }
    if (has(mask, F_MINUTE)) {
      const v = values[F_MINUTE];
      check(text, F_MINUTE, v, 0, 59);
      minute = v;
    }
    if (has(mask, F_SECOND)) {
      const v = values[F_SECOND];
      check(text, F_SECOND, v, 0, 59);
      second = v;
    }
    if (has(mask, F_MILLIS)) {
      const v = values[F_MILLIS];
      check(text, F_MILLIS, v, 0, 999);
      millis = v;
    }
    if (has(mask, F_FRACTION_OF_HOUR)) {
      const v = values[F_FRACTION_OF_HOUR];
      minute = Math.floor(v / MILLIS_PER_MINUTE);
      second = Math.floor((v % MILLIS_PER_MINUTE) / MILLIS_PER_SECOND);
      millis = v % MILLIS_PER_SECOND;
    }
    if (has(mask, F_FRACTION_OF_MINUTE)) {
      const v = values[F_FRACTION_OF_MINUTE];
      second = Math.floor(v / MILLIS_PER_SECOND);
      millis = v % MILLIS_PER_SECOND;
    }
    if (has(mask, F_FRACTION_OF_SECOND)) millis = values[F_FRACTION_OF_SECOND];
    days = daysFromCivil(y, m, d);
  }
  msOfDay = hour * MILLIS_PER_HOUR + minute * MILLIS_PER_MINUTE + second * MILLIS_PER_SECOND + millis;
  const local = days * MILLIS_PER_DAY + msOfDay;
  if (hasOffset) return local - offsetMs;
  const z = parsedZone ?? zone;
  const utc = z.localToUtc(local);
  if (utc + z.offsetAt(utc) !== local) {
    throw javaCause('illegal_argument_exception', `Cannot parse "${text}": Illegal instant due to time zone offset transition (${z.id})`);
  }
  return utc;
}

// ---- entry points -----------------------------------------------------------------------

/** Joda's FormatUtils.createErrorMessage. */
export function invalidFormat(text: string, errorPos: number): EsError {
  const sampleLen = errorPos + 32;
  const sample = text.length <= sampleLen + 3 ? text : text.slice(0, sampleLen) + '...';
  let reason: string;
  if (errorPos <= 0) reason = `Invalid format: "${sample}"`;
  else if (errorPos >= text.length) reason = `Invalid format: "${sample}" is too short`;
  else reason = `Invalid format: "${sample}" is malformed at "${sample.slice(errorPos)}"`;
  return javaCause('illegal_argument_exception', reason);
}

/**
 * DateTimeFormatter.parseMillis: the whole text must parse; throws the
 * IllegalArgumentException Elasticsearch reports ("Invalid format: ...").
 */
export function parseMillis(steps: Steps, text: string, zone: TimeZone): number {
  resetState(zone);
  let pos = runSteps(steps, text, 0);
  if (pos >= 0) {
    if (pos >= text.length) return computeMillis(text, 0, zone);
  } else {
    pos = ~pos;
  }
  throw invalidFormat(text, pos);
}

/** True when the whole text parses (dynamic date detection); never throws for a mismatch. */
export function matches(steps: Steps, text: string, zone: TimeZone): boolean {
  try {
    parseMillis(steps, text, zone);
    return true;
  } catch {
    return false;
  }
}

/** Local time 1970-01-01T23:59:59.999: the base date math rounds up onto ("roundUpIfNoTime"). */
const ROUND_UP_BASE = MILLIS_PER_DAY - 1;

export interface ParseIntoResult {
  /** Epoch millis of the fields parsed, laid over the base date. */
  millis: number;
  /** Where parsing stopped: the text length on success, ~position on failure. */
  end: number;
}

const intoResult: ParseIntoResult = { millis: 0, end: 0 };

/**
 * DateTimeFormatter.parseInto on a MutableDateTime, as Elasticsearch's date
 * math uses it: fields missing from the text keep the base date's values
 * (midnight, or 23:59:59.999 when rounding up). The result object is reused.
 */
export function parseInto(steps: Steps, text: string, zone: TimeZone, roundUp: boolean): ParseIntoResult {
  resetState(zone);
  const end = runSteps(steps, text, 0);
  intoResult.millis = computeMillis(text, roundUp ? ROUND_UP_BASE : 0, zone);
  intoResult.end = end;
  return intoResult;
}
