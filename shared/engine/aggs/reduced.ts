/**
 * The reduced aggregation tree the coordinator builds from the shard states:
 * what pipelines read and rewrite, and what the response is rendered from.
 */
import type { NumericMetricType } from './spec.ts';
import type { TopHitState, ValueFormat } from './state.ts';
import type { TDigest } from './tdigest.ts';
import type { HdrHistogram } from './hdr-histogram.ts';

export interface ReducedBucket {
  readonly key: string | number;
  /** `key_as_string` when the format prints one, else null. */
  readonly keyAsString: string | null;
  /** The key as text when it is not `key_as_string` nor String(key) (raw doubles print as Java does). */
  readonly keyText?: string;
  readonly docCount: number;
  aggs: ReducedAgg[];
  /** Terms with show_term_doc_count_error. */
  readonly docCountError?: number;
  /** Range buckets. */
  readonly from?: number | null;
  readonly to?: number | null;
  /** ip_range buckets: the bounds as addresses (null for an open end). */
  readonly fromText?: string | null;
  readonly toText?: string | null;
  /** composite buckets: the key as printed, source name → value. */
  readonly compositeKey?: Readonly<Record<string, unknown>>;
}

interface Named {
  readonly name: string;
  readonly meta: Readonly<Record<string, unknown>> | null;
}

export interface ReducedTerms extends Named {
  readonly kind: 'terms';
  readonly typeName: 'sterms' | 'lterms' | 'dterms' | 'umterms' | 'geohash_grid';
  buckets: ReducedBucket[];
  readonly docCountError: number;
  readonly sumOtherDocCount: number;
  readonly showDocCountError: boolean;
}

export interface ReducedHistogram extends Named {
  readonly kind: 'histogram';
  readonly typeName: 'date_histogram' | 'histogram' | 'auto_date_histogram';
  readonly keyed: boolean;
  readonly format: ValueFormat;
  buckets: ReducedBucket[];
  /** auto_date_histogram: the interval chosen (`7d`, `3h`). */
  readonly interval?: string;
}

export interface ReducedRange extends Named {
  readonly kind: 'range';
  readonly typeName: 'range' | 'date_range' | 'geo_distance' | 'ip_range';
  readonly keyed: boolean;
  readonly format: ValueFormat;
  buckets: ReducedBucket[];
}

export interface ReducedFilters extends Named {
  readonly kind: 'filters';
  /** adjacency_matrix reduces to filters-like buckets, each with its key. */
  readonly typeName?: 'adjacency_matrix';
  readonly keyed: boolean;
  buckets: ReducedBucket[];
}

export interface ReducedSingle extends Named {
  readonly kind: 'single';
  readonly typeName: 'filter' | 'missing' | 'global' | 'nested' | 'reverse_nested' | 'sampler';
  readonly docCount: number;
  aggs: ReducedAgg[];
}

export interface ReducedNumericMetric extends Named {
  readonly kind: 'metric';
  readonly typeName: NumericMetricType;
  readonly format: ValueFormat;
  readonly count: number;
  readonly sum: number;
  readonly min: number;
  readonly max: number;
  readonly sumOfSquares: number;
  readonly sigma: number;
}

export interface ReducedCardinality extends Named {
  readonly kind: 'cardinality';
  readonly value: number;
}

export interface ReducedPercentiles extends Named {
  readonly kind: 'percentiles';
  readonly typeName: 'tdigest_percentiles' | 'tdigest_percentile_ranks' | 'hdr_percentiles' | 'hdr_percentile_ranks';
  /** The merged sketch: a t-digest, or an HdrHistogram for `hdr`. */
  readonly digest: TDigest | null;
  readonly hdr: HdrHistogram | null;
  readonly points: readonly number[];
  readonly keyed: boolean;
  readonly format: ValueFormat;
}

export interface ReducedTopHits extends Named {
  readonly kind: 'top_hits';
  readonly total: number;
  readonly maxScore: number | null;
  readonly hits: readonly TopHitState[];
}

/** Pipeline outputs: sum_bucket, avg_bucket, bucket_script, moving_avg, cumulative_sum. */
export interface ReducedSimpleValue extends Named {
  readonly kind: 'simple_value';
  /** The typed_keys name when it is not `simple_value` (weighted_avg, median_absolute_deviation). */
  readonly typeName?: string;
  readonly value: number;
  readonly format: ValueFormat;
}

/** max_bucket / min_bucket. */
export interface ReducedBucketMetricValue extends Named {
  readonly kind: 'bucket_metric_value';
  readonly value: number;
  readonly keys: readonly string[];
  readonly format: ValueFormat;
}

export interface ReducedStatsBucket extends Named {
  readonly kind: 'stats_bucket';
  readonly count: number;
  readonly sum: number;
  readonly min: number;
  readonly max: number;
  readonly format: ValueFormat;
}

/** geo_bounds: the box, or null without points. */
export interface ReducedGeoBounds extends Named {
  readonly kind: 'geo_bounds';
  readonly box: { readonly top: number; readonly left: number; readonly bottom: number; readonly right: number } | null;
}

export interface ReducedGeoCentroid extends Named {
  readonly kind: 'geo_centroid';
  /** [lat, lon], or null without points. */
  readonly location: readonly [number, number] | null;
  readonly count: number;
}

/** composite: a page of buckets in key order, and the key to ask the next page after. */
export interface ReducedComposite extends Named {
  readonly kind: 'composite';
  buckets: ReducedBucket[];
  /** The last bucket's key as printed; null without buckets. */
  readonly afterKey: Readonly<Record<string, unknown>> | null;
}

export type ReducedMultiBucket = ReducedTerms | ReducedHistogram | ReducedRange | ReducedFilters | ReducedComposite;

/** significant_terms, reduced: `doc_count` and `bg_count` of the whole, buckets with their score. */
export interface ReducedSignificantTerms extends Named {
  readonly kind: 'significant_terms';
  /** Unmapped fields print as sigsterms too (UnmappedSignificantTerms.getType). */
  readonly typeName: 'sigsterms' | 'siglterms';
  readonly subsetSize: number;
  readonly supersetSize: number;
  readonly buckets: readonly { readonly key: string | number; readonly keyAsString: string | null; readonly docCount: number; readonly score: number; readonly bgCount: number; readonly aggs: readonly ReducedAgg[] }[];
}

export type ReducedAgg =
  | ReducedSignificantTerms
  | ReducedMultiBucket
  | ReducedSingle
  | ReducedNumericMetric
  | ReducedCardinality
  | ReducedPercentiles
  | ReducedTopHits
  | ReducedSimpleValue
  | ReducedBucketMetricValue
  | ReducedStatsBucket
  | ReducedGeoBounds
  | ReducedGeoCentroid;

export function isMultiBucket(a: ReducedAgg): a is ReducedMultiBucket {
  return a.kind === 'terms' || a.kind === 'histogram' || a.kind === 'range' || a.kind === 'filters' || a.kind === 'composite';
}

/** A bucket's key as text (`getKeyAsString()`): what max_bucket lists and keyed output uses. */
export function bucketKeyString(b: ReducedBucket): string {
  return b.keyAsString ?? b.keyText ?? String(b.key);
}

/** No value was recorded (every percentile prints null). */
export function percentilesEmpty(agg: ReducedPercentiles): boolean {
  if (agg.hdr !== null) return agg.hdr.totalCount === 0;
  return agg.digest === null || (agg.digest.size === 0 && agg.digest.total === 0);
}

/** A percentile's value (percentiles) or a value's percent rank (percentile_ranks). */
export function percentileValue(agg: ReducedPercentiles, point: number): number {
  const ranks = agg.typeName === 'tdigest_percentile_ranks' || agg.typeName === 'hdr_percentile_ranks';
  if (agg.hdr !== null) return ranks ? agg.hdr.percentileAtOrBelow(point) : agg.hdr.valueAtPercentile(point);
  if (agg.digest === null) return NaN;
  return ranks ? agg.digest.cdf(point) * 100 : agg.digest.quantile(point / 100);
}
