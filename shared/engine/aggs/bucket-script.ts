/**
 * bucket_script (BucketScriptPipelineAggregator in 6.8): adds to each bucket
 * a `simple_value` computed by the script from the buckets_path variables;
 * with gap policy skip a bucket with a missing variable is left as is.
 */
import { EsError } from '../../errors/es-errors.ts';
import { resolveBucketValue } from './buckets-path.ts';
import { runScript } from './painless-expression.ts';
import type { ReducedMultiBucket } from './reduced.ts';
import type { BucketScriptSpec } from './spec.ts';
import { RAW_FORMAT } from './value-format.ts';

export function applyBucketScript(spec: BucketScriptSpec, agg: ReducedMultiBucket): void {
  const vars = new Map<string, number>();
  for (const bucket of agg.buckets) {
    vars.clear();
    let skip = false;
    for (const { variable, path } of spec.bucketsPath) {
      const v = resolveBucketValue(agg, bucket, path, spec.gapPolicy);
      if (spec.gapPolicy === 'skip' && Number.isNaN(v)) {
        skip = true;
        break;
      }
      vars.set(variable, v);
    }
    if (skip) continue;
    const result = runScript(spec.script, vars);
    if (result === null) continue;
    if (typeof result !== 'number') {
      throw new EsError('aggregation_execution_exception', `series_arithmetic script for reducer [${spec.name}] must return a Number`, 500);
    }
    bucket.aggs.push({ kind: 'simple_value', name: spec.name, meta: spec.meta, value: result, format: RAW_FORMAT });
  }
}
