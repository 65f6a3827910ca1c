/**
 * Time values of request parameters and bodies (`timeout=30s`, a search body's
 * `"timeout": "1m"`), as the REST layer and the search coordinator read them:
 * a bad one is a `parse_exception` naming the parameter. Settings read theirs
 * with shared/engine/mapping/time-value.ts, which words errors as settings do.
 */
import { EsError } from '../../../shared/errors/es-errors.ts';

const TIME_UNITS: Record<string, number> = { nanos: 1e-6, micros: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Elasticsearch time values (`30s`, `1m`, `500ms`, `-1`); a bare number is milliseconds. */
export function parseTimeValue(value: string, setting: string): number {
  const v = value.trim();
  if (v === '-1') return -1;
  if (/^\d+$/.test(v)) return Number(v);
  const m = /^(\d+(?:\.\d+)?)\s*(nanos|micros|ms|s|m|h|d)$/i.exec(v);
  if (!m) {
    throw new EsError(
      'parse_exception',
      `failed to parse setting [${setting}] with value [${value}] as a time value: unit is missing or unrecognized`,
      400,
    );
  }
  return Number(m[1]) * TIME_UNITS[m[2].toLowerCase()];
}
