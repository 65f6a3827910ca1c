/**
 * bucket_sort (BucketSortPipelineAggregator in 6.8): sorts the parent's
 * buckets by `_key`, `_count` or metric paths (stable for ties), then keeps
 * `size` buckets from `from`. With gap policy skip, buckets lacking a sort
 * value are dropped.
 */
import { compareKeys } from './bucket-order.ts';
import { resolveBucketValue } from './buckets-path.ts';
import type { ReducedBucket, ReducedMultiBucket } from './reduced.ts';
import type { BucketSortSpec } from './spec.ts';

export function applyBucketSort(spec: BucketSortSpec, agg: ReducedMultiBucket): void {
  const size = spec.size ?? Number.MAX_SAFE_INTEGER;
  if (spec.sort.length === 0) {
    agg.buckets = agg.buckets.slice(spec.from, spec.from + size);
    return;
  }
  const rows: { bucket: ReducedBucket; values: (number | string)[] }[] = [];
  for (const bucket of agg.buckets) {
    const values: (number | string)[] = [];
    let skip = false;
    for (const s of spec.sort) {
      const el = s.path.elements[0];
      if (s.path.elements.length === 1 && el?.name === '_key' && s.path.metric === null) {
        values.push(bucket.key);
        continue;
      }
      const v = resolveBucketValue(agg, bucket, s.path, spec.gapPolicy);
      if (Number.isNaN(v) && spec.gapPolicy === 'skip') {
        skip = true;
        break;
      }
      values.push(v);
    }
    if (!skip) rows.push({ bucket, values });
  }
  rows.sort((a, b) => {
    for (let i = 0; i < spec.sort.length; i++) {
      const c = compareKeys(a.values[i]!, b.values[i]!) * (spec.sort[i]!.asc ? 1 : -1);
      if (c !== 0) return c;
    }
    return 0;
  });
  agg.buckets = rows.slice(spec.from, spec.from + size).map((r) => r.bucket);
}
