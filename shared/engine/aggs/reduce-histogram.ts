/**
 * Reducing `date_histogram` and `histogram` as InternalDateHistogram /
 * InternalHistogram.doReduce in 6.8: buckets merged by key, those under
 * min_doc_count dropped, then (min_doc_count 0) empty buckets added between
 * the first and last key and out to extended_bounds, then the final order.
 */
import type { BucketBudget } from './bucket-budget.ts';
import { compareKeys, isKeyAsc, isKeyDesc } from './bucket-order.ts';
import { createRounding } from './date-rounding.ts';
import { javaDoubleToString } from './java-double.ts';
import type { ReducedAgg, ReducedBucket, ReducedHistogram } from './reduced.ts';
import type { LevelReducer } from './reduce-terms.ts';
import { bucketComparator } from './reduce-terms.ts';
import type { DateHistogramSpec, HistogramSpec } from './spec.ts';
import type { AggState, HistogramState, ValueFormat } from './state.ts';
import { timeZone } from './time-zone.ts';
import { formatValue, RAW_FORMAT } from './value-format.ts';

const NO_SUBS: readonly AggState[] = [];

/** Guards against runaway empty-bucket filling (search.max_buckets default in 7.x is 10000; 6.8 warns). */
const MAX_EMPTY_BUCKETS = 1_000_000;

export function reduceHistogram(
  spec: DateHistogramSpec | HistogramSpec,
  states: readonly HistogramState[],
  reduceLevel: LevelReducer,
  budget: BucketBudget | null = null,
): ReducedHistogram {
  const isDate = spec.type === 'date_histogram';
  const format: ValueFormat = states.find((s) => s.keys.length > 0)?.format ?? states[0]?.format ?? RAW_FORMAT;
  const keyAsString = (key: number): string | null => (isDate || format.kind !== 'raw' ? formatValue(format, key) : null);
  const makeBucket = (key: number, docCount: number, aggs: ReducedAgg[]): ReducedBucket =>
    isDate ? { key, keyAsString: keyAsString(key), docCount, aggs } : { key, keyAsString: keyAsString(key), keyText: javaDoubleToString(key), docCount, aggs };
  // Every shard's keys ascend: merge them in one pass.
  const reduceSubs = spec.subs.length > 0;
  const at = new Int32Array(states.length);
  let buckets: ReducedBucket[] = [];
  for (;;) {
    let key = NaN;
    for (let s = 0; s < states.length; s++) {
      const keys = states[s]!.keys;
      if (at[s]! < keys.length && !(keys[at[s]!]! >= key)) key = keys[at[s]!]!;
    }
    if (Number.isNaN(key)) break;
    let docCount = 0;
    const subs: (readonly AggState[])[] = [];
    for (let s = 0; s < states.length; s++) {
      const st = states[s]!;
      const i = at[s]!;
      if (i < st.keys.length && st.keys[i] === key) {
        docCount += st.docCounts[i]!;
        if (reduceSubs) subs.push(st.subs?.[i] ?? NO_SUBS);
        at[s] = i + 1;
      }
    }
    if (docCount < spec.minDocCount) continue;
    buckets.push(makeBucket(key, docCount, reduceSubs ? reduceLevel(spec.subs, subs) : []));
  }

  if (spec.minDocCount === 0) {
    let emptyAggs: ReducedAgg[] | null = null;
    const empty = (): ReducedAgg[] => {
      emptyAggs ??= reduceLevel(spec.subs, states.map((s) => s.emptySubs));
      // each empty bucket gets its own array (pipelines append to it)
      return [...emptyAggs];
    };
    const boundsMin = states.find((s) => s.boundsMin !== null)?.boundsMin ?? null;
    const boundsMax = states.find((s) => s.boundsMax !== null)?.boundsMax ?? null;
    let nextKey: (key: number) => number;
    let round: (key: number) => number;
    let minBound: number | null;
    let maxBound: number | null;
    if (spec.type === 'date_histogram') {
      const rounding = createRounding(spec.interval, timeZone(spec.timeZone));
      const offset = spec.offset;
      nextKey = (key) => rounding.nextRoundingValue(key - offset) + offset;
      round = (key) => key;
      minBound = boundsMin === null ? null : boundsMin + offset;
      maxBound = boundsMax === null ? null : boundsMax + offset;
    } else {
      const interval = spec.interval;
      const offset = spec.offset;
      round = (key) => Math.floor((key - offset) / interval) * interval + offset;
      nextKey = (key) => round(key + interval + interval / 2);
      minBound = boundsMin === null ? null : round(boundsMin);
      maxBound = boundsMax;
    }
    const filled: ReducedBucket[] = [];
    let added = 0;
    // The buckets with documents, then each empty one as it is made: a fill past search.max_buckets stops at once.
    budget?.consume(buckets.length);
    const push = (key: number): void => {
      budget?.consume(1);
      if (++added > MAX_EMPTY_BUCKETS) return;
      filled.push(makeBucket(key, 0, empty()));
    };
    if (buckets.length === 0) {
      if (minBound !== null && maxBound !== null) {
        for (let key = minBound; key <= maxBound && added <= MAX_EMPTY_BUCKETS; key = nextKey(key)) push(key);
      }
    } else {
      const first = buckets[0]!.key as number;
      if (minBound !== null) for (let key = minBound; key < first && added <= MAX_EMPTY_BUCKETS; key = nextKey(key)) push(key);
      let last: number | null = null;
      for (const b of buckets) {
        const k = b.key as number;
        if (last !== null) for (let key = nextKey(last); key < k && added <= MAX_EMPTY_BUCKETS; key = nextKey(key)) push(key);
        filled.push(b);
        last = k;
      }
      if (maxBound !== null && last !== null) {
        for (let key = nextKey(last); key <= maxBound && added <= MAX_EMPTY_BUCKETS; key = nextKey(key)) push(key);
      }
    }
    void round;
    buckets = filled;
  }

  if (isKeyAsc(spec.order)) {
    // already ascending
  } else if (isKeyDesc(spec.order)) {
    buckets.reverse();
  } else {
    const cmp = bucketComparator(spec.order);
    buckets.sort((a, b) => cmp(a, b) || compareKeys(a.key, b.key));
  }
  return {
    kind: 'histogram',
    typeName: spec.type === 'date_histogram' ? 'date_histogram' : 'histogram',
    name: spec.name,
    meta: spec.meta,
    keyed: spec.keyed,
    format,
    buckets,
  };
}
