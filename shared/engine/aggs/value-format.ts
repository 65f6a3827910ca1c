/**
 * Printing keys and values as Elasticsearch's DocValueFormat does: RAW prints
 * nothing extra (no `key_as_string`), BOOLEAN prints `true`/`false`, dates
 * print with the field's (or the request's) format in the time zone.
 */
import { dateFormatterFor } from './date-formats.ts';
import { javaDoubleToString } from './java-double.ts';
import type { ValueFormat } from './state.ts';

export const RAW_FORMAT: ValueFormat = { kind: 'raw' };
export const BOOLEAN_FORMAT: ValueFormat = { kind: 'boolean' };

export function isRaw(format: ValueFormat): boolean {
  return format.kind === 'raw';
}

/** The `*_as_string` text of a value (also used for keys of keyed buckets). */
export function formatValue(format: ValueFormat, value: number): string {
  switch (format.kind) {
    case 'raw':
      return javaDoubleToString(value);
    case 'boolean':
      return value !== 0 ? 'true' : 'false';
    case 'date':
      return dateFormatterFor(format.pattern).format(value, format.timeZone ?? undefined);
  }
}

/** A long key printed raw (`1234`, not `1234.0`). */
export function formatLongKey(format: ValueFormat, value: number): string {
  return format.kind === 'raw' ? String(value) : formatValue(format, value);
}
