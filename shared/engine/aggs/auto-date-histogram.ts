/**
 * `auto_date_histogram` (Elasticsearch 6.4+, AutoDateHistogramAggregator and
 * InternalAutoDateHistogram): date buckets whose interval is chosen so that
 * there are at most `buckets` of them. The ladder of roundings is seconds
 * (1, 5, 10, 30), minutes (1, 5, 10, 30), hours (1, 3, 12), days (1, 7),
 * months (1, 3), years (1, 5, 10, 20, 50, 100).
 *
 * A shard rounds to the finest unit that keeps its bucket count within
 * `buckets` × the unit's largest inner interval, moving up as keys arrive.
 * The reduce re-rounds every shard's buckets to the coarsest unit a shard
 * used, moves up further while there are too many, picks the unit the key
 * range needs, fills empty buckets, and finally merges runs of consecutive
 * buckets by the smallest inner interval that brings the count within
 * `buckets`. Sub-aggregations are collected once the shard's unit is final
 * (the docs are kept per segment meanwhile).
 */
import type { NumericDocValues } from '../segment/types.ts';
import type { BucketBudget } from './bucket-budget.ts';
import type { Aggregator, SegmentContext, ShardScope } from './aggregator.ts';
import { DocOwnerBuffer, flushToChildren } from './aggregator.ts';
import { createRounding, type Rounding } from './date-rounding.ts';
import { EMPTY_OWNER } from './histogram-aggregator.ts';
import type { ReducedAgg, ReducedBucket, ReducedHistogram } from './reduced.ts';
import type { LevelReducer } from './reduce-terms.ts';
import type { AggPathElement, AutoDateHistogramSpec, CalendarUnit } from './spec.ts';
import type { AggState, AutoDateHistogramState, ValueFormat } from './state.ts';
import { timeZone } from './time-zone.ts';
import { numericValues, type ResolvedSource } from './value-source.ts';
import { formatValue } from './value-format.ts';

const DAY = 86_400_000;

interface RoundingInfo {
  readonly unit: CalendarUnit;
  readonly roughMillis: number;
  readonly abbreviation: string;
  readonly innerIntervals: readonly number[];
}

/** AutoDateHistogramAggregationBuilder.buildRoundings. */
const LADDER: readonly RoundingInfo[] = [
  { unit: 'second', roughMillis: 1000, abbreviation: 's', innerIntervals: [1, 5, 10, 30] },
  { unit: 'minute', roughMillis: 60_000, abbreviation: 'm', innerIntervals: [1, 5, 10, 30] },
  { unit: 'hour', roughMillis: 3_600_000, abbreviation: 'h', innerIntervals: [1, 3, 12] },
  { unit: 'day', roughMillis: DAY, abbreviation: 'd', innerIntervals: [1, 7] },
  { unit: 'month', roughMillis: 30 * DAY, abbreviation: 'M', innerIntervals: [1, 3] },
  { unit: 'year', roughMillis: 365 * DAY, abbreviation: 'y', innerIntervals: [1, 5, 10, 20, 50, 100] },
];

function maxInner(i: number): number {
  const inner = LADDER[i]!.innerIntervals;
  return inner[inner.length - 1]!;
}

function roundings(tz: string | null): Rounding[] {
  const zone = timeZone(tz);
  return LADDER.map((r) => createRounding({ kind: 'calendar', unit: r.unit }, zone));
}

/** One owning bucket's keys at its current rounding. */
interface OwnerBuckets {
  idx: number;
  counts: Map<number, number>;
  /** Bucket ids for the sub-aggregations (assigned once the rounding is final). */
  ids: Map<number, number> | null;
}

export class AutoDateHistogramAggregator implements Aggregator {
  readonly name: string;
  private readonly rounding: Rounding[];
  private readonly owners = new Map<number, OwnerBuckets>();
  private dv: NumericDocValues | null = null;
  private readonly kept: { seg: SegmentContext; docs: number[]; owners: number[] }[] = [];
  private replayed = false;
  private nextId = 0;
  private readonly buf = new DocOwnerBuffer();

  constructor(
    private readonly spec: AutoDateHistogramSpec,
    private readonly subs: readonly Aggregator[],
    private readonly scope: ShardScope,
    private readonly source: ResolvedSource & { kind: 'numeric' },
  ) {
    this.name = spec.name;
    this.rounding = roundings(spec.timeZone);
  }

  setSegment(seg: SegmentContext): void {
    this.dv = numericValues(seg.view.segment, this.source.field);
    if (this.subs.length > 0) this.kept.push({ seg, docs: [], owners: [] });
  }

  /** Calls fn with each distinct value of doc (missing substituted). */
  private values(doc: number, fn: (v: number) => void): void {
    const dv = this.dv;
    const missing = this.source.missing;
    if (dv === null || (dv.starts === null ? dv.values[doc]! !== dv.values[doc]! : dv.starts[doc] === dv.starts[doc + 1])) {
      if (missing !== null) fn(missing);
      return;
    }
    if (dv.starts === null) fn(dv.values[doc]!);
    else for (let j = dv.starts[doc]!; j < dv.starts[doc + 1]!; j++) fn(dv.values[j]!);
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    const kept = this.kept[this.kept.length - 1];
    for (let i = 0; i < n; i++) {
      const doc = docs[i]!;
      const owner = owners[i]!;
      let ob = this.owners.get(owner);
      if (ob === undefined) this.owners.set(owner, (ob = { idx: 0, counts: new Map(), ids: null }));
      const state = ob;
      let prev = NaN;
      this.values(doc, (v) => {
        const key = this.rounding[state.idx]!.round(v);
        if (key === prev) return;
        prev = key;
        const c = state.counts.get(key);
        state.counts.set(key, (c ?? 0) + 1);
        if (c === undefined) {
          while (state.idx < LADDER.length - 1 && state.counts.size > this.spec.buckets * maxInner(state.idx)) this.increaseRounding(state);
          prev = this.rounding[state.idx]!.round(v);
        }
      });
      if (kept !== undefined) {
        kept.docs.push(doc);
        kept.owners.push(owner);
      }
    }
  }

  /** The next rounding up; keys that now round together merge. */
  private increaseRounding(ob: OwnerBuckets): void {
    ob.idx++;
    const r = this.rounding[ob.idx]!;
    const merged = new Map<number, number>();
    for (const [k, c] of ob.counts) {
      const key = r.round(k);
      merged.set(key, (merged.get(key) ?? 0) + c);
    }
    ob.counts = merged;
  }

  /** Sub-aggregations, once every owner's rounding is final: each kept doc goes to its buckets. */
  private replay(): void {
    if (this.replayed || this.subs.length === 0) return;
    this.replayed = true;
    for (const [, ob] of this.owners) {
      ob.ids = new Map();
      for (const k of [...ob.counts.keys()].sort((a, b) => a - b)) ob.ids.set(k, this.nextId++);
    }
    for (const kept of this.kept) {
      this.dv = numericValues(kept.seg.view.segment, this.source.field);
      for (const s of this.subs) s.setSegment(kept.seg);
      for (let i = 0; i < kept.docs.length; i++) {
        const doc = kept.docs[i]!;
        const ob = this.owners.get(kept.owners[i]!)!;
        let prev = NaN;
        this.values(doc, (v) => {
          const key = this.rounding[ob.idx]!.round(v);
          if (key === prev) return;
          prev = key;
          this.buf.ensure(1);
          this.buf.docs[this.buf.n] = doc;
          this.buf.owners[this.buf.n++] = ob.ids!.get(key)!;
        });
        if (this.buf.n >= 4096) flushToChildren(this.subs, this.buf);
      }
      flushToChildren(this.subs, this.buf);
      kept.docs = [];
      kept.owners = [];
    }
  }

  build(owner: number): AggState {
    this.replay();
    const ob = owner === EMPTY_OWNER ? undefined : this.owners.get(owner);
    const keys = ob === undefined ? [] : [...ob.counts.keys()].sort((a, b) => a - b);
    this.scope.budget?.consume(keys.length);
    const state: AutoDateHistogramState = {
      kind: 'auto_date_histogram',
      format: this.source.format,
      roundingIdx: ob?.idx ?? 0,
      keys: Float64Array.from(keys),
      docCounts: Int32Array.from(keys, (k) => ob!.counts.get(k)!),
      subs: this.subs.length === 0 ? null : keys.map((k) => this.subs.map((s) => s.build(ob!.ids!.get(k)!))),
      emptySubs: this.subs.map((s) => s.build(EMPTY_OWNER)),
    };
    return state;
  }

  sortValue(_owner: number, _path: readonly AggPathElement[], _at: number, _metric: string | null): number {
    return NaN;
  }
}

interface Bucket {
  key: number;
  docCount: number;
  /** The shards' sub-aggregation states gathered into this bucket. */
  subs: (readonly AggState[])[];
}

/** Re-keys buckets with a rounding, merging equal keys (input ascending, output ascending). */
function mergeBuckets(buckets: readonly Bucket[], r: Rounding): Bucket[] {
  const out: Bucket[] = [];
  for (const b of buckets) {
    const key = r.round(b.key);
    const last = out[out.length - 1];
    if (last !== undefined && last.key === key) {
      last.docCount += b.docCount;
      last.subs.push(...b.subs);
    } else {
      out.push({ key, docCount: b.docCount, subs: [...b.subs] });
    }
  }
  return out;
}

export function reduceAutoDateHistogram(
  spec: AutoDateHistogramSpec,
  states: readonly AutoDateHistogramState[],
  reduceLevel: LevelReducer,
  budget: BucketBudget | null = null,
): ReducedHistogram {
  const target = spec.buckets;
  const r = roundings(spec.timeZone);
  const format: ValueFormat = states[0]?.format ?? { kind: 'date', pattern: 'strict_date_optional_time||epoch_millis', timeZone: spec.timeZone };
  let idx = 0;
  for (const s of states) idx = Math.max(idx, s.roundingIdx);
  // reduceBuckets: every shard's buckets at the coarsest rounding a shard used
  const all: Bucket[] = [];
  for (const s of states) for (let i = 0; i < s.keys.length; i++) all.push({ key: s.keys[i]!, docCount: s.docCounts[i]!, subs: s.subs === null ? [] : [s.subs[i]!] });
  all.sort((a, b) => a.key - b.key);
  let buckets = mergeBuckets(all, r[idx]!);
  const mergeIfNeeded = (): void => {
    while (buckets.length > target * maxInner(idx) && idx < LADDER.length - 1) {
      idx++;
      buckets = mergeBuckets(buckets, r[idx]!);
    }
  };
  mergeIfNeeded();
  // addEmptyBuckets, at the rounding the key range needs
  if (buckets.length > 0) {
    idx = appropriateRounding(buckets[0]!.key, buckets[buckets.length - 1]!.key, idx, target, r);
    buckets = mergeBuckets(buckets, r[idx]!);
    const filled: Bucket[] = [];
    for (const b of buckets) {
      const last = filled[filled.length - 1];
      if (last !== undefined) {
        for (let key = r[idx]!.nextRoundingValue(last.key); key < b.key; key = r[idx]!.nextRoundingValue(key)) {
          // each empty bucket counts against search.max_buckets as it is made (a huge `buckets` stops here)
          budget?.consume(1);
          filled.push({ key, docCount: 0, subs: [] });
        }
      }
      filled.push(b);
    }
    buckets = filled;
  }
  mergeIfNeeded();
  // maybeMergeConsecutiveBuckets
  let inner = 1;
  if (buckets.length > target) {
    for (const interval of LADDER[idx]!.innerIntervals) {
      if (Math.ceil(buckets.length / interval) <= target) {
        inner = interval;
        const merged: Bucket[] = [];
        buckets.forEach((b, i) => {
          if (i % interval === 0) merged.push({ key: r[idx]!.round(b.key), docCount: 0, subs: [] });
          const m = merged[merged.length - 1]!;
          m.docCount += b.docCount;
          m.subs.push(...b.subs);
        });
        buckets = merged;
        break;
      }
    }
  }
  const emptySubs = states[0]?.emptySubs ?? [];
  const out: ReducedBucket[] = buckets.map((b) => {
    const aggs: ReducedAgg[] = reduceLevel(spec.subs, b.subs.length > 0 ? b.subs : [emptySubs]);
    return { key: b.key, keyAsString: formatValue(format, b.key), docCount: b.docCount, aggs };
  });
  return {
    kind: 'histogram',
    typeName: 'auto_date_histogram',
    name: spec.name,
    meta: spec.meta,
    keyed: false,
    format,
    buckets: out,
    interval: `${inner}${LADDER[idx]!.abbreviation}`,
  };
}

/** InternalAutoDateHistogram.getAppropriateRounding (a rough estimate first, then an exact count). */
function appropriateRounding(minKey: number, maxKey: number, roundingIdx: number, target: number, r: readonly Rounding[]): number {
  if (roundingIdx === LADDER.length - 1) return roundingIdx;
  let current = roundingIdx;
  for (let i = roundingIdx + 1; i < LADDER.length; i++) {
    const rough = Math.trunc((maxKey - minKey) / LADDER[i]!.roughMillis);
    if (rough < target * maxInner(i)) {
      current = i - 1;
      break;
    } else if (i === roundingIdx - 1) {
      current = i;
      break;
    }
  }
  let required: number;
  do {
    required = 0;
    for (let key = minKey; key < maxKey; key = r[current]!.nextRoundingValue(key)) required++;
    current++;
  } while (required > target * maxInner(current - 1) && current < LADDER.length);
  return current - 1;
}
