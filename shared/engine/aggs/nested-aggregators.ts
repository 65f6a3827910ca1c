/**
 * `nested` and `reverse_nested` (Elasticsearch's NestedAggregator and
 * ReverseNestedAggregator) over a segment's blocks (nested-blocks.ts): a
 * `nested` aggregation hands its children, for each doc it collects, the
 * nested docs of its path in that doc's block; `reverse_nested` hands its
 * children the doc each nested doc belongs to (of its path, or the root),
 * once per bucket. Each is one bucket per owner, counting the docs it hands on.
 */
import { aggregationExecution } from '../../errors/es-errors.ts';
import type { MappingLookup } from '../mapping/types.ts';
import { nestedDocs } from '../segment/nested-blocks.ts';
import { nestedPathDocs, parentLevelDocs, prevSetBit } from '../search/nested-join.ts';
import { nextSetBit } from '../segment/bitset.ts';
import type { Aggregator, SegmentContext } from './aggregator.ts';
import { DocOwnerBuffer, flushToChildren, growI32, subAggSortValue } from './aggregator.ts';
import type { AggPathElement, NestedSpec, ReverseNestedSpec } from './spec.ts';
import type { AggState } from './state.ts';

abstract class BlockJoinAggregator implements Aggregator {
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
  abstract collect(docs: Int32Array, owners: Int32Array, n: number): void;

  /** Counts `doc` in bucket `owner` and hands it to the children. */
  protected emit(doc: number, owner: number): void {
    if (owner >= this.counts.length) this.counts = growI32(this.counts, owner + 1);
    this.counts[owner]!++;
    if (this.subs.length === 0) return;
    const buf = this.buf;
    buf.ensure(1);
    buf.docs[buf.n] = doc;
    buf.owners[buf.n++] = owner;
    if (buf.n >= 4096) flushToChildren(this.subs, buf);
  }

  protected flush(): void {
    flushToChildren(this.subs, this.buf);
  }

  build(owner: number): AggState {
    const docCount = owner >= 0 && owner < this.counts.length ? this.counts[owner]! : 0;
    return { kind: 'single', docCount, subs: this.subs.map((s) => s.build(owner)) };
  }

  sortValue(owner: number, path: readonly AggPathElement[], at: number, metric: string | null): number {
    if (at === path.length - 1) {
      if (metric === null || metric === '_count' || metric === 'doc_count') return owner < this.counts.length ? this.counts[owner]! : 0;
      return NaN;
    }
    return subAggSortValue(this.subs, owner, path, at + 1, metric);
  }
}

export class NestedAggregator extends BlockJoinAggregator {
  /** null: the path is not mapped on this shard (every bucket counts 0, as Elasticsearch's unmapped nested). */
  private readonly path: string | null;
  private children: Uint32Array | null = null;
  private parents: Uint32Array | null = null;

  constructor(
    private readonly spec: NestedSpec,
    subs: readonly Aggregator[],
    mapping: MappingLookup,
  ) {
    super(spec.name, subs);
    const nested = mapping.nestedObject?.(spec.path);
    if (nested === undefined && mapping.isObject?.(spec.path) === true) throw aggregationExecution(`[nested] nested path [${spec.path}] is not nested`);
    this.path = nested === undefined ? null : spec.path;
  }

  setSegment(seg: SegmentContext): void {
    const segment = seg.view.segment;
    const has = this.path !== null && nestedDocs(segment) !== null;
    this.children = has ? nestedPathDocs(segment, this.path!) : null;
    this.parents = has ? parentLevelDocs(segment, this.spec.parentPath) : null;
    for (const s of this.subs) s.setSegment(seg);
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    const children = this.children;
    const parents = this.parents;
    if (children === null || parents === null) return;
    for (let i = 0; i < n; i++) {
      const parent = docs[i]!;
      const owner = owners[i]!;
      // The parent's block: the docs after the previous doc of its level.
      for (let c = nextSetBit(children, prevSetBit(parents, parent) + 1); c >= 0 && c < parent; c = nextSetBit(children, c + 1)) this.emit(c, owner);
    }
    this.flush();
  }
}

export class ReverseNestedAggregator extends BlockJoinAggregator {
  private readonly unmapped: boolean;
  private parents: Uint32Array | null = null;
  /** Per bucket, the last parent handed on in this segment (a parent counts once per bucket). */
  private lastParent = new Int32Array(16).fill(-1);

  constructor(
    private readonly spec: ReverseNestedSpec,
    subs: readonly Aggregator[],
    mapping: MappingLookup,
  ) {
    super(spec.name, subs);
    const path = spec.path;
    const nested = path === null ? null : mapping.nestedObject?.(path);
    if (path !== null && nested === undefined && mapping.isObject?.(path) === true) throw aggregationExecution(`[reverse_nested] nested path [${path}] is not nested`);
    this.unmapped = path !== null && nested === undefined;
  }

  setSegment(seg: SegmentContext): void {
    const segment = seg.view.segment;
    this.parents = this.unmapped || nestedDocs(segment) === null ? null : parentLevelDocs(segment, this.spec.path);
    this.lastParent.fill(-1);
    for (const s of this.subs) s.setSegment(seg);
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    const parents = this.parents;
    if (parents === null) return;
    for (let i = 0; i < n; i++) {
      const parent = nextSetBit(parents, docs[i]! + 1);
      if (parent < 0) continue;
      const owner = owners[i]!;
      if (owner >= this.lastParent.length) {
        const grown = new Int32Array(Math.max(owner + 1, this.lastParent.length * 2)).fill(-1);
        grown.set(this.lastParent);
        this.lastParent = grown;
      }
      if (this.lastParent[owner] === parent) continue;
      this.lastParent[owner] = parent;
      this.emit(parent, owner);
    }
    this.flush();
  }
}
