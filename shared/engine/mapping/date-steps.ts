/**
 * The building blocks of a date format, modelled on Joda-Time's
 * DateTimeFormatterBuilder (which Elasticsearch 6.8 uses for every date
 * format): numbers, fractions, literals, texts, zone offsets, epoch values
 * and alternatives. A format is a list of steps; the parser and the printer
 * walk the same lists. Data only: the behaviour lives in date-parser.ts and
 * date-printer.ts.
 */

// ---- fields (Joda DateTimeFieldType), in the order Joda applies parsed values ----------
export const F_YEAR = 0;
export const F_WEEKYEAR = 1;
export const F_MONTH = 2;
export const F_WEEK = 3;
export const F_DAY_OF_YEAR = 4;
export const F_DAY = 5;
export const F_DAY_OF_WEEK = 6;
export const F_HALFDAY = 7;
export const F_HOUR = 8;
export const F_CLOCKHOUR_OF_DAY = 9;
export const F_HOUR_OF_HALFDAY = 10;
export const F_CLOCKHOUR_OF_HALFDAY = 11;
export const F_MINUTE = 12;
export const F_SECOND = 13;
export const F_MILLIS = 14;
/** Fractions (millis within the hour / minute / second), applied last as Joda does. */
export const F_FRACTION_OF_HOUR = 15;
export const F_FRACTION_OF_MINUTE = 16;
export const F_FRACTION_OF_SECOND = 17;
export const F_ERA = 18;
export const FIELD_COUNT = 19;

/** Joda's field names, used in "Value 13 for monthOfYear must be in the range [1,12]". */
export const FIELD_NAMES: readonly string[] = [
  'year',
  'weekyear',
  'monthOfYear',
  'weekOfWeekyear',
  'dayOfYear',
  'dayOfMonth',
  'dayOfWeek',
  'halfdayOfDay',
  'hourOfDay',
  'clockhourOfDay',
  'hourOfHalfday',
  'clockhourOfHalfday',
  'minuteOfHour',
  'secondOfMinute',
  'millisOfSecond',
  'millisOfDay',
  'millisOfDay',
  'millisOfDay',
  'era',
];

// ---- texts (Locale.ROOT, as Elasticsearch formats use) ------------------------------------
const MONTHS_LONG = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS_LONG = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

export const MONTH_NAMES: { readonly short: readonly string[]; readonly long: readonly string[] } = {
  short: MONTHS_LONG.map((m) => m.slice(0, 3)),
  long: MONTHS_LONG,
};
export const DAY_NAMES: { readonly short: readonly string[]; readonly long: readonly string[] } = {
  short: DAYS_LONG.map((d) => d.slice(0, 3)),
  long: DAYS_LONG,
};

// ---- step kinds ------------------------------------------------------------------
export const OP_NUMBER = 0;
export const OP_FRACTION = 1;
export const OP_LITERAL = 2;
export const OP_TEXT = 3;
export const OP_OFFSET = 4;
export const OP_ZONE_ID = 5;
export const OP_TWO_DIGIT_YEAR = 6;
export const OP_ALTERNATIVES = 7;
export const OP_EPOCH = 8;

/** One element of a format. One class with every slot keeps property access monomorphic. */
export class DateStep {
  constructor(
    readonly op: number,
    readonly field: number = -1,
    /** Numbers: digits printed at least (and, when `fixed`, parsed exactly). Fractions: digits printed at least. */
    readonly minDigits: number = 0,
    /** Numbers and fractions: digits parsed at most. */
    readonly maxDigits: number = 0,
    readonly signed: boolean = false,
    /** appendFixedDecimal: exactly `minDigits` digits. */
    readonly fixed: boolean = false,
    /** Literal text; for texts the style: `short` or `long`. */
    readonly text: string = '',
    /** Alternatives, each a step list; null is Joda's empty (optional) alternative. */
    readonly alternatives: readonly (readonly DateStep[] | null)[] | null = null,
    /** Offsets: what zero prints as (`Z`) and what parses as zero (`Z`), or null. */
    readonly zeroPrint: string | null = null,
    readonly zeroParse: string | null = null,
    /** Offsets: print with `:` separators; fields printed at least / at most (hours=1 .. millis=4). */
    readonly separators: boolean = false,
    readonly minFields: number = 0,
    readonly maxFields: number = 0,
    /** Two-digit years: the pivot year and whether other digit counts parse as a full year. */
    readonly pivot: number = 0,
    readonly lenient: boolean = false,
    /** Epoch: milliseconds (true) or seconds. */
    readonly millis: boolean = true,
  ) {}
}

export type Steps = readonly DateStep[];

/** A format: its parser and its printer (either may be missing, as with Joda's parser-only formats). */
export interface FormatSteps {
  readonly parser: Steps | null;
  readonly printer: Steps | null;
}

// ---- builders ----------------------------------------------------------------------

/** appendDecimal / appendSignedDecimal: parses 1..maxDigits digits, prints at least minDigits. */
export function num(field: number, minDigits: number, maxDigits: number, signed = false): DateStep {
  return new DateStep(OP_NUMBER, field, minDigits, maxDigits, signed);
}

/** appendFixedDecimal / appendFixedSignedDecimal: exactly `digits` digits. */
export function fixed(field: number, digits: number, signed = false): DateStep {
  return new DateStep(OP_NUMBER, field, digits, digits, signed, true);
}

/** appendFraction: the fraction of the unit of `field` (F_FRACTION_OF_*). */
export function fraction(field: number, minDigits: number, maxDigits: number): DateStep {
  return new DateStep(OP_FRACTION, field, minDigits, maxDigits);
}

export function lit(text: string): DateStep {
  return new DateStep(OP_LITERAL, -1, 0, 0, false, false, text);
}

export function text(field: number, style: 'short' | 'long'): DateStep {
  return new DateStep(OP_TEXT, field, 0, 0, false, false, style);
}

export function offset(zeroText: string | null, separators: boolean, minFields: number, maxFields: number, zeroParse = zeroText): DateStep {
  return new DateStep(OP_OFFSET, -1, 0, 0, false, false, '', null, zeroText, zeroParse, separators, minFields, maxFields);
}

export function zoneId(): DateStep {
  return new DateStep(OP_ZONE_ID);
}

export function twoDigitYear(field: number, pivot: number, lenient: boolean): DateStep {
  return new DateStep(OP_TWO_DIGIT_YEAR, field, 2, 2, false, false, '', null, null, null, false, 0, 0, pivot, lenient);
}

export function alternatives(...alts: (readonly DateStep[] | null)[]): DateStep {
  return new DateStep(OP_ALTERNATIVES, -1, 0, 0, false, false, '', alts);
}

/** appendOptional: the steps, or nothing. */
export function optional(steps: readonly DateStep[]): DateStep {
  return alternatives(steps, null);
}

export function epoch(millis: boolean): DateStep {
  return new DateStep(OP_EPOCH, -1, 0, 0, false, false, '', null, null, null, false, 0, 0, 0, false, millis);
}
