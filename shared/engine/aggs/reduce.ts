/**
 * reduceAggs: merges the shards' partial states into the response's
 * `aggregations` object, running pipelines on the reduced tree (parent
 * pipelines on their parent's buckets, sibling pipelines after their level).
 */
import { applyBucketScript } from './bucket-script.ts';
import { applyBucketSelector } from './bucket-selector.ts';
import { applyBucketSort } from './bucket-sort.ts';
import type { ReducedAgg, ReducedBucket } from './reduced.ts';
import { tooManyBuckets } from '../../errors/es-errors.ts';
import { BucketBudget } from './bucket-budget.ts';
import type { LevelReducer } from './reduce-terms.ts';
import { isMultiBucket } from './reduced.ts';
import { reduceFilters, reduceRange, reduceSingle } from './reduce-fixed-buckets.ts';
import { reduceHistogram } from './reduce-histogram.ts';
import { reduceCardinality, reduceHdrPercentiles, reduceNumericMetric, reducePercentiles, reduceTopHits } from './reduce-metrics.ts';
import { reduceTerms } from './reduce-terms.ts';
import { reduceSignificantTerms } from './significant-terms.ts';
import { reduceIpRange } from './ip-range-aggregator.ts';
import { reduceComposite } from './reduce-composite.ts';
import { reduceWeightedAvg } from './weighted-avg.ts';
import { reduceMedianAbsoluteDeviation } from './median-absolute-deviation.ts';
import { reduceAdjacencyMatrix } from './adjacency-matrix.ts';
import { reduceAutoDateHistogram } from './auto-date-histogram.ts';
import { reduceGeoBounds, reduceGeoCentroid, reduceGeoDistance, reduceGeoHashGrid } from './reduce-geo.ts';
import { renderAggs } from './render.ts';
import { applyCumulativeSum, applyMovingAvg, applyMovingFn } from './series-pipelines.ts';
import { runBucketMetrics } from './sibling-bucket-metrics.ts';
import type { AggSpec, BucketAggSpec, MetricAggSpec } from './spec.ts';
import { collectedAggs, isParentPipeline, isSiblingPipeline } from './spec.ts';
import type {
  AggState,
  CardinalityState,
  FiltersState,
  HistogramState,
  NumericStatsState,
  RangeState,
  ShardAggState,
  SingleBucketState,
  TDigestState,
  TermsState,
  TopHitsState,
} from './state.ts';

function ofKind<K extends AggState['kind']>(states: readonly AggState[], kind: K): Extract<AggState, { kind: K }>[] {
  return states.filter((s): s is Extract<AggState, { kind: K }> => s.kind === kind);
}

function reduceOne(spec: BucketAggSpec | MetricAggSpec, states: readonly AggState[], reduceLevel: LevelReducer, budget: BucketBudget | null): ReducedAgg {
  let agg: ReducedAgg;
  switch (spec.type) {
    case 'terms':
      agg = reduceTerms(spec, ofKind(states, 'terms') as TermsState[], reduceLevel);
      break;
    case 'date_histogram':
    case 'histogram':
      agg = reduceHistogram(spec, ofKind(states, 'histogram') as HistogramState[], reduceLevel, budget);
      break;
    case 'range':
    case 'date_range':
      agg = reduceRange(spec, ofKind(states, 'range') as RangeState[], reduceLevel);
      break;
    case 'filters':
      agg = reduceFilters(spec, ofKind(states, 'filters') as FiltersState[], reduceLevel);
      break;
    case 'significant_terms':
    case 'significant_text':
      return reduceSignificantTerms(spec, ofKind(states, 'significant_terms'), reduceLevel);
    case 'filter':
    case 'missing':
    case 'sampler':
    case 'diversified_sampler':
    case 'global':
    case 'nested':
    case 'reverse_nested':
      agg = reduceSingle(spec, ofKind(states, 'single') as SingleBucketState[], reduceLevel);
      break;
    case 'cardinality':
      return reduceCardinality(spec, ofKind(states, 'cardinality') as CardinalityState[]);
    case 'percentiles':
    case 'percentile_ranks':
      if (spec.method === 'hdr') return reduceHdrPercentiles(spec, ofKind(states, 'hdr'));
      return reducePercentiles(spec, ofKind(states, 'tdigest') as TDigestState[]);
    case 'top_hits':
      return reduceTopHits(spec, ofKind(states, 'top_hits') as TopHitsState[]);
    case 'geo_bounds':
      return reduceGeoBounds(spec, ofKind(states, 'geo_bounds'));
    case 'geo_centroid':
      return reduceGeoCentroid(spec, ofKind(states, 'geo_centroid'));
    case 'geohash_grid':
      agg = reduceGeoHashGrid(spec, ofKind(states, 'terms') as TermsState[], reduceLevel);
      break;
    case 'ip_range':
      agg = reduceIpRange(spec, ofKind(states, 'range') as RangeState[], reduceLevel);
      break;
    case 'auto_date_histogram':
      agg = reduceAutoDateHistogram(spec, ofKind(states, 'auto_date_histogram'), reduceLevel, budget);
      break;
    case 'adjacency_matrix':
      agg = reduceAdjacencyMatrix(spec, ofKind(states, 'adjacency'), reduceLevel);
      break;
    case 'median_absolute_deviation':
      return reduceMedianAbsoluteDeviation(spec, ofKind(states, 'tdigest'));
    case 'weighted_avg':
      return reduceWeightedAvg(spec, ofKind(states, 'weighted_avg'));
    case 'composite':
      agg = reduceComposite(spec, ofKind(states, 'composite'), reduceLevel);
      break;
    case 'geo_distance':
      agg = reduceGeoDistance(spec, ofKind(states, 'range') as RangeState[], reduceLevel);
      break;
    default:
      return reduceNumericMetric(spec, ofKind(states, 'stats') as NumericStatsState[]);
  }
  if (isMultiBucket(agg)) {
    for (const p of spec.subs) {
      if (!isParentPipeline(p)) continue;
      switch (p.type) {
        case 'bucket_selector':
          applyBucketSelector(p, agg);
          break;
        case 'bucket_script':
          applyBucketScript(p, agg);
          break;
        case 'bucket_sort':
          applyBucketSort(p, agg);
          break;
        case 'moving_avg':
          applyMovingAvg(p, agg);
          break;
        case 'cumulative_sum':
          applyCumulativeSum(p, agg);
          break;
        case 'moving_fn':
          applyMovingFn(p, agg);
          break;
      }
    }
  }
  return agg;
}

/** Reduces one level (the top, or the inside of a bucket): `perShard[i]` are shard i's states of the level. */
function levelReducer(budget: BucketBudget | null): LevelReducer {
  const reduceLevel: LevelReducer = (specs, perShard) => {
    if (specs.length === 0) return [];
    const collected = collectedAggs(specs);
    const out = collected.map((spec, i) => {
      const states: AggState[] = [];
      for (const shard of perShard) {
        const s = shard[i];
        if (s !== undefined) states.push(s);
      }
      return reduceOne(spec, states, reduceLevel, budget);
    });
    for (const p of specs) if (isSiblingPipeline(p)) out.push(runBucketMetrics(p, out));
    return out;
  };
  return reduceLevel;
}

/**
 * The reduced tree of a search's aggregations (pipelines applied), before
 * rendering. With a budget, the empty buckets histograms fill in are counted
 * as they are made.
 */
export function reduceAggTree(specs: AggSpec[], states: readonly ShardAggState[], budget: BucketBudget | null = null): ReducedAgg[] {
  return levelReducer(budget)(
    specs,
    states.map((s) => s.aggs),
  );
}

export function reduceAggs(specs: AggSpec[], states: readonly ShardAggState[], opts: { typedKeys: boolean }): Record<string, unknown> {
  return renderAggs(reduceAggTree(specs, states), opts.typedKeys);
}

/**
 * The response's `aggregations` as JSON text, for the REST layer to embed as
 * is: plain data only (no bigint, nothing raw inside), so it is written in
 * one native pass.
 */
export function renderAggsJson(reduced: readonly ReducedAgg[], typedKeys: boolean): string {
  return JSON.stringify(renderAggs(reduced, typedKeys));
}

/** Buckets in a reduced tree, sub-aggregations' included (MultiBucketConsumerService counts them so). */
function countBuckets(aggs: readonly ReducedAgg[]): number {
  let n = 0;
  const stack: ReducedAgg[] = [...aggs];
  while (stack.length > 0) {
    const agg = stack.pop()!;
    if ('buckets' in agg && Array.isArray(agg.buckets)) {
      n += agg.buckets.length;
      for (const b of agg.buckets as ReducedBucket[]) stack.push(...b.aggs);
    } else if ('aggs' in agg && Array.isArray(agg.aggs)) {
      stack.push(...(agg.aggs as ReducedAgg[]));
    }
  }
  return n;
}

/**
 * The reduced aggregations as JSON. More buckets than `maxBuckets`
 * (`search.max_buckets`) is Elasticsearch 7's too_many_buckets_exception,
 * checked before anything is rendered.
 */
export function reduceAggsToJson(specs: AggSpec[], states: readonly ShardAggState[], opts: { typedKeys: boolean; maxBuckets?: number }): string {
  const tree = reduceAggTree(specs, states, opts.maxBuckets === undefined ? null : new BucketBudget(opts.maxBuckets));
  if (opts.maxBuckets !== undefined) {
    const n = countBuckets(tree);
    if (n > opts.maxBuckets) throw tooManyBuckets(opts.maxBuckets, n);
  }
  return renderAggsJson(tree, opts.typedKeys);
}
