/**
 * Parent pipelines over a histogram's series: moving_avg (models `simple` and
 * `linear`, MovAvgPipelineAggregator in 6.8: the average of the previous
 * `window` values, added from the second non-empty bucket on) and
 * cumulative_sum.
 */
import { resolveBucketValue } from './buckets-path.ts';
import type { ReducedMultiBucket } from './reduced.ts';
import type { CumulativeSumSpec, MovingAvgSpec, MovingFnSpec } from './spec.ts';
import { runMovingFunction } from './painless-expression.ts';
import { RAW_FORMAT } from './value-format.ts';

export function applyMovingAvg(spec: MovingAvgSpec, agg: ReducedMultiBucket): void {
  const window: number[] = [];
  for (const bucket of agg.buckets) {
    const v = resolveBucketValue(agg, bucket, spec.bucketsPath, spec.gapPolicy);
    if (Number.isNaN(v)) continue;
    if (window.length > 0) {
      let value: number;
      if (spec.model === 'linear') {
        let total = 0;
        let weights = 0;
        window.forEach((w, i) => {
          total += w * (i + 1);
          weights += i + 1;
        });
        value = total / weights;
      } else {
        value = window.reduce((a, b) => a + b, 0) / window.length;
      }
      bucket.aggs.push({ kind: 'simple_value', name: spec.name, meta: spec.meta, value, format: RAW_FORMAT });
    }
    window.push(v);
    if (window.length > spec.window) window.shift();
  }
}

/**
 * MovFnPipelineAggregator.reduce: each bucket with a value gets the script's
 * result over the values of the `window` buckets before it (oldest first),
 * then its own value joins the window. Buckets without a value (a gap under
 * `skip`) get nothing and do not enter the window.
 */
export function applyMovingFn(spec: MovingFnSpec, agg: ReducedMultiBucket): void {
  const window: number[] = [];
  // a DecimalFormat `format` would print value_as_string; decimal patterns are not implemented (docs/compat.md)
  const format = RAW_FORMAT;
  for (const bucket of agg.buckets) {
    const v = resolveBucketValue(agg, bucket, spec.bucketsPath, spec.gapPolicy);
    if (Number.isNaN(v)) continue;
    const value = runMovingFunction(spec.script, window);
    bucket.aggs.push({ kind: 'simple_value', name: spec.name, meta: spec.meta, value, format });
    window.push(v);
    if (window.length > spec.window) window.shift();
  }
}

export function applyCumulativeSum(spec: CumulativeSumSpec, agg: ReducedMultiBucket): void {
  let sum = 0;
  for (const bucket of agg.buckets) {
    const v = resolveBucketValue(agg, bucket, spec.bucketsPath, 'insert_zeros');
    sum += v;
    bucket.aggs.push({ kind: 'simple_value', name: spec.name, meta: spec.meta, value: sum, format: RAW_FORMAT });
  }
}
