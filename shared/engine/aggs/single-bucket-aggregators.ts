/**
 * Aggregations that narrow their owner's docs without making buckets of their
 * own: `filter`, `missing`, `global` (one bucket, the owner's id passed
 * through), and `filters` (one bucket per named or anonymous filter, plus
 * the optional other bucket; bucket id = owner × filters + filter).
 */
import type { NumericDocValues, SortedDocValues } from '../segment/types.ts';
import type { Aggregator, SegmentContext } from './aggregator.ts';
import { countInBucket, DocOwnerBuffer, flushToChildren, growI32, subAggSortValue } from './aggregator.ts';
import type { AggPathElement, FilterSpec, FiltersSpec, GlobalSpec, MissingSpec } from './spec.ts';
import type { AggState, BucketState } from './state.ts';
import { EMPTY_OWNER } from './histogram-aggregator.ts';
import type { ResolvedSource } from './value-source.ts';
import { numericValues, sortedValues } from './value-source.ts';

abstract class SingleBucketAggregator implements Aggregator {
  readonly name: string;
  protected counts = new Int32Array(16);
  protected readonly buf = new DocOwnerBuffer();

  constructor(
    name: string,
    protected readonly subs: readonly Aggregator[],
  ) {
    this.name = name;
  }

  abstract setSegment(seg: SegmentContext): void;
  /** Keeps doc? */
  protected abstract accepts(doc: number): boolean;

  protected setSubsSegment(seg: SegmentContext): void {
    for (const s of this.subs) s.setSegment(seg);
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    const buf = this.buf;
    const hasSubs = this.subs.length > 0;
    if (hasSubs) buf.ensure(n);
    for (let i = 0; i < n; i++) {
      const doc = docs[i]!;
      if (!this.accepts(doc)) continue;
      const owner = owners[i]!;
      if (owner >= this.counts.length) this.counts = growI32(this.counts, owner + 1);
      this.counts[owner]!++;
      if (hasSubs) {
        buf.docs[buf.n] = doc;
        buf.owners[buf.n++] = owner;
      }
    }
    flushToChildren(this.subs, buf);
  }

  protected docCount(owner: number): number {
    return owner < this.counts.length ? this.counts[owner]! : 0;
  }

  build(owner: number): AggState {
    return { kind: 'single', docCount: this.docCount(owner), subs: this.subs.map((s) => s.build(owner)) };
  }

  sortValue(owner: number, path: readonly AggPathElement[], at: number, metric: string | null): number {
    if (at === path.length - 1) return metric === null || metric === '_count' || metric === 'doc_count' ? this.docCount(owner) : NaN;
    return subAggSortValue(this.subs, owner, path, at + 1, metric);
  }
}

export class FilterAggregator extends SingleBucketAggregator {
  private bits: Uint32Array | null = null;

  constructor(
    private readonly spec: FilterSpec,
    subs: readonly Aggregator[],
  ) {
    super(spec.name, subs);
  }

  setSegment(seg: SegmentContext): void {
    this.bits = seg.agg.filterBits(this.spec.filter, seg.view);
    this.setSubsSegment(seg);
  }

  protected accepts(doc: number): boolean {
    return (this.bits![doc >>> 5]! & (1 << (doc & 31))) !== 0;
  }
}

export class MissingAggregator extends SingleBucketAggregator {
  private numeric: NumericDocValues | null = null;
  private sorted: SortedDocValues | null = null;

  constructor(
    spec: MissingSpec,
    subs: readonly Aggregator[],
    private readonly source: ResolvedSource,
  ) {
    super(spec.name, subs);
  }

  setSegment(seg: SegmentContext): void {
    const src = this.source;
    const field = src.kind === 'unmapped' ? null : src.field;
    this.numeric = src.kind === 'numeric' ? numericValues(seg.view.segment, field) : null;
    this.sorted = src.kind === 'bytes' ? sortedValues(seg.view.segment, field) : null;
    this.setSubsSegment(seg);
  }

  protected accepts(doc: number): boolean {
    const src = this.source;
    if (src.kind !== 'unmapped' && src.missing !== null) return false;
    const num = this.numeric;
    if (num !== null) return num.starts === null ? Number.isNaN(num.values[doc]!) : num.starts[doc] === num.starts[doc + 1];
    const s = this.sorted;
    if (s !== null) return s.starts === null ? s.ords[doc]! < 0 : s.starts[doc] === s.starts[doc + 1];
    return true;
  }
}

/** Collected over every live doc of the shard (collect.ts feeds it), whatever the query. */
export class GlobalAggregator extends SingleBucketAggregator {
  constructor(spec: GlobalSpec, subs: readonly Aggregator[]) {
    super(spec.name, subs);
  }

  setSegment(seg: SegmentContext): void {
    this.setSubsSegment(seg);
  }

  protected accepts(): boolean {
    return true;
  }
}

export class FiltersAggregator implements Aggregator {
  readonly name: string;
  private counts = new Int32Array(16);
  private readonly buf = new DocOwnerBuffer();
  private bits: Uint32Array[] = [];
  private readonly width: number;

  constructor(
    private readonly spec: FiltersSpec,
    private readonly subs: readonly Aggregator[],
  ) {
    this.name = spec.name;
    this.width = spec.filters.length + (spec.otherBucket ? 1 : 0);
  }

  setSegment(seg: SegmentContext): void {
    this.bits = this.spec.filters.map((f) => seg.agg.filterBits(f.query, seg.view));
    for (const s of this.subs) s.setSegment(seg);
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    const buf = this.buf;
    const hasSubs = this.subs.length > 0;
    const k = this.spec.filters.length;
    for (let i = 0; i < n; i++) {
      const doc = docs[i]!;
      const base = owners[i]! * this.width;
      if (hasSubs) buf.ensure(this.width);
      let matched = false;
      for (let f = 0; f < k; f++) {
        if ((this.bits[f]![doc >>> 5]! & (1 << (doc & 31))) === 0) continue;
        matched = true;
        this.count(doc, base + f, hasSubs);
      }
      if (!matched && this.spec.otherBucket) this.count(doc, base + k, hasSubs);
    }
    flushToChildren(this.subs, buf);
  }

  private count(doc: number, b: number, hasSubs: boolean): void {
    this.counts = countInBucket(this.counts, this.buf, doc, b, hasSubs);
  }

  build(owner: number): AggState {
    const keys = this.spec.filters.map((f) => f.key);
    if (this.spec.otherBucket) keys.push(this.spec.otherBucketKey);
    const buckets: BucketState[] = keys.map((key, i) => {
      const b = owner === EMPTY_OWNER ? -1 : owner * this.width + i;
      const live = b >= 0 && b < this.counts.length;
      return { key, docCount: live ? this.counts[b]! : 0, subs: this.subs.map((s) => s.build(live ? b : EMPTY_OWNER)) };
    });
    return { kind: 'filters', buckets };
  }

  sortValue(owner: number, path: readonly AggPathElement[], at: number, metric: string | null): number {
    const el = path[at];
    const idx = el === undefined || el.key === null ? -1 : this.spec.filters.findIndex((f) => f.key === el.key);
    if (idx < 0) return NaN;
    const b = owner * this.width + idx;
    if (at === path.length - 1) return metric === null || metric === '_count' ? (b < this.counts.length ? this.counts[b]! : 0) : NaN;
    return subAggSortValue(this.subs, b, path, at + 1, metric);
  }
}
