/**
 * `buckets_path` and order paths (AggregationPath in 6.8): `agg>agg.metric`,
 * `agg['bucket key']>metric`, `stats.avg`, `percentiles[99.9]`, `_count`,
 * `_key`; and reading a path's value from a reduced bucket with a gap policy
 * (BucketHelpers.resolveBucketValue).
 */
import { EsError } from '../../errors/es-errors.ts';
import { numericMetricValue } from './numeric-metrics-aggregator.ts';
import type { ReducedAgg, ReducedBucket, ReducedMultiBucket } from './reduced.ts';
import { bucketKeyString, isMultiBucket, percentileValue } from './reduced.ts';
import type { AggPath, AggPathElement, GapPolicy } from './spec.ts';

function invalidPath(element: string, path: string): EsError {
  return new EsError('aggregation_execution_exception', `Invalid path element [${element}] in path [${path}]`, 500);
}

function unquote(s: string): string {
  return s.length >= 2 && (s[0] === "'" || s[0] === '"') && s[s.length - 1] === s[0] ? s.slice(1, -1) : s;
}

export function parseAggPath(path: string): AggPath {
  const parts = path.split('>').map((p) => p.trim()).filter((p) => p.length > 0);
  const elements: AggPathElement[] = [];
  let metric: string | null = null;
  parts.forEach((element, i) => {
    const last = i === parts.length - 1;
    const bracket = element.lastIndexOf('[');
    if (bracket >= 0) {
      if (bracket === 0 || bracket > element.length - 3 || !element.endsWith(']')) throw invalidPath(element, path);
      const key = unquote(element.slice(bracket + 1, -1));
      if (last) {
        elements.push({ name: element.slice(0, bracket), key: null });
        metric = key;
      } else {
        elements.push({ name: element.slice(0, bracket), key });
      }
      return;
    }
    if (last) {
      const dot = element.lastIndexOf('.');
      if (dot >= 0) {
        if (dot === 0 || dot > element.length - 2) throw invalidPath(element, path);
        elements.push({ name: element.slice(0, dot), key: null });
        metric = element.slice(dot + 1);
        return;
      }
    }
    elements.push({ name: element, key: null });
  });
  return { raw: path, elements, metric };
}

export function bucketsPathNotNumeric(): EsError {
  return new EsError(
    'aggregation_execution_exception',
    'buckets_path must reference either a number value or a single value numeric metric aggregation',
    500,
  );
}

function cannotFind(name: string, where: string): EsError {
  return new EsError('invalid_aggregation_path_exception', `Cannot find an aggregation named [${name}] in [${where}]`, 500);
}

/** The number an aggregation exposes under `metric` (null = its single value). */
export function aggValue(agg: ReducedAgg, metric: string | null): number {
  switch (agg.kind) {
    case 'metric':
      return numericMetricValue(agg.typeName, metric, agg.count, agg.sum, agg.min, agg.max, agg.sumOfSquares, agg.sigma);
    case 'cardinality':
      return agg.value;
    case 'simple_value':
    case 'bucket_metric_value':
      return agg.value;
    case 'stats_bucket': {
      const avg = agg.count === 0 ? NaN : agg.sum / agg.count;
      const values: Record<string, number> = { count: agg.count, sum: agg.sum, min: agg.min, max: agg.max, avg };
      return metric !== null && metric in values ? values[metric]! : NaN;
    }
    case 'percentiles': {
      if (metric === null) throw bucketsPathNotNumeric();
      const p = Number(metric);
      return percentileValue(agg, p);
    }
    case 'single':
      if (metric === null || metric === '_count' || metric === 'doc_count') return agg.docCount;
      return NaN;
    default:
      throw bucketsPathNotNumeric();
  }
}

function property(bucket: { docCount: number; key?: string | number; aggs: readonly ReducedAgg[] }, path: AggPath, at: number, where: string): number {
  const el = path.elements[at];
  if (el === undefined) return NaN;
  const last = at === path.elements.length - 1;
  if (el.name === '_count' && last && path.metric === null) return bucket.docCount;
  if (el.name === '_key' && last && path.metric === null) {
    if (typeof bucket.key === 'number') return bucket.key;
    throw bucketsPathNotNumeric();
  }
  const agg = bucket.aggs.find((a) => a.name === el.name);
  if (agg === undefined) throw cannotFind(el.name, where);
  if (last) return aggValue(agg, path.metric);
  if (agg.kind === 'single') return property(agg, path, at + 1, agg.name);
  if (isMultiBucket(agg) && el.key !== null) {
    const b = agg.buckets.find((x) => bucketKeyString(x) === el.key);
    if (b === undefined) throw cannotFind(el.key, agg.name);
    return property(b, path, at + 1, agg.name);
  }
  throw bucketsPathNotNumeric();
}

/** A bucket's value for a path, NaN/∞ and empty buckets handled by the gap policy. */
export function resolveBucketValue(agg: ReducedMultiBucket, bucket: ReducedBucket, path: AggPath, gap: GapPolicy): number {
  const value = property(bucket, path, 0, agg.name);
  const isDocCount = path.elements.length === 1 && path.elements[0]!.name === '_count' && path.metric === null;
  if (!Number.isFinite(value) || (bucket.docCount === 0 && !isDocCount)) return gap === 'insert_zeros' ? 0 : NaN;
  return value;
}
