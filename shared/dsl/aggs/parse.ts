/**
 * parseAggregations: the `aggs` / `aggregations` object of a search body →
 * AggSpec[], with Elasticsearch 6.8's parsing errors (AggregatorFactories.
 * parseAggregators) and the checks it runs before any shard is asked: field
 * types against the mapping, pipeline buckets_path targets, placement of
 * `global` and of sub-aggregations.
 */
import { EsError, aggregationExecution, aggregationInitialization, illegalArgument, parsingException, unknownAggregationType } from '../../errors/es-errors.ts';
import { parseNested, parseReverseNested } from './parse-nested-aggs.ts';
import type { MappingLookup } from '../../engine/mapping/types.ts';
import type { AggSpec } from '../../engine/aggs/spec.ts';
import { isParentPipeline, isPipeline, isSiblingPipeline } from '../../engine/aggs/spec.ts';
import { isObject, tokenName, type Json } from './agg-params.ts';
import {
  parseAdjacencyMatrix,
  parseAutoDateHistogram,
  parseDateHistogram,
  parseFilter,
  parseFilters,
  parseGlobal,
  parseHistogram,
  parseMissing,
  parseRange,
  parseTerms,
  type Common,
  type Warn,
} from './parse-bucket-aggs.ts';
import { parseGeoBounds, parseGeoCentroid, parseGeoDistanceAgg, parseGeoHashGrid } from './parse-geo-aggs.ts';
import { parseIpRange } from './parse-ip-range.ts';
import { parseComposite } from './parse-composite.ts';
import { parseDiversifiedSampler, parseSampler, parseSignificantTerms } from './parse-significance-aggs.ts';
import { parseCardinality, parseMedianAbsoluteDeviation, parseWeightedAvg, parseNumericMetric, parsePercentiles, parseTopHits } from './parse-metric-aggs.ts';
import {
  parseBucketMetrics,
  parseBucketScript,
  parseBucketSelector,
  parseBucketSort,
  parseCumulativeSum,
  parseMovingAvg,
  parseMovingFn,
} from './parse-pipeline-aggs.ts';

/** AggregatorFactories.VALID_AGG_NAME. */
const VALID_AGG_NAME = /^[^[\]>]+$/;

type TypeParser = (c: Common, body: Json, mapping: MappingLookup, warn: Warn) => AggSpec;

const PARSERS: Readonly<Record<string, TypeParser>> = {
  terms: parseTerms,
  date_histogram: parseDateHistogram,
  histogram: parseHistogram,
  range: (c, b, m) => parseRange(c, b, m, 'range'),
  date_range: (c, b, m) => parseRange(c, b, m, 'date_range'),
  filter: (c, b) => parseFilter(c, b),
  filters: (c, b) => parseFilters(c, b),
  missing: parseMissing,
  global: (c, b) => parseGlobal(c, b),
  sampler: (c, b) => parseSampler(c, b),
  diversified_sampler: parseDiversifiedSampler,
  significant_terms: (c, b, m) => parseSignificantTerms(c, b, m),
  significant_text: (c, b, m) => parseSignificantTerms(c, b, m, 'significant_text'),
  // Parsed with the enclosing nested path (parseLevel).
  nested: (c, b) => parseNested(c, b, null),
  reverse_nested: (c, b) => parseReverseNested(c, b),
  avg: (c, b, m) => parseNumericMetric(c, b, m, 'avg'),
  sum: (c, b, m) => parseNumericMetric(c, b, m, 'sum'),
  min: (c, b, m) => parseNumericMetric(c, b, m, 'min'),
  max: (c, b, m) => parseNumericMetric(c, b, m, 'max'),
  stats: (c, b, m) => parseNumericMetric(c, b, m, 'stats'),
  extended_stats: (c, b, m) => parseNumericMetric(c, b, m, 'extended_stats'),
  value_count: (c, b, m) => parseNumericMetric(c, b, m, 'value_count'),
  cardinality: parseCardinality,
  weighted_avg: parseWeightedAvg,
  median_absolute_deviation: parseMedianAbsoluteDeviation,
  percentiles: (c, b, m) => parsePercentiles(c, b, m, 'percentiles'),
  percentile_ranks: (c, b, m) => parsePercentiles(c, b, m, 'percentile_ranks'),
  top_hits: (c, b) => parseTopHits(c, b),
  geo_bounds: parseGeoBounds,
  geo_centroid: parseGeoCentroid,
  geohash_grid: parseGeoHashGrid,
  geo_distance: parseGeoDistanceAgg,
  ip_range: parseIpRange,
  composite: (c, b, m) => parseComposite(c, b, m),
  adjacency_matrix: (c, b) => parseAdjacencyMatrix(c, b),
  auto_date_histogram: parseAutoDateHistogram,
  bucket_selector: (c, b) => parseBucketSelector(c, b),
  bucket_script: (c, b) => parseBucketScript(c, b),
  bucket_sort: (c, b) => parseBucketSort(c, b),
  sum_bucket: (c, b) => parseBucketMetrics(c, b, 'sum_bucket'),
  avg_bucket: (c, b) => parseBucketMetrics(c, b, 'avg_bucket'),
  min_bucket: (c, b) => parseBucketMetrics(c, b, 'min_bucket'),
  max_bucket: (c, b) => parseBucketMetrics(c, b, 'max_bucket'),
  stats_bucket: (c, b) => parseBucketMetrics(c, b, 'stats_bucket'),
  moving_avg: (c, b) => parseMovingAvg(c, b),
  moving_fn: (c, b) => parseMovingFn(c, b),
  cumulative_sum: (c, b) => parseCumulativeSum(c, b),
};

const BUCKET_TYPES = new Set(['significant_text', 'auto_date_histogram', 'diversified_sampler', 'adjacency_matrix', 'composite', 'sampler', 'significant_terms', 'terms', 'date_histogram', 'histogram', 'range', 'date_range', 'filter', 'filters', 'missing', 'global', 'nested', 'reverse_nested', 'geohash_grid', 'geo_distance', 'ip_range']);

/** The closest enclosing `nested` / `reverse_nested` of a level: its path (null: root docs), and whether a `nested` encloses it at all. */
interface NestedScope {
  readonly path: string | null;
  readonly underNested: boolean;
}

const ROOT_SCOPE: NestedScope = { path: null, underNested: false };

/** The enclosing aggregation of a level; `outer` is the closest enclosing type other than `nested` (composite may sit only under nested ones). */
interface Parent {
  readonly name: string;
  readonly outer: string | null;
}

/** The Java class Elasticsearch names in "cannot be used with a parent aggregation of type" (`date_histogram` → DateHistogramAggregatorFactory). */
function factoryClassName(type: string): string {
  return `${type.split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')}AggregatorFactory`;
}

function parseLevel(json: unknown, mapping: MappingLookup, parent: Parent | null, warn: Warn, scope: NestedScope = ROOT_SCOPE): AggSpec[] {
  if (!isObject(json)) {
    throw parsingException(`Unexpected token ${tokenName(json)} in [aggs]: aggregations definitions must start with the name of the aggregation.`);
  }
  const out: AggSpec[] = [];
  for (const [name, def] of Object.entries(json)) {
    if (!VALID_AGG_NAME.test(name)) {
      throw parsingException(`Invalid aggregation name [${name}]. Aggregation names can contain any character except '[', ']', and '>'`);
    }
    if (!isObject(def)) {
      throw parsingException(`Aggregation definition for [${name} starts with a [${tokenName(def)}], expected a [START_OBJECT].`);
    }
    let type: string | null = null;
    let body: Json | null = null;
    let meta: Json | null = null;
    let subsJson: unknown = undefined;
    for (const [key, value] of Object.entries(def)) {
      if (!isObject(value)) {
        throw parsingException(`Expected [START_OBJECT] under [${key}], but got a [${tokenName(value)}] in [${name}]`);
      }
      if (key === 'meta') meta = value;
      else if (key === 'aggs' || key === 'aggregations') {
        if (subsJson !== undefined) throw parsingException(`Found two sub aggregation definitions under [${name}]`);
        subsJson = value;
      } else {
        if (type !== null) throw parsingException(`Found two aggregation type definitions in [${name}]: [${type}] and [${key}]`);
        if (!Object.prototype.hasOwnProperty.call(PARSERS, key)) throw unknownAggregationType(key);
        type = key;
        body = value;
      }
    }
    if (type === null || body === null) throw parsingException(`Missing definition for aggregation [${name}]`);
    if (type === 'reverse_nested' && !scope.underNested) {
      throw new EsError('search_parse_exception', `Reverse nested aggregation [${name}] can only be used inside a [nested] aggregation`, 400);
    }
    const path = (body as Record<string, unknown>).path;
    const subScope: NestedScope =
      type === 'nested' && typeof path === 'string'
        ? { path, underNested: true }
        : type === 'reverse_nested'
          ? { path: typeof path === 'string' ? path : null, underNested: true }
          : scope;
    if (type === 'composite' && parent !== null && parent.outer !== null) {
      throw illegalArgument(`[composite] aggregation cannot be used with a parent aggregation of type: [${factoryClassName(parent.outer)}]`);
    }
    const outer = type === 'nested' ? (parent?.outer ?? null) : type;
    const subs = subsJson === undefined ? [] : parseLevel(subsJson, mapping, { name, outer }, warn, subScope);
    if (subs.length > 0 && !BUCKET_TYPES.has(type)) {
      throw aggregationInitialization(`Aggregator [${name}] of type [${type}] cannot accept sub-aggregations`);
    }
    if (type === 'global' && parent !== null) {
      throw aggregationExecution(
        `Aggregation [${parent.name}] cannot have a global sub-aggregation [${name}]. Global aggregations can only be defined as top level aggregations`,
      );
    }
    const spec = type === 'nested' ? parseNested({ name, meta, subs }, body, scope.path) : PARSERS[type]!({ name, meta, subs }, body, mapping, warn);
    out.push(spec);
  }
  validatePipelines(out);
  return out;
}

/** Every buckets_path must start at an aggregation of its level (or `_count` / `_key` for parent pipelines). */
function validatePipelines(level: readonly AggSpec[]): void {
  const names = new Set(level.map((s) => s.name));
  for (const s of level) {
    if (!isPipeline(s)) continue;
    const paths =
      s.type === 'bucket_selector' || s.type === 'bucket_script'
        ? s.bucketsPath.map((b) => b.path)
        : s.type === 'bucket_sort'
          ? s.sort.map((x) => x.path)
          : [s.bucketsPath];
    for (const path of paths) {
      const first = path.elements[0]?.name ?? '';
      if (isParentPipeline(s) && (first === '_count' || first === '_key')) continue;
      if (!names.has(first) || first === s.name) throw illegalArgument(`No aggregation found for path [${path.raw}]`);
    }
    if (isSiblingPipeline(s) && s.bucketsPath.elements.length === 0) {
      throw illegalArgument(`No aggregation found for path [${s.bucketsPath.raw}]`);
    }
  }
}

/**
 * `warn` receives Elasticsearch's deprecation warnings (`_term` / `_time`
 * order keys) for the response's `Warning` headers.
 */
export function parseAggregations(json: unknown, mapping: MappingLookup, warn: (message: string) => void = () => {}): AggSpec[] {
  return parseLevel(json, mapping, null, warn);
}
