/**
 * Reducing `terms` across shards as InternalTerms.doReduce in 6.8: buckets
 * merged by key, the error bound per shard (0 when the shard returned fewer
 * than shard_size buckets or the order is by key; the last returned count
 * when ordered by count descending; unbounded (-1) otherwise), the best
 * `size` buckets with doc_count ≥ min_doc_count, and the docs of buckets that
 * fell off the end added to sum_other_doc_count.
 */
import { EsError } from '../../errors/es-errors.ts';
import { compareKeys, compareMetric, isCountDesc, isKeyOrder, withKeyTieBreak } from './bucket-order.ts';
import { aggValue } from './buckets-path.ts';
import { javaDoubleToString } from './java-double.ts';
import type { ReducedAgg, ReducedBucket, ReducedTerms } from './reduced.ts';
import type { AggSpec, TermsSpec } from './spec.ts';
import type { AggState, BucketState, TermsState } from './state.ts';
import { formatValue } from './value-format.ts';

export type LevelReducer = (specs: readonly AggSpec[], perShard: (readonly AggState[])[]) => ReducedAgg[];

function typeClash(name: string): EsError {
  return new EsError(
    'aggregation_execution_exception',
    `Merging/Reducing the aggregations failed when computing the aggregation [${name}] because the field you gave in the aggregation query existed as two different types in two different indices`,
    500,
  );
}

/** Orders reduced buckets by a compound order (sub-aggregation paths read the reduced sub-aggregations). */
export function bucketComparator(order: TermsSpec['order']): (a: ReducedBucket, b: ReducedBucket) => number {
  const full = withKeyTieBreak(order);
  const valueOf = (b: ReducedBucket, o: (typeof full)[number]): number => {
    if (o.kind !== 'path') return NaN;
    const el = o.path.elements[0];
    const agg = el === undefined ? undefined : b.aggs.find((a) => a.name === el.name);
    if (agg === undefined) return NaN;
    if (o.path.elements.length === 1) return aggValue(agg, o.path.metric);
    if (agg.kind === 'single') {
      let cur: ReducedAgg = agg;
      for (let i = 1; i < o.path.elements.length; i++) {
        if (cur.kind !== 'single') return NaN;
        const next: ReducedAgg | undefined = cur.aggs.find((a) => a.name === o.path.elements[i]!.name);
        if (next === undefined) return NaN;
        cur = next;
      }
      return aggValue(cur, o.path.metric);
    }
    return NaN;
  };
  return (a, b) => {
    for (const o of full) {
      let c: number;
      if (o.kind === 'count') c = (a.docCount - b.docCount) * (o.asc ? 1 : -1);
      else if (o.kind === 'key') c = compareKeys(a.key, b.key) * (o.asc ? 1 : -1);
      else c = compareMetric(valueOf(a, o), valueOf(b, o), o.asc);
      if (c !== 0) return c;
    }
    return 0;
  };
}

export function reduceTerms(spec: TermsSpec, states: readonly TermsState[], reduceLevel: LevelReducer): ReducedTerms {
  const mapped = states.filter((s) => s.valueType !== 'unmapped');
  const base = { kind: 'terms' as const, name: spec.name, meta: spec.meta, showDocCountError: spec.showTermDocCountError };
  if (mapped.length === 0) {
    return { ...base, typeName: 'umterms', buckets: [], docCountError: 0, sumOtherDocCount: 0 };
  }
  const kinds = new Set(mapped.map((s) => s.valueType));
  if (kinds.has('string') && kinds.size > 1) throw typeClash(spec.name);
  const valueType = kinds.has('double') ? 'double' : mapped[0]!.valueType;
  const format = valueType === 'double' ? { kind: 'raw' as const } : mapped[0]!.format;
  const shardSize = Math.max(...mapped.map((s) => s.shardSize));
  const order = spec.order;

  let sumDocCountError = 0;
  let otherDocCount = 0;
  interface Merged {
    key: string | number;
    docCount: number;
    errorFromMissing: number;
    subs: (readonly AggState[])[];
    shards: Set<number>;
  }
  const merged = new Map<string | number, Merged>();
  const shardErrors: number[] = [];
  states.forEach((s, si) => {
    otherDocCount += s.sumOtherDocCount;
    let err: number;
    if (s.buckets.length < shardSize || isKeyOrder(order)) err = 0;
    else if (isCountDesc(order)) err = s.buckets[s.buckets.length - 1]!.docCount;
    else err = -1;
    shardErrors.push(err);
    if (sumDocCountError !== -1) sumDocCountError = err === -1 ? -1 : sumDocCountError + err;
    for (const b of s.buckets as readonly BucketState[]) {
      let m = merged.get(b.key);
      if (m === undefined) {
        m = { key: b.key, docCount: 0, errorFromMissing: 0, subs: [], shards: new Set() };
        merged.set(b.key, m);
      }
      m.docCount += b.docCount;
      m.subs.push(b.subs);
      m.shards.add(si);
    }
  });

  const cmp = bucketComparator(order);
  // Sub-aggregations are reduced for kept buckets only, unless the order reads them.
  const ordersBySub = order.some((o) => o.kind === 'path');
  const pendingSubs = new Map<ReducedBucket, (readonly AggState[])[]>();
  const reduced: ReducedBucket[] = [];
  for (const m of merged.values()) {
    let bucketError = 0;
    if (sumDocCountError === -1) bucketError = -1;
    else for (let si = 0; si < states.length; si++) if (!m.shards.has(si)) bucketError += shardErrors[si]!;
    if (m.docCount < spec.minDocCount) continue;
    const key = m.key;
    const isLongish = valueType === 'long';
    const keyAsString = format.kind === 'raw' ? null : formatValue(format, key as number);
    const keyText = valueType === 'double' ? javaDoubleToString(key as number) : isLongish ? String(key) : undefined;
    const bucket: ReducedBucket = {
      key,
      keyAsString,
      ...(keyText === undefined ? {} : { keyText }),
      docCount: m.docCount,
      docCountError: bucketError,
      aggs: ordersBySub ? reduceLevel(spec.subs, m.subs) : [],
    };
    if (!ordersBySub) pendingSubs.set(bucket, m.subs);
    reduced.push(bucket);
  }
  reduced.sort(cmp);
  const kept = reduced.slice(0, spec.size);
  if (!ordersBySub) for (const b of kept) b.aggs = reduceLevel(spec.subs, pendingSubs.get(b)!);
  for (let i = spec.size; i < reduced.length; i++) otherDocCount += reduced[i]!.docCount;
  const docCountError = sumDocCountError === -1 ? -1 : states.length === 1 ? 0 : sumDocCountError;
  return {
    ...base,
    typeName: valueType === 'string' ? 'sterms' : valueType === 'double' ? 'dterms' : 'lterms',
    buckets: kept,
    docCountError,
    sumOtherDocCount: otherDocCount,
  };
}
