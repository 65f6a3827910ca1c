/** Parsers of the bucket aggregations: terms, date_histogram, histogram, range, date_range, filter, filters, missing, global. */
import { aggregationExecution, illegalArgument, illegalState, parsingException } from '../../errors/es-errors.ts';
import type { MappingLookup } from '../../engine/mapping/types.ts';
import { parseAggPath } from '../../engine/aggs/buckets-path.ts';
import { luceneRegex } from '../../engine/regex/lucene-regex.ts';
import type {
  AdjacencyMatrixSpec,
  AutoDateHistogramSpec,
  AggSpec,
  BucketOrder,
  CalendarUnit,
  DateHistogramSpec,
  DateInterval,
  FilterSpec,
  FiltersSpec,
  GlobalSpec,
  HistogramSpec,
  IncludeExclude,
  MissingSpec,
  RangeSpec,
  RangeSpecEntry,
  TermsSpec,
} from '../../engine/aggs/spec.ts';
import { timeZone } from '../../engine/aggs/time-zone.ts';
import { AggParams, isObject, mustBeAtLeast, tokenName, type Json } from './agg-params.ts';
import { checkField, readValuesSource } from './parse-values-source.ts';
import { getOwn } from '../../json/own-keys.ts';

export interface Common {
  readonly name: string;
  readonly meta: Readonly<Record<string, unknown>> | null;
  readonly subs: readonly AggSpec[];
}

/** TermsAggregationBuilder defaults. */
const DEFAULT_TERMS_SIZE = 10;
const DEFAULT_MIN_DOC_COUNT = 1;

function direction(v: unknown, aggName: string): boolean {
  if (typeof v === 'string') {
    const d = v.toLowerCase();
    if (d === 'asc') return true;
    if (d === 'desc') return false;
  }
  throw parsingException(`Unknown order direction [${String(v)}] in aggregation [${aggName}]`);
}

/** Receives deprecation warnings (the REST layer sends them as `Warning` headers). */
export type Warn = (message: string) => void;

function parseOrder(v: unknown, aggName: string, histogram: boolean, warn: Warn): BucketOrder[] {
  const items = Array.isArray(v) ? v : [v];
  return items.map((item) => {
    if (!isObject(item) || Object.keys(item).length !== 1) {
      throw parsingException(`Order elements must be of type object in aggregation [${aggName}]`);
    }
    const [key, dir] = Object.entries(item)[0]!;
    const asc = direction(dir, aggName);
    if (key === '_count') return { kind: 'count', asc };
    if (key === '_term' || (histogram && key === '_time')) warn(`Deprecated aggregation order key [${key}] used, replaced by [_key]`);
    if (key === '_key' || key === '_term' || (histogram && key === '_time')) return { kind: 'key', asc };
    return { kind: 'path', path: parseAggPath(key), asc };
  });
}

export function parseIncludeExclude(v: unknown, which: 'include' | 'exclude'): IncludeExclude | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') {
    // Compiled here so that a pattern the linear-time engine refuses is a 400 for the request, not a shard failure.
    luceneRegex(v);
    return { kind: 'regex', pattern: v };
  }
  if (Array.isArray(v)) {
    return {
      kind: 'values',
      values: v.map((x) => {
        if (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean') return x;
        throw parsingException(`Unrecognized token for an array in [${which}]`);
      }),
    };
  }
  if (isObject(v) && which === 'include') {
    const partition = v.partition;
    const num = v.num_partitions;
    if (typeof partition !== 'number' || typeof num !== 'number') {
      throw illegalArgument('Missing [partition] parameter for partition-based include');
    }
    if (partition < 0 || partition >= num) {
      throw illegalArgument(`Invalid partition ${partition}: must be between 0 and num_partitions - 1`);
    }
    return { kind: 'partition', partition, numPartitions: num };
  }
  throw parsingException(`Unrecognized token [${tokenName(v)}] for [${which}]`);
}

export function parseTerms(c: Common, body: Json, mapping: MappingLookup, warn: Warn): TermsSpec {
  const p = new AggParams('terms', c.name, body);
  const source = readValuesSource(p, { withFormat: true });
  const size = p.int('size') ?? DEFAULT_TERMS_SIZE;
  mustBeAtLeast('size', 0, size, c.name, true);
  const shardSize = p.int('shard_size');
  if (shardSize !== null) mustBeAtLeast('shardSize', 0, shardSize, c.name, true);
  const minDocCount = p.int('min_doc_count') ?? DEFAULT_MIN_DOC_COUNT;
  mustBeAtLeast('minDocCount', 0, minDocCount, c.name, false);
  const shardMinDocCount = p.int('shard_min_doc_count') ?? 0;
  mustBeAtLeast('shardMinDocCount', 0, shardMinDocCount, c.name, false);
  const orderRaw = p.raw('order');
  const order: BucketOrder[] = orderRaw === undefined ? [{ kind: 'count', asc: false }] : parseOrder(orderRaw, c.name, false, warn);
  const include = parseIncludeExclude(p.raw('include'), 'include');
  const exclude = parseIncludeExclude(p.raw('exclude'), 'exclude');
  const showTermDocCountError = p.boolean('show_term_doc_count_error') ?? false;
  p.ignore('execution_hint', 'collect_mode');
  p.done();
  checkField(source, mapping, false);
  if (include?.kind === 'regex' || exclude?.kind === 'regex') {
    // TermsAggregatorFactory: regex include/exclude works on string (keyword) values only.
    const f = source.field === null ? undefined : mapping.field(source.field);
    if (f && (f.type !== 'keyword' || f.mappedType === 'ip')) {
      throw aggregationExecution(
        `Aggregation [${c.name}] cannot support regular expression style include/exclude settings as they can only be applied to string fields. Use an array of values for include/exclude clauses`,
      );
    }
  }
  return { type: 'terms', ...c, source, size, shardSize, minDocCount, shardMinDocCount, order, include, exclude, showTermDocCountError };
}

/** DateHistogramAggregationBuilder.DATE_FIELD_UNITS. */
const CALENDAR_UNITS: Readonly<Record<string, CalendarUnit>> = {
  year: 'year',
  '1y': 'year',
  quarter: 'quarter',
  '1q': 'quarter',
  month: 'month',
  '1M': 'month',
  week: 'week',
  '1w': 'week',
  day: 'day',
  '1d': 'day',
  hour: 'hour',
  '1h': 'hour',
  minute: 'minute',
  '1m': 'minute',
  second: 'second',
  '1s': 'second',
};

const TIME_UNITS: Readonly<Record<string, number>> = {
  nanos: 1e-6,
  micros: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** TimeValue.parseTimeValue: `90m`, `12h`, `1.5h`, `1000ms`. */
export function parseTimeValue(value: string, setting: string): number {
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*(nanos|micros|ms|s|m|h|d)\s*$/.exec(value);
  if (!m) {
    throw illegalArgument(`failed to parse setting [${setting}] with value [${value}] as a time value: unit is missing or unrecognized`);
  }
  return Math.round(Number(m[1]) * TIME_UNITS[m[2]!]!);
}

export function parseInterval(p: AggParams, aggName: string): DateInterval {
  const calendar = p.string('calendar_interval');
  const fixed = p.string('fixed_interval');
  const legacy = p.raw('interval');
  if (calendar !== null) {
    const unit = getOwn(CALENDAR_UNITS, calendar);
    if (unit === undefined) throw illegalArgument(`The supplied interval [${calendar}] could not be parsed as a calendar interval.`);
    return { kind: 'calendar', unit };
  }
  if (fixed !== null) return { kind: 'fixed', millis: parseTimeValue(fixed, 'date_histogram.fixedInterval') };
  if (typeof legacy === 'number') {
    mustBeAtLeast('interval', 0, legacy, aggName, true);
    return { kind: 'fixed', millis: legacy };
  }
  if (typeof legacy === 'string') {
    const unit = getOwn(CALENDAR_UNITS, legacy);
    if (unit !== undefined) return { kind: 'calendar', unit };
    return { kind: 'fixed', millis: parseTimeValue(legacy, 'date_histogram.interval') };
  }
  throw illegalArgument(`Invalid interval specified, must be non-null and non-empty`);
}

function parseOffset(v: unknown): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const sign = v.startsWith('-') ? -1 : 1;
    const rest = v.replace(/^[+-]/, '');
    return sign * parseTimeValue(rest, 'date_histogram.offset');
  }
  throw illegalArgument(`failed to parse setting [date_histogram.offset] with value [${String(v)}] as a time value`);
}

function bound(v: unknown): string | number | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number' || typeof v === 'string') return v;
  throw parsingException(`Unknown key for a ${tokenName(v)} in [extended_bounds]`);
}

export function parseDateHistogram(c: Common, body: Json, mapping: MappingLookup, warn: Warn): DateHistogramSpec {
  const p = new AggParams('date_histogram', c.name, body);
  const source = readValuesSource(p, { withFormat: true });
  const interval = parseInterval(p, c.name);
  const tz = p.string('time_zone');
  if (tz !== null) timeZone(tz);
  const offset = parseOffset(p.raw('offset'));
  const minDocCount = p.int('min_doc_count') ?? 0;
  mustBeAtLeast('minDocCount', 0, minDocCount, c.name, false);
  const eb = p.object('extended_bounds');
  const extendedBounds = eb === null ? null : { min: bound(eb.min), max: bound(eb.max) };
  const orderRaw = p.raw('order');
  const order: BucketOrder[] = orderRaw === undefined ? [{ kind: 'key', asc: true }] : parseOrder(orderRaw, c.name, true, warn);
  const keyed = p.boolean('keyed') ?? false;
  p.done();
  checkField(source, mapping, true);
  return { type: 'date_histogram', ...c, source, interval, timeZone: tz, offset, minDocCount, extendedBounds, order, keyed };
}

export function parseHistogram(c: Common, body: Json, mapping: MappingLookup, warn: Warn): HistogramSpec {
  const p = new AggParams('histogram', c.name, body);
  const source = readValuesSource(p, { withFormat: true });
  const interval = p.number('interval');
  if (interval === null) throw parsingException(`Missing required field [interval] for histogram aggregation [${c.name}]`);
  if (!(interval > 0)) throw illegalArgument(`[interval] must be >0 for histogram aggregation [${c.name}]`);
  const offset = p.number('offset') ?? 0;
  const minDocCount = p.int('min_doc_count') ?? 0;
  mustBeAtLeast('minDocCount', 0, minDocCount, c.name, false);
  const eb = p.object('extended_bounds');
  const num = (v: unknown): number | null => (typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : null);
  const extendedBounds = eb === null ? null : { min: num(eb.min), max: num(eb.max) };
  const orderRaw = p.raw('order');
  const order: BucketOrder[] = orderRaw === undefined ? [{ kind: 'key', asc: true }] : parseOrder(orderRaw, c.name, true, warn);
  const keyed = p.boolean('keyed') ?? false;
  p.done();
  checkField(source, mapping, true);
  return { type: 'histogram', ...c, source, interval, offset, minDocCount, extendedBounds, order, keyed };
}

export function parseRange(c: Common, body: Json, mapping: MappingLookup, type: 'range' | 'date_range'): RangeSpec {
  const p = new AggParams(type, c.name, body);
  const source = readValuesSource(p, { withFormat: true });
  const keyed = p.boolean('keyed') ?? false;
  const tz = type === 'date_range' ? p.string('time_zone') : null;
  if (tz !== null) timeZone(tz);
  const rawRanges = p.raw('ranges');
  if (rawRanges === undefined || rawRanges === null || (Array.isArray(rawRanges) && rawRanges.length === 0)) {
    throw illegalArgument(`No [ranges] specified for the [${c.name}] aggregation`);
  }
  if (!Array.isArray(rawRanges)) throw parsingException(`[ranges] must be an array in [${c.name}]`);
  const ranges: RangeSpecEntry[] = rawRanges.map((r) => {
    if (!isObject(r)) throw parsingException(`Unexpected token ${tokenName(r)} in [ranges]`);
    const value = (k: string): string | number | null => {
      const v = r[k];
      if (v === undefined || v === null) return null;
      if (typeof v === 'number' || typeof v === 'string') return v;
      throw parsingException(`Unexpected token ${tokenName(v)} in [${k}]`);
    };
    for (const k of Object.keys(r)) {
      if (k !== 'from' && k !== 'to' && k !== 'key') throw parsingException(`Unknown key [${k}] in [ranges] of [${c.name}]`);
    }
    return { key: r.key === undefined || r.key === null ? null : String(r.key), from: value('from'), to: value('to') };
  });
  p.done();
  checkField(source, mapping, true);
  return { type, ...c, source, ranges, keyed, timeZone: tz };
}

export function parseFilter(c: Common, body: Json): FilterSpec {
  return { type: 'filter', ...c, filter: body };
}

export function parseFilters(c: Common, body: Json): FiltersSpec {
  const p = new AggParams('filters', c.name, body);
  const raw = p.raw('filters');
  const otherBucket = p.boolean('other_bucket');
  const otherBucketKey = p.string('other_bucket_key');
  p.done();
  let filters: { key: string; query: unknown }[];
  let keyed: boolean;
  if (isObject(raw)) {
    keyed = true;
    filters = Object.entries(raw)
      .map(([key, query]) => ({ key, query }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  } else if (Array.isArray(raw)) {
    keyed = false;
    filters = raw.map((query, i) => ({ key: String(i), query }));
  } else {
    throw illegalArgument(`[filters] cannot be null in [${c.name}]`);
  }
  return {
    type: 'filters',
    ...c,
    filters,
    keyed,
    otherBucket: otherBucket ?? otherBucketKey !== null,
    otherBucketKey: otherBucketKey ?? '_other_',
  };
}

export function parseMissing(c: Common, body: Json, mapping: MappingLookup): MissingSpec {
  const p = new AggParams('missing', c.name, body);
  const source = readValuesSource(p, { withFormat: false });
  p.done();
  checkField({ ...source, missing: null }, mapping, false);
  return { type: 'missing', ...c, source };
}

export function parseGlobal(c: Common, body: Json): GlobalSpec {
  new AggParams('global', c.name, body).done();
  return { type: 'global', ...c };
}

/** AdjacencyMatrixAggregationBuilder.parse: named `filters` (sorted by name), `separator` (default `&`). */
export function parseAdjacencyMatrix(c: Common, body: Json): AdjacencyMatrixSpec {
  const p = new AggParams('adjacency_matrix', c.name, body);
  const raw = p.object('filters');
  const separator = p.string('separator') ?? '&';
  p.done();
  const filters = raw === null ? [] : Object.entries(raw).map(([key, query]) => ({ key, query }));
  // checkConsistency: an IllegalStateException in Elasticsearch 6.8
  if (filters.length === 0) throw illegalState(`[${c.name}] is missing : filters parameter`);
  filters.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { type: 'adjacency_matrix', ...c, filters, separator };
}

/** AutoDateHistogramAggregationBuilder: `field`, `buckets` (10), `format`, `time_zone`, `missing`; `minimum_interval` is 7.x (unknown here). */
export function parseAutoDateHistogram(c: Common, body: Json, mapping: MappingLookup): AutoDateHistogramSpec {
  const p = new AggParams('auto_date_histogram', c.name, body);
  const source = readValuesSource(p, { withFormat: true });
  const buckets = p.int('buckets') ?? 10;
  mustBeAtLeast('buckets', 0, buckets, c.name, true);
  const tz = p.string('time_zone');
  if (tz !== null) timeZone(tz);
  p.done();
  checkField(source, mapping, true);
  return { type: 'auto_date_histogram', ...c, source, buckets, timeZone: tz };
}
