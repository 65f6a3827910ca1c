/**
 * Date formats of a `date` field's `format` (Elasticsearch 6.8 semantics):
 * Joda patterns, named formats and `||`-joined alternatives.
 *
 *   dateFormatter('yyyy-MM-dd HH:mm:ss').parse('2020-01-01 08:00:00', 'Asia/Shanghai')
 *
 * Parsing follows Joda's `parseMillis`: the whole text must match one
 * alternative; the error is Elasticsearch's IllegalArgumentException
 * ("Invalid format: \"x\" is malformed at \"y\""). Printing uses the first
 * alternative, as Elasticsearch does for `key_as_string`.
 */
import { javaCause } from '../../errors/es-errors.ts';
import type { DateFormatter } from './types.ts';
import { matches, parseInto, parseMillis, type ParseIntoResult } from './date-parser.ts';
import { printDate } from './date-printer.ts';
import { alternatives, type FormatSteps, type Steps } from './date-steps.ts';
import { namedFormat } from './iso-date-formats.ts';
import { compileJodaPattern } from './joda-pattern.ts';
import { IsoDateFastParser } from './iso-date-fast-parser.ts';
import { SimpleDateParser } from './simple-date-parser.ts';
import { UTC, timeZoneOrUtc, type TimeZone } from './time-zone.ts';

/** `DateFieldMapper.DEFAULT_DATE_TIME_FORMATTER` in 6.x. */
export const DEFAULT_DATE_FORMAT = 'strict_date_optional_time||epoch_millis';

export class JodaDateFormatter implements DateFormatter {
  /** Fast path (fixed-shape numeric patterns, the default ISO format); NaN from it means "ask the general engine". */
  private readonly fast: { parse(text: string, zone: TimeZone): number } | null;

  constructor(
    readonly pattern: string,
    private readonly parser: Steps,
    private readonly printer: Steps,
  ) {
    this.fast = SimpleDateParser.compile(parser) ?? IsoDateFastParser.forPattern(pattern);
  }

  /** Epoch millis; numbers are taken as epoch millis (the DateFormatter contract). */
  parse(value: string | number, timeZone?: string): number {
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw javaCause('illegal_argument_exception', `Invalid format: "${String(value)}"`);
      return Math.trunc(value) + 0;
    }
    return this.parseText(value, timeZone === undefined ? UTC : timeZoneOrUtc(timeZone));
  }

  /** Parses text in a resolved zone (the document parser's hot path). */
  parseText(text: string, zone: TimeZone = UTC): number {
    if (this.fast !== null) {
      const millis = this.fast.parse(text, zone);
      if (millis === millis) return millis; // not NaN
    }
    return parseMillis(this.parser, text, zone);
  }

  /** True when the whole text parses (dynamic date detection). */
  matches(text: string): boolean {
    return matches(this.parser, text, UTC);
  }

  /** Joda's parseInto onto 1970-01-01 (midnight, or 23:59:59.999 when rounding up); for date math. */
  parseInto(text: string, zone: TimeZone, roundUp: boolean): ParseIntoResult {
    return parseInto(this.parser, text, zone, roundUp);
  }

  format(epochMillis: number, timeZone?: string): string {
    return printDate(this.printer, epochMillis, timeZoneOrUtc(timeZone));
  }

  /** Printing in a resolved zone. */
  formatIn(epochMillis: number, zone: TimeZone): string {
    return printDate(this.printer, epochMillis, zone);
  }
}

function noPattern(): never {
  throw javaCause('illegal_argument_exception', 'No date pattern provided');
}

/** Joda.forPattern for one alternative: a named format or a Joda pattern. */
function single(input: string): FormatSteps {
  const name = input.trim();
  if (name.length === 0) noPattern();
  const named = namedFormat(name);
  if (named !== undefined) return named;
  const steps = compileJodaPattern(name);
  return { parser: steps, printer: steps };
}

const cache = new Map<string, JodaDateFormatter>();
const CACHE_LIMIT = 1000;

/**
 * The formatter for a `format` string; compiled once and cached. Throws
 * Elasticsearch's IllegalArgumentException for patterns Joda refuses.
 */
export function dateFormatter(pattern: string): JodaDateFormatter {
  const cached = cache.get(pattern);
  if (cached !== undefined) return cached;
  const trimmed = pattern.trim();
  if (trimmed.length === 0) noPattern();
  let parser: Steps;
  let printer: Steps;
  if (namedFormat(trimmed) === undefined && trimmed.includes('||')) {
    const parts = trimmed.split('||').map(single);
    parser = parts.length === 1 ? (parts[0].parser as Steps) : [alternatives(...parts.map((p) => p.parser as Steps))];
    printer = parts[0].printer as Steps;
  } else {
    const f = single(trimmed);
    parser = f.parser as Steps;
    printer = f.printer as Steps;
  }
  const formatter = new JodaDateFormatter(pattern, parser, printer);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, formatter);
  return formatter;
}

/** The default format of a date field. */
export function defaultDateFormatter(): JodaDateFormatter {
  return dateFormatter(DEFAULT_DATE_FORMAT);
}
