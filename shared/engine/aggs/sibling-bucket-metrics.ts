/**
 * Sibling pipelines over the buckets of a multi-bucket aggregation
 * (BucketMetricsPipelineAggregator in 6.8): sum_bucket, avg_bucket,
 * min_bucket, max_bucket (with the keys of the winning buckets), stats_bucket.
 * Values that resolve to NaN under the gap policy are left out.
 */
import { EsError } from '../../errors/es-errors.ts';
import { resolveBucketValue } from './buckets-path.ts';
import type { ReducedAgg } from './reduced.ts';
import { bucketKeyString, isMultiBucket } from './reduced.ts';
import type { AggPath, BucketMetricsSpec } from './spec.ts';
import { RAW_FORMAT } from './value-format.ts';

function noMultiBucket(spec: BucketMetricsSpec, found: string): EsError {
  return new EsError(
    'aggregation_execution_exception',
    `The first aggregation in buckets_path must be a multi-bucket aggregation for aggregation [${spec.name}] found :${found} for buckets path: ${spec.bucketsPath.raw}`,
    500,
  );
}

/** Runs one sibling pipeline over the aggregations of its level; returns its result aggregation. */
export function runBucketMetrics(spec: BucketMetricsSpec, level: readonly ReducedAgg[]): ReducedAgg {
  const first = spec.bucketsPath.elements[0];
  const target = level.find((a) => a.name === first?.name);
  if (target === undefined || !isMultiBucket(target)) throw noMultiBucket(spec, target === undefined ? 'null' : target.kind);
  const rest: AggPath = {
    raw: spec.bucketsPath.raw,
    elements: spec.bucketsPath.elements.slice(1),
    metric: spec.bucketsPath.metric,
  };
  const path: AggPath = rest.elements.length === 0 ? { raw: rest.raw, elements: [{ name: '_count', key: null }], metric: null } : rest;
  let count = 0;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  let minKeys: string[] = [];
  let maxKeys: string[] = [];
  for (const b of target.buckets) {
    const v = resolveBucketValue(target, b, path, spec.gapPolicy);
    if (Number.isNaN(v)) continue;
    count++;
    sum += v;
    if (v < min) {
      min = v;
      minKeys = [bucketKeyString(b)];
    } else if (v === min) minKeys.push(bucketKeyString(b));
    if (v > max) {
      max = v;
      maxKeys = [bucketKeyString(b)];
    } else if (v === max) maxKeys.push(bucketKeyString(b));
  }
  const base = { name: spec.name, meta: spec.meta, format: RAW_FORMAT };
  switch (spec.type) {
    case 'sum_bucket':
      return { kind: 'simple_value', ...base, value: sum };
    case 'avg_bucket':
      return { kind: 'simple_value', ...base, value: count === 0 ? NaN : sum / count };
    case 'max_bucket':
      return { kind: 'bucket_metric_value', ...base, value: max, keys: maxKeys };
    case 'min_bucket':
      return { kind: 'bucket_metric_value', ...base, value: min, keys: minKeys };
    case 'stats_bucket':
      return { kind: 'stats_bucket', ...base, count, sum, min, max };
  }
}
