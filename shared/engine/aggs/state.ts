import type { HdrSnapshot } from './hdr-histogram.ts';

/**
 * Partial aggregation states one shard returns to the coordinator. Plain data
 * only (numbers, strings, arrays, typed arrays, nested objects; no Infinity or
 * NaN, no class instances) so a state can be shipped between nodes as is.
 *
 * A state holds what the reduce needs that a spec cannot give it: how this
 * shard's mapping typed the field (key kind, date format) and the resolved
 * request values (date math in bounds and ranges, evaluated once per shard
 * with the request's `now`).
 */

/** How keys and values print (`key_as_string`, `value_as_string`). */
export type ValueFormat =
  | { readonly kind: 'raw' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'date'; readonly pattern: string; readonly timeZone: string | null }
  /** DocValueFormat.IP: string keys are addresses' terms (hex, ip-address.ts), printed as the addresses. */
  | { readonly kind: 'ip' };

export interface BucketState {
  readonly key: string | number;
  readonly docCount: number;
  /** States of the sub-aggregations, aligned with the spec's collected sub-aggregations. */
  readonly subs: readonly AggState[];
}

/**
 * Sort codes of string keys (key-merge.ts): the first three and the next
 * three UTF-16 units of each key as order-preserving exact numbers.
 */
export interface KeyCodes {
  readonly hi: Float64Array;
  readonly lo: Float64Array;
}

export interface TermsState {
  readonly kind: 'terms';
  /** sterms / lterms (long, date, boolean) / dterms / umterms. */
  readonly valueType: 'string' | 'long' | 'double' | 'unmapped';
  readonly format: ValueFormat;
  /** Keys of this shard's best buckets by the aggregation's order, in no particular order (columns, no object per bucket). */
  readonly keys: readonly (string | number)[];
  /** Sort codes of string keys (key-merge.ts), so the reduce hashes and orders them as numbers; null when not computed. */
  readonly keyCodes: KeyCodes | null;
  /** Doc count of each returned bucket. */
  readonly docCounts: Int32Array;
  /**
   * States of each returned bucket's sub-aggregations, aligned with the spec's
   * collected sub-aggregations; null when it has none.
   */
  readonly subs: readonly (readonly AggState[])[] | null;
  /** Docs counted in buckets this shard did not return. */
  readonly sumOtherDocCount: number;
  /** The shard_size this shard used (the reduce's error bound depends on it). */
  readonly shardSize: number;
}

export interface HistogramState {
  readonly kind: 'histogram';
  readonly format: ValueFormat;
  /** Keys of the buckets with a doc, ascending (columns, no object per bucket). */
  readonly keys: Float64Array;
  readonly docCounts: Int32Array;
  /** Sub-aggregation states per bucket; null when there are no collected sub-aggregations. */
  readonly subs: readonly (readonly AggState[])[] | null;
  /** Sub-aggregation states of a bucket without docs (for empty-bucket filling). */
  readonly emptySubs: readonly AggState[];
  /** extended_bounds resolved and rounded, or null. */
  readonly boundsMin: number | null;
  readonly boundsMax: number | null;
}

/** auto_date_histogram on one shard: its keys ascending at the ladder rounding it ended on. */
export interface AutoDateHistogramState {
  readonly kind: 'auto_date_histogram';
  readonly format: ValueFormat;
  readonly roundingIdx: number;
  readonly keys: Float64Array;
  readonly docCounts: Int32Array;
  readonly subs: readonly (readonly AggState[])[] | null;
  readonly emptySubs: readonly AggState[];
}

export interface RangeBucketState extends BucketState {
  readonly key: string;
  readonly from: number | null;
  readonly to: number | null;
}

export interface RangeState {
  readonly kind: 'range';
  readonly format: ValueFormat;
  readonly buckets: readonly RangeBucketState[];
}

export interface SingleBucketState {
  readonly kind: 'single';
  readonly docCount: number;
  readonly subs: readonly AggState[];
}

/** adjacency_matrix on one shard: its non-empty buckets, keyed by filter name or `a&b`. */
export interface AdjacencyState {
  readonly kind: 'adjacency';
  readonly buckets: readonly BucketState[];
}

export interface FiltersState {
  readonly kind: 'filters';
  readonly buckets: readonly BucketState[];
}

/** One state for avg, sum, min, max, stats, extended_stats and value_count. */
export interface NumericStatsState {
  readonly kind: 'stats';
  readonly format: ValueFormat;
  readonly count: number;
  readonly sum: number;
  /** null when count is 0. */
  readonly min: number | null;
  readonly max: number | null;
  readonly sumOfSquares: number;
}

export interface WeightedAvgState {
  readonly kind: 'weighted_avg';
  readonly format: ValueFormat;
  /** Σ value × weight and Σ weight. */
  readonly sum: number;
  readonly weight: number;
}

export interface CardinalityState {
  readonly kind: 'cardinality';
  /** HyperLogLog++ precision. */
  readonly precision: number;
  /** Linear-counting mode: the encoded hashes; null in HyperLogLog mode. */
  readonly encoded: Int32Array | null;
  /** HyperLogLog mode: one run length per register; null in linear-counting mode. */
  readonly registers: Uint8Array | null;
}

export interface TDigestState {
  readonly kind: 'tdigest';
  readonly format: ValueFormat;
  readonly compression: number;
  /** Centroids ascending by mean. */
  readonly means: Float64Array;
  readonly counts: Float64Array;
}

/** One bucket's HdrHistogram (hdr-histogram.ts). */
export interface HdrState extends HdrSnapshot {
  readonly kind: 'hdr';
  readonly format: ValueFormat;
}

export interface TopHitState {
  readonly index: string;
  readonly type: string;
  readonly id: string;
  /** null when not scored (sorted by a field without track_scores). */
  readonly score: number | null;
  readonly version: number | null;
  /** Parsed and filtered `_source`, or undefined when `_source: false`. */
  readonly source: unknown;
  /** Sort values as rendered (`sort` of the hit), null when sorted by score only. */
  readonly sort: readonly (string | number | null)[] | null;
  /** The sort values a user sees when they differ from `sort` (an ip field's keys are its terms); `sort` orders the reduce. */
  readonly printedSort?: readonly (string | number | null)[];
  /** Internal tie-breakers: shard-local global doc id. */
  readonly doc: number;
}

export interface TopHitsState {
  readonly kind: 'top_hits';
  readonly total: number;
  readonly maxScore: number | null;
  readonly hits: readonly TopHitState[];
}

/** geo_bounds of one shard: null edges when it saw no point. */
export interface GeoBoundsState {
  readonly kind: 'geo_bounds';
  readonly top: number | null;
  readonly bottom: number | null;
  /** Westmost and eastmost longitudes of the points east of Greenwich (lon >= 0) and west of it. */
  readonly posLeft: number | null;
  readonly posRight: number | null;
  readonly negLeft: number | null;
  readonly negRight: number | null;
}

export interface GeoCentroidState {
  readonly kind: 'geo_centroid';
  readonly latSum: number;
  readonly lonSum: number;
  readonly count: number;
}

/** One owning bucket's significant terms on a shard: subset and background frequencies per term. */
export interface SignificantTermsState {
  readonly kind: 'significant_terms';
  readonly valueType: 'string' | 'long' | 'double' | 'unmapped';
  readonly format: ValueFormat;
  /** Docs aggregated (the subset) and live docs of the shard (the background). */
  readonly subsetSize: number;
  readonly supersetSize: number;
  readonly keys: readonly (string | number)[];
  readonly subsetDfs: readonly number[];
  readonly supersetDfs: readonly number[];
  /** Sub-aggregation states of each returned bucket; null without sub-aggregations. */
  readonly subs: readonly (readonly AggState[])[] | null;
}

/** A composite key value: a term, a number (rounded for histograms), or null (missing_bucket). */
export type CompositeValue = string | number | null;

/** One shard's page of composite buckets: its first `size` keys after `after`, in the aggregation's key order. */
export interface CompositeState {
  readonly kind: 'composite';
  /** How each source's values print (raw numbers, boolean, a date format). */
  readonly formats: readonly ValueFormat[];
  readonly keys: readonly (readonly CompositeValue[])[];
  readonly docCounts: Int32Array;
  /** Sub-aggregation states of each bucket; null without sub-aggregations. */
  readonly subs: readonly (readonly AggState[])[] | null;
}

export type AggState =
  | AutoDateHistogramState
  | WeightedAvgState
  | AdjacencyState
  | HdrState
  | CompositeState
  | SignificantTermsState
  | GeoBoundsState
  | GeoCentroidState
  | TermsState
  | HistogramState
  | RangeState
  | SingleBucketState
  | FiltersState
  | NumericStatsState
  | CardinalityState
  | TDigestState
  | TopHitsState;

/** Everything one shard returns: states aligned with the top-level collected aggregations. */
export interface ShardAggState {
  readonly aggs: readonly AggState[];
}
