/**
 * bucket_selector (BucketSelectorPipelineAggregator in 6.8): keeps the
 * parent's buckets for which the script returns true. Each buckets_path
 * variable is resolved in the bucket (gap policy: skip → NaN, insert_zeros →
 * 0) and passed as `params.<var>` over the script's own params.
 */
import { EsError } from '../../errors/es-errors.ts';
import { resolveBucketValue } from './buckets-path.ts';
import { runScript } from './painless-expression.ts';
import type { ReducedMultiBucket } from './reduced.ts';
import type { BucketSelectorSpec } from './spec.ts';

export function applyBucketSelector(spec: BucketSelectorSpec, agg: ReducedMultiBucket): void {
  const vars = new Map<string, number>();
  agg.buckets = agg.buckets.filter((bucket) => {
    vars.clear();
    for (const { variable, path } of spec.bucketsPath) vars.set(variable, resolveBucketValue(agg, bucket, path, spec.gapPolicy));
    const result = runScript(spec.script, vars);
    if (spec.script.lang === 'expression') return result === 1;
    if (typeof result !== 'boolean') {
      throw new EsError('class_cast_exception', `${typeof result === 'number' ? 'java.lang.Double' : 'null'} cannot be cast to java.lang.Boolean`, 500);
    }
    return result;
  });
}
