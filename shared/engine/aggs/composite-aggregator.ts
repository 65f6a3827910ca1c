/**
 * The shard side of `composite`: each doc's keys (the product of its
 * sources' values) go into a bounded queue of the `size` smallest keys after
 * `after`. A key pushed out of a full queue can never come back (the
 * queue's largest key only gets smaller), so the counts of the keys kept are
 * exact, and the coordinator's merge of every shard's first `size` keys is
 * the exact first page: paging with `after_key` reads every bucket once.
 *
 * Sub-aggregations cannot be told to forget a doc, so they are collected in
 * a second pass over the docs of the final keys (Elasticsearch defers them
 * the same way); the docs are kept per segment only when there are
 * sub-aggregations.
 */
import { illegalArgument, tooManyBuckets } from '../../errors/es-errors.ts';
import type { NumericDocValues, SortedDocValues } from '../segment/types.ts';
import type { Aggregator, SegmentContext, ShardScope } from './aggregator.ts';
import { DocOwnerBuffer, flushToChildren } from './aggregator.ts';
import { compareCompositeKeys, compareCompositeValues, compositeKeyId } from './composite-key.ts';
import { dateFormatterFor, resolveDateValue } from './date-formats.ts';
import { createRounding, type Rounding } from './date-rounding.ts';
import type { AggPathElement, CompositeSourceSpec, CompositeSpec } from './spec.ts';
import type { AggState, CompositeState, CompositeValue, ValueFormat } from './state.ts';
import { timeZone } from './time-zone.ts';
import { numericValues, resolveSource, sortedValues, type ResolvedSource } from './value-source.ts';
import { BOOLEAN_FORMAT, IP_FORMAT, RAW_FORMAT } from './value-format.ts';
import { ipTerm } from '../mapping/ip-address.ts';

/**
 * One source on one segment. A doc's values are written as numbers into a
 * scratch array: keyword ordinals (or MISSING_TERM for the `missing`
 * string), rounded numbers, NaN for "no value" (missing_bucket).
 */
const MISSING_TERM = -2;

class SourceReader {
  readonly format: ValueFormat;
  readonly bytes: boolean;
  private readonly field: string | null;
  private readonly missingNumber: number | null;
  private readonly missingTerm: string | null;
  private readonly rounding: Rounding | null;
  private readonly interval: number;
  private sorted: SortedDocValues | null = null;
  private numeric: NumericDocValues | null = null;
  values = new Float64Array(8);

  constructor(
    readonly spec: CompositeSourceSpec,
    private readonly resolved: ResolvedSource,
  ) {
    this.bytes = resolved.kind === 'bytes';
    this.field = resolved.kind === 'unmapped' ? null : resolved.field;
    this.missingNumber = resolved.kind === 'numeric' ? resolved.missing : null;
    this.missingTerm = resolved.kind === 'bytes' ? resolved.missing : null;
    this.interval = spec.kind === 'histogram' ? spec.interval : 0;
    this.rounding = spec.kind === 'date_histogram' && spec.dateInterval !== null ? createRounding(spec.dateInterval, timeZone(spec.timeZone)) : null;
    if (resolved.kind === 'bytes' && resolved.ip === true) this.format = IP_FORMAT;
    else if (resolved.kind !== 'numeric') this.format = RAW_FORMAT;
    // Dates are keyed as epoch millis unless the source names a format (TermsValuesSourceBuilder, DateHistogramValuesSourceBuilder).
    else if (resolved.numKind === 'date') this.format = spec.source.format === null ? RAW_FORMAT : { kind: 'date', pattern: spec.source.format, timeZone: spec.timeZone };
    else if (resolved.numKind === 'boolean') this.format = BOOLEAN_FORMAT;
    else this.format = RAW_FORMAT;
  }

  setSegment(seg: SegmentContext): void {
    this.sorted = this.bytes ? sortedValues(seg.view.segment, this.field) : null;
    this.numeric = this.resolved.kind === 'numeric' ? numericValues(seg.view.segment, this.field) : null;
  }

  private round(v: number): number {
    if (this.rounding !== null) return this.rounding.round(v);
    if (this.interval !== 0) return Math.floor(v / this.interval) * this.interval;
    return v;
  }

  /** Writes doc's distinct values into `values`; returns how many (0: no value and no missing_bucket). */
  read(doc: number): number {
    let n = 0;
    if (this.bytes) {
      const s = this.sorted;
      if (s !== null) {
        if (s.starts === null) {
          const o = s.ords[doc]!;
          if (o >= 0) this.values[n++] = o;
        } else {
          const from = s.starts[doc]!;
          const to = s.starts[doc + 1]!;
          this.ensure(to - from);
          for (let j = from; j < to; j++) this.values[n++] = s.ords[j]!;
        }
      }
      if (n === 0 && this.missingTerm !== null) this.values[n++] = MISSING_TERM;
    } else {
      const dv = this.numeric;
      if (dv !== null) {
        if (dv.starts === null) {
          const v = dv.values[doc]!;
          if (v === v) this.values[n++] = this.round(v);
        } else {
          const from = dv.starts[doc]!;
          const to = dv.starts[doc + 1]!;
          this.ensure(to - from);
          // values ascend and rounding keeps their order: a repeat is next to itself
          for (let j = from; j < to; j++) {
            const r = this.round(dv.values[j]!);
            if (n === 0 || this.values[n - 1] !== r) this.values[n++] = r;
          }
        }
      }
      if (n === 0 && this.missingNumber !== null) this.values[n++] = this.round(this.missingNumber);
    }
    if (n === 0 && this.spec.missingBucket) this.values[n++] = NaN;
    return n;
  }

  private ensure(n: number): void {
    if (this.values.length < n) this.values = new Float64Array(Math.max(n, this.values.length * 2));
  }

  /** A read value as a key value. */
  materialize(v: number): CompositeValue {
    if (v !== v) return null;
    if (!this.bytes) return v;
    if (v === MISSING_TERM) return this.missingTerm;
    return this.sorted!.dict.get(v);
  }

  /** A read value against a key value, ascending, without materializing a term. */
  compare(v: number, stored: CompositeValue): number {
    if (v !== v || stored === null) return v !== v && stored === null ? 0 : v !== v ? -1 : 1;
    if (!this.bytes) return compareCompositeValues(v, stored);
    if (typeof stored === 'number') return 1;
    if (v === MISSING_TERM) return compareCompositeValues(this.missingTerm, stored);
    return Math.sign(this.sorted!.dict.compare(v, stored));
  }

  /** The request's `after` value of this source, typed like this shard's values. */
  afterValue(v: string | number | boolean | null, nowMillis: number): CompositeValue {
    if (v === null) return null;
    const r = this.resolved;
    // an ip's `after` is the address its key printed; the key is its term
    if (r.kind === 'bytes') return r.ip === true ? ipTerm(String(v)) : String(v);
    if (r.kind === 'unmapped') return typeof v === 'boolean' ? String(v) : v;
    if (r.numKind === 'boolean') {
      if (v === true || v === 'true' || v === 1) return 1;
      if (v === false || v === 'false' || v === 0) return 0;
      throw illegalArgument(`Can't parse boolean value [${String(v)}], expected [true] or [false]`);
    }
    if (typeof v === 'number') return v;
    if (r.numKind === 'date' && typeof v === 'string') {
      const pattern = this.format.kind === 'date' ? this.format.pattern : r.format.kind === 'date' ? r.format.pattern : 'strict_date_optional_time||epoch_millis';
      return resolveDateValue(v, dateFormatterFor(pattern), this.spec.timeZone, nowMillis);
    }
    const n = Number(v);
    if (typeof v === 'boolean' || v.trim() === '' || Number.isNaN(n)) throw illegalArgument(`For input string: "${String(v)}"`);
    return n;
  }
}

/** A doc-id list of one segment, kept for the sub-aggregations' pass. */
interface KeptSegment {
  readonly seg: SegmentContext;
  docs: Int32Array;
  n: number;
}

export class CompositeAggregator implements Aggregator {
  readonly name: string;
  private readonly readers: SourceReader[];
  private readonly asc: boolean[];
  private readonly after: CompositeValue[] | null;
  private readonly size: number;
  /** Queue slots: key, its id, doc count; `heap` orders slots with the largest key on top. */
  private readonly slotKeys: CompositeValue[][] = [];
  private readonly slotIds: string[] = [];
  private slotCounts = new Int32Array(16);
  private heap = new Int32Array(16);
  private heapSize = 0;
  private readonly slotOf = new Map<string, number>();
  private readonly kept: KeptSegment[] = [];
  private current: KeptSegment | null = null;
  private replayed = false;
  private readonly buf = new DocOwnerBuffer();
  private readonly counters: Int32Array;
  /** The value index of each source in the key being visited. */
  private readonly at: Int32Array;
  private readonly budget: ShardScope['budget'];

  constructor(
    spec: CompositeSpec,
    private readonly subs: readonly Aggregator[],
    scope: ShardScope,
  ) {
    this.name = spec.name;
    const max = scope.ctx.maxBuckets;
    if (max !== undefined && spec.size > max) throw tooManyBuckets(max, spec.size);
    this.size = spec.size;
    this.budget = scope.budget;
    this.readers = spec.sources.map(
      (s) =>
        new SourceReader(
          s,
          resolveSource(s.source, scope.ctx.mapping, { numericOnly: s.kind !== 'terms', timeZone: s.timeZone, unmappedDefault: s.kind === 'terms' ? 'bytes' : 'numeric' }),
        ),
    );
    this.asc = spec.sources.map((s) => s.asc);
    this.after = spec.after === null ? null : spec.after.map((v, i) => this.readers[i]!.afterValue(v, scope.ctx.nowMillis));
    this.counters = new Int32Array(this.readers.length);
    this.at = new Int32Array(this.readers.length);
  }

  setSegment(seg: SegmentContext): void {
    for (const r of this.readers) r.setSegment(seg);
    if (this.subs.length > 0) {
      this.current = { seg, docs: new Int32Array(64), n: 0 };
      this.kept.push(this.current);
    }
  }

  collect(docs: Int32Array, _owners: Int32Array, n: number): void {
    const cur = this.current;
    if (cur !== null) {
      if (cur.docs.length < cur.n + n) {
        const grown = new Int32Array(Math.max(cur.n + n, cur.docs.length * 2));
        grown.set(cur.docs.subarray(0, cur.n));
        cur.docs = grown;
      }
      cur.docs.set(docs.subarray(0, n), cur.n);
      cur.n += n;
    }
    for (let i = 0; i < n; i++) this.forEachKey(docs[i]!, -1);
  }

  /**
   * Visits every key of doc that belongs on the page: counts it into the
   * queue (replayOwner < 0), or, in the sub-aggregations' pass, hands the doc
   * to the slot of each of its keys that made the page.
   */
  private forEachKey(doc: number, replayOwner: number): void {
    const readers = this.readers;
    const k = readers.length;
    const counts = this.counters;
    for (let s = 0; s < k; s++) {
      const c = readers[s]!.read(doc);
      if (c === 0) return;
      counts[s] = c;
    }
    const at = this.at;
    at.fill(0);
    while (true) {
      this.visit(at, replayOwner, doc);
      let s = k - 1;
      while (s >= 0 && ++at[s]! >= counts[s]!) at[s--] = 0;
      if (s < 0) return;
    }
  }

  /** The candidate (reader s's value at[s]) against a key in the aggregation's order. */
  private compareCandidate(at: Int32Array, key: readonly CompositeValue[]): number {
    for (let s = 0; s < at.length; s++) {
      const r = this.readers[s]!;
      const c = r.compare(r.values[at[s]!]!, key[s]!);
      if (c !== 0) return this.asc[s] ? c : -c;
    }
    return 0;
  }

  private visit(at: Int32Array, replayOwner: number, doc: number): void {
    if (this.after !== null && this.compareCandidate(at, this.after) <= 0) return;
    const full = this.heapSize >= this.size;
    if (full && this.compareCandidate(at, this.slotKeys[this.heap[0]!]!) > 0) return;
    const key = this.readers.map((r, s) => r.materialize(r.values[at[s]!]!));
    const id = compositeKeyId(key);
    const slot = this.slotOf.get(id);
    if (replayOwner >= 0) {
      if (slot !== undefined) {
        const buf = this.buf;
        buf.ensure(1);
        buf.docs[buf.n] = doc;
        buf.owners[buf.n++] = slot;
      }
      return;
    }
    if (slot !== undefined) {
      this.slotCounts[slot]!++;
      return;
    }
    this.insert(key, id, full);
  }

  private insert(key: CompositeValue[], id: string, full: boolean): void {
    let slot: number;
    if (full) {
      // the largest key leaves; its slot takes the new key
      slot = this.heap[0]!;
      this.slotOf.delete(this.slotIds[slot]!);
      this.slotKeys[slot] = key;
      this.slotIds[slot] = id;
      this.slotCounts[slot] = 1;
      this.siftDown(0);
    } else {
      slot = this.slotKeys.length;
      this.slotKeys.push(key);
      this.slotIds.push(id);
      if (slot >= this.slotCounts.length) {
        const grown = new Int32Array(this.slotCounts.length * 2);
        grown.set(this.slotCounts);
        this.slotCounts = grown;
        const heap = new Int32Array(this.heap.length * 2);
        heap.set(this.heap);
        this.heap = heap;
      }
      this.slotCounts[slot] = 1;
      this.heap[this.heapSize++] = slot;
      this.siftUp(this.heapSize - 1);
    }
    this.slotOf.set(id, slot);
  }

  /** Heap order: the larger key first. */
  private above(a: number, b: number): boolean {
    return compareCompositeKeys(this.slotKeys[a]!, this.slotKeys[b]!, this.asc) > 0;
  }

  private siftUp(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.above(heap[i]!, heap[parent]!)) return;
      const t = heap[i]!;
      heap[i] = heap[parent]!;
      heap[parent] = t;
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    const n = this.heapSize;
    while (true) {
      const l = 2 * i + 1;
      if (l >= n) return;
      let top = l;
      if (l + 1 < n && this.above(heap[l + 1]!, heap[l]!)) top = l + 1;
      if (!this.above(heap[top]!, heap[i]!)) return;
      const t = heap[i]!;
      heap[i] = heap[top]!;
      heap[top] = t;
      i = top;
    }
  }

  /** The sub-aggregations' pass over the kept docs, once the page is final. */
  private replay(): void {
    if (this.replayed || this.subs.length === 0) return;
    this.replayed = true;
    for (const kept of this.kept) {
      for (const r of this.readers) r.setSegment(kept.seg);
      for (const s of this.subs) s.setSegment(kept.seg);
      for (let i = 0; i < kept.n; i++) {
        this.forEachKey(kept.docs[i]!, 0);
        if (this.buf.n >= 1024) flushToChildren(this.subs, this.buf);
      }
      flushToChildren(this.subs, this.buf);
      kept.docs = new Int32Array(0);
    }
  }

  build(): AggState {
    this.replay();
    const slots = Array.from({ length: this.slotKeys.length }, (_, i) => i);
    slots.sort((a, b) => compareCompositeKeys(this.slotKeys[a]!, this.slotKeys[b]!, this.asc));
    this.budget?.consume(slots.length);
    const state: CompositeState = {
      kind: 'composite',
      formats: this.readers.map((r) => r.format),
      keys: slots.map((s) => this.slotKeys[s]!),
      docCounts: Int32Array.from(slots, (s) => this.slotCounts[s]!),
      subs: this.subs.length === 0 ? null : slots.map((s) => this.subs.map((sub) => sub.build(s))),
    };
    return state;
  }

  sortValue(_owner: number, _path: readonly AggPathElement[], _at: number, _metric: string | null): number {
    return NaN;
  }
}
