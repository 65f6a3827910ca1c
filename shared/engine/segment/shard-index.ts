/**
 * The searchable side of one shard copy: an indexing buffer, the immutable
 * segments made from it at each refresh, their live-docs bitsets, and an
 * `_id` → (segment, doc) map for O(1) deletes and updates.
 *
 * Visibility follows Lucene: an index or delete changes what searches see only
 * at the next refresh. A snapshot never changes once taken: a refresh replaces
 * a segment's live-docs bitset with an edited copy, a merge builds a new
 * segment, and neither touches the arrays an older snapshot holds.
 */
import type { AnalyzerLookup } from '../analysis/types.ts';
import { clearBit, hasBit, newFullBitset } from './bitset.ts';
import { findMerges } from './merge-policy.ts';
import { SegmentBuilder, type BufferedDoc } from './segment-builder.ts';
import { mergeSegments } from './segment-merger.ts';
import { estimateSegmentBytes } from './segment-size.ts';
import type { SearcherSnapshot, Segment, SegmentView } from './types.ts';

/** One segment of the current state, as a refresh left it. Replaced, never mutated. */
interface LiveSegment {
  readonly segment: Segment;
  /** null: every doc live. */
  readonly liveDocs: Uint32Array | null;
  readonly numDocs: number;
  /** Small reusable number naming the segment in `locations`; freed when the segment goes. */
  readonly slot: number;
  readonly sizeInBytes: number;
}

/**
 * Where the live copy of an `_id` is, as one number: a doc of the indexing
 * buffer is -(doc + 1), a doc of a segment is slot * DOC_SPACE + doc.
 */
type Location = number;
/** Local doc ids stay below 2^31 (as in Lucene); slots stay far below 2^22, so locations are exact doubles. */
const DOC_SPACE = 2 ** 31;

export class ShardIndex {
  private segments: LiveSegment[] = [];
  private readonly bySlot: (LiveSegment | undefined)[] = [];
  private readonly freeSlots: number[] = [];
  private readonly locations = new Map<string, Location>();
  private buffer: SegmentBuilder;
  /** Buffered docs already superseded or deleted: born deleted in the next segment. */
  private bufferDeletes: number[] = [];
  /** Per segment slot, docs whose delete becomes visible at the next refresh. */
  private pendingDeletes = new Map<number, number[]>();
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

  /** Buffers a document; the copy it replaces (same `_id`) is deleted at the next refresh. */
  index(doc: BufferedDoc): void {
    // add() first: a document it refuses must leave the previous copy live.
    const local = this.buffer.add(doc);
    const previous = this.locations.get(doc.id);
    if (previous !== undefined) this.markDeleted(previous);
    this.locations.set(doc.id, -(local + 1));
    this.pending++;
  }

  /** Deletes the live copy of `_id` at the next refresh; nothing when there is none. */
  delete(id: string): void {
    const location = this.locations.get(id);
    if (location === undefined) return;
    this.locations.delete(id);
    this.markDeleted(location);
    this.pending++;
  }

  /** Makes buffered operations visible: a new segment for the buffer, new live-docs for deletes. */
  refresh(): boolean {
    if (this.pending === 0) return false;
    if (this.buffer.size > 0) this.flushBuffer();
    for (const [slot, docs] of this.pendingDeletes) this.applyDeletes(slot, docs);
    this.pendingDeletes = new Map();
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

  private markDeleted(location: Location): void {
    if (location < 0) {
      this.bufferDeletes.push(-location - 1);
      return;
    }
    const slot = Math.floor(location / DOC_SPACE);
    const docs = this.pendingDeletes.get(slot);
    if (docs === undefined) this.pendingDeletes.set(slot, [location - slot * DOC_SPACE]);
    else docs.push(location - slot * DOC_SPACE);
  }

  private flushBuffer(): void {
    const segment = this.buffer.build(this.nextSegmentId++);
    this.buffer = new SegmentBuilder(this.analyzers);
    let liveDocs: Uint32Array | null = null;
    if (this.bufferDeletes.length > 0) {
      liveDocs = newFullBitset(segment.maxDoc);
      for (const doc of this.bufferDeletes) clearBit(liveDocs, doc);
    }
    // A buffered doc is deleted at most once: its location leaves the map when it is.
    const numDocs = segment.maxDoc - this.bufferDeletes.length;
    this.bufferDeletes = [];
    if (numDocs === 0) return;
    const slot = this.allocateSlot();
    for (let d = 0; d < segment.maxDoc; d++) {
      if (liveDocs === null || hasBit(liveDocs, d)) this.locations.set(segment.ids[d], slot * DOC_SPACE + d);
    }
    this.add({ segment, liveDocs, numDocs, slot, sizeInBytes: estimateSegmentBytes(segment) });
  }

  private applyDeletes(slot: number, docs: readonly number[]): void {
    const current = this.bySlot[slot];
    if (current === undefined) throw new Error(`pending deletes for segment slot ${slot}, which is gone`);
    // Copy-on-write: snapshots taken earlier keep the old bitset.
    const liveDocs = current.liveDocs === null ? newFullBitset(current.segment.maxDoc) : current.liveDocs.slice();
    let numDocs = current.numDocs;
    for (const doc of docs) {
      if (hasBit(liveDocs, doc)) {
        clearBit(liveDocs, doc);
        numDocs--;
      }
    }
    if (numDocs === 0) {
      this.remove(current);
      return;
    }
    this.replace(current, { ...current, liveDocs, numDocs });
  }

  /** Merges `group` into one new segment and moves ids and pending deletes onto it. */
  private merge(group: readonly LiveSegment[]): LiveSegment {
    const { segment, docMaps } = mergeSegments(group, this.nextSegmentId++);
    const slot = this.allocateSlot();
    group.forEach((source, k) => {
      const docMap = docMaps[k];
      const ids = source.segment.ids;
      const base = source.slot * DOC_SPACE;
      for (let d = 0; d < docMap.length; d++) {
        // Only docs whose id still points here: a doc deleted or replaced since the refresh stays so.
        if (docMap[d] >= 0 && this.locations.get(ids[d]) === base + d) this.locations.set(ids[d], slot * DOC_SPACE + docMap[d]);
      }
      const pending = this.pendingDeletes.get(source.slot);
      if (pending !== undefined) {
        this.pendingDeletes.delete(source.slot);
        const moved = this.pendingDeletes.get(slot) ?? [];
        for (const doc of pending) if (docMap[doc] >= 0) moved.push(docMap[doc]);
        this.pendingDeletes.set(slot, moved);
      }
      this.bySlot[source.slot] = undefined;
      this.freeSlots.push(source.slot);
    });
    const merged: LiveSegment = { segment, liveDocs: null, numDocs: segment.maxDoc, slot, sizeInBytes: estimateSegmentBytes(segment) };
    this.bySlot[slot] = merged;
    return merged;
  }

  private allocateSlot(): number {
    return this.freeSlots.pop() ?? this.bySlot.length;
  }

  private add(live: LiveSegment): void {
    this.bySlot[live.slot] = live;
    this.segments.push(live);
  }

  private replace(current: LiveSegment, next: LiveSegment): void {
    this.bySlot[current.slot] = next;
    this.segments[this.segments.indexOf(current)] = next;
  }

  private remove(current: LiveSegment): void {
    this.bySlot[current.slot] = undefined;
    this.freeSlots.push(current.slot);
    this.segments.splice(this.segments.indexOf(current), 1);
  }
}
