/**
 * A parsed aggregation request (the `aggs` object of a search body), as the
 * DSL layer produces it and the shard collectors and the coordinator's reduce
 * consume it. Field names are kept as names: each shard resolves them against
 * its own index's mapping (a search over several indices may see one field
 * with different types), so a spec never holds a resolved mapping.
 */
import type { CompiledScript } from './painless-expression.ts';

/** Elasticsearch's `value_type` names (ValueType in 6.8). */
export type ValueTypeName = 'string' | 'long' | 'double' | 'number' | 'numeric' | 'date' | 'boolean' | 'ip';

/** Where an aggregation reads its values from. */
export interface ValuesSourceSpec {
  readonly field: string | null;
  /** The `missing` parameter as given (null when absent). */
  readonly missing: string | number | boolean | null;
  readonly valueType: ValueTypeName | null;
  /** The `format` parameter (a date pattern for date fields), or null. */
  readonly format: string | null;
}

/** A buckets/order path: `agg1>agg2.metric`, `agg['key']>metric`, `_count`, `_key`. */
export interface AggPathElement {
  readonly name: string;
  /** Bucket key for multi-bucket elements written `agg['key']` / `agg[key]`. */
  readonly key: string | null;
}

export interface AggPath {
  readonly raw: string;
  readonly elements: readonly AggPathElement[];
  /** The metric name after the last `.` (`stats.max` → `max`), else null. */
  readonly metric: string | null;
}

export type BucketOrder =
  | { readonly kind: 'count'; readonly asc: boolean }
  | { readonly kind: 'key'; readonly asc: boolean }
  | { readonly kind: 'path'; readonly path: AggPath; readonly asc: boolean };

export type IncludeExclude =
  | { readonly kind: 'regex'; readonly pattern: string }
  | { readonly kind: 'values'; readonly values: readonly (string | number | boolean)[] }
  | { readonly kind: 'partition'; readonly partition: number; readonly numPartitions: number };

export type GapPolicy = 'skip' | 'insert_zeros';

interface SpecBase {
  readonly name: string;
  /** The `meta` object, echoed in the response. */
  readonly meta: Readonly<Record<string, unknown>> | null;
  /** Sub-aggregations and pipelines declared under `aggs`, in request order. */
  readonly subs: readonly AggSpec[];
}

export interface TermsSpec extends SpecBase {
  readonly type: 'terms';
  readonly source: ValuesSourceSpec;
  readonly size: number;
  /** null = Elasticsearch's default heuristic. */
  readonly shardSize: number | null;
  readonly minDocCount: number;
  readonly shardMinDocCount: number;
  /** Compound order; a key tie-breaker is appended when the primary order is not by key. */
  readonly order: readonly BucketOrder[];
  readonly include: IncludeExclude | null;
  readonly exclude: IncludeExclude | null;
  readonly showTermDocCountError: boolean;
}

export type CalendarUnit = 'year' | 'quarter' | 'month' | 'week' | 'day' | 'hour' | 'minute' | 'second';

export type DateInterval =
  | { readonly kind: 'calendar'; readonly unit: CalendarUnit }
  | { readonly kind: 'fixed'; readonly millis: number };

/** Bounds as written in the request (numbers, date strings or date math), resolved per shard. */
export interface RawBounds {
  readonly min: string | number | null;
  readonly max: string | number | null;
}

export interface DateHistogramSpec extends SpecBase {
  readonly type: 'date_histogram';
  readonly source: ValuesSourceSpec;
  readonly interval: DateInterval;
  /** `time_zone` as given (`+01:00`, `Europe/Paris`), null = UTC. */
  readonly timeZone: string | null;
  /** `offset` in milliseconds. */
  readonly offset: number;
  readonly minDocCount: number;
  readonly extendedBounds: RawBounds | null;
  readonly order: readonly BucketOrder[];
  readonly keyed: boolean;
}

/** `auto_date_histogram` (6.4+): date buckets at an interval chosen for at most `buckets` of them. */
export interface AutoDateHistogramSpec extends SpecBase {
  readonly type: 'auto_date_histogram';
  readonly source: ValuesSourceSpec;
  readonly buckets: number;
  readonly timeZone: string | null;
}

export interface HistogramSpec extends SpecBase {
  readonly type: 'histogram';
  readonly source: ValuesSourceSpec;
  readonly interval: number;
  readonly offset: number;
  readonly minDocCount: number;
  readonly extendedBounds: { readonly min: number | null; readonly max: number | null } | null;
  readonly order: readonly BucketOrder[];
  readonly keyed: boolean;
}

export interface RangeSpecEntry {
  readonly key: string | null;
  readonly from: string | number | null;
  readonly to: string | number | null;
}

export interface RangeSpec extends SpecBase {
  readonly type: 'range' | 'date_range';
  readonly source: ValuesSourceSpec;
  readonly ranges: readonly RangeSpecEntry[];
  readonly keyed: boolean;
  /** date_range only. */
  readonly timeZone: string | null;
}

export interface FilterSpec extends SpecBase {
  readonly type: 'filter';
  readonly filter: unknown;
}

export interface FiltersSpec extends SpecBase {
  readonly type: 'filters';
  /** Named filters are sorted by key, as Elasticsearch does; anonymous ones keep their order. */
  readonly filters: readonly { readonly key: string; readonly query: unknown }[];
  readonly keyed: boolean;
  readonly otherBucket: boolean;
  readonly otherBucketKey: string;
}

/** `adjacency_matrix`: a bucket per filter and per pair of filters (`a&b`), sorted by name, empty ones left out. */
export interface AdjacencyMatrixSpec extends SpecBase {
  readonly type: 'adjacency_matrix';
  /** Sorted by key, as Elasticsearch sorts them. */
  readonly filters: readonly { readonly key: string; readonly query: unknown }[];
  readonly separator: string;
}

export interface MissingSpec extends SpecBase {
  readonly type: 'missing';
  readonly source: ValuesSourceSpec;
}

/** `sampler`: its sub-aggregations see only each shard's `shard_size` best-scoring docs. */
export interface SamplerSpec extends SpecBase {
  readonly type: 'sampler' | 'diversified_sampler';
  readonly shardSize: number;
  /** diversified_sampler: at most `maxDocsPerValue` sampled docs per value of `source`'s field. */
  readonly diversity: { readonly source: ValuesSourceSpec; readonly maxDocsPerValue: number } | null;
}

export type SignificanceHeuristic =
  | { readonly type: 'jlh' | 'percentage' }
  /** NXYSignificanceHeuristic's options (gnd has no include_negatives: always true). */
  | { readonly type: 'mutual_information' | 'chi_square' | 'gnd'; readonly includeNegatives: boolean; readonly backgroundIsSuperset: boolean };

/** `significant_terms`: the terms of a field more frequent in the docs aggregated than in the whole index. */
export interface SignificantTermsSpec extends SpecBase {
  readonly type: 'significant_terms' | 'significant_text';
  readonly source: ValuesSourceSpec;
  /** significant_text: the terms of each doc come from re-analysing these `_source` fields (default: the field). */
  readonly text: { readonly sourceFields: readonly string[]; readonly filterDuplicateText: boolean } | null;
  readonly size: number;
  /** null = twice the terms aggregation's default for the number of shards. */
  readonly shardSize: number | null;
  readonly minDocCount: number;
  readonly shardMinDocCount: number;
  readonly include: IncludeExclude | null;
  readonly exclude: IncludeExclude | null;
  readonly heuristic: SignificanceHeuristic;
  /** `background_filter`: the query whose docs are the background (null: every doc of the index). */
  readonly backgroundFilter: unknown;
}

export interface GlobalSpec extends SpecBase {
  readonly type: 'global';
}

/** `nested`: the nested docs of `path` under each doc (nested-aggregators.ts). */
export interface NestedSpec extends SpecBase {
  readonly type: 'nested';
  readonly path: string;
  /** The path of the closest enclosing `nested` or `reverse_nested` (null: root docs). */
  readonly parentPath: string | null;
}

/** `reverse_nested`: from nested docs back to their `path` object's docs, or to root docs. */
export interface ReverseNestedSpec extends SpecBase {
  readonly type: 'reverse_nested';
  readonly path: string | null;
}

export type NumericMetricType = 'avg' | 'sum' | 'min' | 'max' | 'stats' | 'extended_stats' | 'value_count';

export interface NumericMetricSpec extends SpecBase {
  readonly type: NumericMetricType;
  readonly source: ValuesSourceSpec;
  /** extended_stats `sigma` (default 2). */
  readonly sigma: number;
}

export interface CardinalitySpec extends SpecBase {
  readonly type: 'cardinality';
  readonly source: ValuesSourceSpec;
  readonly precisionThreshold: number;
}

export interface PercentilesSpec extends SpecBase {
  readonly type: 'percentiles' | 'percentile_ranks';
  readonly source: ValuesSourceSpec;
  /** Percents (percentiles) or values (percentile_ranks), in request order. */
  readonly points: readonly number[];
  readonly keyed: boolean;
  readonly method: 'tdigest' | 'hdr';
  readonly compression: number;
  /** hdr `number_of_significant_value_digits`. */
  readonly digits: number;
}

/** `median_absolute_deviation` (6.6+): the median of each value's distance to the median, from t-digests. */
export interface MedianAbsoluteDeviationSpec extends SpecBase {
  readonly type: 'median_absolute_deviation';
  readonly source: ValuesSourceSpec;
  readonly compression: number;
}

/** `weighted_avg`: Σ value × weight / Σ weight. */
export interface WeightedAvgSpec extends SpecBase {
  readonly type: 'weighted_avg';
  readonly value: ValuesSourceSpec;
  readonly weight: ValuesSourceSpec;
}

export type TopHitsSortSpec =
  | { readonly kind: 'score'; readonly asc: boolean }
  | { readonly kind: 'doc'; readonly asc: boolean }
  | { readonly kind: 'field'; readonly field: string; readonly asc: boolean; readonly missingFirst: boolean };

export interface SourceFilterSpec {
  readonly fetch: boolean;
  readonly includes: readonly string[];
  readonly excludes: readonly string[];
}

export interface TopHitsSpec extends SpecBase {
  readonly type: 'top_hits';
  readonly from: number;
  readonly size: number;
  /** Empty = by score descending. */
  readonly sort: readonly TopHitsSortSpec[];
  readonly source: SourceFilterSpec;
  readonly trackScores: boolean;
  readonly version: boolean;
}

export interface BucketSelectorSpec extends SpecBase {
  readonly type: 'bucket_selector';
  readonly bucketsPath: readonly { readonly variable: string; readonly path: AggPath }[];
  readonly script: CompiledScript;
  readonly gapPolicy: GapPolicy;
}

export interface BucketScriptSpec extends SpecBase {
  readonly type: 'bucket_script';
  readonly bucketsPath: readonly { readonly variable: string; readonly path: AggPath }[];
  readonly script: CompiledScript;
  readonly gapPolicy: GapPolicy;
  readonly format: string | null;
}

export interface BucketSortSpec extends SpecBase {
  readonly type: 'bucket_sort';
  readonly sort: readonly { readonly path: AggPath; readonly asc: boolean }[];
  readonly from: number;
  readonly size: number | null;
  readonly gapPolicy: GapPolicy;
}

export type BucketMetricsType = 'sum_bucket' | 'avg_bucket' | 'min_bucket' | 'max_bucket' | 'stats_bucket';

export interface BucketMetricsSpec extends SpecBase {
  readonly type: BucketMetricsType;
  readonly bucketsPath: AggPath;
  readonly gapPolicy: GapPolicy;
  readonly format: string | null;
}

export interface MovingAvgSpec extends SpecBase {
  readonly type: 'moving_avg';
  readonly bucketsPath: AggPath;
  readonly window: number;
  readonly model: 'simple' | 'linear';
  readonly gapPolicy: GapPolicy;
}

/** `moving_fn` (6.4+): a script over the previous `window` values of a histogram's buckets. */
export interface MovingFnSpec extends SpecBase {
  readonly type: 'moving_fn';
  readonly bucketsPath: AggPath;
  readonly window: number;
  readonly script: CompiledScript;
  readonly gapPolicy: GapPolicy;
  readonly format: string | null;
}

export interface CumulativeSumSpec extends SpecBase {
  readonly type: 'cumulative_sum';
  readonly bucketsPath: AggPath;
  readonly format: string | null;
}

/** `geo_bounds`: the box around a geo_point field's points. */
export interface GeoBoundsSpec extends SpecBase {
  readonly type: 'geo_bounds';
  readonly field: string;
  readonly wrapLongitude: boolean;
}

/** `geo_centroid`: the mean of a geo_point field's points. */
export interface GeoCentroidSpec extends SpecBase {
  readonly type: 'geo_centroid';
  readonly field: string;
}

/** `geohash_grid`: buckets by the geohash cell (of `precision` characters) of each point. */
export interface GeoHashGridSpec extends SpecBase {
  readonly type: 'geohash_grid';
  readonly field: string;
  readonly precision: number;
  readonly size: number;
  /** null = the terms aggregation's default for the number of shards. */
  readonly shardSize: number | null;
}

/** `geo_distance` aggregation: range buckets over the distance from `origin`, in the unit asked. */
export interface GeoDistanceAggSpec extends SpecBase {
  readonly type: 'geo_distance';
  readonly field: string;
  /** [lat, lon]. */
  readonly origin: readonly [number, number];
  readonly unitMeters: number;
  readonly plane: boolean;
  readonly ranges: readonly RangeSpecEntry[];
  readonly keyed: boolean;
}

/** `ip_range`: address ranges, bounds as 32 hex digits (ip-address.ts), `to` exclusive. */
export interface IpRangeAggSpec extends SpecBase {
  readonly type: 'ip_range';
  readonly field: string;
  readonly ranges: readonly { readonly key: string | null; readonly from: string | null; readonly to: string | null }[];
  readonly keyed: boolean;
}

/** One source of a `composite` aggregation: a terms, histogram or date_histogram value per doc. */
export interface CompositeSourceSpec {
  readonly name: string;
  readonly kind: 'terms' | 'histogram' | 'date_histogram';
  readonly source: ValuesSourceSpec;
  readonly asc: boolean;
  /** `missing_bucket`: docs without a value get a null key instead of being left out. */
  readonly missingBucket: boolean;
  /** histogram only. */
  readonly interval: number;
  /** date_histogram only. */
  readonly dateInterval: DateInterval | null;
  readonly timeZone: string | null;
}

/** `composite`: every combination of the sources' values, in key order, a page of `size` after `after`. */
export interface CompositeSpec extends SpecBase {
  readonly type: 'composite';
  readonly sources: readonly CompositeSourceSpec[];
  readonly size: number;
  /** The `after` values in source order, as the request gave them (parsed per shard against the mapping). */
  readonly after: readonly (string | number | boolean | null)[] | null;
}

export type BucketAggSpec =
  | AutoDateHistogramSpec
  | AdjacencyMatrixSpec
  | CompositeSpec
  | IpRangeAggSpec
  | GeoHashGridSpec
  | GeoDistanceAggSpec
  | TermsSpec
  | DateHistogramSpec
  | HistogramSpec
  | RangeSpec
  | FilterSpec
  | FiltersSpec
  | MissingSpec
  | GlobalSpec
  | SamplerSpec
  | SignificantTermsSpec
  | NestedSpec
  | ReverseNestedSpec;

export type MetricAggSpec = MedianAbsoluteDeviationSpec | WeightedAvgSpec | NumericMetricSpec | CardinalitySpec | PercentilesSpec | TopHitsSpec | GeoBoundsSpec | GeoCentroidSpec;

/** Pipelines run on the reduced tree. Parent pipelines act on their parent's buckets. */
export type ParentPipelineSpec = BucketSelectorSpec | BucketScriptSpec | BucketSortSpec | MovingAvgSpec | MovingFnSpec | CumulativeSumSpec;
/** Sibling pipelines read the buckets of a sibling multi-bucket aggregation. */
export type SiblingPipelineSpec = BucketMetricsSpec;
export type PipelineAggSpec = ParentPipelineSpec | SiblingPipelineSpec;

export type AggSpec = BucketAggSpec | MetricAggSpec | PipelineAggSpec;

const PIPELINE_TYPES: ReadonlySet<string> = new Set([
  'bucket_selector',
  'bucket_script',
  'bucket_sort',
  'moving_avg',
  'moving_fn',
  'cumulative_sum',
  'sum_bucket',
  'avg_bucket',
  'min_bucket',
  'max_bucket',
  'stats_bucket',
]);

const PARENT_PIPELINE_TYPES: ReadonlySet<string> = new Set([
  'bucket_selector',
  'bucket_script',
  'bucket_sort',
  'moving_avg',
  'moving_fn',
  'cumulative_sum',
]);

export function isPipeline(spec: AggSpec): spec is PipelineAggSpec {
  return PIPELINE_TYPES.has(spec.type);
}

export function isParentPipeline(spec: AggSpec): spec is ParentPipelineSpec {
  return PARENT_PIPELINE_TYPES.has(spec.type);
}

export function isSiblingPipeline(spec: AggSpec): spec is SiblingPipelineSpec {
  return PIPELINE_TYPES.has(spec.type) && !PARENT_PIPELINE_TYPES.has(spec.type);
}

/** The aggregations (not pipelines) of a level, in request order: what a shard collects. */
export function collectedAggs(specs: readonly AggSpec[]): (BucketAggSpec | MetricAggSpec)[] {
  return specs.filter((s): s is BucketAggSpec | MetricAggSpec => !isPipeline(s));
}

/** Whether an aggregation of the tree reads the matches' scores (top_hits, sampler, diversified_sampler). */
export function readsScores(specs: readonly AggSpec[]): boolean {
  return specs.some((s) => s.type === 'top_hits' || s.type === 'sampler' || s.type === 'diversified_sampler' || readsScores(s.subs));
}
