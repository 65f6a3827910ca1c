/**
 * The shard side of `date_histogram` and `histogram`: each value is rounded
 * to its bucket key (date rounding in the time zone, or floor to a multiple of
 * the interval, both shifted by `offset`), keys get dense ids, counts go to
 * typed arrays. Buckets are returned ascending by key; the reduce fills empty
 * buckets and applies the final order.
 */
import type { BucketBudget } from './bucket-budget.ts';
import type { NumericDocValues } from '../segment/types.ts';
import type { Aggregator, SegmentContext, ShardScope } from './aggregator.ts';
import { DocOwnerBuffer, flushToChildren, growI32 } from './aggregator.ts';
import { BucketOrds, NumberIds } from './bucket-ords.ts';
import { countGridRun, countHistogramRange, countHistogramRun } from './counting-loops.ts';
import { dictionaryId, fieldDataCache } from './field-data-cache.ts';
import { dateFormatterFor, resolveDateValue } from './date-formats.ts';
import { createRounding, type Rounding } from './date-rounding.ts';
import type { AggPathElement, DateHistogramSpec, HistogramSpec } from './spec.ts';
import type { AggState, HistogramState } from './state.ts';
import { timeZone } from './time-zone.ts';
import type { ResolvedSource } from './value-source.ts';
import { numericValues } from './value-source.ts';
import { RAW_FORMAT } from './value-format.ts';

const DAY = 86_400_000;
/** Calendar units of fixed length (in a fixed-offset zone). */
const FIXED_UNIT_MILLIS: Partial<Record<string, number>> = { second: 1000, minute: 60_000, hour: 3_600_000, day: DAY, week: 7 * DAY };
/** Largest dense index window (keys beyond go through the hash only). */
const MAX_DENSE = 1 << 20;
/** Largest owner × bucket-index grid of a histogram below another bucket aggregation. */
const MAX_GRID_CELLS = 1 << 22;

/** A segment with more buckets than this keeps none (a per-second histogram over a month). */
const MAX_KEPT_SEGMENT_BUCKETS = 1 << 16;

/** A whole segment's buckets: keys and the number of its docs in each. */
interface SegmentBuckets {
  readonly keys: Float64Array;
  readonly counts: Int32Array;
}

/** Placeholder owner for "a bucket that collected nothing". */
export const EMPTY_OWNER = 0x7fffffff;

export class HistogramAggregator implements Aggregator {
  readonly name: string;
  private readonly ords: BucketOrds;
  private readonly keys = new NumberIds(64);
  private counts = new Int32Array(64);
  private readonly buf = new DocOwnerBuffer();
  private dv: NumericDocValues | null = null;
  private readonly rounding: Rounding | null;
  private readonly interval: number;
  private readonly offset: number;
  private readonly missing: number | null;
  private readonly boundsMin: number | null;
  private readonly boundsMax: number | null;
  private readonly budget: BucketBudget | null;
  /** Key ids from here on mean more keys than the bucket limit (overBudget). */
  private readonly keyLimit: number;
  // last bucket's value range [cacheFrom, cacheTo) and key id
  private cacheFrom = NaN;
  private cacheTo = NaN;
  private cacheId = -1;
  /**
   * Arithmetic rounding (fixed time zone with a fixed-length unit, or a numeric
   * histogram): bucket index = floor((v + shift) / step), key = index × step − shift;
   * key ids of a window of indexes kept in a dense table.
   */
  private readonly step: number = 0;
  private readonly shift: number = 0;
  private denseBase = 0;
  private dense = new Int32Array(0);
  /**
   * Below another bucket aggregation, with arithmetic rounding and no
   * sub-aggregations (checkpoint × day): counts in one flat grid of owner ×
   * bucket index, `grid[owner * gridWidth + index - gridBase]`, no bucket id
   * per (owner, key). Emptied into the ords and turned off when it would grow
   * past MAX_GRID_CELLS.
   */
  private gridOn: boolean;
  private grid = new Int32Array(0);
  private gridBase = 0;
  private gridWidth = 0;
  private gridRows = 0;
  /** The segment being collected: its doc count, its key in the field data cache, whether its kept buckets were added, the counts before it (whole-segment collection). */
  private segmentDocs = 0;
  private segmentKey = '';
  private segmentKept = false;
  private countsBefore: Int32Array | null = null;

  constructor(
    private readonly spec: DateHistogramSpec | HistogramSpec,
    private readonly subs: readonly Aggregator[],
    singleOwner: boolean,
    scope: ShardScope,
    private readonly source: ResolvedSource & { kind: 'numeric' },
  ) {
    this.name = spec.name;
    this.budget = scope.budget;
    this.keyLimit = scope.budget === null ? Infinity : scope.budget.limit;
    this.ords = new BucketOrds(singleOwner);
    this.offset = spec.offset;
    this.missing = source.missing;
    if (spec.type === 'date_histogram') {
      const zone = timeZone(spec.timeZone);
      this.rounding = createRounding(spec.interval, zone);
      this.interval = 0;
      const fmt = source.format.kind === 'date' ? dateFormatterFor(source.format.pattern) : dateFormatterFor('strict_date_optional_time||epoch_millis');
      const b = spec.extendedBounds;
      const rounding = this.rounding;
      const resolve = (v: string | number | null): number | null =>
        v === null ? null : rounding.round(resolveDateValue(v, fmt, spec.timeZone, scope.ctx.nowMillis));
      this.boundsMin = b === null ? null : resolve(b.min);
      this.boundsMax = b === null ? null : resolve(b.max);
      if (zone.fixed) {
        const off = zone.offsetAt(0);
        const iv = spec.interval;
        const unitMillis = iv.kind === 'fixed' ? iv.millis : FIXED_UNIT_MILLIS[iv.unit];
        if (unitMillis !== undefined) {
          this.step = unitMillis;
          // ISO weeks start on Monday; the epoch was a Thursday
          this.shift = off - spec.offset + (iv.kind === 'calendar' && iv.unit === 'week' ? 3 * DAY : 0);
        }
      }
    } else {
      this.rounding = null;
      this.interval = spec.interval;
      this.step = spec.interval;
      this.shift = -spec.offset;
      this.boundsMin = spec.extendedBounds?.min ?? null;
      this.boundsMax = spec.extendedBounds?.max ?? null;
    }
    this.gridOn = !singleOwner && subs.length === 0 && this.step !== 0;
  }

  /**
   * Every key holds a document of at least one owner, so each is at least one
   * bucket the shard builds: past `search.max_buckets` keys the request fails
   * now, not after every document was counted (a per-second histogram over a
   * month held a shard worker for its whole collection).
   */
  private overBudget(): never {
    this.budget!.consume(this.keys.size);
    throw new Error('unreachable: the budget refuses more keys than its limit');
  }

  /** Key id through the dense index table (arithmetic rounding only). */
  private denseKeyId(v: number): number {
    return this.indexKeyId(Math.floor((v + this.shift) / this.step));
  }

  /** Key id of bucket index idx (arithmetic rounding only). */
  private indexKeyId(idx: number): number {
    const rel = idx - this.denseBase;
    if (rel >= 0 && rel < this.dense.length) {
      const id = this.dense[rel]!;
      if (id >= 0) return id;
    }
    const id = this.keys.add(this.indexKey(idx));
    if (id >= this.keyLimit) this.overBudget();
    this.remember(idx, id);
    return id;
  }

  /** The key of bucket index idx (arithmetic rounding only). */
  private indexKey(idx: number): number {
    return this.rounding === null ? idx * this.step + this.offset : idx * this.step - this.shift;
  }

  private remember(idx: number, id: number): void {
    if (this.dense.length === 0) {
      this.denseBase = idx - 512;
      this.dense = new Int32Array(1024).fill(-1);
    }
    let rel = idx - this.denseBase;
    if (rel < 0 || rel >= this.dense.length) {
      const lo = Math.min(this.denseBase, idx);
      const hi = Math.max(this.denseBase + this.dense.length, idx + 1);
      if (hi - lo > MAX_DENSE) return; // too sparse: the hash alone serves
      const grown = new Int32Array(Math.min(MAX_DENSE, Math.max((hi - lo) * 2, 1024))).fill(-1);
      grown.set(this.dense, this.denseBase - lo);
      this.dense = grown;
      this.denseBase = lo;
      rel = idx - lo;
    }
    this.dense[rel] = id;
  }

  setSegment(seg: SegmentContext): void {
    this.dv = numericValues(seg.view.segment, this.source.field);
    this.segmentDocs = seg.view.segment.maxDoc;
    this.segmentKept = false;
    this.countsBefore = null;
    for (const s of this.subs) s.setSegment(seg);
  }

  /**
   * A segment whose every doc is matched (match_all on a segment without
   * deletes), at the top level, single-valued, arithmetic rounding, no
   * sub-aggregations: its buckets and counts are kept in the field data
   * cache (a few bytes per bucket) the first time, and a later search adds
   * them without reading the column, as Elasticsearch 7 counts a
   * date_histogram's ranges from the points tree of a segment without
   * deletes. A segment with deletes, or a query that does not match it
   * whole, reads its docs.
   */
  collectRange(from: number, to: number): boolean {
    const dv = this.dv;
    if (!this.ords.singleOwner || this.subs.length > 0 || this.step === 0) return false;
    if (dv === null) return this.missing === null; // no doc has the field and none counts as missing
    if (dv.starts !== null) return false;
    if (from === 0) {
      this.segmentKey = `histogram|${dictionaryId(dv)}|${this.step}|${this.shift}|${this.offset}|${this.rounding === null ? 'n' : 'd'}|${this.missing}`;
      const kept = fieldDataCache.get<SegmentBuckets>(this.segmentKey);
      if (kept !== undefined) {
        this.addSegmentBuckets(kept);
        this.segmentKept = true;
        return true;
      }
      this.countsBefore = this.counts.slice(0, this.keys.size);
    }
    if (this.segmentKept) return true;
    const values = dv.values;
    const miss = this.missing ?? NaN;
    for (let d = from; d < to; d++) {
      d = countHistogramRange(d, to, values, miss, this.step, this.shift, this.denseBase, this.dense, this.counts);
      if (d === to) break;
      const v = values[d]!;
      const id = this.denseKeyId(v === v ? v : miss);
      if (id >= this.counts.length) this.counts = growI32(this.counts, id + 1);
      this.counts[id]!++;
    }
    this.ords.add(0, this.keys.size - 1);
    if (to === this.segmentDocs && this.countsBefore !== null) this.keepSegmentBuckets(this.countsBefore);
    return true;
  }

  /** The segment just counted whole: what it added to each key, kept under segmentKey. */
  private keepSegmentBuckets(before: Int32Array): void {
    this.countsBefore = null;
    const n = this.keys.size;
    let filled = 0;
    for (let id = 0; id < n; id++) if ((this.counts[id] ?? 0) > (before[id] ?? 0)) filled++;
    if (filled > MAX_KEPT_SEGMENT_BUCKETS) return;
    const keys = new Float64Array(filled);
    const counts = new Int32Array(filled);
    let k = 0;
    for (let id = 0; id < n; id++) {
      const c = (this.counts[id] ?? 0) - (before[id] ?? 0);
      if (c <= 0) continue;
      keys[k] = this.keys.key(id);
      counts[k++] = c;
    }
    fieldDataCache.set(this.segmentKey, { keys, counts } satisfies SegmentBuckets, 12 * filled + 64);
  }

  /** Adds a whole segment's kept buckets. */
  private addSegmentBuckets(kept: SegmentBuckets): void {
    for (let i = 0; i < kept.keys.length; i++) {
      const id = this.keys.add(kept.keys[i]!);
      if (id >= this.keyLimit) this.overBudget();
      if (id >= this.counts.length) this.counts = growI32(this.counts, id + 1);
      this.counts[id]! += kept.counts[i]!;
    }
    if (this.keys.size > 0) this.ords.add(0, this.keys.size - 1);
  }

  /** Key id of the bucket holding value v. */
  private keyIdOf(v: number): number {
    if (this.step !== 0) return this.denseKeyId(v);
    if (v >= this.cacheFrom && v < this.cacheTo) return this.cacheId;
    let key: number;
    let next: number;
    if (this.rounding !== null) {
      const r = this.rounding.round(v - this.offset);
      key = r + this.offset;
      next = this.rounding.nextRoundingValue(r) + this.offset;
    } else {
      key = Math.floor((v - this.offset) / this.interval) * this.interval + this.offset;
      next = key + this.interval;
      if (!(v >= key && v < next)) next = key; // float edge: no caching
    }
    const id = this.keys.add(key);
    if (id >= this.keyLimit) this.overBudget();
    this.cacheFrom = key;
    this.cacheTo = next;
    this.cacheId = id;
    return id;
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    const dv = this.dv;
    const missing = this.missing;
    const hasSubs = this.subs.length > 0;
    const ords = this.ords;
    const buf = this.buf;
    if (hasSubs) buf.ensure(n);
    if (dv !== null && dv.starts === null && ords.singleOwner && !hasSubs) {
      const values = dv.values;
      let counts = this.counts;
      const step = this.step;
      const shift = this.shift;
      if (step !== 0) {
        // one division and a table read per doc; a new key is numbered here
        const miss = missing ?? NaN;
        for (let i = 0; i < n; i++) {
          i = countHistogramRun(docs, i, n, values, miss, step, shift, this.denseBase, this.dense, this.counts);
          if (i === n) break;
          const v = values[docs[i]!]!;
          const id = this.denseKeyId(v === v ? v : miss);
          if (id >= this.counts.length) this.counts = growI32(this.counts, id + 1);
          this.counts[id]!++;
        }
      } else {
        for (let i = 0; i < n; i++) {
          let v = values[docs[i]!]!;
          if (v !== v) {
            if (missing === null) continue;
            v = missing;
          }
          const id = this.keyIdOf(v);
          if (id >= counts.length) counts = this.counts = growI32(counts, id + 1);
          counts[id]!++;
        }
      }
      ords.add(0, this.keys.size - 1);
      return;
    }
    if (this.gridOn) {
      this.collectGrid(docs, owners, n);
      return;
    }
    for (let i = 0; i < n; i++) {
      const doc = docs[i]!;
      const owner = owners[i]!;
      if (dv === null || dv.starts === null) {
        let v = dv === null ? NaN : dv.values[doc]!;
        if (v !== v) {
          if (missing === null) continue;
          v = missing;
        }
        this.collectKey(doc, owner, this.keyIdOf(v), hasSubs);
      } else {
        const from = dv.starts[doc]!;
        const to = dv.starts[doc + 1]!;
        if (from === to) {
          if (missing !== null) this.collectKey(doc, owner, this.keyIdOf(missing), hasSubs);
          continue;
        }
        if (hasSubs) buf.ensure(to - from);
        let prev = -1;
        for (let j = from; j < to; j++) {
          const id = this.keyIdOf(dv.values[j]!);
          if (id === prev) continue;
          prev = id;
          this.collectKey(doc, owner, id, hasSubs);
        }
      }
    }
    flushToChildren(this.subs, buf);
  }

  /** Grid collection (no sub-aggregations, arithmetic rounding). */
  private collectGrid(docs: Int32Array, owners: Int32Array, n: number): void {
    const dv = this.dv;
    const missing = this.missing;
    const step = this.step;
    const shift = this.shift;
    if (dv !== null && dv.starts === null) {
      const values = dv.values;
      const miss = missing ?? NaN;
      for (let i = 0; i < n; i++) {
        if (this.gridOn) {
          i = countGridRun(docs, owners, i, n, values, miss, step, shift, this.grid, this.gridBase, this.gridWidth, this.gridRows);
          if (i === n) break;
        }
        const v = values[docs[i]!]!;
        if (v !== v && missing === null) continue;
        this.gridAdd(owners[i]!, Math.floor(((v === v ? v : miss) + shift) / step));
      }
      return;
    }
    for (let i = 0; i < n; i++) {
      const doc = docs[i]!;
      const owner = owners[i]!;
      if (dv === null || dv.starts![doc] === dv.starts![doc + 1]) {
        if (missing !== null) this.gridAdd(owner, Math.floor((missing + shift) / step));
        continue;
      }
      // values ascend within a doc: a bucket repeats only next to itself
      let prev = NaN;
      for (let j = dv.starts![doc]!; j < dv.starts![doc + 1]!; j++) {
        const idx = Math.floor((dv.values[j]! + shift) / step);
        if (idx === prev) continue;
        prev = idx;
        this.gridAdd(owner, idx);
      }
    }
  }

  /** Counts one doc of owner in bucket index idx: in the grid while it fits, else through the ords. */
  private gridAdd(owner: number, idx: number): void {
    if (this.gridOn) {
      if (this.growGrid(owner, idx)) {
        this.grid[owner * this.gridWidth + idx - this.gridBase]!++;
        return;
      }
      this.gridToOrds();
    }
    const b = this.ords.add(owner, this.indexKeyId(idx));
    if (b >= this.counts.length) this.counts = growI32(this.counts, b + 1);
    this.counts[b]!++;
  }

  /** Makes the grid cover (owner, idx); false when it would be too large. */
  private growGrid(owner: number, idx: number): boolean {
    let rows = this.gridRows;
    let base = this.gridBase;
    let width = this.gridWidth;
    if (width === 0) {
      base = idx - 8;
      width = 64;
      rows = 16;
    }
    while (rows <= owner) rows *= 2;
    if (idx < base || idx >= base + width) {
      const lo = Math.min(base, idx);
      const hi = Math.max(base + width, idx + 1);
      width = Math.max(width * 2, hi - lo);
      // grow towards the side that needed it
      base = idx < base ? hi - width : lo;
    }
    if (rows * width > MAX_GRID_CELLS) return false;
    if (rows === this.gridRows && width === this.gridWidth && base === this.gridBase) return true;
    const grid = new Int32Array(rows * width);
    for (let r = 0; r < this.gridRows; r++) {
      grid.set(this.grid.subarray(r * this.gridWidth, (r + 1) * this.gridWidth), r * width + this.gridBase - base);
    }
    this.grid = grid;
    this.gridRows = rows;
    this.gridWidth = width;
    this.gridBase = base;
    return true;
  }

  /** Moves the grid's counts into the ords and turns the grid off. */
  private gridToOrds(): void {
    const grid = this.grid;
    const width = this.gridWidth;
    for (let r = 0; r < this.gridRows; r++) {
      for (let c = 0; c < width; c++) {
        const n = grid[r * width + c]!;
        if (n === 0) continue;
        const b = this.ords.add(r, this.indexKeyId(c + this.gridBase));
        if (b >= this.counts.length) this.counts = growI32(this.counts, b + 1);
        this.counts[b]! += n;
      }
    }
    this.gridOn = false;
    this.grid = new Int32Array(0);
    this.gridRows = 0;
    this.gridWidth = 0;
  }

  private collectKey(doc: number, owner: number, keyId: number, hasSubs: boolean): void {
    const b = this.ords.add(owner, keyId);
    if (b >= this.counts.length) this.counts = growI32(this.counts, b + 1);
    this.counts[b]!++;
    if (hasSubs) {
      const buf = this.buf;
      buf.docs[buf.n] = doc;
      buf.owners[buf.n++] = b;
    }
  }

  build(owner: number): AggState {
    let keys: Float64Array;
    let docCounts: Int32Array;
    if (this.gridOn) {
      // the grid row of the owner ascends by key already
      const width = this.gridWidth;
      let n = 0;
      const at = owner * width;
      if (owner < this.gridRows) for (let c = 0; c < width; c++) if (this.grid[at + c]! > 0) n++;
      this.budget?.consume(n);
      keys = new Float64Array(n);
      docCounts = new Int32Array(n);
      n = 0;
      if (owner < this.gridRows) {
        for (let c = 0; c < width; c++) {
          const count = this.grid[at + c]!;
          if (count === 0) continue;
          keys[n] = this.indexKey(c + this.gridBase);
          docCounts[n++] = count;
        }
      }
    } else {
      const buckets = owner === EMPTY_OWNER ? new Int32Array(0) : this.ords.bucketsOf(owner);
      const withDocs: number[] = [];
      for (let i = 0; i < buckets.length; i++) {
        const b = buckets[i]!;
        if (b < this.counts.length && this.counts[b]! > 0) withDocs.push(b);
      }
      this.budget?.consume(withDocs.length);
      withDocs.sort((x, y) => this.keys.key(this.ords.keyIdOf(x)) - this.keys.key(this.ords.keyIdOf(y)));
      keys = new Float64Array(withDocs.length);
      docCounts = new Int32Array(withDocs.length);
      for (let i = 0; i < withDocs.length; i++) {
        keys[i] = this.keys.key(this.ords.keyIdOf(withDocs[i]!));
        docCounts[i] = this.counts[withDocs[i]!]!;
      }
      if (this.subs.length > 0) {
        const subs = withDocs.map((b) => this.subs.map((s) => s.build(b)));
        return this.state(keys, docCounts, subs);
      }
    }
    return this.state(keys, docCounts, null);
  }

  private state(keys: Float64Array, docCounts: Int32Array, subs: (readonly AggState[])[] | null): HistogramState {
    return {
      kind: 'histogram',
      format: this.spec.type === 'date_histogram' ? this.source.format : RAW_FORMAT,
      keys,
      docCounts,
      subs,
      emptySubs: this.subs.map((s) => s.build(EMPTY_OWNER)),
      boundsMin: this.boundsMin,
      boundsMax: this.boundsMax,
    };
  }

  sortValue(owner: number, path: readonly AggPathElement[], at: number, metric: string | null): number {
    void owner;
    void path;
    void at;
    void metric;
    return NaN;
  }
}

/** The state of a histogram over a field this shard does not map. */
export function emptyHistogramState(subs: readonly AggState[]): HistogramState {
  return { kind: 'histogram', format: RAW_FORMAT, keys: new Float64Array(0), docCounts: new Int32Array(0), subs: null, emptySubs: subs, boundsMin: null, boundsMax: null };
}

