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
import { topN } from './top-n.ts';
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

/** Count and key orders over merged buckets (no sub-aggregation reads). */
function simpleComparator(order: TermsSpec['order']): (a: { docCount: number; key: string | number }, b: { docCount: number; key: string | number }) => number {
  const full = withKeyTieBreak(order);
  return (a, b) => {
    for (const o of full) {
      const c = o.kind === 'count' ? (a.docCount - b.docCount) * (o.asc ? 1 : -1) : compareKeys(a.key, b.key) * (o.asc ? 1 : -1);
      if (c !== 0) return c;
    }
    return 0;
  };
}

/** The best n items under cmp, sorted (partial selection when n is much smaller than the input). */
function selectTop<T>(items: T[], n: number, cmp: (a: T, b: T) => number): T[] {
  if (items.length <= n * 4) return items.sort(cmp).slice(0, n);
  const idx = topN(Int32Array.from(items.keys()), n, (a, b) => cmp(items[a]!, items[b]!));
  return Array.from(idx, (i) => items[i]!);
}

/**
 * The best n under a count-descending order: find the n-th largest count
 * from a histogram of counts, keep everything at or above it and sort only
 * that. Counts repeat a lot, so a heap over all merged buckets spends most of
 * its comparisons on ties.
 */
function topByCount<T extends { readonly docCount: number }>(items: T[], n: number, cmp: (a: T, b: T) => number): T[] {
  if (items.length <= n) return items.sort(cmp);
  const freq = new Map<number, number>();
  for (const it of items) freq.set(it.docCount, (freq.get(it.docCount) ?? 0) + 1);
  const countsDesc = [...freq.keys()].sort((a, b) => b - a);
  let threshold = countsDesc[countsDesc.length - 1]!;
  let seen = 0;
  for (const c of countsDesc) {
    seen += freq.get(c)!;
    if (seen >= n) {
      threshold = c;
      break;
    }
  }
  return items.filter((it) => it.docCount >= threshold).sort(cmp).slice(0, n);
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
    /** Sum of the error bounds of the shards that returned this key. */
    presentError: number;
    subs: (readonly AggState[])[];
  }
  const merged = new Map<string | number, Merged>();
  for (const s of states) {
    otherDocCount += s.sumOtherDocCount;
    let err: number;
    if (s.buckets.length < shardSize || isKeyOrder(order)) err = 0;
    else if (isCountDesc(order)) err = s.buckets[s.buckets.length - 1]!.docCount;
    else err = -1;
    if (sumDocCountError !== -1) sumDocCountError = err === -1 ? -1 : sumDocCountError + err;
    for (const b of s.buckets as readonly BucketState[]) {
      let m = merged.get(b.key);
      if (m === undefined) {
        m = { key: b.key, docCount: 0, presentError: 0, subs: [] };
        merged.set(b.key, m);
      }
      m.docCount += b.docCount;
      if (err > 0) m.presentError += err;
      m.subs.push(b.subs);
    }
  }

  const toBucket = (m: Merged, aggs: ReducedAgg[]): ReducedBucket => {
    const key = m.key;
    const keyAsString = format.kind === 'raw' ? null : formatValue(format, key as number);
    const keyText = valueType === 'double' ? javaDoubleToString(key as number) : valueType === 'long' ? String(key) : undefined;
    return {
      key,
      keyAsString,
      ...(keyText === undefined ? {} : { keyText }),
      docCount: m.docCount,
      docCountError: sumDocCountError === -1 ? -1 : sumDocCountError - m.presentError,
      aggs,
    };
  };

  let kept: ReducedBucket[];
  const eligible = [...merged.values()].filter((m) => m.docCount >= spec.minDocCount);
  if (order.some((o) => o.kind === 'path')) {
    // ordering reads the sub-aggregations: reduce them for every bucket first
    const all = eligible.map((m) => toBucket(m, reduceLevel(spec.subs, m.subs)));
    all.sort(bucketComparator(order));
    kept = all.slice(0, spec.size);
    for (let i = spec.size; i < all.length; i++) otherDocCount += all[i]!.docCount;
  } else {
    const cmp = simpleComparator(order);
    const top = isCountDesc(order) ? topByCount(eligible, spec.size, cmp) : selectTop(eligible, spec.size, cmp);
    const keptSet = new Set(top);
    for (const m of eligible) if (!keptSet.has(m)) otherDocCount += m.docCount;
    kept = top.map((m) => toBucket(m, reduceLevel(spec.subs, m.subs)));
  }
  const docCountError = sumDocCountError === -1 ? -1 : states.length === 1 ? 0 : sumDocCountError;
  return {
    ...base,
    typeName: valueType === 'string' ? 'sterms' : valueType === 'double' ? 'dterms' : 'lterms',
    buckets: kept,
    docCountError,
    sumOtherDocCount: otherDocCount,
  };
}
