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
import { mergeKeys } from './key-merge.ts';
import type { ReducedAgg, ReducedBucket, ReducedTerms } from './reduced.ts';
import type { AggSpec, TermsSpec } from './spec.ts';
import { isParentPipeline } from './spec.ts';
import type { AggState, TermsState } from './state.ts';
import { topN } from './top-n.ts';
import { formatValue, printedKey } from './value-format.ts';

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

/** Count and key orders over merged buckets by merged id (`compareKeys`: the merge's key order). */
function indexComparator(order: TermsSpec['order'], docCounts: Float64Array, compareKeys: (a: number, b: number) => number): (a: number, b: number) => number {
  const full = withKeyTieBreak(order);
  if (full.length === 2 && full[0]!.kind === 'count' && full[1]!.kind === 'key') {
    const countSign = full[0]!.asc ? 1 : -1;
    const keySign = full[1]!.asc ? 1 : -1;
    return (a, b) => (docCounts[a]! - docCounts[b]!) * countSign || compareKeys(a, b) * keySign;
  }
  return (a, b) => {
    for (const o of full) {
      const c = (o.kind === 'count' ? docCounts[a]! - docCounts[b]! : compareKeys(a, b)) * (o.asc ? 1 : -1);
      if (c !== 0) return c;
    }
    return 0;
  };
}

/** The best n of ids under cmp, sorted (partial selection when n is much smaller than the input). */
function selectTop(ids: Int32Array, n: number, cmp: (a: number, b: number) => number): Int32Array {
  if (ids.length <= n * 4) return ids.sort(cmp).subarray(0, n);
  return topN(ids, n, cmp);
}

/**
 * The best n under a count-descending order: find the n-th largest count
 * from the counts' frequencies, keep everything at or above it and sort only
 * that. Counts repeat a lot, so a heap over all merged buckets spends most of
 * its comparisons on ties.
 */
function topByCount(ids: Int32Array, docCounts: Float64Array, n: number, cmp: (a: number, b: number) => number): Int32Array {
  if (ids.length <= n) return ids.sort(cmp);
  const threshold = nthLargestCount(ids, docCounts, n);
  let k = 0;
  for (let i = 0; i < ids.length; i++) if (docCounts[ids[i]!]! >= threshold) k++;
  const kept = new Int32Array(k);
  k = 0;
  for (let i = 0; i < ids.length; i++) if (docCounts[ids[i]!]! >= threshold) kept[k++] = ids[i]!;
  return kept.sort(cmp).subarray(0, n);
}

/** The n-th largest count among ids (n ≤ ids.length): a histogram of small counts, else their frequencies. */
function nthLargestCount(ids: Int32Array, docCounts: Float64Array, n: number): number {
  let maxCount = 0;
  for (let i = 0; i < ids.length; i++) maxCount = Math.max(maxCount, docCounts[ids[i]!]!);
  if (maxCount <= MAX_COUNT_HISTOGRAM) {
    const hist = new Int32Array(maxCount + 1);
    for (let i = 0; i < ids.length; i++) hist[docCounts[ids[i]!]!]!++;
    let seen = 0;
    for (let c = maxCount; c > 0; c--) {
      seen += hist[c]!;
      if (seen >= n) return c;
    }
    return 0;
  }
  const freq = new Map<number, number>();
  for (let i = 0; i < ids.length; i++) {
    const c = docCounts[ids[i]!]!;
    freq.set(c, (freq.get(c) ?? 0) + 1);
  }
  const countsDesc = [...freq.keys()].sort((a, b) => b - a);
  let seen = 0;
  for (const c of countsDesc) {
    seen += freq.get(c)!;
    if (seen >= n) return c;
  }
  return countsDesc[countsDesc.length - 1]!;
}

/** Largest merged doc count counted in a histogram (beyond, a map of the counts). */
const MAX_COUNT_HISTOGRAM = 1 << 22;

const NO_SUBS: readonly AggState[] = [];

/** The smallest count: the last bucket a shard returned under count-descending order. */
function lastByCount(docCounts: Int32Array): number {
  let min = Infinity;
  for (let i = 0; i < docCounts.length; i++) if (docCounts[i]! < min) min = docCounts[i]!;
  return min;
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
  // Only parent pipelines below (bucket_selector on _count): nothing to reduce per bucket.
  const reduceSubs = spec.subs.some((s) => !isParentPipeline(s));

  // Buckets merged by key into columns indexed by merged id.
  let sumDocCountError = 0;
  let otherDocCount = 0;
  const errs = new Float64Array(states.length);
  for (let s = 0; s < states.length; s++) {
    const st = states[s]!;
    otherDocCount += st.sumOtherDocCount;
    const n = st.keys.length;
    let err: number;
    if (n < shardSize || isKeyOrder(order)) err = 0;
    else if (isCountDesc(order)) err = lastByCount(st.docCounts);
    else err = -1;
    errs[s] = err;
    if (sumDocCountError !== -1) sumDocCountError = err === -1 ? -1 : sumDocCountError + err;
  }
  const { keys, positions, compare } = mergeKeys(
    states.map((st) => st.keys),
    states.map((st) => st.keyCodes),
  );
  const docCounts = new Float64Array(keys.length);
  /** Sum of the error bounds of the shards that returned the key. */
  const presentError = new Float64Array(keys.length);
  const subs: (readonly AggState[])[][] | null = reduceSubs ? Array.from({ length: keys.length }, () => []) : null;
  for (let s = 0; s < states.length; s++) {
    const st = states[s]!;
    const pos = positions[s]!;
    const err = errs[s]!;
    for (let i = 0; i < pos.length; i++) {
      const m = pos[i]!;
      docCounts[m] += st.docCounts[i]!;
      if (err > 0) presentError[m] += err;
      if (subs !== null) subs[m]!.push(st.subs?.[i] ?? NO_SUBS);
    }
  }

  const toBucket = (m: number, aggs: ReducedAgg[]): ReducedBucket => {
    const key = keys[m]!;
    const keyAsString = format.kind === 'raw' || format.kind === 'ip' ? null : formatValue(format, key as number);
    const keyText = valueType === 'double' ? javaDoubleToString(key as number) : valueType === 'long' ? String(key) : undefined;
    const docCountError = sumDocCountError === -1 ? -1 : sumDocCountError - presentError[m]!;
    return keyText === undefined
      ? { key, keyAsString, docCount: docCounts[m]!, docCountError, aggs }
      : { key, keyAsString, keyText, docCount: docCounts[m]!, docCountError, aggs };
  };
  const subAggs = (m: number): ReducedAgg[] => (subs === null ? [] : reduceLevel(spec.subs, subs[m]!));

  const eligible = new Int32Array(keys.length);
  let ne = 0;
  let eligibleDocs = 0;
  for (let m = 0; m < keys.length; m++) {
    if (docCounts[m]! < spec.minDocCount) continue;
    eligible[ne++] = m;
    eligibleDocs += docCounts[m]!;
  }
  let kept: ReducedBucket[];
  if (order.some((o) => o.kind === 'path')) {
    // ordering reads the sub-aggregations: reduce them for every bucket first
    const all = Array.from(eligible.subarray(0, ne), (m) => toBucket(m, subAggs(m)));
    all.sort(bucketComparator(order));
    kept = all.slice(0, spec.size);
    for (let i = spec.size; i < all.length; i++) otherDocCount += all[i]!.docCount;
  } else {
    const cmp = indexComparator(order, docCounts, compare);
    const pool = eligible.subarray(0, ne);
    const top = isCountDesc(order) ? topByCount(pool, docCounts, spec.size, cmp) : selectTop(pool, spec.size, cmp);
    kept = new Array<ReducedBucket>(top.length);
    let keptDocs = 0;
    for (let i = 0; i < top.length; i++) {
      const m = top[i]!;
      keptDocs += docCounts[m]!;
      kept[i] = toBucket(m, subAggs(m));
    }
    otherDocCount += eligibleDocs - keptDocs;
  }
  const docCountError = sumDocCountError === -1 ? -1 : states.length === 1 ? 0 : sumDocCountError;
  // ip keys were merged and ordered as their terms (address order); a user sees the addresses
  if (format.kind === 'ip') kept = kept.map((b) => ({ ...b, key: printedKey(format, b.key as string) }));
  return {
    ...base,
    typeName: valueType === 'string' ? 'sterms' : valueType === 'double' ? 'dterms' : 'lterms',
    buckets: kept,
    docCountError,
    sumOtherDocCount: otherDocCount,
  };
}
