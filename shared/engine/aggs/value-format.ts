/**
 * Printing keys and values as Elasticsearch's DocValueFormat does: RAW prints
 * nothing extra (no `key_as_string`), BOOLEAN prints `true`/`false`, dates
 * print with the field's (or the request's) format in the time zone.
 */
import { dateFormatterFor } from './date-formats.ts';
import { javaDoubleToString } from './java-double.ts';
import { ipTermText } from '../mapping/ip-address.ts';
import type { ValueFormat } from './state.ts';

export const RAW_FORMAT: ValueFormat = { kind: 'raw' };
export const BOOLEAN_FORMAT: ValueFormat = { kind: 'boolean' };
export const IP_FORMAT: ValueFormat = { kind: 'ip' };

export function isRaw(format: ValueFormat): boolean {
  return format.kind === 'raw';
}

/** The `*_as_string` text of a value (also used for keys of keyed buckets). */
export function formatValue(format: ValueFormat, value: number): string {
  switch (format.kind) {
    case 'raw':
    case 'ip': // ip keys are strings (printedKey); a number has no address form
      return javaDoubleToString(value);
    case 'boolean':
      return value !== 0 ? 'true' : 'false';
    case 'date':
      return formatDate(format.pattern, format.timeZone, value);
  }
}

/** A string key as a user sees it: an ip's term as its address. */
export function printedKey(format: ValueFormat, key: string): string {
  return format.kind === 'ip' ? ipTermText(key) : key;
}

/** A long key printed raw (`1234`, not `1234.0`). */
export function formatLongKey(format: ValueFormat, value: number): string {
  return format.kind === 'raw' ? String(value) : formatValue(format, value);
}

/** The same few bucket keys print again for every parent bucket and shard: memoised. */
const dateMemo = new Map<string, string>();
const DATE_MEMO_LIMIT = 50_000;

function formatDate(pattern: string, timeZone: string | null, value: number): string {
  const k = `${pattern}\u0000${timeZone ?? ''}\u0000${value}`;
  let s = dateMemo.get(k);
  if (s === undefined) {
    s = dateFormatterFor(pattern).format(value, timeZone ?? undefined);
    if (dateMemo.size >= DATE_MEMO_LIMIT) dateMemo.clear();
    dateMemo.set(k, s);
  }
  return s;
}
