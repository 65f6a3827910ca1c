/**
 * The searchable side of one shard copy: an indexing buffer, the immutable
 * segments made from it at each refresh, and their live-docs bitsets.
 *
 * Visibility follows Lucene: an index or delete changes what searches see only
 * at the next refresh. A snapshot never changes once taken: a refresh replaces
 * a segment's live-docs bitset with an edited copy, a merge builds a new
 * segment, and neither touches the arrays an older snapshot holds.
 *
 * There is no `_id` → doc map over the whole copy (a string and an entry per
 * document would keep the collector busy on millions of docs). As in Lucene,
 * the live copy of an id is found by looking the id up in the buffer and then
 * in each segment's `_id`s, newest first; the caller says when an id cannot
 * have a live copy (its doc store knows), so new documents skip the search.
 */
import type { AnalyzerLookup } from '../analysis/types.ts';
import { clearBit, hasBit, newFullBitset } from './bitset.ts';
import { findMerges } from './merge-policy.ts';
import { SegmentBuilder, type BufferedDoc } from './segment-builder.ts';
import { mergeSegments } from './segment-merger.ts';
import { estimateSegmentBytes } from './segment-size.ts';
import { TermHash } from './term-hash.ts';
import type { SearcherSnapshot, Segment, SegmentView } from './types.ts';

/** One segment of the current state, as a refresh left it. Replaced, never mutated. */
interface LiveSegment {
  readonly segment: Segment;
  /** null: every doc live. */
  readonly liveDocs: Uint32Array | null;
  readonly numDocs: number;
  readonly sizeInBytes: number;
}

/** Deletes of a segment's docs since the last refresh: its live docs as they will be. */
interface PendingDeletes {
  readonly liveDocs: Uint32Array;
  count: number;
}

export class ShardIndex {
  private segments: LiveSegment[] = [];
  /** Per segment (by identity), deletes waiting for the next refresh. */
  private pendingDeletes = new Map<LiveSegment, PendingDeletes>();
  private readonly buffer: SegmentBuilder;
  /**
   * `_id` → slot (ids hashed in place: a Map would keep a string per buffered
   * doc alive until the refresh, long enough to be promoted and collected by
   * a full GC), and per slot the local doc of the buffer's live copy, -1 once
   * deleted.
   */
  private readonly bufferIds = new TermHash();
  private bufferDocs = new Int32Array(1024);
  /** Buffered docs already superseded or deleted: born deleted in the next segment. */
  private bufferDeletes: number[] = [];
  private pending = 0;
  private nextSegmentId = 0;
  private snapshot: SearcherSnapshot | null = null;

  constructor(private readonly analyzers: AnalyzerLookup) {
    this.buffer = new SegmentBuilder(analyzers);
  }

  /** Live docs visible to searches. */
  get docCount(): number {
    let n = 0;
    for (const s of this.segments) n += s.numDocs;
    return n;
  }

  /** Deleted docs still held by segments (reclaimed by merges). */
  get deletedCount(): number {
    let n = 0;
    for (const s of this.segments) n += s.segment.maxDoc - s.numDocs;
    return n;
  }

  get segmentCount(): number {
    return this.segments.length;
  }

  /** Index and delete operations applied since the last refresh. */
  get pendingOps(): number {
    return this.pending;
  }

  /** Estimated memory held by the segments. */
  get sizeInBytes(): number {
    let n = 0;
    for (const s of this.segments) n += s.sizeInBytes;
    return n;
  }

  /**
   * Buffers a document; the copy it replaces (same `_id`) is deleted at the
   * next refresh. `mayReplace` false says no live copy of the id exists
   * outside the buffer (the doc store had none), which spares the search.
   */
  index(doc: BufferedDoc, mayReplace = true): void {
    // add() first: a document it refuses must leave the previous copy live.
    const local = this.buffer.add(doc);
    if (!this.deleteBuffered(doc.id) && mayReplace) this.deleteInSegments(doc.id);
    const slot = this.bufferIds.add(doc.id);
    if (slot >= this.bufferDocs.length) {
      const grown = new Int32Array(2 * this.bufferDocs.length);
      grown.set(this.bufferDocs);
      this.bufferDocs = grown;
    }
    this.bufferDocs[slot] = local;
    this.pending++;
  }

  /** Deletes the live copy of `_id` at the next refresh; nothing when there is none. */
  delete(id: string): void {
    if (this.deleteBuffered(id) || this.deleteInSegments(id)) this.pending++;
  }

  /** Makes buffered operations visible: a new segment for the buffer, new live-docs for deletes. */
  refresh(): boolean {
    if (this.pending === 0) return false;
    for (const [live, deletes] of this.pendingDeletes) this.applyDeletes(live, deletes);
    this.pendingDeletes = new Map();
    if (this.buffer.size > 0) this.flushBuffer();
    this.pending = 0;
    this.snapshot = null;
    return true;
  }

  /** The current point-in-time view; the same object until a refresh or merge changes it. */
  acquireSnapshot(): SearcherSnapshot {
    if (this.snapshot !== null) return this.snapshot;
    const views: SegmentView[] = [];
    let docBase = 0;
    let numDocs = 0;
    for (const s of this.segments) {
      views.push({ segment: s.segment, liveDocs: s.liveDocs, numDocs: s.numDocs, docBase });
      docBase += s.segment.maxDoc;
      numDocs += s.numDocs;
    }
    this.snapshot = { views, maxDoc: docBase, numDocs };
    return this.snapshot;
  }

  /**
   * Runs the merges the policy asks for (see merge-policy.ts), synchronously.
   * Searches see the same docs before and after; held snapshots keep the old segments.
   */
  maybeMerge(): boolean {
    const merges = findMerges(this.segments.map((s) => ({ maxDoc: s.segment.maxDoc, numDocs: s.numDocs })));
    if (merges.length === 0) return false;
    const replacement = new Map<number, LiveSegment | null>();
    for (const group of merges) {
      const merged = this.merge(group.map((i) => this.segments[i]));
      group.forEach((i, k) => replacement.set(i, k === 0 ? merged : null));
    }
    const next: LiveSegment[] = [];
    this.segments.forEach((s, i) => {
      const replaced = replacement.get(i);
      if (replaced === undefined) next.push(s);
      else if (replaced !== null) next.push(replaced);
    });
    this.segments = next;
    this.snapshot = null;
    return true;
  }

  /** Deletes the buffer's live copy of `id`; false when the buffer has none. */
  private deleteBuffered(id: string): boolean {
    const slot = this.bufferIds.find(id);
    const local = slot < 0 ? -1 : this.bufferDocs[slot];
    if (local < 0) return false;
    this.bufferDocs[slot] = -1;
    this.bufferDeletes.push(local);
    return true;
  }

  /** Marks the live copy of `id` in a segment deleted at the next refresh; false when no segment has one. */
  private deleteInSegments(id: string): boolean {
    for (let s = this.segments.length - 1; s >= 0; s--) {
      const live = this.segments[s];
      const pending = this.pendingDeletes.get(live);
      const liveDocs = pending?.liveDocs ?? live.liveDocs;
      // Ids repeat within a segment only as copies born deleted; at most one copy of an id is live.
      const doc = live.segment.ids.find(id, (d) => liveDocs === null || hasBit(liveDocs, d));
      if (doc < 0) continue;
      if (pending === undefined) {
        const bits = live.liveDocs === null ? newFullBitset(live.segment.maxDoc) : live.liveDocs.slice();
        clearBit(bits, doc);
        this.pendingDeletes.set(live, { liveDocs: bits, count: 1 });
      } else {
        clearBit(pending.liveDocs, doc);
        pending.count++;
      }
      return true;
    }
    return false;
  }

  private flushBuffer(): void {
    const segment = this.buffer.build(this.nextSegmentId++);
    this.buffer.reset();
    this.bufferIds.clear();
    let liveDocs: Uint32Array | null = null;
    if (this.bufferDeletes.length > 0) {
      liveDocs = newFullBitset(segment.maxDoc);
      for (const doc of this.bufferDeletes) clearBit(liveDocs, doc);
    }
    // A buffered doc is deleted at most once: its slot in bufferDocs is -1 after.
    const numDocs = segment.maxDoc - this.bufferDeletes.length;
    this.bufferDeletes = [];
    if (numDocs === 0) return;
    this.segments.push({ segment, liveDocs, numDocs, sizeInBytes: estimateSegmentBytes(segment) });
  }

  /** The pending deletes become the segment's live docs (a new bitset: snapshots keep the old one). */
  private applyDeletes(current: LiveSegment, deletes: PendingDeletes): void {
    const at = this.segments.indexOf(current);
    if (at < 0) throw new Error(`pending deletes for segment ${current.segment.id}, which is gone`);
    const numDocs = current.numDocs - deletes.count;
    if (numDocs === 0) this.segments.splice(at, 1);
    else this.segments[at] = { ...current, liveDocs: deletes.liveDocs, numDocs };
  }

  /** Merges `group` into one new segment and carries the group's pending deletes onto it. */
  private merge(group: readonly LiveSegment[]): LiveSegment {
    const { segment, docMaps } = mergeSegments(group, this.nextSegmentId++);
    let pendingLive: Uint32Array | null = null;
    let pendingCount = 0;
    group.forEach((source, k) => {
      const pending = this.pendingDeletes.get(source);
      if (pending === undefined) return;
      this.pendingDeletes.delete(source);
      pendingLive ??= newFullBitset(segment.maxDoc);
      const docMap = docMaps[k];
      // Docs live at the refresh (kept by the merge) but deleted since: deleted in the merged segment at the next refresh.
      for (let d = 0; d < docMap.length; d++) {
        if (docMap[d] >= 0 && !hasBit(pending.liveDocs, d)) {
          clearBit(pendingLive, docMap[d]);
          pendingCount++;
        }
      }
    });
    const merged: LiveSegment = { segment, liveDocs: null, numDocs: segment.maxDoc, sizeInBytes: estimateSegmentBytes(segment) };
    if (pendingLive !== null) this.pendingDeletes.set(merged, { liveDocs: pendingLive, count: pendingCount });
    return merged;
  }
}
