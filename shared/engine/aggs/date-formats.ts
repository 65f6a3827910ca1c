/**
 * Date formats and date math for the aggregations (key_as_string,
 * value_as_string, extended_bounds, date_range bounds, `missing`, include
 * values), on the mapping's Joda-compatible formatters.
 */
import { dateFormatter, DEFAULT_DATE_FORMAT } from '../mapping/date-format.ts';
import { parseDateMath } from '../mapping/date-math.ts';
import type { DateFormatter } from '../mapping/types.ts';

export { DEFAULT_DATE_FORMAT };

export function dateFormatterFor(pattern: string): DateFormatter {
  return dateFormatter(pattern);
}

/**
 * A date value as range bounds and extended_bounds take it: epoch millis, a
 * date in the field's format, or date math (`now-1d/d`, `2015-01-01||+1M`),
 * rounding down (Elasticsearch parses aggregation bounds with roundUp=false).
 */
export function resolveDateValue(value: string | number, formatter: DateFormatter, tz: string | null, nowMillis: number): number {
  if (typeof value === 'number') return value;
  return parseDateMath(value, nowMillis, { roundUp: false, formatter, ...(tz === null ? {} : { timeZone: tz }) });
}
