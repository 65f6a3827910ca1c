/**
 * The searchable side of one shard copy: an indexing buffer in memory, the
 * immutable segments each refresh writes to files (read back through memory
 * maps), their live-docs bitsets, merges, and commit points.
 *
 * Visibility follows Lucene: an index or delete changes what searches see only
 * at the next refresh. A snapshot never changes once taken: a refresh replaces
 * a segment's live-docs bitset with an edited copy, a merge writes a new
 * segment, and neither touches what an older snapshot holds. A segment a
 * merge replaced stays mapped while a pinned snapshot (an open search or
 * scroll context) holds it, and is unmapped when the last one lets go.
 *
 * Durability is the commit's: `commit()` makes every segment file and the
 * current deletes durable and returns the commit point, which the caller
 * stores atomically with the log offset it covers (docs/decisions/003). Files
 * no commit point and no live segment names are removed by `removeUnused()`.
 *
 * There is no `_id` → doc map over the whole copy. As in Lucene, the live
 * copy of an id is found by looking the id up in the buffer and then in each
 * segment's `_id` terms, newest first; the caller says when an id cannot
 * have a live copy (its version map knows), so new documents skip the search.
 */
import { runSteps } from '../../steps/run-steps.ts';
import { fsyncSync, openSync, closeSync, readdirSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { AnalyzerLookup } from '../analysis/types.ts';
import type { NestedDocument } from '../mapping/types.ts';
import { bitsetWords, clearBit, hasBit, newFullBitset } from './bitset.ts';
import { liveDocsFileName, liveDocsFileOf, readLiveDocs, writeLiveDocs } from './live-docs-file.ts';
import { MappedSegment } from './mapped-segment.ts';
import type { SegmentCheck } from '../codec/file-format.ts';
import { initialLiveDocs, liveLuceneDocs, nestedDocs, rootCount } from './nested-blocks.ts';
import { findDeletesMerges, findForcedMerges, findMerges, type MergeCandidate } from './merge-policy.ts';
import { SegmentBuilder, type BufferedDoc } from './segment-builder.ts';
import { DATA_FILES, segmentFileName, segmentIdOfFile } from './segment-info.ts';
import { writeSegment, writeSegmentInSteps, type WriteSource, type WrittenSegment } from './segment-writer.ts';
import { TermHash } from './term-hash.ts';
import { crashPoint } from '../store/fault-injection.ts';
import { ID_FIELD, type SearcherSnapshot, type Segment, type SegmentView, type StoredDocument } from './types.ts';

/** One segment of the current state, as a refresh left it. Replaced, never mutated. */
interface LiveSegment {
  /** On disk (mapped), or in memory until the next commit writes it (`inMemory`). */
  readonly segment: Segment;
  readonly inMemory: boolean;
  /** null: every doc live. */
  readonly liveDocs: Uint32Array | null;
  readonly numDocs: number;
  /** Generation of the live-docs file of the last commit (0: none, every doc was live). */
  readonly liveGen: number;
  /** Deletes since the last commit: a new live-docs file is due. */
  readonly liveDirty: boolean;
}

/** Deletes of a segment's docs since the last refresh: its live docs as they will be. */
interface PendingDeletes {
  readonly liveDocs: Uint32Array;
  count: number;
}

/** What a commit records of a copy's segments. */
export interface SegmentsCommit {
  readonly segments: readonly { readonly id: number; readonly liveGen: number }[];
  readonly nextSegmentId: number;
}

/** A commit whose files are written, not yet synced: `point` may be recorded once `files` and the directory are durable. */
export interface PreparedCommit {
  readonly point: SegmentsCommit;
  readonly files: readonly string[];
  readonly segmentIds: readonly number[];
  readonly live: readonly string[];
}

export const EMPTY_COMMIT: SegmentsCommit = { segments: [], nextSegmentId: 0 };

/** One segment as `_segments` and `_cat/segments` describe it. */
export interface SegmentDescription {
  readonly id: number;
  readonly maxDoc: number;
  readonly numDocs: number;
  readonly sizeInBytes: number;
  /** Heap the segment holds: all of it for a segment still in memory, its live-docs bitset otherwise. */
  readonly memoryInBytes: number;
  /** Only in memory until the next commit writes it. */
  readonly inMemory: boolean;
  /** Named by the last commit point (durable). */
  readonly committed: boolean;
  /** Bytes of each of its files by extension (none while in memory). */
  readonly files: Readonly<Record<string, number>>;
}

/** What the copy's merges did since it opened (Elasticsearch's merges stats). */
export interface MergeFigures {
  total: number;
  docs: number;
  bytes: number;
  timeMs: number;
}

/** Which groups of candidate segments to merge (merge-policy.ts). */
export type MergePolicy = (candidates: readonly MergeCandidate[]) => number[][];

/** A merge planned by ShardIndex.planMerges: the new segment's id and what goes into it. */
export interface MergePlan {
  readonly id: number;
  /** The input segments, as the index holds them. */
  readonly inputs: readonly Segment[];
  /** The same inputs by id, with their live docs when planned: what a merge thread needs. */
  readonly sources: readonly MergeSource[];
}

export interface MergeSource {
  readonly segmentId: number;
  readonly liveDocs: Uint32Array | null;
}

/** What writing a merge produced: per input, each doc's number in the new segment (-1: dropped). */
export interface WrittenMerge {
  readonly docMaps: readonly Int32Array[];
}

/**
 * Elasticsearch's `_forcemerge`: with `onlyExpungeDeletes`, the segments
 * with more than 10% deleted docs are rewritten (Lucene's forceMergeDeletes);
 * with `maxNumSegments` > 0, merges until at most that many segments are
 * left, none holding deleted docs (Lucene's forceMerge); otherwise the
 * ordinary policy.
 */
export function forcedMergePolicy(maxNumSegments: number, onlyExpungeDeletes: boolean): MergePolicy {
  if (onlyExpungeDeletes) return findDeletesMerges;
  if (maxNumSegments > 0) return (c) => findForcedMerges(c, maxNumSegments);
  return findMerges;
}

/** Writes segment `id` of `dir` from `sources` (unsynced: the next commit syncs it); null when no doc is live. */
export function writeMerge(dir: string, id: number, sources: readonly WriteSource[]): WrittenMerge | null {
  const written = writeSegment(dir, id, sources, { sync: false });
  return written === null ? null : { docMaps: written.docMaps };
}

/** Where a live document is: in the indexing buffer or in a refreshed segment. */
export type DocLocation = { readonly buffered: true; readonly local: number } | { readonly buffered: false; readonly segment: Segment; readonly doc: number };

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
  /** Buffered docs already superseded or deleted: left out of the next segment. */
  private bufferDeletes: number[] = [];
  private pending = 0;
  private nextSegmentId: number;
  private snapshot: SearcherSnapshot | null = null;
  /** Pinned snapshots per mapped segment; a segment no longer live is unmapped when its count reaches 0. */
  private readonly pins = new Map<MappedSegment, number>();
  private readonly retired = new Set<MappedSegment>();
  /** Segments written since the last commit, whose files are not yet known durable. */
  private readonly unsynced = new Set<number>();
  /** Live-docs files written by a commit not yet known durable (paths). */
  private readonly unsyncedLive = new Set<string>();
  /** Segments a planned merge reads, and the ids of the segments such merges are writing. */
  private readonly merging = new Set<Segment>();
  private readonly writing = new Set<number>();
  private readonly planned = new Set<MergePlan>();
  private closed = false;
  /** Merges run so far (not the commit that writes in-memory segments to disk). */
  readonly merges: MergeFigures = { total: 0, docs: 0, bytes: 0, timeMs: 0 };

  private constructor(
    readonly dir: string,
    analyzers: AnalyzerLookup,
    nextSegmentId: number,
  ) {
    this.buffer = new SegmentBuilder(analyzers);
    this.nextSegmentId = nextSegmentId;
  }

  /**
   * Opens the segments a commit point lists (each file checked as `check`
   * says, MappedSegment.open; live docs whole) and removes what no commit
   * names: files of a write or merge a crash interrupted. Throws
   * CorruptSegmentError when a listed segment is missing or damaged.
   */
  static open(dir: string, analyzers: AnalyzerLookup, commit: SegmentsCommit, check: SegmentCheck = 'structure'): ShardIndex {
    const index = new ShardIndex(dir, analyzers, commit.nextSegmentId);
    try {
      for (const { id, liveGen } of commit.segments) {
        const segment = MappedSegment.open(dir, id, check);
        const liveDocs = liveGen > 0 ? readLiveDocs(dir, id, liveGen, bitsetWords(segment.maxDoc)) : initialLiveDocs(segment);
        const numDocs = liveDocs === null ? segment.maxDoc : countBits(liveDocs);
        index.segments.push({ segment, inMemory: false, liveDocs, numDocs, liveGen, liveDirty: false });
      }
    } catch (err) {
      index.close();
      throw err;
    }
    index.removeUnused(commit);
    return index;
  }

  /**
   * Live docs as Elasticsearch's docs stats count them: Lucene documents, so
   * the nested documents of live documents too (searches count only roots).
   */
  get docCount(): number {
    let n = 0;
    for (const s of this.segments) n += liveLuceneDocs(s.segment, s.liveDocs, s.numDocs);
    return n;
  }

  /** Deleted docs still held by segments (reclaimed by merges), nested ones included. */
  get deletedCount(): number {
    let n = 0;
    for (const s of this.segments) n += s.segment.maxDoc - liveLuceneDocs(s.segment, s.liveDocs, s.numDocs);
    return n;
  }

  get segmentCount(): number {
    return this.segments.length;
  }

  /** Index and delete operations applied since the last refresh. */
  get pendingOps(): number {
    return this.pending;
  }

  /** Bytes of the segments' files. */
  get sizeInBytes(): number {
    let n = 0;
    for (const s of this.segments) n += s.segment.sizeInBytes;
    return n;
  }

  /** Bytes of the segments' files in this process's memory now (mincore). */
  residentBytes(): number {
    let n = 0;
    for (const s of this.segments) if (s.segment instanceof MappedSegment) n += s.segment.residentBytes();
    return n;
  }

  /**
   * Buffers a document; the copy it replaces (same `_id`) is deleted at the
   * next refresh. `mayReplace` false says no live copy of the id exists
   * outside the buffer (the version map had none), which spares the search.
   */
  index(doc: BufferedDoc, mayReplace = true): void {
    // add() first: a document it refuses must leave the previous copy live.
    this.buffered(doc, this.buffer.add(doc), mayReplace);
  }

  /**
   * One nested document of a document indexed as it is parsed (a large
   * one: the shard worker's indexLarge), in block order. Its block stays
   * open until index() adds the document itself (`parsed` without nested
   * documents: they are in) or abandonNested; nothing else may be indexed
   * or refreshed meanwhile (searches may run: they read the last refresh's
   * view).
   */
  addNested(nested: NestedDocument, version: number, seqNo: number): void {
    this.buffer.addNested(nested, version, seqNo);
  }

  /**
   * The document whose nested documents addNested took will not be
   * indexed (its parse or indexing failed half way): they go with a root
   * born deleted (Lucene marks the docs of a failed block deleted), so no
   * refresh shows any of them; the copy it would have replaced stays.
   */
  abandonNested(id: string, version: number, seqNo: number, routing: string | null): void {
    const local = this.buffer.closeOpenBlock(id, version, seqNo, routing);
    if (local < 0) return;
    this.bufferDeletes.push(local);
    this.pending++;
  }

  /** `doc` was just added to the buffer as `local`: the copy it replaces goes. */
  private buffered(doc: BufferedDoc, local: number, mayReplace: boolean): void {
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

  /** Where the live copy of `id` is, as of every op applied so far (refreshed or not); null when none. */
  locate(id: string): DocLocation | null {
    const slot = this.bufferIds.find(id);
    if (slot >= 0 && this.bufferDocs[slot]! >= 0) return { buffered: true, local: this.bufferDocs[slot]! };
    const found = this.findInSegments(id);
    return found === null ? null : { buffered: false, segment: found.live.segment, doc: found.doc };
  }

  /** The stored part of a located document (valid until the next read). */
  stored(at: DocLocation): StoredDocument {
    return at.buffered ? this.buffer.stored(at.local) : at.segment.stored.document(at.doc);
  }

  /** Makes buffered operations visible: a new segment for the buffer, new live-docs for deletes. */
  refresh(): boolean {
    return runSteps(this.refreshInSteps());
  }

  /**
   * refresh(), yielding while the buffer's segment is built (see
   * SegmentBuilder.buildInSteps): searches between the steps see the view
   * before the refresh, which changes at once in the last step. Nothing may
   * be indexed or deleted until it is done.
   */
  *refreshInSteps(): Generator<void, boolean> {
    if (this.pending === 0) return false;
    const built = this.buffer.size > 0 ? yield* this.buffer.buildInSteps(this.nextSegmentId++) : null;
    for (const [live, deletes] of this.pendingDeletes) this.applyDeletes(live, deletes);
    this.pendingDeletes = new Map();
    if (built !== null) this.addBufferSegment(built);
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

  /** A search context holds `snapshot` beyond the current turn: its segments stay mapped until `unpin`. */
  pin(snapshot: SearcherSnapshot): void {
    for (const v of snapshot.views) {
      const seg = v.segment;
      if (seg instanceof MappedSegment) this.pins.set(seg, (this.pins.get(seg) ?? 0) + 1);
    }
  }

  unpin(snapshot: SearcherSnapshot): void {
    for (const v of snapshot.views) {
      const seg = v.segment;
      if (!(seg instanceof MappedSegment)) continue;
      const n = (this.pins.get(seg) ?? 1) - 1;
      if (n > 0) {
        this.pins.set(seg, n);
        continue;
      }
      this.pins.delete(seg);
      if (this.retired.delete(seg)) seg.close();
    }
  }

  /**
   * Runs the merges the policy asks for (see merge-policy.ts) here and now,
   * writing the merged segments' files. The copy's worker runs its merges on
   * a merge thread instead (planMerges / finishMerge), so applying ops never
   * waits for one. Searches see the same docs before and after; held
   * snapshots keep the old segments.
   */
  maybeMerge(): boolean {
    return this.mergeHere(this.planMerges(findMerges));
  }

  /**
   * Elasticsearch's `_forcemerge` here and now (see forcedMergePolicy).
   * True when something was merged.
   */
  forceMerge(maxNumSegments: number, onlyExpungeDeletes: boolean): boolean {
    return this.mergeHere(this.planMerges(forcedMergePolicy(maxNumSegments, onlyExpungeDeletes)));
  }

  private mergeHere(plans: readonly MergePlan[]): boolean {
    for (const plan of plans) {
      const started = performance.now();
      const written = writeMerge(this.dir, plan.id, plan.inputs.map((segment, k) => ({ segment, liveDocs: plan.sources[k]!.liveDocs })));
      this.finishMerge(plan, written, performance.now() - started);
    }
    return plans.length > 0;
  }

  /**
   * The merges `policy` asks for among the segments on disk that no merge
   * under way holds (segments still in memory are written, as one, by the
   * next commit). Each plan reserves its segment id and holds its inputs
   * until finishMerge or abandonMerge; its `sources` are what a merge thread
   * needs to write it (segment ids and their live docs as of now).
   */
  planMerges(policy: MergePolicy): MergePlan[] {
    const candidates = this.segments.filter((s) => !s.inMemory && !this.merging.has(s.segment));
    const groups = policy(candidates.map((s) => ({ maxDoc: rootCount(s.segment), numDocs: s.numDocs })));
    return groups.map((group) => {
      const members = group.map((k) => candidates[k]!);
      const id = this.nextSegmentId++;
      this.writing.add(id);
      for (const m of members) this.merging.add(m.segment);
      const plan: MergePlan = {
        id,
        inputs: members.map((m) => m.segment),
        sources: members.map((m) => ({ segmentId: m.segment.id, liveDocs: m.liveDocs })),
      };
      this.planned.add(plan);
      return plan;
    });
  }

  /**
   * Puts the segment a plan's merge wrote (null: its inputs had no live doc)
   * in place of its inputs. Docs deleted since the plan was made are deleted
   * in the merged segment too: those refreshed since now, those pending at
   * the next refresh.
   */
  finishMerge(plan: MergePlan, written: WrittenMerge | null, timeMs: number): void {
    if (!this.planned.delete(plan)) throw new Error(`merge into segment ${plan.id} was not planned by this index`);
    for (const input of plan.inputs) this.merging.delete(input);
    this.writing.delete(plan.id);
    this.merges.total++;
    this.merges.timeMs += timeMs;
    if (written === null) {
      this.replaceSegments(new Set(plan.inputs), null);
      return;
    }
    this.unsynced.add(plan.id);
    crashPoint('merge-written');
    const segment = MappedSegment.open(this.dir, plan.id, 'none');
    this.merges.docs += segment.maxDoc;
    this.merges.bytes += segment.sizeInBytes;
    const carried = new CarriedDeletes(segment);
    plan.inputs.forEach((input, k) => {
      const now = this.segments.find((s) => s.segment === input);
      const pending = now === undefined ? undefined : this.pendingDeletes.get(now);
      if (pending !== undefined) this.pendingDeletes.delete(now!);
      // Gone: a refresh deleted its last live doc.
      carried.add(input, written.docMaps[k]!, now === undefined ? EMPTY_BITSET : now.liveDocs, pending);
    });
    const { deleted, pendingLive, pendingCount } = carried;
    const live = carried.live ?? initialLiveDocs(segment);
    const numDocs = rootCount(segment) - deleted;
    if (numDocs === 0) {
      segment.close();
      this.replaceSegments(new Set(plan.inputs), null);
      return;
    }
    const merged: LiveSegment = { segment, inMemory: false, liveDocs: live, numDocs, liveGen: 0, liveDirty: deleted > 0 };
    if (pendingLive !== null) {
      // The bitset of the next refresh starts from the refreshed one.
      const next = live === null ? pendingLive : andBits(live, pendingLive);
      this.pendingDeletes.set(merged, { liveDocs: next, count: pendingCount });
    }
    this.replaceSegments(new Set(plan.inputs), merged);
  }

  /** A plan that will not finish (its copy closes or resets, or its merge failed): its inputs are free again. */
  abandonMerge(plan: MergePlan): void {
    // Not this index's (any more): a reset or close came first.
    if (!this.planned.delete(plan)) return;
    for (const input of plan.inputs) this.merging.delete(input);
    this.writing.delete(plan.id);
    removeSegmentFiles(this.dir, plan.id);
  }

  /**
   * Replaces `members` (a merge's inputs, a commit's in-memory group) by
   * `written`, in the place of the first still present, or just removes
   * them; they are retired. With none of them left, `written` goes first:
   * it holds older docs than any segment refreshed since.
   */
  private replaceSegments(members: ReadonlySet<Segment>, written: LiveSegment | null): void {
    const next: LiveSegment[] = [];
    let placed = written === null;
    for (const s of this.segments) {
      if (!members.has(s.segment)) {
        next.push(s);
        continue;
      }
      this.pendingDeletes.delete(s);
      this.retire(s.segment);
      if (!placed) {
        next.push(written!);
        placed = true;
      }
    }
    if (!placed) next.unshift(written!);
    this.segments = next;
    this.snapshot = null;
  }

  /** Every segment searches see now, oldest first. */
  describeSegments(): SegmentDescription[] {
    return this.segments.map((s) => {
      const files: Record<string, number> = {};
      if (s.segment instanceof MappedSegment) {
        for (const [kind, bytes] of Object.entries(s.segment.info.files)) files[kind] = bytes;
        if (s.liveGen > 0 && s.liveDocs !== null) files.liv = s.liveDocs.byteLength;
      }
      return {
        id: s.segment.id,
        maxDoc: s.segment.maxDoc,
        numDocs: s.numDocs,
        sizeInBytes: s.segment.sizeInBytes,
        memoryInBytes: s.inMemory ? s.segment.sizeInBytes : (s.liveDocs?.byteLength ?? 0),
        inMemory: s.inMemory,
        committed: !s.inMemory && !this.unsynced.has(s.segment.id),
        files,
      };
    });
  }

  /**
   * Writes `group` (the segments in memory when the commit began) as one
   * segment on disk, in steps: nothing changes before the last. Refreshes and
   * deletes may run between the steps (the copy goes on applying ops while a
   * commit writes); the last step puts the written segment in place of the
   * group's current versions and carries over what was deleted from them
   * since the commit began, as finishMerge does for a merge. Returns the
   * segment written, for the commit point (null: no doc left to write).
   */
  private *writeInMemory(group: readonly LiveSegment[]): Generator<void, LiveSegment | null> {
    if (group.length === 0) return null;
    const id = this.nextSegmentId++;
    this.writing.add(id);
    let write: WrittenSegment | null;
    try {
      write = yield* writeSegmentInSteps(this.dir, id, group.map((s) => ({ segment: s.segment, liveDocs: s.liveDocs })), { sync: false });
    } finally {
      this.writing.delete(id);
    }
    const members = new Set(group.map((s) => s.segment));
    const current = new Map<Segment, LiveSegment>();
    for (const s of this.segments) if (members.has(s.segment)) current.set(s.segment, s);
    let merged: LiveSegment | null = null;
    if (write !== null) {
      this.unsynced.add(id);
      const segment = MappedSegment.open(this.dir, id, 'none');
      const carried = new CarriedDeletes(segment);
      group.forEach((source, k) => {
        const now = current.get(source.segment);
        // Refreshed since the commit began: gone (its last live doc deleted), or other live docs.
        const refreshed = now === undefined ? EMPTY_BITSET : now.liveDocs === source.liveDocs ? null : now.liveDocs;
        const pending = now === undefined ? undefined : this.pendingDeletes.get(now);
        if (refreshed !== null || pending !== undefined) carried.add(source.segment, write!.docMaps[k]!, refreshed, pending);
      });
      const { live, deleted, pendingLive, pendingCount } = carried;
      const numDocs = rootCount(segment) - deleted;
      // The commit point lists the segment as written (every doc of it was live when the commit began).
      merged = { segment, inMemory: false, liveDocs: initialLiveDocs(segment), numDocs: rootCount(segment), liveGen: 0, liveDirty: false };
      if (numDocs > 0) {
        const now: LiveSegment = { ...merged, liveDocs: live ?? merged.liveDocs, numDocs, liveDirty: deleted > 0 };
        if (pendingLive !== null) this.pendingDeletes.set(now, { liveDocs: live === null ? pendingLive : andBits(live, pendingLive), count: pendingCount });
        this.replaceSegments(members, now);
      } else {
        this.replaceSegments(members, null);
        this.retire(segment);
      }
    } else {
      this.replaceSegments(members, null);
    }
    this.snapshot = null;
    return merged;
  }

  /**
   * Makes the refreshed state durable: every segment file synced, each
   * segment that lost docs since the last commit gets a new live-docs file.
   * Buffered (unrefreshed) operations are not part of it: refresh first.
   * Returns what the caller stores as the commit point.
   */
  commit(): SegmentsCommit {
    const prepared = runSteps(this.prepareCommitInSteps());
    for (const path of prepared.files) syncFile(path);
    syncFile(this.dir);
    return this.committed(prepared);
  }

  /**
   * commit() with its fsyncs run by libuv's pool, off this thread: the
   * files together, then the directory. A shard worker that synced a
   * commit's dozen files in turn held its searches for each (issue 11).
   * Call it on what prepareCommitInSteps returned, nothing written between.
   */
  async syncCommit(prepared: PreparedCommit): Promise<SegmentsCommit> {
    await Promise.all(prepared.files.map(syncFileOffThread));
    await syncFileOffThread(this.dir);
    return this.committed(prepared);
  }

  /**
   * The files of a commit of the state as it is now, written in steps
   * (fsyncs not included: commit(), syncCommit()): the segments refreshes
   * kept in memory written as one, and a new live-docs file for each
   * segment that lost docs since its last. What the commit covers is taken
   * when this is called, so ops applied, deletes and refreshes between the
   * steps are left to the next commit (the caller records the log offsets of
   * this moment with it), and the shard worker applies ops while a commit
   * writes. One commit at a time. A segment's unsynced files stay
   * "unsynced" until committed: a commit whose fsync failed syncs them
   * again with the next.
   */
  prepareCommitInSteps(): Generator<void, PreparedCommit> {
    // A copy: refreshes edit the list in place.
    const start = [...this.segments];
    // Live-docs files are small: written now, with the bitsets of this moment.
    const liveGens = new Map<Segment, { readonly liveGen: number; readonly liveDocs: Uint32Array }>();
    for (const s of start) {
      if (!s.liveDirty || s.liveDocs === null || s.inMemory) continue;
      const liveGen = s.liveGen + 1;
      writeLiveDocs(this.dir, s.segment.id, liveGen, s.liveDocs, false);
      this.unsyncedLive.add(join(this.dir, liveDocsFileName(s.segment.id, liveGen)));
      liveGens.set(s.segment, { liveGen, liveDocs: s.liveDocs });
    }
    return this.finishCommitInSteps(start, liveGens);
  }

  private *finishCommitInSteps(
    start: readonly LiveSegment[],
    liveGens: ReadonlyMap<Segment, { readonly liveGen: number; readonly liveDocs: Uint32Array }>,
  ): Generator<void, PreparedCommit> {
    const group = start.filter((s) => s.inMemory);
    const written = yield* this.writeInMemory(group);
    // The current versions of the segments whose live docs were written (a refresh since may have deleted more).
    const replaced = new Map<LiveSegment, LiveSegment>();
    this.segments = this.segments.map((s) => {
      const w = liveGens.get(s.segment);
      if (w === undefined) return s;
      const next = { ...s, liveGen: w.liveGen, liveDirty: s.liveDocs !== w.liveDocs };
      replaced.set(s, next);
      return next;
    });
    // Pending deletes refer to LiveSegment objects: carry them to the replacements.
    if (replaced.size > 0 && this.pendingDeletes.size > 0) {
      const carried = new Map<LiveSegment, PendingDeletes>();
      for (const [old, deletes] of this.pendingDeletes) carried.set(replaced.get(old) ?? old, deletes);
      this.pendingDeletes = carried;
    }
    this.snapshot = null;
    // The point: the segments on disk when the commit began, the group's written one in the place of its first.
    const points: { id: number; liveGen: number }[] = [];
    let placed = false;
    for (const s of start) {
      if (s.inMemory) {
        if (!placed && written !== null) points.push({ id: written.segment.id, liveGen: 0 });
        placed = true;
        continue;
      }
      points.push({ id: s.segment.id, liveGen: liveGens.get(s.segment)?.liveGen ?? s.liveGen });
    }
    const segmentIds = [...this.unsynced];
    const files: string[] = [];
    for (const id of segmentIds) for (const kind of [...DATA_FILES, 'si' as const]) files.push(join(this.dir, segmentFileName(id, kind)));
    const live = [...this.unsyncedLive];
    files.push(...live);
    return { point: { segments: points, nextSegmentId: this.nextSegmentId }, files, segmentIds, live };
  }

  /** The prepared commit's files are durable. */
  private committed(prepared: PreparedCommit): SegmentsCommit {
    for (const id of prepared.segmentIds) this.unsynced.delete(id);
    for (const path of prepared.live) this.unsyncedLive.delete(path);
    return prepared.point;
  }

  /** Removes the files neither `commit` nor a live or pinned segment uses (call once `commit` is durable). */
  removeUnused(commit: SegmentsCommit): void {
    const keepSegments = new Set<number>(commit.segments.map((s) => s.id));
    const keepLive = new Set<string>();
    for (const s of commit.segments) if (s.liveGen > 0) keepLive.add(liveDocsFileName(s.id, s.liveGen));
    for (const s of this.segments) {
      keepSegments.add(s.segment.id);
      if (s.liveGen > 0) keepLive.add(liveDocsFileName(s.segment.id, s.liveGen));
    }
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      const id = segmentIdOfFile(name);
      if (id !== null) {
        // Files of segments at or beyond nextSegmentId may belong to a write under way only if this index wrote them.
        if (!keepSegments.has(id) && !this.unsynced.has(id) && !this.writing.has(id)) rmSync(join(this.dir, name), { force: true });
        continue;
      }
      const liv = liveDocsFileOf(name);
      if (liv !== null && !keepLive.has(name)) rmSync(join(this.dir, name), { force: true });
    }
  }

  /** Unmaps every segment (the copy is closing or being removed). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    // Files of merges cut short go at the next open (no commit names them).
    this.planned.clear();
    for (const s of this.segments) if (s.segment instanceof MappedSegment) s.segment.close();
    for (const s of this.retired) s.close();
    this.segments = [];
    this.retired.clear();
    this.snapshot = null;
  }

  private retire(segment: Segment): void {
    // A segment in memory goes with the last snapshot that holds it.
    if (!(segment instanceof MappedSegment)) return;
    if ((this.pins.get(segment) ?? 0) > 0) {
      // Still read by a pinned snapshot: give its pages back now, unmap when the last pin goes.
      segment.release();
      this.retired.add(segment);
    } else {
      segment.close();
    }
  }

  /** Deletes the buffer's live copy of `id`; false when the buffer has none. */
  private deleteBuffered(id: string): boolean {
    const slot = this.bufferIds.find(id);
    const local = slot < 0 ? -1 : this.bufferDocs[slot]!;
    if (local < 0) return false;
    this.bufferDocs[slot] = -1;
    this.bufferDeletes.push(local);
    return true;
  }

  /** The live copy of `id` in a segment (pending deletes counted), newest segment first. */
  private findInSegments(id: string): { live: LiveSegment; doc: number } | null {
    for (let s = this.segments.length - 1; s >= 0; s--) {
      const live = this.segments[s]!;
      const inv = live.segment.inverted.get(ID_FIELD);
      if (inv === undefined) continue;
      const t = inv.terms.find(id);
      if (t < 0) continue;
      const liveDocs = this.pendingDeletes.get(live)?.liveDocs ?? live.liveDocs;
      // Ids repeat within a segment only as copies born deleted; at most one copy of an id is live.
      const cursor = inv.postings(t);
      while (cursor.nextBlock()) {
        for (let i = 0; i < cursor.count; i++) {
          const d = cursor.docs[i]!;
          if (liveDocs === null || hasBit(liveDocs, d)) return { live, doc: d };
        }
      }
    }
    return null;
  }

  /** Marks the live copy of `id` in a segment deleted at the next refresh; false when no segment has one. */
  private deleteInSegments(id: string): boolean {
    const found = this.findInSegments(id);
    if (found === null) return false;
    const { live, doc } = found;
    const pending = this.pendingDeletes.get(live);
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

  /**
   * The segment built from the buffer joins the others, in memory: searchable now, written to disk
   * with the others of its kind by the next commit (Elasticsearch keeps small
   * new segments in memory the same way, NRTCachingDirectory), so a refresh a
   * second neither creates files nor leaves tiny segments for merges.
   */
  private addBufferSegment(segment: Segment): void {
    this.buffer.reset();
    this.bufferIds.clear();
    let liveDocs = initialLiveDocs(segment);
    if (this.bufferDeletes.length > 0) {
      liveDocs ??= newFullBitset(segment.maxDoc);
      for (const doc of this.bufferDeletes) clearBit(liveDocs, doc);
    }
    // A buffered doc is deleted at most once: its slot in bufferDocs is -1 after.
    const numDocs = rootCount(segment) - this.bufferDeletes.length;
    this.bufferDeletes = [];
    if (numDocs === 0) return;
    this.segments.push({ segment, inMemory: true, liveDocs, numDocs, liveGen: 0, liveDirty: false });
  }

  /** The pending deletes become the segment's live docs (a new bitset: snapshots keep the old one). */
  private applyDeletes(current: LiveSegment, deletes: PendingDeletes): void {
    const at = this.segments.indexOf(current);
    if (at < 0) throw new Error(`pending deletes for segment ${current.segment.id}, which is gone`);
    const numDocs = current.numDocs - deletes.count;
    if (numDocs === 0) {
      this.segments.splice(at, 1);
      this.retire(current.segment);
    } else {
      this.segments[at] = { ...current, liveDocs: deletes.liveDocs, numDocs, liveDirty: !current.inMemory };
    }
  }

}

/**
 * The docs of a newly written segment (a merge's, or a commit's of the
 * segments in memory) whose sources lost them while it was being written:
 * deleted by a refresh since (`live`, its live docs now) or pending until
 * the next (`pendingLive`).
 */
class CarriedDeletes {
  live: Uint32Array | null = null;
  deleted = 0;
  pendingLive: Uint32Array | null = null;
  pendingCount = 0;

  constructor(private readonly segment: Segment) {}

  /**
   * One source, its docs mapped by `docMap`: `refreshed` is its live docs
   * now (EMPTY_BITSET: gone, null: none deleted since), `pending` its
   * deletes waiting for the next refresh.
   */
  add(source: Segment, docMap: Int32Array, refreshed: Uint32Array | null, pending: PendingDeletes | undefined): void {
    const nested = nestedDocs(source);
    for (let d = 0; d < docMap.length; d++) {
      const to = docMap[d]!;
      // A nested doc goes with its root.
      if (to < 0 || (nested !== null && hasBit(nested, d))) continue;
      if (refreshed !== null && (refreshed === EMPTY_BITSET || !hasBit(refreshed, d))) {
        this.live ??= newLiveBitset(this.segment);
        clearBit(this.live, to);
        this.deleted++;
      } else if (pending !== undefined && !hasBit(pending.liveDocs, d)) {
        this.pendingLive ??= newLiveBitset(this.segment);
        clearBit(this.pendingLive, to);
        this.pendingCount++;
      }
    }
  }
}

/** Every doc of a new segment live: its roots when it has nested docs (nested-blocks.ts). */
function newLiveBitset(segment: Segment): Uint32Array {
  return initialLiveDocs(segment) ?? newFullBitset(segment.maxDoc);
}

/** Stands for the live docs of an input segment a refresh removed: none. */
const EMPTY_BITSET = new Uint32Array(0);

function andBits(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length);
  for (let w = 0; w < a.length; w++) out[w] = a[w]! & b[w]!;
  return out;
}

/** Removes a segment's files (a merge that will not finish). */
function removeSegmentFiles(dir: string, id: number): void {
  for (const kind of [...DATA_FILES, 'si' as const]) rmSync(join(dir, segmentFileName(id, kind)), { force: true });
}

function countBits(bits: Uint32Array): number {
  let n = 0;
  for (let w = 0; w < bits.length; w++) {
    let x = bits[w]!;
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    n += (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
  }
  return n;
}

/** fsync of a file or directory by path, on libuv's pool. */
async function syncFileOffThread(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** fsync of a file or directory by path. */
function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
