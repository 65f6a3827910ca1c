/** Parsers of the metric aggregations: avg, sum, min, max, stats, extended_stats, value_count, cardinality, percentiles, percentile_ranks, top_hits. */
import { illegalArgument, parsingException, xContentParse } from '../../errors/es-errors.ts';
import type { MappingLookup } from '../../engine/mapping/types.ts';
import { DEFAULT_PRECISION_THRESHOLD } from '../../engine/aggs/cardinality-hll.ts';
import type {
  CardinalitySpec,
  NumericMetricSpec,
  NumericMetricType,
  PercentilesSpec,
  SourceFilterSpec,
  TopHitsSortSpec,
  MedianAbsoluteDeviationSpec,
  TopHitsSpec,
  ValuesSourceSpec,
  WeightedAvgSpec,
} from '../../engine/aggs/spec.ts';
import { DEFAULT_COMPRESSION } from '../../engine/aggs/tdigest.ts';
import { DEFAULT_MAD_COMPRESSION } from '../../engine/aggs/median-absolute-deviation.ts';
import { javaDoubleToString } from '../../engine/aggs/java-double.ts';
import { AggParams, isObject, mustBeAtLeast, type Json } from './agg-params.ts';
import type { Common } from './parse-bucket-aggs.ts';
import { checkField, readValuesSource } from './parse-values-source.ts';

/** ExtendedStatsAggregationBuilder's default sigma. */
const DEFAULT_SIGMA = 2;
/** PercentilesAggregationBuilder.DEFAULT_PERCENTS. */
const DEFAULT_PERCENTS = [1, 5, 25, 50, 75, 95, 99];
/** PercentilesAggregationBuilder: HDR's default number_of_significant_value_digits. */
const DEFAULT_HDR_DIGITS = 3;
/** TopHitsAggregationBuilder defaults. */
const DEFAULT_TOP_HITS_SIZE = 3;

export function parseNumericMetric(c: Common, body: Json, mapping: MappingLookup, type: NumericMetricType): NumericMetricSpec {
  const p = new AggParams(type, c.name, body);
  const source = readValuesSource(p, { withFormat: type !== 'value_count' });
  let sigma = DEFAULT_SIGMA;
  if (type === 'extended_stats') {
    sigma = p.number('sigma') ?? DEFAULT_SIGMA;
    mustBeAtLeast('sigma', 0, sigma, c.name, false);
  }
  p.done();
  checkField(source, mapping, type !== 'value_count');
  return { type, ...c, source, sigma };
}

export function parseCardinality(c: Common, body: Json, mapping: MappingLookup): CardinalitySpec {
  const p = new AggParams('cardinality', c.name, body);
  const source = readValuesSource(p, { withFormat: false });
  const threshold = p.number('precision_threshold') ?? DEFAULT_PRECISION_THRESHOLD;
  mustBeAtLeast('precisionThreshold', 0, threshold, c.name, false);
  p.ignore('rehash');
  p.done();
  checkField(source, mapping, false);
  return { type: 'cardinality', ...c, source, precisionThreshold: threshold };
}

export function parsePercentiles(c: Common, body: Json, mapping: MappingLookup, type: 'percentiles' | 'percentile_ranks'): PercentilesSpec {
  const p = new AggParams(type, c.name, body);
  const source = readValuesSource(p, { withFormat: true });
  const key = type === 'percentiles' ? 'percents' : 'values';
  const raw = p.raw(key);
  let points: number[];
  if (raw === undefined || raw === null) {
    if (type === 'percentile_ranks' || raw === null) throw illegalArgument(`[${key}] must not be null: [${c.name}]`);
    points = DEFAULT_PERCENTS;
  } else if (Array.isArray(raw) && raw.every((x) => typeof x === 'number')) {
    points = raw as number[];
    if (points.length === 0) throw illegalArgument(`[${key}] must not be empty: [${c.name}]`);
    if (type === 'percentiles') {
      for (const x of points) if (x < 0 || x > 100) throw illegalArgument(`percent must be in [0,100], got [${x}]: [${c.name}]`);
    }
  } else {
    throw parsingException(`[${key}] must be an array of numbers in [${c.name}]`);
  }
  const keyed = p.boolean('keyed') ?? true;
  const tdigest = p.object('tdigest');
  const hdr = p.object('hdr');
  if (tdigest !== null && hdr !== null) throw parsingException(`Only one percentiles method should be declared.`);
  let compression = DEFAULT_COMPRESSION;
  if (tdigest !== null) {
    const tp = new AggParams('tdigest', c.name, tdigest);
    compression = tp.number('compression') ?? DEFAULT_COMPRESSION;
    tp.done();
  }
  let digits = DEFAULT_HDR_DIGITS;
  if (hdr !== null) {
    const hp = new AggParams('hdr', c.name, hdr);
    if (hp.has('number_of_significant_value_digits') && hp.raw('number_of_significant_value_digits') === null) {
      throw xContentParse(`[hdr] number_of_significant_value_digits doesn't support values of type: VALUE_NULL`);
    }
    digits = hp.int('number_of_significant_value_digits') ?? DEFAULT_HDR_DIGITS;
    hp.done();
    if (digits < 0 || digits > 5) throw illegalArgument(`[numberOfSignificantValueDigits] must be between 0 and 5: [${c.name}]`);
  }
  p.ignore('method');
  p.done();
  checkField(source, mapping, true);
  return { type, ...c, source, points, keyed, method: hdr !== null ? 'hdr' : 'tdigest', compression, digits };
}

function parseSortEntry(v: unknown): TopHitsSortSpec {
  const make = (field: string, order: string | null, missing: unknown): TopHitsSortSpec => {
    const asc = order === null ? field !== '_score' : order.toLowerCase() === 'asc';
    if (field === '_score') return { kind: 'score', asc };
    if (field === '_doc') return { kind: 'doc', asc };
    return { kind: 'field', field, asc, missingFirst: missing === '_first' };
  };
  if (typeof v === 'string') return make(v, null, null);
  if (isObject(v) && Object.keys(v).length === 1) {
    const [field, spec] = Object.entries(v)[0]!;
    if (typeof spec === 'string') return make(field, spec, null);
    if (isObject(spec)) return make(field, typeof spec.order === 'string' ? spec.order : null, spec.missing);
  }
  throw parsingException(`malformed sort format, within the sort array, an object, or an actual string are allowed`);
}

export function parseSort(v: unknown): TopHitsSortSpec[] {
  if (v === undefined || v === null) return [];
  return (Array.isArray(v) ? v : [v]).map(parseSortEntry);
}

export function parseSourceFilter(v: unknown): SourceFilterSpec {
  if (v === undefined || v === null || v === true) return { fetch: true, includes: [], excludes: [] };
  if (v === false) return { fetch: false, includes: [], excludes: [] };
  if (typeof v === 'string') return { fetch: true, includes: [v], excludes: [] };
  const strings = (x: unknown): string[] => (x === undefined || x === null ? [] : Array.isArray(x) ? x.map(String) : [String(x)]);
  if (Array.isArray(v)) return { fetch: true, includes: strings(v), excludes: [] };
  if (isObject(v)) {
    return { fetch: true, includes: strings(v.includes ?? v.include), excludes: strings(v.excludes ?? v.exclude) };
  }
  throw parsingException(`Expected one of [VALUE_BOOLEAN, START_OBJECT] but found [${typeof v}]`);
}

export function parseTopHits(c: Common, body: Json): TopHitsSpec {
  const p = new AggParams('top_hits', c.name, body);
  const from = p.int('from') ?? 0;
  mustBeAtLeast('from', 0, from, c.name, false);
  const size = p.int('size') ?? DEFAULT_TOP_HITS_SIZE;
  mustBeAtLeast('size', 0, size, c.name, false);
  const sort = parseSort(p.raw('sort'));
  const source = parseSourceFilter(p.raw('_source'));
  const trackScores = p.boolean('track_scores') ?? false;
  const version = p.boolean('version') ?? false;
  p.ignore('explain', 'seq_no_primary_term', 'stored_fields', 'docvalue_fields', 'script_fields', 'highlight');
  p.done();
  return { type: 'top_hits', ...c, from, size, sort, source, trackScores, version };
}

/** One of weighted_avg's value sources (MultiValuesSourceFieldConfig: field, missing; no script here). */
function weightedSource(p: AggParams, key: 'value' | 'weight', format: string | null): ValuesSourceSpec {
  const body = p.object(key);
  if (body === null) throw illegalArgument(`[${key}] must not be null: [${p.name}]`);
  const sp = new AggParams(key, p.name, body);
  if (sp.has('script')) {
    sp.raw('script');
    throw illegalArgument(`scripts are not supported in aggregations [${p.name}]`);
  }
  const field = sp.string('field');
  const missing = sp.scalar('missing');
  sp.done();
  if (field === null) throw illegalArgument(`[field] must be set for [${key}] in [${p.name}]`);
  return { field, missing, valueType: null, format };
}

export function parseWeightedAvg(c: Common, body: Json, mapping: MappingLookup): WeightedAvgSpec {
  const p = new AggParams('weighted_avg', c.name, body);
  const format = p.string('format');
  p.ignore('value_type');
  const value = weightedSource(p, 'value', format);
  const weight = weightedSource(p, 'weight', null);
  p.done();
  checkField(value, mapping, true);
  checkField(weight, mapping, true);
  return { type: 'weighted_avg', ...c, value, weight };
}

export function parseMedianAbsoluteDeviation(c: Common, body: Json, mapping: MappingLookup): MedianAbsoluteDeviationSpec {
  const p = new AggParams('median_absolute_deviation', c.name, body);
  const source = readValuesSource(p, { withFormat: true });
  const compression = p.number('compression') ?? DEFAULT_MAD_COMPRESSION;
  if (!(compression > 0)) throw illegalArgument(`[compression] must be greater than 0. Found [${javaDoubleToString(compression)}] in [${c.name}]`);
  p.done();
  checkField(source, mapping, true);
  return { type: 'median_absolute_deviation', ...c, source, compression };
}
