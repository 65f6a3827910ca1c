/**
 * One shard copy's indexer and store, in its worker thread (DESIGN.md 2 and
 * 3): applies the copy's log records in offset order against its version map
 * (applying is a pure function of state and record, apply-doc-op.ts),
 * indexes the resulting documents into its ShardIndex, refreshes, merges,
 * commits, and serves realtime gets and the shard's searches.
 *
 * Durable state is the last commit: segment files plus the version map and
 * the log offset they reach, written in one batch (version-store.ts). Ops
 * applied since then live in the indexing buffer and `pending`; a crash
 * loses them here, and the replay of the log from the commit's offset
 * applies them again, to the same outcomes.
 *
 * A copy handles its work one item at a time (`serial`): an apply waits for
 * the version map, and nothing else of the copy may run in between. Searches
 * are the exception: they read the view of the last refresh, which applies
 * do not change, so a search waits for the work queued before it except
 * applies, realtime gets and the copy's own background work (the idle
 * commit, merge planning), and runs between the steps of a long apply (a
 * document of 90,000 nested objects, `indexLarge`: its JSON, the mapping's
 * parse and its indexing all in steps). Its document becomes visible at the
 * refresh after the apply, all of it at once, as before.
 */
import { nextTurn, runStepsInTurns } from '../../../shared/steps/run-steps.ts';
import { SLICE_MS } from '../../../shared/steps/time-slice.ts';
import { searchPostedHere, searchWaiting, yieldToSearches } from '../../../shared/steps/searches-first.ts';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ParsedDocument } from '../../../shared/engine/mapping/types.ts';
import { Mapping } from '../../../shared/engine/mapping/mapping.ts';
import { AnalysisRegistry } from '../../../shared/engine/analysis/registry.ts';
import { indexStreamedSteps } from '../../../shared/engine/segment/streamed-document.ts';
import { ShardIndex, EMPTY_COMMIT, forcedMergePolicy, type MergePlan, type PreparedCommit, type SegmentsCommit } from '../../../shared/engine/segment/shard-index.ts';
import { findMerges } from '../../../shared/engine/segment/merge-policy.ts';
import type { SearcherSnapshot } from '../../../shared/engine/segment/types.ts';
import { CorruptSegmentError, checkOnStartup } from '../../../shared/engine/codec/file-format.ts';
import { verifySegmentFiles } from '../../../shared/engine/segment/verify-segment-files.ts';
import { crashPoint } from '../../../shared/engine/store/fault-injection.ts';
import { releaseFreeNativeMemory } from '../../../shared/engine/store/native-heap.ts';
import { FilterCache } from '../../../shared/engine/search/filter-cache.ts';
import { fieldDataCache } from '../../../shared/engine/aggs/field-data-cache.ts';
import { VersionStore, type CopyCommit, type VersionEntry } from '../../../shared/engine/store/version-store.ts';
import type { DocState } from '../../../shared/engine/store/doc-state.ts';
import { docOpCodec, type DocOp } from '../../../shared/records/doc-op.ts';
import { applyDocOp, type DocOutcome } from './apply-doc-op.ts';
import type { PinnedContext, PinnedContexts, SearchMeta } from '../search/local-shard-client.ts';
import { errorToWire } from '../../../shared/errors/transport-errors.ts';
import { isEsError } from '../../../shared/errors/es-errors.ts';
import { readRecordBatch } from './record-batch.ts';
import { shardForDocument } from '../../../shared/routing/shard-routing.ts';
import { APPLY_RESULTS, DAMAGED_SEGMENT, SKIPPED, type ApplyReply, type CopyMeta, type OpenReply, type SegmentStats } from './protocol.ts';
import { DocStatesPacker, type PackedDocStates } from './doc-states-batch.ts';
import { CopyCounters, type CopyCounterFigures } from './copy-counters.ts';
import { MergeCancelled, MergeInputDamaged, mergeRunner } from './merge-runner.ts';

const EMPTY_DOC: ParsedDocument = { fields: [], dynamicUpdate: null };

/** Sources this large are parsed and indexed in steps, with turns of the worker's event loop between them. */
export const LARGE_SOURCE_BYTES = 1 << 20;
/** The longest stretch of a large document's indexing, an apply, a refresh or a commit between two turns. */
const STEP_MS = SLICE_MS;

/**
 * A commit follows a refresh once this long has passed since the last one
 * (or sooner, see MAX_UNCOMMITTED_OPS): a restart replays at most this much
 * of the log. Elasticsearch flushes by translog size (512 MB); time keeps the
 * replay short whatever the document size.
 */
export const COMMIT_INTERVAL_MS = 5_000;
/** Ops applied since the last commit that make the next refresh commit too (bounds the in-memory version map). */
export const MAX_UNCOMMITTED_OPS = 100_000;

/** CopyMeta turned back into the engine's objects. */
export interface WorkerIndexMeta extends SearchMeta {
  readonly uuid: string;
  readonly settings: CopyMeta['settings'];
  readonly mappingVersion: number;
  /** A rebuild in progress: a document the mapping refuses fails the rebuild (CopyMeta.rebuilding). */
  readonly rebuilding: boolean;
}

export function indexMetaOf(m: CopyMeta, previous: WorkerIndexMeta | null): WorkerIndexMeta {
  // Analyzers come from settings that never change after creation: keep the built registry.
  const analyzers = previous?.analyzers ?? AnalysisRegistry.fromIndexSettings(m.settings.analysis, { maxNgramDiff: m.settings.maxNgramDiff });
  let mapping = previous?.mapping ?? null;
  if (previous === null || previous.mappingVersion !== m.mappingVersion) {
    mapping =
      m.mappingJson === null || m.typeName === null
        ? null
        : Mapping.fromJSON(m.typeName, JSON.parse(m.mappingJson), { analyzerExists: (n: string) => analyzers.get(n) !== undefined });
  }
  return { name: m.name, uuid: m.uuid, settings: m.settings, mapping, mappingVersion: m.mappingVersion, analyzers, rebuilding: m.rebuilding };
}

export interface CopyEngineEvents {
  readonly onStats: (stats: SegmentStats) => void;
  readonly onError: (context: string, err: unknown) => void;
}

export class CopyEngine {
  readonly filterCache = new FilterCache();
  /** Views pinned by this copy's open search contexts, by the node's context id. */
  readonly contexts: PinnedContexts;
  private readonly pinned = new Map<number, PinnedContext>();
  /** When each scroll context among `pinned` opened (scroll stats). */
  private readonly scrolls = new Map<number, number>();
  private readonly counters = new CopyCounters();
  /** Version changes since the last commit, and those of a commit being written. */
  private pending = new Map<string, VersionEntry>();
  private committing: ReadonlyMap<string, VersionEntry> = new Map();
  /** Per partition the copy reads: the offset of the next record to apply, and what the last commit covers. */
  private readonly nextOffsets = new Map<number, number>();
  private committedOffsets = new Map<number, number>();
  /** A copy that reads every partition of a shared log keeps only the ops its shard routes. */
  private readonly filtersByRoute: boolean;
  /** seq_no of a record: its offset, or for a copy of a shared log offset * partitions + partition (unique and deterministic). */
  private readonly seqNoStride: number;
  private lastCommit = Date.now();
  private serial: Promise<unknown> = Promise.resolve();
  /** The end of the last task queued that may change what searches see (every task but applies). */
  private visible: Promise<unknown> = Promise.resolve();
  /** Searches under way (settled, never rejected): the next task that is not an apply waits for them. */
  private readonly searching = new Set<Promise<void>>();
  /** Those of `searching` whose task has started (no longer waiting for a task queued before them): what a background task waits for. */
  private readonly searchesStarted = new Set<Promise<void>>();
  /** While a refresh or commit runs in steps, what searches wait for (nothing); null otherwise. */
  private openInSteps: Promise<unknown> | null = null;
  /** Those of `searching` that started during such steps: a task queued earlier waits for them too when it starts. */
  private readonly searchingInSteps = new Set<Promise<void>>();
  private mergeScheduled = false;
  /** The policy's merges under way on the merge thread, null when none. */
  private merging: Promise<void> | null = null;
  /** `_forcemerge` calls under way: the policy plans nothing meanwhile. */
  private forcing = 0;
  /** A merge found a damaged segment file: nothing more is merged until the node resets the copy (DAMAGED_SEGMENT). */
  private damaged = false;
  private idleCommit: NodeJS.Timeout | null = null;
  /** A commit whose writing and fsyncs run beside the copy's queue (commitNow); settles when it is durable or failed. */
  private commitUnderWay: Promise<void> | null = null;
  private closed = false;

  private constructor(
    readonly shard: number,
    public meta: WorkerIndexMeta,
    private readonly dir: string,
    private store: VersionStore,
    private index: ShardIndex,
    commit: CopyCommit | null,
    private readonly events: CopyEngineEvents,
    private readonly partitions: readonly number[],
    logPartitions: number,
  ) {
    const shared = partitions.length !== 1 || partitions[0] !== shard;
    this.filtersByRoute = shared;
    this.seqNoStride = shared ? logPartitions : 1;
    for (const p of partitions) this.nextOffsets.set(p, 0);
    if (commit?.nextOffsets !== undefined) for (const [p, o] of commit.nextOffsets) this.nextOffsets.set(p, o);
    else if (commit !== null) this.nextOffsets.set(shard, commit.nextOffset);
    this.committedOffsets = new Map(this.nextOffsets);
    const pinned = this.pinned;
    this.contexts = {
      get: (id) => pinned.get(id),
      pin: (id, ctx) => {
        const old = pinned.get(id);
        pinned.set(id, ctx);
        this.index.pin(ctx.snapshot);
        if (old !== undefined) this.index.unpin(old.snapshot);
      },
      drop: (id) => this.dropContext(id),
    };
  }

  /**
   * Opens the copy in `dir` from its last commit. A copy whose files cannot
   * be used (a damaged or missing segment file, the format before segment
   * files) is emptied and rebuilt from the log: it starts from offset 0.
   */
  static async open(
    shard: number,
    meta: WorkerIndexMeta,
    dir: string,
    events: CopyEngineEvents,
    partitions: readonly number[] = [shard],
    logPartitions = partitions.length,
  ): Promise<{ engine: CopyEngine; reply: OpenReply }> {
    await mkdir(dir, { recursive: true });
    let reason: string | null = null;
    for (let attempt = 0; ; attempt++) {
      const store = await VersionStore.open(join(dir, 'versions'));
      try {
        if (await store.isLegacy()) throw new CorruptSegmentError('versions', 'written by the format that kept sources in the doc store');
        const commit = await store.lastCommit();
        const segments = join(dir, 'segments');
        await mkdir(segments, { recursive: true });
        // Every byte read first, by positional reads (several files at once): the maps then read only what queries touch.
        if (commit !== null && checkOnStartup(meta.settings.flat['index.shard.check_on_startup']) === 'checksum') {
          await verifySegmentFiles(segments, commit.segments.map((s) => s.id));
        }
        const index = ShardIndex.open(segments, meta.analyzers, commit ?? EMPTY_COMMIT, 'structure');
        const engine = new CopyEngine(shard, meta, dir, store, index, commit, events, partitions, logPartitions);
        const recovery = reason !== null ? 'rebuilt' : commit === null ? 'empty_store' : 'existing_store';
        return { engine, reply: { nextOffsets: [...engine.nextOffsets], recovery, reason } };
      } catch (err) {
        await store.close();
        if (attempt > 0 || !(err instanceof CorruptSegmentError)) throw err;
        reason = err.message;
        await wipe(dir);
      }
    }
  }

  /** Runs `task` after every earlier task of this copy (searches too: they see every apply posted before them). */
  run<T>(task: () => T | Promise<T>): Promise<T> {
    return this.exclusively(task);
  }

  private exclusively<T>(task: () => T | Promise<T>): Promise<T> {
    const after = this.searching.size === 0 ? this.serial : Promise.all([this.serial, ...this.searching]);
    // Searches may also start during the steps of a refresh or commit queued earlier (inSteps): those too.
    const run = after.then(() => (this.searchingInSteps.size === 0 ? undefined : Promise.all([...this.searchingInSteps]))).then(task);
    this.serial = run.catch(() => undefined);
    this.visible = this.serial;
    return run;
  }

  /**
   * A task of the copy's own (the idle commit, planning merges) that no
   * request waits for: queued after every earlier task as `exclusively`,
   * and it waits for the searches under way when it starts, but searches
   * that arrive while it is queued do not wait for it. Queued behind the
   * steps of a 10 MB document's apply, an idle commit made every search of
   * the copy wait for the rest of that apply (seconds; issue 11).
   *
   * Only the searches whose task has started: one still waiting may be
   * queued behind a task queued after this one (a refresh), which waits
   * for this one. Waiting for every search, this task waited for such a
   * search, the search for the refresh and the refresh for this task: the
   * copy answered nothing more, not even its close (a source shard of a
   * scroll `_reindex` under writes, at load 40).
   */
  private background<T>(task: () => T | Promise<T>): Promise<T> {
    const run = this.serial.then(() => (this.searchesStarted.size === 0 ? undefined : Promise.all([...this.searchesStarted]))).then(task);
    this.serial = run.catch(() => undefined);
    return run;
  }

  /**
   * Runs a search (a query or fetch phase) after every earlier task of this
   * copy but the applies: those change only the indexing buffer and the
   * pending deletes, which no search reads before the next refresh, so the
   * search answers the same as it would after them. Tasks queued later that
   * are not applies (refresh, commit, merges) wait for it.
   */
  search<T>(task: () => T | Promise<T>): Promise<T> {
    // Until it starts, the work it waits for does not wait for searches in flight (searches-first.ts).
    const waiting = searchWaiting();
    const run = this.visible.then(() => {
      waiting.started();
      return this.startSearch(task);
    });
    const done = settled(run);
    this.searching.add(done);
    if (this.visible === this.openInSteps) this.searchingInSteps.add(done);
    void done.then(() => {
      this.searching.delete(done);
      this.searchingInSteps.delete(done);
    });
    return run;
  }

  /** Runs a search's task, among `searchesStarted` until it settles. */
  private startSearch<T>(task: () => T | Promise<T>): Promise<T> {
    const run = new Promise<T>((resolve) => resolve(task()));
    const done = settled(run);
    this.searchesStarted.add(done);
    void done.then(() => this.searchesStarted.delete(done));
    return run;
  }

  /** Applies records of one partition; `end` is the offset after the batch they were taken from (see protocol.ts). */
  apply(partition: number, records: Uint8Array, end?: number): Promise<ApplyReply> {
    // Queued after everything, but not a point searches wait for (see search()).
    const run = this.serial.then(() => this.applyNow(partition, records, end));
    this.serial = run.catch(() => undefined);
    return run;
  }

  private async applyNow(partition: number, bytes: Uint8Array, end?: number): Promise<ApplyReply> {
    const { offsets, values } = readRecordBatch(bytes);
    const ops: DocOp[] = values.map((v) => docOpCodec.decode(v));
    const n = ops.length;
    const results = new Int8Array(n);
    const versions = new Float64Array(n);
    const seqNos = new Float64Array(n);
    let errors: (ReturnType<typeof errorToWire> | null)[] | null = null;
    let sources: (Uint8Array | null)[] | null = null;
    let refusal: string | null = null;
    const next = this.nextOffsets.get(partition);
    if (next === undefined) throw new Error(`[${this.meta.name}][${this.shard}] does not read partition ${partition} of its log`);
    if (n > 0 && offsets[0]! < next) {
      throw new Error(`[${this.meta.name}][${this.shard}] asked to apply offset ${offsets[0]} of partition ${partition} after ${next - 1}: applying twice would change outcomes`);
    }
    // A copy of a shared log keeps the ops its own routing gives its shard (the main thread already dropped the others).
    const mine = this.filtersByRoute ? ops.map((o) => shardForDocument(o.id, o.routing, this.meta.settings) === this.shard) : null;
    const current = await this.states(ops.filter((_, i) => mine === null || mine[i]).map((o) => o.id));
    const meta = this.meta;
    let clock = performance.now();
    const count = (kind: 'index' | 'delete' | 'noop' | 'failed') => {
      const now = performance.now();
      this.counters.applied(kind, now - clock);
      clock = now;
    };
    let slice = performance.now();
    for (let i = 0; i < n; i++) {
      // A batch of 2,000 documents holds the thread for tens of ms: searches answer between slices (see search()).
      if (performance.now() - slice >= STEP_MS || searchPostedHere()) {
        await yieldToSearches();
        slice = performance.now();
        clock = slice;
      }
      const op = ops[i]!;
      if (mine !== null && !mine[i]) {
        results[i] = SKIPPED;
        continue;
      }
      const offset = this.seqNoStride === 1 ? offsets[i]! : offsets[i]! * this.seqNoStride + partition;
      const coords = { index: meta.name, uuid: meta.uuid, shard: this.shard, type: op.type, id: op.id };
      let before = current.get(op.id);
      if (op.op === 'UPDATE' && before !== undefined && !before.deleted && before.source === null) {
        before = { ...before, source: this.sourceOf(op.id) };
      }
      let outcome: DocOutcome = applyDocOp(before, op, offset, coords);
      // A script's result was not validated by the coordinator: a document the mapping refuses fails the op here.
      let parsed: ParsedDocument | undefined;
      if (outcome.ok && op.update?.script && outcome.next !== null && !outcome.next.deleted) {
        try {
          parsed = this.parseStrict(outcome.next.source ?? EMPTY_SOURCE);
        } catch (err) {
          if (!isEsError(err)) throw err;
          outcome = { ok: false, error: err };
        }
      }
      // A rebuild replays documents the source's mapping accepted: one the new mapping refuses fails the rebuild.
      if (outcome.ok && meta.rebuilding && parsed === undefined && outcome.next !== null && !outcome.next.deleted) {
        try {
          parsed = this.parseStrict(outcome.next.source ?? EMPTY_SOURCE);
        } catch (err) {
          if (!isEsError(err)) throw err;
          outcome = { ok: false, error: err };
          refusal ??= `document [${op.id}] (offset ${offsets[i]} of partition ${partition} of the source's log): ${err.type}: ${err.message}`;
        }
      }
      if (!outcome.ok) {
        results[i] = -1;
        errors ??= new Array<null>(n).fill(null);
        errors[i] = errorToWire(outcome.error);
        count(op.op === 'DELETE' ? 'delete' : 'failed');
        continue;
      }
      results[i] = APPLY_RESULTS.indexOf(outcome.result);
      versions[i] = outcome.version;
      seqNos[i] = outcome.seqNo;
      if (op.op === 'UPDATE') {
        sources ??= new Array<null>(n).fill(null);
        sources[i] = outcome.source;
      }
      const next = outcome.next;
      if (next !== null) {
        current.set(op.id, next);
        this.pending.set(op.id, { version: next.version, seqNo: next.seqNo, deleted: next.deleted, routing: next.routing });
        if (next.deleted) {
          this.index.delete(op.id);
        } else if (parsed === undefined && next.source !== null && next.source.length >= LARGE_SOURCE_BYTES) {
          await this.indexLarge(op.id, next, before !== undefined && !before.deleted);
        } else {
          this.indexDoc(op.id, next, before !== undefined && !before.deleted, parsed);
        }
      }
      count(outcome.result === 'noop' ? 'noop' : outcome.result === 'deleted' || outcome.result === 'not_found' ? 'delete' : 'index');
    }
    const after = Math.max(n > 0 ? offsets[n - 1]! + 1 : next, end ?? next);
    this.nextOffsets.set(partition, after);
    return { results, versions, seqNos, errors, sources, refusal };
  }

  private indexDoc(id: string, state: DocState, mayReplace: boolean, parsed?: ParsedDocument): void {
    const source = state.source ?? EMPTY_SOURCE;
    const doc = { id, version: state.version, seqNo: state.seqNo, routing: state.routing, source, parsed: parsed ?? this.parse(source) };
    try {
      this.index.index(doc, mayReplace);
    } catch (err) {
      // The source lives only in the segments: keep the document stored, unsearchable by field, rather than lose it.
      this.events.onError(`indexing [${id}]`, err);
      this.index.index({ ...doc, parsed: EMPTY_DOC }, mayReplace);
    }
  }

  /**
   * indexDoc for a large source, in steps with turns of the event loop
   * between them (searches run there, see search()): each nested document
   * goes into the buffer as soon as its part of the JSON is read and parsed
   * (streamed-document.ts). Nothing else of the copy runs meanwhile, so no
   * refresh can show part of the document. A document that fails half way
   * leaves none of its nested documents and is stored without fields, as
   * indexDoc stores one the mapping refuses.
   */
  private async indexLarge(id: string, state: DocState, mayReplace: boolean): Promise<void> {
    const source = state.source ?? EMPTY_SOURCE;
    const doc = { id, version: state.version, seqNo: state.seqNo, routing: state.routing, source };
    const mapping = this.meta.mapping;
    if (mapping !== null) {
      const outcome = await runStepsInTurns(indexStreamedSteps(this.index, mapping, this.meta.settings.nestedObjectsLimit, doc, mayReplace), STEP_MS, yieldToSearches, searchPostedHere);
      if (outcome.ok) return;
      // A parse error means the mapping changed since the coordinator's check (as parseValue: not reported).
      if (outcome.indexing) this.events.onError(`indexing [${id}]`, outcome.error);
    }
    this.index.index({ ...doc, parsed: EMPTY_DOC }, mayReplace);
  }

  /** The version states of `ids` as of every op applied so far (sources not loaded). */
  private async states(ids: readonly string[]): Promise<Map<string, DocState | undefined>> {
    const out = new Map<string, DocState | undefined>();
    const missing: string[] = [];
    for (const id of ids) {
      if (out.has(id)) continue;
      const e = this.pending.get(id) ?? this.committing.get(id);
      if (e !== undefined) out.set(id, { ...e, source: null });
      else {
        out.set(id, undefined);
        missing.push(id);
      }
    }
    if (missing.length > 0) {
      const stored = await this.store.getMany(missing);
      missing.forEach((id, i) => {
        const e = stored[i];
        if (e !== undefined) out.set(id, { ...e, source: null });
      });
    }
    return out;
  }

  /** The live source of `id` (buffer or segment), copied out; null when there is none. */
  private sourceOf(id: string): Buffer | null {
    const at = this.index.locate(id);
    if (at === null) return null;
    return Buffer.from(this.index.stored(at).source);
  }

  /** The document as the mapping indexes it; throws the mapping's error (a script's result the mapping refuses). */
  private parseStrict(source: Buffer): ParsedDocument {
    const mapping = this.meta.mapping;
    if (mapping === null) return EMPTY_DOC;
    return mapping.parse(JSON.parse(source.toString('utf8')) as Record<string, unknown>, this.meta.settings.nestedObjectsLimit);
  }

  private parse(source: Buffer): ParsedDocument {
    if (this.meta.mapping === null) return EMPTY_DOC;
    let value: unknown;
    try {
      value = JSON.parse(source.toString('utf8'));
    } catch {
      return EMPTY_DOC;
    }
    return this.parseValue(value as Record<string, unknown>);
  }

  private parseValue(value: Record<string, unknown>): ParsedDocument {
    const mapping = this.meta.mapping;
    if (mapping === null) return EMPTY_DOC;
    try {
      // The index's own nested limit: with the default (10,000) a document the coordinator accepted under a higher one lost every field here.
      return mapping.parse(value, this.meta.settings.nestedObjectsLimit);
    } catch {
      // The coordinator validated the document against the mapping before
      // appending it; a failure here means the mapping changed in between.
      // The document stays stored and retrievable, only unsearchable by field.
      return EMPTY_DOC;
    }
  }

  /**
   * Realtime gets: every applied op counts, refreshed or not. A get comes
   * after every task queued before it, applies included, and applies wait
   * for it; it changes nothing searches read, so it neither waits for the
   * searches under way nor makes later ones wait (an `_mget` of 100,000 ids
   * is 400 gets per shard, each of which held the searches behind it).
   */
  get(ids: readonly string[]): Promise<{ packed: PackedDocStates; transfer: ArrayBuffer[] }> {
    const run = this.serial.then(async () => {
      const started = performance.now();
      const states = await this.states(ids);
      const packer = new DocStatesPacker(ids.length);
      let slice = performance.now();
      let found = 0;
      for (let i = 0; i < ids.length; i++) {
        // Thousands of ids read their sources for tens of ms: searches answer between slices (they change nothing a get reads).
        if ((i & 63) === 63 && performance.now() - slice >= STEP_MS) {
          await nextTurn();
          slice = performance.now();
        }
        const id = ids[i]!;
        const s = states.get(id);
        if (s === undefined || s.deleted) {
          packer.add(s ?? null, null);
          continue;
        }
        found++;
        const at = this.index.locate(id);
        packer.add(s, at === null ? null : this.index.stored(at).source);
      }
      const each = (performance.now() - started) / Math.max(1, ids.length);
      for (let i = 0; i < ids.length; i++) this.counters.get(i < found, each);
      return packer.finish();
    });
    this.serial = run.catch(() => undefined);
    return run;
  }

  /**
   * Runs the steps of a refresh or commit of the task running now, a turn of
   * the thread every STEP_MS, and lets the searches that arrive meanwhile
   * run in the turns: they see the view before the refresh until its last
   * step, which changes it at once; a commit's writing does not change what
   * they see. A search that arrives while a refresh is under way may see
   * the view before it as well as after (no request waiting for that
   * refresh has been answered yet). Applies and the tasks queued after this
   * one still wait for it, and for those searches.
   */
  private inSteps<T>(steps: Generator<void, T>): Promise<T> {
    return this.openWhile(() => runStepsInTurns(steps, STEP_MS, yieldToSearches, searchPostedHere));
  }

  /** Runs `work` (steps, or a commit's fsyncs off the thread) letting searches in meanwhile, as inSteps. */
  private async openWhile<T>(work: () => Promise<T>): Promise<T> {
    const before = this.visible;
    const open = Promise.resolve();
    this.visible = open;
    this.openInSteps = open;
    try {
      return await work();
    } finally {
      // Later searches wait again for the tasks queued before them (unless one was queued meanwhile, which set its own).
      if (this.visible === open) this.visible = before;
      this.openInSteps = null;
    }
  }

  refresh(): Promise<void> {
    return this.exclusively(async () => {
      const started = performance.now();
      const changed = await this.inSteps(this.index.refreshInSteps());
      this.counters.refreshed(performance.now() - started);
      if (changed) this.events.onStats(this.stats());
      // A periodic commit runs beside the applies (commitNow); one under way makes this refresh's unnecessary.
      const due = Date.now() - this.lastCommit >= COMMIT_INTERVAL_MS || this.pending.size >= MAX_UNCOMMITTED_OPS;
      if (due && this.commitUnderWay === null) await this.commitNow(true, false);
      else this.scheduleIdleCommit();
      this.scheduleMerge();
    });
  }

  /**
   * A copy that stops receiving writes still commits what it applied, once
   * the interval has passed (Elasticsearch flushes inactive shards the same
   * way): an idle copy's restart replays nothing.
   */
  private allCommitted(): boolean {
    for (const [p, o] of this.nextOffsets) if (this.committedOffsets.get(p) !== o) return false;
    return true;
  }

  private scheduleIdleCommit(): void {
    if (this.idleCommit !== null || this.allCommitted()) return;
    this.idleCommit = setTimeout(() => {
      this.idleCommit = null;
      if (this.closed || this.allCommitted()) return;
      this.background(() => this.commitNow(true))
        // Writes stopped: the C heap the load used goes back to the system (native-heap.ts).
        .then(() => releaseFreeNativeMemory())
        .catch((err: unknown) => this.events.onError('commit', err));
    }, COMMIT_INTERVAL_MS);
    this.idleCommit.unref();
  }

  /** Refreshes and commits now. */
  flush(): Promise<void> {
    return this.exclusively(() => this.commitNow(false));
  }

  /**
   * `_forcemerge`: commits (so the segments in memory are merged too), waits
   * for the policy's merge under way, merges as forcedMergePolicy says (on
   * the merge thread: writes go on meanwhile), and commits the result when
   * `flush` (Elasticsearch's default), so no merged segment waits for the
   * next commit to be durable.
   */
  async forceMerge(maxNumSegments: number, onlyExpungeDeletes: boolean, flush: boolean): Promise<void> {
    this.forcing++;
    try {
      await this.exclusively(() => this.commitNow(false));
      await this.merging;
      const policy = forcedMergePolicy(maxNumSegments, onlyExpungeDeletes);
      let merged = false;
      // Rounds: a segment count the size limit keeps above the target stops asking for more.
      for (let round = 0; round < 4; round++) {
        const plans = await this.exclusively(() => (this.closed || this.damaged ? [] : this.index.planMerges(policy)));
        if (plans.length === 0) break;
        await this.runMerges(plans);
        merged = true;
        if (maxNumSegments <= 0) break;
      }
      if (merged && flush) await this.exclusively(() => this.commitNow(false));
    } finally {
      this.forcing--;
      this.scheduleMerge();
    }
  }

  /**
   * `_cache/clear`: the copy's filter cache (Elasticsearch's query cache) is
   * emptied, and this thread's field data cache (global ordinals, term
   * hashes), which holds no copy's entries apart: every copy of the thread
   * rebuilds them on its next aggregation.
   */
  clearCache(): Promise<void> {
    return this.exclusively(() => {
      this.filterCache.clear();
      fieldDataCache.clear();
    });
  }

  /**
   * Every segment searches see now (`_segments`, `_cat/segments`). Read at
   * once, not behind the copy's queued work: monitoring must not wait for a
   * backlog of applies. Every operation already answered is in it.
   */
  segments(): ReturnType<ShardIndex['describeSegments']> {
    return this.index.describeSegments();
  }

  /** The copy's figures now (as `segments`, not queued): every operation already answered is counted. */
  statsNow(): SegmentStats {
    return this.stats();
  }

  /** A first query phase pinned `id` for a scroll: it counts as an open scroll until dropped. */
  markScroll(id: number): void {
    if (this.pinned.has(id)) this.scrolls.set(id, Date.now());
  }

  /** The worker's time for one query or fetch phase. */
  searched(phase: 'query' | 'fetch', ms: number): void {
    if (phase === 'query') this.counters.query(ms);
    else this.counters.fetch(ms);
  }

  /**
   * Refreshes, then commits what is applied at that moment: the segments
   * refreshes kept in memory written to disk as one, every file synced, and
   * the version changes and log offsets of that moment stored with the
   * commit point. Only the refresh holds the copy's queue: the writing and
   * the fsyncs run beside it, so the ops posted meanwhile are applied (a
   * bulk waited for every commit of its shards, seconds in a 1M load, and
   * the node's cores idled), and nothing they change goes into this commit.
   * The next commit, a close and a reset wait for it. Resolves when the
   * commit is durable when `wait`, otherwise once it is under way (its
   * failure is reported as the copy's error; what it covered stays pending
   * for the next).
   */
  private async commitNow(periodic: boolean, wait = true): Promise<void> {
    await this.commitUnderWay;
    const started = performance.now();
    await this.inSteps(this.index.refreshInSteps());
    const nextOffsets = new Map(this.nextOffsets);
    const steps = this.index.prepareCommitInSteps();
    this.committing = this.pending;
    this.pending = new Map();
    const durable = this.writeCommit(steps, nextOffsets, periodic, started);
    const underWay = settled(durable);
    this.commitUnderWay = underWay;
    void underWay.then(() => {
      if (this.commitUnderWay === underWay) this.commitUnderWay = null;
    });
    // Waited for (a flush, a close), it still lets searches in, as the steps of a refresh do.
    if (wait) return this.openWhile(() => durable);
    durable.catch((err: unknown) => this.events.onError('commit', err));
  }

  private async writeCommit(
    steps: Generator<void, PreparedCommit>,
    /** The log offsets applied when the commit began: what it covers. */
    nextOffsets: ReadonlyMap<number, number>,
    periodic: boolean,
    started: number,
  ): Promise<void> {
    let segments: SegmentsCommit;
    try {
      // The fsyncs run off the thread; the commit point is recorded only once they are done.
      segments = await this.index.syncCommit(await runStepsInTurns(steps, STEP_MS, yieldToSearches, searchPostedHere));
      crashPoint('commit-files-synced');
      const commit: CopyCommit = { ...segments, nextOffset: nextOffsets.get(this.shard) ?? 0, nextOffsets: [...nextOffsets] };
      await this.store.commit(this.committing, commit);
    } catch (err) {
      // Not durable: the changes stay pending for the next commit.
      for (const [id, e] of this.committing) if (!this.pending.has(id)) this.pending.set(id, e);
      this.committing = new Map();
      throw err;
    }
    this.committing = new Map();
    this.lastCommit = Date.now();
    this.committedOffsets = new Map(nextOffsets);
    crashPoint('commit-durable');
    this.index.removeUnused(segments);
    this.counters.flushed(performance.now() - started, periodic);
    this.events.onStats(this.stats());
  }

  /**
   * Plans the policy's merges after the messages already queued (searches
   * waiting behind a refresh go first) and has the merge thread write them;
   * one round at a time, the next planned when it is done.
   */
  private scheduleMerge(): void {
    if (this.mergeScheduled || this.merging !== null || this.forcing > 0 || this.closed || this.damaged) return;
    this.mergeScheduled = true;
    setImmediate(() => {
      this.mergeScheduled = false;
      void this.background(() => {
        if (this.closed || this.merging !== null || this.forcing > 0) return;
        const plans = this.index.planMerges(findMerges);
        if (plans.length === 0) return;
        this.merging = this.runMerges(plans)
          .catch((err: unknown) => this.events.onError('merge', err))
          .finally(() => {
            this.merging = null;
            // Merges that ran on after the writes stopped: what they used goes back too.
            if (this.allCommitted()) releaseFreeNativeMemory();
            this.scheduleMerge();
          });
      });
    });
  }

  /** Writes `plans` on the merge thread, one after the other, each put in place as it is done. */
  private async runMerges(plans: readonly MergePlan[]): Promise<void> {
    for (let i = 0; i < plans.length; i++) {
      const plan = plans[i]!;
      try {
        const done = await mergeRunner.run(this, join(this.dir, 'segments'), plan);
        await this.exclusively(() => {
          if (this.closed) return this.index.abandonMerge(plan);
          this.index.finishMerge(plan, done.written, done.ms);
          this.events.onStats(this.stats());
        });
      } catch (err) {
        // The rest will not run either; their inputs are free for the next plan.
        for (const p of plans.slice(i)) this.index.abandonMerge(p);
        if (err instanceof MergeCancelled) return;
        if (err instanceof MergeInputDamaged) {
          // The copy goes on answering from its segments until the node has it rebuilt from the log.
          this.damaged = true;
          this.events.onError(DAMAGED_SEGMENT, err);
          return;
        }
        throw err;
      }
    }
  }

  /** Stops the merges of this copy under way (it closes or resets); their files go. */
  private async stopMerges(): Promise<void> {
    await mergeRunner.cancel(this);
    await this.merging;
  }

  /** Empties the copy: it starts again from offset 0 of the log. */
  async reset(): Promise<OpenReply> {
    this.forcing++;
    await this.stopMerges();
    return this.exclusively(async () => {
      this.forcing--;
      await this.commitUnderWay;
      this.damaged = false;
      this.dropAllContexts();
      this.index.close();
      await this.store.close();
      await wipe(this.dir);
      this.store = await VersionStore.open(join(this.dir, 'versions'));
      await mkdir(join(this.dir, 'segments'), { recursive: true });
      this.index = ShardIndex.open(join(this.dir, 'segments'), this.meta.analyzers, EMPTY_COMMIT);
      this.pending = new Map();
      for (const p of this.partitions) this.nextOffsets.set(p, 0);
      this.committedOffsets = new Map(this.nextOffsets);
      this.events.onStats(this.stats());
      return { nextOffsets: [...this.nextOffsets], recovery: 'empty_store' as const, reason: null };
    });
  }

  acquireSnapshot(): SearcherSnapshot {
    return this.index.acquireSnapshot();
  }

  /** Drops a pinned view; false when this copy had none under that id. */
  dropContext(id: number): boolean {
    const ctx = this.pinned.get(id);
    if (ctx === undefined) return false;
    this.pinned.delete(id);
    this.index.unpin(ctx.snapshot);
    const openedAt = this.scrolls.get(id);
    if (openedAt !== undefined) {
      this.scrolls.delete(id);
      this.counters.scrollClosed(Date.now() - openedAt);
    }
    return true;
  }

  private dropAllContexts(): void {
    for (const id of [...this.pinned.keys()]) this.dropContext(id);
  }

  stats(): SegmentStats {
    const s = this.index;
    let memory = 0;
    const fileSizes: Record<string, number> = {};
    for (const d of s.describeSegments()) {
      memory += d.memoryInBytes;
      for (const [ext, bytes] of Object.entries(d.files)) fileSizes[ext] = (fileSizes[ext] ?? 0) + bytes;
    }
    return {
      docCount: s.docCount,
      deletedCount: s.deletedCount,
      sizeInBytes: s.sizeInBytes,
      segmentCount: s.segmentCount,
      committedOffset: sum(this.committedOffsets),
      segmentMemoryBytes: memory,
      versionMapEntries: this.pending.size + this.committing.size,
      fileSizes,
      counters: this.counterFigures(),
    };
  }

  private counterFigures(): CopyCounterFigures {
    const merges = this.index.merges;
    const cache = this.filterCache;
    return {
      ...this.counters.c,
      scrollCurrent: this.scrolls.size,
      openContexts: this.pinned.size,
      mergeTotal: merges.total,
      mergeDocs: merges.docs,
      mergeBytes: merges.bytes,
      mergeTimeMs: merges.timeMs,
      queryCacheHits: cache.hits,
      queryCacheMisses: cache.misses,
      queryCacheCached: cache.cached,
      queryCacheEvictions: cache.evictions,
      queryCacheBytes: cache.sizeInBytes,
      queryCacheEntries: cache.size,
    };
  }

  /** Stops the copy, after a commit when `flush` (a clean shutdown: the restart replays nothing). */
  async close(flush: boolean): Promise<void> {
    this.forcing++;
    await this.stopMerges();
    return this.exclusively(async () => {
      this.forcing--;
      if (this.closed) return;
      if (flush) await this.commitNow(false).catch((err: unknown) => this.events.onError('flush on close', err));
      await this.commitUnderWay;
      // Searches may have started between the commit's steps: they read the segments about to be unmapped.
      while (this.searchingInSteps.size > 0) await Promise.all([...this.searchingInSteps]);
      this.closed = true;
      if (this.idleCommit !== null) clearTimeout(this.idleCommit);
      this.dropAllContexts();
      this.index.close();
      await this.store.close();
    });
  }
}

const EMPTY_SOURCE = Buffer.from('{}');

/** Resolves when `p` settles, never rejects. */
function settled(p: Promise<unknown>): Promise<void> {
  return p.then(
    () => undefined,
    () => undefined,
  );
}

function sum(offsets: ReadonlyMap<number, number>): number {
  let n = 0;
  for (const o of offsets.values()) n += o;
  return n;
}

/** Removes a copy's files (its directory stays). */
async function wipe(dir: string): Promise<void> {
  await rm(join(dir, 'versions'), { recursive: true, force: true });
  await rm(join(dir, 'segments'), { recursive: true, force: true });
}
