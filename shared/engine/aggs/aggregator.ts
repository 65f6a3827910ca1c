/**
 * The shard-side collector contract. Collection is batched: a parent hands
 * its children arrays of (doc, owning bucket) pairs for one segment, children
 * count into typed arrays indexed by bucket id. No object per document.
 *
 * Bucket ids are dense per aggregator and shard. A single-bucket aggregation
 * (filter, missing, global) passes its owner's id through to its children; a
 * multi-bucket one numbers its own buckets (BucketOrds).
 */
import type { SegmentView } from '../segment/types.ts';
import type { AggContext } from './types.ts';
import type { AggPathElement } from './spec.ts';
import type { AggState } from './state.ts';
import type { BucketBudget } from './bucket-budget.ts';

export interface SegmentContext {
  readonly view: SegmentView;
  /** Position of the view in the request's matches (stable doc tie-breaks across segments). */
  readonly viewIndex: number;
  readonly scores: Float32Array | null;
  readonly agg: AggContext;
}

export interface Aggregator {
  readonly name: string;
  setSegment(seg: SegmentContext): void;
  /** Collects docs[i] into the bucket owners[i] of the parent, for i < n. */
  collect(docs: Int32Array, owners: Int32Array, n: number): void;
  /**
   * Optional, at the top level only: collects every doc of [from, to) into
   * bucket 0, as collect() would with those docs listed (a query matching a
   * whole segment, such as match_all, reads the column without a doc list),
   * and returns true; or returns false having collected nothing, and then
   * gets the docs of this segment through collect().
   */
  collectRange?(from: number, to: number): boolean;
  /** The state of one owning bucket, after every segment was collected. */
  build(owner: number): AggState;
  /**
   * build() as a generator of steps, where a large build has them (terms:
   * a step per bucket whose sub-aggregations it builds): a shard worker
   * answers searches between the steps of a top-level build.
   */
  buildSteps?(owner: number): Generator<void, AggState>;
  /**
   * The value a parent orders its buckets by (`"order": {"this>sub.metric": "asc"}`):
   * `path[at]` names this aggregation, `metric` is the part after the last `.`.
   */
  sortValue(owner: number, path: readonly AggPathElement[], at: number, metric: string | null): number;
}

/** Growable (doc, owner) pairs a bucket aggregation hands to its children. */
export class DocOwnerBuffer {
  docs = new Int32Array(1024);
  owners = new Int32Array(1024);
  n = 0;

  ensure(extra: number): void {
    const need = this.n + extra;
    if (need <= this.docs.length) return;
    let cap = this.docs.length * 2;
    while (cap < need) cap *= 2;
    const d = new Int32Array(cap);
    d.set(this.docs.subarray(0, this.n));
    this.docs = d;
    const o = new Int32Array(cap);
    o.set(this.owners.subarray(0, this.n));
    this.owners = o;
  }
}

/**
 * Counts `doc` in bucket `b` (growing `counts` as needed) and, when there are
 * sub-aggregations, queues the pair for them; returns the counts array to keep.
 */
export function countInBucket(counts: Int32Array<ArrayBuffer>, buf: DocOwnerBuffer, doc: number, b: number, hasSubs: boolean): Int32Array<ArrayBuffer> {
  if (b >= counts.length) counts = growI32(counts, b + 1);
  counts[b]!++;
  if (hasSubs) {
    buf.docs[buf.n] = doc;
    buf.owners[buf.n++] = b;
  }
  return counts;
}

/** Hands buffered pairs to every child and empties the buffer. */
export function flushToChildren(children: readonly Aggregator[], buf: DocOwnerBuffer): void {
  if (buf.n === 0) return;
  for (const c of children) c.collect(buf.docs, buf.owners, buf.n);
  buf.n = 0;
}

/** Growable Float64Array indexed by bucket id. */
export function growF64(a: Float64Array<ArrayBuffer>, minLength: number, fill = 0): Float64Array<ArrayBuffer> {
  if (a.length >= minLength) return a;
  let cap = Math.max(16, a.length * 2);
  while (cap < minLength) cap *= 2;
  const out = new Float64Array(cap);
  out.set(a);
  if (fill !== 0) out.fill(fill, a.length);
  return out;
}

export function growI32(a: Int32Array<ArrayBuffer>, minLength: number): Int32Array<ArrayBuffer> {
  if (a.length >= minLength) return a;
  let cap = Math.max(16, a.length * 2);
  while (cap < minLength) cap *= 2;
  const out = new Int32Array(cap);
  out.set(a);
  return out;
}

/** What every aggregator of one shard search shares. */
export interface ShardScope {
  /** Every view of the search, in matches order. */
  readonly views: readonly SegmentView[];
  readonly ctx: AggContext;
  /** Counts the buckets the aggregators build (search.max_buckets); null without a limit. */
  readonly budget: BucketBudget | null;
}

/** The value a bucket aggregation's buckets are ordered by, from a sub-aggregation path. */
export function subAggSortValue(
  subs: readonly Aggregator[],
  bucket: number,
  path: readonly AggPathElement[],
  at: number,
  metric: string | null,
): number {
  const el = path[at];
  if (el === undefined) return NaN;
  const child = subs.find((s) => s.name === el.name);
  if (child === undefined) return NaN;
  return child.sortValue(bucket, path, at, metric);
}
