/**
 * Parameters every business query shares: time ranges, page sizes, lists of
 * checkpoints. Each parser names the parameter it refuses.
 */
import { invalidParameter } from './errors.ts';
import { formatPassTime, parseTimeBound } from './pass-time.ts';

/** A half-open time range `[from, to)` of pass times; either end may be open. */
export interface TimeRange {
  readonly from?: string;
  readonly to?: string;
}

/** Elasticsearch's index.max_result_window: from + size beyond it needs search_after or scroll. */
export const MAX_RESULT_WINDOW = 10_000;

export interface ParsedRange {
  readonly fromMs: number | null;
  readonly toMs: number | null;
}

export function parseRange(range: TimeRange | undefined, names: readonly [string, string] = ['from', 'to']): ParsedRange {
  const fromMs = range?.from !== undefined && range.from !== '' ? parseTimeBound(names[0], range.from) : null;
  const toMs = range?.to !== undefined && range.to !== '' ? parseTimeBound(names[1], range.to) : null;
  if (fromMs !== null && toMs !== null && toMs <= fromMs) throw invalidParameter(names[1], `[${range?.to}] must be after [${names[0]}] [${range?.from}]`);
  return { fromMs, toMs };
}

/** The range clause of a time range, in the index's date format; null when both ends are open. */
export function rangeClause(range: ParsedRange, field = 'pass_time'): object | null {
  if (range.fromMs === null && range.toMs === null) return null;
  const bounds: Record<string, string> = {};
  if (range.fromMs !== null) bounds.gte = formatPassTime(range.fromMs);
  if (range.toMs !== null) bounds.lt = formatPassTime(range.toMs);
  return { range: { [field]: bounds } };
}

export function requireRange(range: ParsedRange, what: string): { fromMs: number; toMs: number } {
  if (range.fromMs === null || range.toMs === null) throw invalidParameter('from/to', `${what} needs a closed time range (from and to)`);
  return { fromMs: range.fromMs, toMs: range.toMs };
}

export function intParam(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) throw invalidParameter(name, `[${value}] must be an integer from ${min} to ${max}`);
  return value;
}

export function checkpointsParam(name: string, value: readonly string[] | undefined, required: boolean): string[] {
  const list = (value ?? []).map((s) => s.trim()).filter((s) => s.length > 0);
  if (required && list.length === 0) throw invalidParameter(name, 'needs at least one checkpoint');
  return [...new Set(list)];
}

/** Plates are stored as given (upper-case letters); a user may type them in lower case. */
export function normalisePlate(plate: string | undefined, name = 'plate'): string {
  const p = (plate ?? '').trim().toUpperCase();
  if (p.length === 0) throw invalidParameter(name, 'is required');
  return p;
}
