/**
 * The shard side of `terms` (GlobalOrdinalsStringTermsAggregator,
 * LongTermsAggregator, DoubleTermsAggregator in 6.8): counts per bucket in
 * typed arrays, keyword values by global ordinal, numbers by value id; at the
 * end the best `shard_size` buckets in the aggregation's order, with the
 * count of the others (`sum_other_doc_count`).
 */
import type { BucketBudget } from './bucket-budget.ts';
import { runSteps } from '../../steps/run-steps.ts';
import type { Aggregator, SegmentContext, ShardScope } from './aggregator.ts';
import { DocOwnerBuffer, flushToChildren, growI32, subAggSortValue } from './aggregator.ts';
import { BucketOrds, NumberIds } from './bucket-ords.ts';
import { keyCodes } from './key-merge.ts';
import { appendGlobalOrdinals, countOrdinalRange, countOrdinals, countOrdinalsBySegment, countOrdinalsForSubs } from './counting-loops.ts';
import { compareKeys, compareMetric, isKeyOrder, withKeyTieBreak } from './bucket-order.ts';
import { dateFormatterFor } from './date-formats.ts';
import { globalOrdinals, type GlobalOrdinals } from './global-ordinals.ts';
import type { MonotonicOrds } from './monotonic-ords.ts';
import { fieldDataCache } from './field-data-cache.ts';
import { ipIncludeExclude, keywordAcceptor, numericAcceptor } from './include-exclude.ts';
import type { AggPathElement, BucketOrder, TermsSpec } from './spec.ts';
import type { AggState, KeyCodes, TermsState, ValueFormat } from './state.ts';
import { topN } from './top-n.ts';
import type { ResolvedSource } from './value-source.ts';
import { numericValues, sortedValues } from './value-source.ts';
import type { NumericDocValues, SegmentView, SortedDocValues } from '../segment/types.ts';
import { IP_FORMAT, RAW_FORMAT } from './value-format.ts';

/** BucketUtils.suggestShardSideQueueSize. */
/** Largest doc count the count-histogram top selection handles (beyond, a heap). */
const MAX_COUNT_HISTOGRAM = 1 << 24;

export function suggestShardSize(size: number, numberOfShards: number): number {
  if (numberOfShards === 1) return size;
  return Math.min(Math.floor(size * 1.5 + 10), 2147483647);
}

export function effectiveShardSize(spec: TermsSpec, numberOfShards: number): number {
  let shardSize = spec.shardSize ?? -1;
  if (spec.shardSize === null && !isKeyOrder(spec.order)) shardSize = suggestShardSize(spec.size, numberOfShards);
  return shardSize < spec.size ? spec.size : shardSize;
}

abstract class TermsAggregatorBase implements Aggregator {
  readonly name: string;
  protected readonly ords: BucketOrds;
  protected counts = new Int32Array(64);
  protected readonly buf = new DocOwnerBuffer();
  protected readonly order: readonly BucketOrder[];
  protected readonly shardSize: number;
  protected readonly shardMinDocCount: number;

  constructor(
    protected readonly spec: TermsSpec,
    protected readonly subs: readonly Aggregator[],
    singleOwner: boolean,
    numberOfShards: number,
    private readonly budget: BucketBudget | null,
  ) {
    this.name = spec.name;
    this.ords = new BucketOrds(singleOwner);
    this.order = withKeyTieBreak(spec.order);
    this.shardSize = effectiveShardSize(spec, numberOfShards);
    this.shardMinDocCount = Math.min(spec.shardMinDocCount, spec.minDocCount);
  }

  abstract setSegment(seg: SegmentContext): void;
  abstract collect(docs: Int32Array, owners: Int32Array, n: number): void;
  /** Key of a key id. */
  protected abstract keyOf(keyId: number): string | number;
  /** Key ids that exist with zero docs (min_doc_count 0). */
  protected abstract allKeyIds(): Int32Array;
  protected abstract stateHeader(): Pick<TermsState, 'valueType' | 'format'>;
  /** A key may appear with zero docs (min_doc_count 0): it passes include/exclude. */
  protected abstract zeroBucketAllowed(keyId: number): boolean;

  protected countBucket(bucket: number): void {
    if (bucket >= this.counts.length) this.counts = growI32(this.counts, bucket + 1);
    this.counts[bucket]!++;
  }

  protected docCount(bucket: number): number {
    return bucket < this.counts.length ? this.counts[bucket]! : 0;
  }

  /** The counts by bucket the top selection reads (the counting array, or counts kept from an earlier search). */
  protected countsByBucket(): Int32Array | Uint16Array {
    return this.counts;
  }

  build(owner: number): AggState {
    return runSteps(this.buildSteps(owner));
  }

  /** build() in steps: a step per bucket whose sub-aggregations are built (terms 1000 × terms 1000 built them in one piece, 20 ms and more). */
  *buildSteps(owner: number): Generator<void, AggState> {
    if (this.ords.singleOwner && this.countDescKeyOrdered() && this.spec.minDocCount > 0) {
      const counts = this.countsByBucket();
      const top = topKeyIdsByCount(counts, Math.min(this.ords.bucketCount, counts.length), this.shardSize, this.shardMinDocCount);
      if (top !== null) return yield* this.state(top.ids, top.docs);
    }
    let buckets = this.ords.bucketsOf(owner);
    if (this.spec.minDocCount === 0) {
      const extra = this.allKeyIds();
      if (extra.length > 0) {
        for (let i = 0; i < extra.length; i++) this.ords.add(owner, extra[i]!);
        buckets = this.ords.bucketsOf(owner);
        if (this.ords.singleOwner) buckets = buckets.filter((b) => b < this.ords.bucketCount);
      }
    }
    let otherDocCount = 0;
    const candidates = new Int32Array(buckets.length);
    let nc = 0;
    for (let i = 0; i < buckets.length; i++) {
      const b = buckets[i]!;
      const c = this.docCount(b);
      if (c === 0 && (this.spec.minDocCount > 0 || !this.zeroBucketAllowed(this.ords.keyIdOf(b)))) continue;
      otherDocCount += c;
      if (c >= this.shardMinDocCount) candidates[nc++] = b;
    }
    const pool = candidates.subarray(0, nc);
    const best = this.countDescKeyOrdered() ? this.topByCount(pool, owner) : topN(pool, this.shardSize, this.comparator(owner));
    return yield* this.state(best, otherDocCount);
  }

  /** The shard state of the best buckets (in key order); `docs` counts every bucket's docs, returned or not. A step per bucket with sub-aggregations. */
  protected *state(best: Int32Array, docs: number): Generator<void, TermsState> {
    // The reduce keeps at most `size` of them: the shard_size extra is not counted (Elasticsearch 7 counts what a response can hold).
    this.budget?.consume(Math.min(best.length, this.spec.size));
    let otherDocCount = docs;
    const keys: (string | number)[] = new Array<string | number>(best.length);
    const keyIds = new Int32Array(best.length);
    const docCounts = new Int32Array(best.length);
    const subs: AggState[][] | null = this.subs.length > 0 ? new Array<AggState[]>(best.length) : null;
    for (let i = 0; i < best.length; i++) {
      const b = best[i]!;
      const docCount = this.docCount(b);
      otherDocCount -= docCount;
      keyIds[i] = this.ords.keyIdOf(b);
      keys[i] = this.keyOf(keyIds[i]!);
      docCounts[i] = docCount;
      if (subs !== null) {
        subs[i] = this.subs.map((s) => s.build(b));
        yield;
      }
    }
    const keyCodes = this.keyCodesOf(keys);
    return { kind: 'terms', ...this.stateHeader(), keys, keyCodes, docCounts, subs, sumOtherDocCount: otherDocCount, shardSize: this.shardSize };
  }

  /** Sort codes of these keys (string keys), for the reduce's merge. */
  protected keyCodesOf(keys: readonly (string | number)[]): KeyCodes | null {
    void keys;
    return null;
  }

  /** Key ids ascend with the keys (global ordinals). */
  protected keyIdsInKeyOrder(): boolean {
    return false;
  }

  /** Count descending, then key ascending, with key ids in key order: the top can be cut by count alone. */
  protected countDescKeyOrdered(): boolean {
    const o = this.order;
    return this.keyIdsInKeyOrder() && o.length === 2 && o[0]!.kind === 'count' && !o[0]!.asc && o[1]!.kind === 'key' && o[1]!.asc;
  }

  /**
   * The best shard_size buckets under count descending, key ascending, in no
   * particular order: the cut-off count from a histogram of counts, then
   * (buckets numbered in key order, i.e. a single owner) every bucket above
   * it and the first ones at it, no comparisons; otherwise a comparison
   * selection among the buckets at or above the cut-off.
   */
  private topByCount(pool: Int32Array, owner: number): Int32Array {
    const n = this.shardSize;
    let maxCount = 0;
    for (let i = 0; i < pool.length; i++) maxCount = Math.max(maxCount, this.docCount(pool[i]!));
    if (maxCount > MAX_COUNT_HISTOGRAM) return topN(pool, n, this.comparator(owner));
    const hist = new Int32Array(maxCount + 1);
    for (let i = 0; i < pool.length; i++) hist[this.docCount(pool[i]!)]!++;
    let kept = 0;
    let cut = maxCount;
    for (; cut > 0; cut--) {
      kept += hist[cut]!;
      if (kept >= n) break;
    }
    if (cut === 0) kept += hist[0]!;
    if (!this.ords.singleOwner) {
      const above = new Int32Array(kept);
      let k = 0;
      for (let i = 0; i < pool.length; i++) if (this.docCount(pool[i]!) >= cut) above[k++] = pool[i]!;
      return topN(above.subarray(0, k), n, this.comparator(owner));
    }
    // single owner: bucket id = key id, and the pool ascends by key, so the
    // buckets at the cut-off count that make it are the first ones
    const above = kept - hist[cut]!;
    let atCut = Math.min(hist[cut]!, n - above);
    const out = new Int32Array(above + atCut);
    let k = 0;
    for (let i = 0; i < pool.length; i++) {
      const b = pool[i]!;
      const c = this.docCount(b);
      if (c > cut) out[k++] = b;
      else if (c === cut && atCut > 0) {
        out[k++] = b;
        atCut--;
      }
    }
    return out;
  }

  private comparator(owner: number): (a: number, b: number) => number {
    void owner;
    const o0 = this.order[0]!;
    if (this.order.length === 2 && o0.kind === 'count' && this.order[1]!.kind === 'key') {
      const countSign = o0.asc ? 1 : -1;
      const keySign = this.order[1]!.asc ? 1 : -1;
      return (a, b) => (this.docCount(a) - this.docCount(b)) * countSign || this.compareKeyIds(this.ords.keyIdOf(a), this.ords.keyIdOf(b)) * keySign;
    }
    const parts = this.order.map((o) => {
      if (o.kind === 'count') return (a: number, b: number) => (this.docCount(a) - this.docCount(b)) * (o.asc ? 1 : -1);
      if (o.kind === 'key') return (a: number, b: number) => this.compareKeyIds(this.ords.keyIdOf(a), this.ords.keyIdOf(b)) * (o.asc ? 1 : -1);
      const cache = new Map<number, number>();
      const value = (b: number): number => {
        let v = cache.get(b);
        if (v === undefined) {
          v = subAggSortValue(this.subs, b, o.path.elements, 0, o.path.metric);
          cache.set(b, v);
        }
        return v;
      };
      return (a: number, b: number) => compareMetric(value(a), value(b), o.asc);
    });
    return (a, b) => {
      for (const p of parts) {
        const c = p(a, b);
        if (c !== 0) return c;
      }
      return 0;
    };
  }

  protected compareKeyIds(a: number, b: number): number {
    return compareKeys(this.keyOf(a), this.keyOf(b));
  }

  sortValue(owner: number, path: readonly AggPathElement[], at: number, metric: string | null): number {
    void owner;
    void path;
    void at;
    void metric;
    return NaN;
  }
}

/**
 * The best `size` key ids by count (descending; ties to the lower id) among
 * those counted at least max(minCount, 1) times, ascending by id, with the
 * docs counted under every id; one pass for a histogram of the counts, one
 * to pick. Null when a count is too large for the histogram.
 */
function topKeyIdsByCount(counts: Int32Array | Uint16Array, n: number, size: number, minCount: number): { ids: Int32Array; docs: number } | null {
  let maxCount = 0;
  let docs = 0;
  for (let i = 0; i < n; i++) {
    const c = counts[i]!;
    docs += c;
    if (c > maxCount) maxCount = c;
  }
  if (maxCount > MAX_COUNT_HISTOGRAM) return null;
  const from = Math.max(1, minCount);
  const hist = new Int32Array(maxCount + 1);
  for (let i = 0; i < n; i++) hist[counts[i]!]!++;
  // the cut-off: every id above it makes the top, the lowest ids at it fill the rest
  let above = 0;
  let cut = maxCount;
  for (; cut > from; cut--) {
    if (above + hist[cut]! >= size) break;
    above += hist[cut]!;
  }
  let atCut = cut >= from ? Math.min(hist[cut]!, size - above) : 0;
  const ids = new Int32Array(above + atCut);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const c = counts[i]!;
    if (c > cut) ids[k++] = i;
    else if (c === cut && atCut > 0) {
      ids[k++] = i;
      atCut--;
    }
  }
  return { ids, docs };
}

/**
 * Terms over keyword doc values (global ordinals). At the top level (one
 * owner) it starts sparse, as Elasticsearch's `map` execution hint: the
 * global ordinal of each matching doc is listed, and the list is sorted and
 * counted at the end, so a query matching 50 docs of a field with 76,000
 * distinct values neither allocates nor scans a count per value. Past
 * 1/16 of the values (or for sub-aggregations, include/exclude, several
 * values per doc) it turns dense: one count per global ordinal.
 */
export class OrdinalsTermsAggregator extends TermsAggregatorBase {
  private readonly globals: GlobalOrdinals;
  private readonly accept: Uint8Array | null;
  private dv: SortedDocValues | null = null;
  private map: MonotonicOrds | null = null;
  /** The resolved field (a field alias's target), whose doc values are read. */
  private readonly field: string | null;
  /** RAW, or IP for an ip field (keys print as addresses). */
  private readonly format: ValueFormat;
  /** The global ordinals collected while sparse (first `sparseN`); null once counting is dense. */
  private sparse: Int32Array | null = null;
  private sparseN = 0;
  private readonly sparseLimit: number;
  /** After a sparse build: the distinct ordinals collected, ascending, and their counts. */
  private sparseKeys: Int32Array | null = null;
  private sparseCounts: Int32Array | null = null;
  /** The search's views, and the position of the one being collected. */
  private readonly views: readonly SegmentView[];
  private viewIndex = 0;
  /**
   * Whole-segment counting (a top-level terms with no sub-aggregations,
   * include/exclude or `missing`, on a query matching every doc of a
   * segment): each global ordinal's count over every doc of this set of
   * segments, kept in the field data cache beside the global ordinals (2
   * bytes a distinct term while no count passes 65,535, else 4; the per-term
   * document frequency Lucene keeps in its terms dictionary). Null when the
   * aggregation cannot use it.
   */
  private readonly allDocsKey: string | null;
  /** The cached counts over every doc; while set, segments collected whole are only marked, not counted. */
  private allDocs: Int32Array | Uint16Array | null = null;
  /** The kept counts over every doc, when they are this search's: read in place of `counts`. */
  private keptCounts: Int32Array | Uint16Array | null = null;
  /** Views collected whole through collectRange (marked when their first range comes). */
  private readonly wholeViews: Uint8Array;
  /** Docs came through collect(): the counts are not those of every doc of every segment. */
  private listedAny = false;

  constructor(spec: TermsSpec, subs: readonly Aggregator[], singleOwner: boolean, scope: ShardScope, source: ResolvedSource & { kind: 'bytes' }) {
    super(spec, subs, singleOwner, scope.ctx.numberOfShards ?? 5, scope.budget);
    this.field = source.field;
    this.format = source.ip === true ? IP_FORMAT : RAW_FORMAT;
    this.globals = globalOrdinals(scope.views, source.field, source.missing);
    this.views = scope.views;
    this.wholeViews = new Uint8Array(scope.views.length);
    const acceptor = source.ip === true ? keywordAcceptor(ipIncludeExclude(spec.include), ipIncludeExclude(spec.exclude)) : keywordAcceptor(spec.include, spec.exclude);
    this.accept = acceptor === null ? null : this.globals.acceptedBy(acceptor);
    this.sparseLimit = Math.max(256, this.globals.length >>> 4);
    if (singleOwner) this.sparse = new Int32Array(64);
    const wholeCountable = singleOwner && subs.length === 0 && this.accept === null && source.missing === null;
    this.allDocsKey = wholeCountable ? `allDocCounts|${this.globals.cacheKey}` : null;
    if (this.allDocsKey !== null) this.allDocs = fieldDataCache.get<Int32Array | Uint16Array>(this.allDocsKey) ?? null;
  }

  /** From sparse to dense counting: one count per global ordinal. */
  private densify(): void {
    const list = this.sparse;
    if (list === null) return;
    const counts = new Int32Array(Math.max(16, this.globals.length));
    for (let i = 0; i < this.sparseN; i++) counts[list[i]!]!++;
    this.counts = counts;
    this.sparse = null;
    this.sparseN = 0;
  }

  override *buildSteps(owner: number): Generator<void, AggState> {
    if (this.allDocs !== null) {
      if (this.everyViewWhole()) {
        // every doc of every segment: the kept counts are this search's (only read from here on: no copy)
        this.keptCounts = this.allDocs;
        this.sparse = null;
        this.ords.add(0, this.globals.length - 1);
      } else this.countMarkedViews();
    } else if (this.allDocsKey !== null && this.sparse === null && this.everyViewWhole()) {
      const kept = narrowCounts(this.counts.subarray(0, Math.max(16, this.globals.length)));
      fieldDataCache.set(this.allDocsKey, kept, kept.byteLength);
    }
    if (this.sparse !== null) {
      if (this.countDescKeyOrdered() && this.spec.minDocCount > 0) return yield* this.sparseBuild();
      this.densify();
    }
    return yield* super.buildSteps(owner);
  }

  /** The best buckets of a sparse count: the listed ordinals sorted, counted by runs, the top picked by count. */
  private *sparseBuild(): Generator<void, AggState> {
    const list = this.sparse!.subarray(0, this.sparseN).sort();
    const keys = new Int32Array(list.length);
    const counts = new Int32Array(list.length);
    let k = 0;
    for (let i = 0; i < list.length; i++) {
      const g = list[i]!;
      if (k > 0 && keys[k - 1] === g) counts[k - 1]!++;
      else {
        keys[k] = g;
        counts[k++] = 1;
      }
    }
    this.sparseKeys = keys.subarray(0, k);
    this.sparseCounts = counts.subarray(0, k);
    // counts are at most the list's length, far below the histogram's limit
    const top = topKeyIdsByCount(this.sparseCounts, k, this.shardSize, this.shardMinDocCount)!;
    const ids = new Int32Array(top.ids.length);
    for (let i = 0; i < ids.length; i++) ids[i] = keys[top.ids[i]!]!;
    return yield* this.state(ids, top.docs);
  }

  protected override countsByBucket(): Int32Array | Uint16Array {
    return this.keptCounts ?? this.counts;
  }

  protected override docCount(bucket: number): number {
    const kept = this.keptCounts;
    if (kept !== null) return bucket < kept.length ? kept[bucket]! : 0;
    const keys = this.sparseKeys;
    if (keys === null) return super.docCount(bucket);
    let lo = 0;
    let hi = keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const g = keys[mid]!;
      if (g === bucket) return this.sparseCounts![mid]!;
      if (g < bucket) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }

  setSegment(seg: SegmentContext): void {
    this.dv = sortedValues(seg.view.segment, this.field);
    this.map = this.globals.segmentToGlobal[seg.viewIndex] ?? null;
    this.viewIndex = seg.viewIndex;
    for (const s of this.subs) s.setSegment(seg);
  }

  collectRange(from: number, to: number): boolean {
    const dv = this.dv;
    const map = this.map;
    if (!this.ords.singleOwner || this.accept !== null || this.subs.length > 0) return false;
    if (dv === null && this.globals.missingOrd < 0) {
      // no doc of this segment has the field: nothing to count
      this.wholeViews[this.viewIndex] = 1;
      return true;
    }
    if (dv === null || dv.starts !== null || map === null) return false;
    if (from === 0) this.wholeViews[this.viewIndex] = 1;
    // counted at the end from the kept counts (or, if some segment is not whole, then)
    if (this.allDocs !== null) return true;
    // A whole segment is far past the sparse limit: count densely.
    this.densify();
    countOrdinalRange(from, to, dv.ords, dv.dict.length, map, this.globals.missingOrd, this.counts);
    this.ords.add(0, this.globals.length - 1);
    return true;
  }

  /** Every view with docs was collected whole: the counts are those of every doc, as kept under allDocsKey. */
  private everyViewWhole(): boolean {
    if (this.listedAny) return false;
    for (let i = 0; i < this.views.length; i++) if (this.wholeViews[i] === 0 && this.views[i]!.segment.maxDoc > 0) return false;
    return true;
  }

  /** Leaves whole-segment counting: counts the segments it only marked so far, from their doc values. */
  private countMarkedViews(): void {
    if (this.allDocs === null) return;
    this.allDocs = null;
    this.densify();
    for (let i = 0; i < this.views.length; i++) {
      if (this.wholeViews[i] === 0) continue;
      const segment = this.views[i]!.segment;
      const dv = sortedValues(segment, this.field);
      const map = this.globals.segmentToGlobal[i] ?? null;
      if (dv === null || map === null) continue;
      countOrdinalRange(0, segment.maxDoc, dv.ords, dv.dict.length, map, this.globals.missingOrd, this.counts);
      this.ords.add(0, this.globals.length - 1);
    }
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    if (n > 0) {
      this.listedAny = true;
      this.countMarkedViews();
    }
    const dv = this.dv;
    const map = this.map;
    const missingOrd = this.globals.missingOrd;
    const accept = this.accept;
    const hasSubs = this.subs.length > 0;
    const ords = this.ords;
    const buf = this.buf;
    if (hasSubs) buf.ensure(n);
    if (dv !== null && dv.starts === null && map !== null && ords.singleOwner && accept === null) {
      // Hot path: top-level counting on single-valued ordinals (bucket id = global ordinal).
      const segOrds = dv.ords;
      if (!hasSubs && this.sparse !== null && this.sparseN + n <= this.sparseLimit) {
        if (this.sparseN + n > this.sparse.length) {
          const grown = new Int32Array(Math.min(this.sparseLimit, Math.max(2 * this.sparse.length, this.sparseN + n)));
          grown.set(this.sparse.subarray(0, this.sparseN));
          this.sparse = grown;
        }
        this.sparseN = appendGlobalOrdinals(docs, n, segOrds, map, missingOrd, this.sparse, this.sparseN);
        ords.add(0, this.globals.length - 1);
        return;
      }
      this.densify();
      const counts = this.counts;
      if (!hasSubs && n * 4 >= dv.dict.length) countOrdinalsBySegment(docs, n, segOrds, dv.dict.length, map, missingOrd, counts);
      else if (!hasSubs) countOrdinals(docs, n, segOrds, map, missingOrd, counts);
      else buf.n = countOrdinalsForSubs(docs, n, segOrds, map, missingOrd, counts, buf.docs, buf.owners, buf.n);
      ords.add(0, this.globals.length - 1);
      flushToChildren(this.subs, buf);
      return;
    }
    this.densify();
    for (let i = 0; i < n; i++) {
      const doc = docs[i]!;
      const owner = owners[i]!;
      if (dv === null || map === null) {
        if (missingOrd >= 0) this.collectOrd(doc, owner, missingOrd, accept, hasSubs);
        continue;
      }
      if (dv.starts === null) {
        const o = dv.ords[doc]!;
        const g = o >= 0 ? map.get(o) : missingOrd;
        if (g >= 0) this.collectOrd(doc, owner, g, accept, hasSubs);
      } else {
        const from = dv.starts[doc]!;
        const to = dv.starts[doc + 1]!;
        if (from === to) {
          if (missingOrd >= 0) this.collectOrd(doc, owner, missingOrd, accept, hasSubs);
        } else {
          if (hasSubs) buf.ensure(to - from);
          for (let j = from; j < to; j++) this.collectOrd(doc, owner, map.get(dv.ords[j]!), accept, hasSubs);
        }
      }
    }
    flushToChildren(this.subs, buf);
  }

  private collectOrd(doc: number, owner: number, g: number, accept: Uint8Array | null, hasSubs: boolean): void {
    if (accept !== null && accept[g] === 0) return;
    const b = this.ords.add(owner, g);
    this.countBucket(b);
    if (hasSubs) {
      const buf = this.buf;
      buf.docs[buf.n] = doc;
      buf.owners[buf.n++] = b;
    }
  }

  protected keyOf(keyId: number): string {
    return this.globals.term(keyId);
  }

  protected override compareKeyIds(a: number, b: number): number {
    return a - b;
  }

  protected override keyIdsInKeyOrder(): boolean {
    return true;
  }

  /** Codes of the returned keys only: a copy per global ordinal would take 16 bytes per distinct value. */
  protected override keyCodesOf(keys: readonly (string | number)[]): KeyCodes {
    return keyCodes(keys as readonly string[]);
  }

  protected allKeyIds(): Int32Array {
    const n = this.globals.length;
    const out: number[] = [];
    for (let g = 0; g < n; g++) if (this.accept === null || this.accept[g] === 1) out.push(g);
    return Int32Array.from(out);
  }

  protected stateHeader(): Pick<TermsState, 'valueType' | 'format'> {
    return { valueType: 'string', format: this.format };
  }

  protected zeroBucketAllowed(keyId: number): boolean {
    return this.accept === null || this.accept[keyId] === 1;
  }
}

/** Terms over numeric doc values (long, double, date, boolean). */
export class NumericTermsAggregator extends TermsAggregatorBase {
  private readonly values = new NumberIds(64);
  private readonly acceptor: ((v: number) => boolean) | null;
  private acceptCache = new Uint8Array(64);
  private dv: NumericDocValues | null = null;

  constructor(
    spec: TermsSpec,
    subs: readonly Aggregator[],
    singleOwner: boolean,
    private readonly scope: ShardScope,
    private readonly source: ResolvedSource & { kind: 'numeric' },
  ) {
    super(spec, subs, singleOwner, scope.ctx.numberOfShards ?? 5, scope.budget);
    const fmt = source.format;
    const parse = (v: string | number | boolean): number => {
      if (source.numKind === 'boolean') return v === true || v === 'true' || v === 1 ? 1 : 0;
      if (fmt.kind === 'date' && typeof v === 'string') return dateFormatterFor(fmt.pattern).parse(v);
      return Number(v);
    };
    this.acceptor = numericAcceptor(spec.include, spec.exclude, source.numKind === 'double', parse, spec.name);
  }

  setSegment(seg: SegmentContext): void {
    this.dv = numericValues(seg.view.segment, this.source.field);
    for (const s of this.subs) s.setSegment(seg);
  }

  private accepted(keyId: number): boolean {
    if (this.acceptor === null) return true;
    if (keyId >= this.acceptCache.length) {
      const grown = new Uint8Array(Math.max(keyId + 1, this.acceptCache.length * 2));
      grown.set(this.acceptCache);
      this.acceptCache = grown;
    }
    let a = this.acceptCache[keyId]!;
    if (a === 0) {
      a = this.acceptor(this.values.key(keyId)) ? 1 : 2;
      this.acceptCache[keyId] = a;
    }
    return a === 1;
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    const dv = this.dv;
    const missing = this.source.missing;
    const hasSubs = this.subs.length > 0;
    const buf = this.buf;
    if (hasSubs) buf.ensure(n);
    let lastValue = NaN;
    let lastId = -1;
    for (let i = 0; i < n; i++) {
      const doc = docs[i]!;
      const owner = owners[i]!;
      if (dv === null || dv.starts === null) {
        let v = dv === null ? NaN : dv.values[doc]!;
        if (Number.isNaN(v)) {
          if (missing === null) continue;
          v = missing;
        }
        let id: number;
        if (v === lastValue) id = lastId;
        else {
          id = this.values.add(v);
          lastValue = v;
          lastId = id;
        }
        if (!this.accepted(id)) continue;
        const b = this.ords.add(owner, id);
        this.countBucket(b);
        if (hasSubs) {
          buf.docs[buf.n] = doc;
          buf.owners[buf.n++] = b;
        }
      } else {
        const from = dv.starts[doc]!;
        const to = dv.starts[doc + 1]!;
        if (from === to) {
          if (missing === null) continue;
          this.collectValue(doc, owner, missing, hasSubs);
          continue;
        }
        if (hasSubs) buf.ensure(to - from);
        for (let j = from; j < to; j++) {
          const v = dv.values[j]!;
          if (j > from && v === dv.values[j - 1]) continue;
          this.collectValue(doc, owner, v, hasSubs);
        }
      }
    }
    flushToChildren(this.subs, buf);
  }

  private collectValue(doc: number, owner: number, v: number, hasSubs: boolean): void {
    const id = this.values.add(v);
    if (!this.accepted(id)) return;
    const b = this.ords.add(owner, id);
    this.countBucket(b);
    if (hasSubs) {
      const buf = this.buf;
      buf.docs[buf.n] = doc;
      buf.owners[buf.n++] = b;
    }
  }

  protected keyOf(keyId: number): number {
    return this.values.key(keyId);
  }

  protected allKeyIds(): Int32Array {
    // min_doc_count 0: every value of the field in the shard's live docs
    for (const view of this.scope.views) {
      const dv = numericValues(view.segment, this.source.field);
      if (dv === null) continue;
      for (const v of dv.values) if (!Number.isNaN(v)) this.values.add(v);
    }
    const out: number[] = [];
    for (let id = 0; id < this.values.size; id++) if (this.accepted(id)) out.push(id);
    return Int32Array.from(out);
  }

  protected stateHeader(): Pick<TermsState, 'valueType' | 'format'> {
    return { valueType: this.source.numKind === 'double' ? 'double' : 'long', format: this.source.format };
  }

  protected zeroBucketAllowed(keyId: number): boolean {
    return this.accepted(keyId);
  }
}

/** A copy of these counts in 2 bytes each when every one fits, else in 4. */
function narrowCounts(counts: Int32Array): Int32Array | Uint16Array {
  let max = 0;
  for (let i = 0; i < counts.length; i++) if (counts[i]! > max) max = counts[i]!;
  return max <= 0xffff ? new Uint16Array(counts) : counts.slice();
}

/** Terms on a field this shard does not map. */
export function unmappedTermsState(): TermsState {
  return { kind: 'terms', valueType: 'unmapped', format: RAW_FORMAT, keys: [], keyCodes: null, docCounts: new Int32Array(0), subs: null, sumOtherDocCount: 0, shardSize: 0 };
}
