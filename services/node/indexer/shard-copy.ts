/**
 * One copy of one shard (DESIGN.md 2 and 3), as the main thread sees it:
 * consumes its partition of the index topic in offset order (a copy of an
 * index made by a rebuild: every partition of the log it shares with the
 * index it was rebuilt from, keeping its shard's ops), hands each batch
 * to the copy's engine in its shard worker (which applies, indexes and
 * stores it, copy-engine.ts), and tells the coordinators waiting for those
 * ops their outcomes. Realtime gets, refreshes and searches go to the engine.
 *
 * The engine's last commit says where to resume: a restarted copy opens its
 * segment files and replays only the log after that commit.
 */
import { mkdir } from 'node:fs/promises';
import type { CommitLog, LogRecord, Subscription } from '../../../shared/log/commit-log.ts';
import type { EsError } from '../../../shared/errors/es-errors.ts';
import { errorFromWire } from '../../../shared/errors/transport-errors.ts';
import type { DocState } from '../../../shared/engine/store/doc-state.ts';
import { docOpHeader, docOpRoute } from '../../../shared/records/doc-op.ts';
import { shardForDocument } from '../../../shared/routing/shard-routing.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import type { SearchContexts } from '../search/search-contexts.ts';
import { EngineHandle } from '../shard-worker/engine-handle.ts';
import { APPLY_RESULTS, DAMAGED_SEGMENT, SKIPPED, type ApplyReply, type OpenReply } from '../shard-worker/protocol.ts';
import type { ShardWorkers } from '../shard-worker/shard-workers.ts';
import { WorkerShardClient } from '../shard-worker/worker-shard-client.ts';
import type { DocOutcome } from '../shard-worker/apply-doc-op.ts';
import { OutcomeRing } from './outcome-ring.ts';
import { traceApply, type Attributes } from '../../../shared/telemetry/spans.ts';
import type { SlowLog } from '../search/slow-log.ts';
import { ATTR_INDEX, ATTR_MESSAGING_DESTINATION_NAME, ATTR_MESSAGING_DESTINATION_PARTITION_ID, ATTR_SHARD } from '../../../shared/telemetry/attributes.ts';
import { writeSlice } from '../../../shared/steps/searches-first.ts';

export type OutcomeListener = (item: number, outcome: DocOutcome, offset: number) => void;

interface OffsetWaiter {
  readonly offset: number;
  readonly resolve: () => void;
}

export interface ShardCopyOptions {
  readonly dir: string;
  readonly log: CommitLog;
  readonly topic: string;
  readonly shard: number;
  /** The partitions of the topic the copy reads (partitionsOf), and how many the topic has. */
  readonly partitions: readonly number[];
  readonly logPartitions: number;
  /** The index's current metadata (mapping, analyzers, settings). */
  readonly meta: () => IndexMetadata;
  /** The threads that hold the copies' engines. */
  readonly workers: ShardWorkers;
  readonly onError: (err: Error) => void;
  /** Something the node's log should say about the copy (a rebuild and why). */
  readonly onNotice?: (message: string) => void;
  /** The node's slow logs: slow applied batches here, slow query and fetch phases in its search client. */
  readonly slowLog?: SlowLog;
}

/** Records handed to the engine in one message (a recovery replays millions). */
const MAX_APPLY_BATCH = 2000;

/** Delays before following the log again after a failed read: doubling from the first up to the last. */
const FOLLOW_RETRY_FIRST_MS = 100;
const FOLLOW_RETRY_MAX_MS = 5000;

/** "The shard's own partition" where a partition is asked for (see ShardCopy.part). */
export const OWN_PARTITION = -1;

/** A copy's progress through one partition of its log. */
class PartitionProgress {
  applied = 0;
  /** Every op below this offset is visible to searches. */
  refreshed = 0;
  appliedWaiters: OffsetWaiter[] = [];
  refreshWaiters: OffsetWaiter[] = [];
  subscription: Subscription | null = null;
  /** Reads of the log that failed in a row (the delay before following again grows with it). */
  readFailures = 0;

  constructor(readonly partition: number) {}
}

export class ShardCopy {
  readonly shard: number;
  /** How the copy opened (for `_cat/recovery`). */
  opened: OpenReply;
  /** Outcomes of recent ops by seq_no, for coordinators on other nodes (WAIT_OUTCOMES). */
  readonly outcomes = new OutcomeRing();
  /**
   * The engine reopened after its worker died and is replaying the log up to
   * where it was: searches would see part of its documents meanwhile.
   */
  rebuilding = false;
  /**
   * Opened emptied (a damaged segment file, a commit beyond the log's end) and replaying all of the log:
   * until it starts it holds part of its documents and answers no search. (A copy catching up from its
   * last commit is searched meanwhile on one node: it holds every document as of that commit.)
   */
  private emptiedAtOpen = false;
  /** A rebuild in progress: why this copy could not apply a document of the source's log (the rebuild fails). */
  rebuildFailure: string | null = null;
  /** Resolves once a reopened engine applied again every op the copy had applied (realtime gets wait for it). */
  private caughtUp: Promise<void> = Promise.resolve();
  private readonly listeners = new Map<string, OutcomeListener>();
  private readonly parts = new Map<number, PartitionProgress>();
  /** seq_no of a record: its offset, or offset * partitions + partition for a copy of a shared log (copy-engine.ts). */
  private readonly seqNoStride: number;
  private refreshTimer: NodeJS.Timeout | null = null;
  private refreshIntervalMs = -1;
  private closing = false;

  private constructor(
    private readonly opts: ShardCopyOptions,
    /** The copy's engine, in a shard worker. */
    readonly engine: EngineHandle,
    opened: OpenReply,
  ) {
    this.shard = opts.shard;
    this.opened = opened;
    for (const p of opts.partitions) this.parts.set(p, new PartitionProgress(p));
    this.seqNoStride = opts.partitions.length === 1 && opts.partitions[0] === opts.shard ? 1 : opts.logPartitions;
    this.setOffsets(opened);
  }

  get indexName(): string {
    return this.opts.meta().name;
  }

  private setOffsets(reply: OpenReply): void {
    for (const [p, offset] of reply.nextOffsets) {
      const part = this.parts.get(p);
      if (part === undefined) continue;
      part.applied = offset;
      part.refreshed = offset;
    }
  }

  /**
   * Progress through `partition`; OWN_PARTITION is the shard's own partition,
   * or for a copy of a shared log its first (offset 0 of any of them is a
   * refresh or flush of everything applied).
   */
  private part(partition: number): PartitionProgress {
    if (partition === OWN_PARTITION) return this.parts.get(this.shard) ?? this.parts.get(this.opts.partitions[0]!)!;
    const p = this.parts.get(partition);
    if (p === undefined) throw new Error(`copy [${this.opts.topic}][${this.shard}] does not read partition ${partition}`);
    return p;
  }

  /** Ops applied so far, over every partition the copy reads (one: the offset of the next record). */
  get appliedOffset(): number {
    let n = 0;
    for (const p of this.parts.values()) n += p.applied;
    return n;
  }

  /** Every op whose seq_no is below this is visible to searches. */
  get refreshedOffset(): number {
    if (this.seqNoStride === 1) return this.part(this.shard).refreshed;
    let min = Infinity;
    for (const p of this.parts.values()) min = Math.min(min, p.refreshed);
    return min * this.seqNoStride;
  }

  /** Every op below this offset of `partition` is visible to searches. */
  refreshedOffsetOf(partition: number): number {
    return this.part(partition).refreshed;
  }

  /** The offset of the next record to apply of one partition. */
  appliedOffsetOf(partition: number): number {
    return this.part(partition).applied;
  }

  /** The partitions of its log the copy reads. */
  get partitions(): readonly number[] {
    return this.opts.partitions;
  }

  /** The outcome of the record at `offset` of `partition`, while the copy remembers it. */
  outcomeAt(partition: number, offset: number): DocOutcome | undefined {
    const p = this.part(partition).partition;
    return this.outcomes.get(this.seqNoStride === 1 ? offset : offset * this.seqNoStride + p);
  }

  static async open(opts: ShardCopyOptions): Promise<ShardCopy> {
    await mkdir(opts.dir, { recursive: true });
    let copy: ShardCopy | null = null;
    const { handle, opened } = EngineHandle.open(opts.workers, opts.shard, opts.meta(), opts.dir, {
      onError: (context, err) => {
        if (context === DAMAGED_SEGMENT) copy?.rebuildDamaged(err.reason);
        else opts.onError(Object.assign(err, { message: `${context}: ${err.message}` }));
      },
      reopened: (reply) => copy?.reopened(reply),
    });
    const reply = await opened;
    if (reply.recovery === 'rebuilt') opts.onNotice?.(`[${opts.topic}][${opts.shard}] rebuilding from the log: ${reply.reason}`);
    copy = new ShardCopy(opts, handle, reply);
    // The log lost records the copy had applied (an OS crash with log.fsync off): the copy would
    // skip the offsets new writes get. It is emptied and rebuilt from what the log still holds.
    for (const p of opts.partitions) {
      const end = await opts.log.highWatermark(opts.topic, p);
      const applied = copy.appliedOffsetOf(p);
      if (applied <= end) continue;
      opts.onNotice?.(
        `[${opts.topic}][${opts.shard}] applied up to offset ${applied}${opts.partitions.length > 1 ? ` of partition ${p}` : ''} but the log ends at ${end}: rebuilding the copy from the log`,
      );
      copy.opened = { ...(await handle.reset()), recovery: 'rebuilt', reason: `the log ends at ${end}, before the copy's offset` };
      copy.setOffsets(copy.opened);
      break;
    }
    copy.emptiedAtOpen = copy.opened.recovery === 'rebuilt';
    return copy;
  }

  /** The copy's data directory. */
  get dir(): string {
    return this.opts.dir;
  }

  /** Live docs visible to searches, as of the worker's last report. */
  get docCount(): number {
    return this.engine.stats.docCount;
  }

  get deletedCount(): number {
    return this.engine.stats.deletedCount;
  }

  get sizeInBytes(): number {
    return this.engine.stats.sizeInBytes;
  }

  get segmentCount(): number {
    return this.engine.stats.segmentCount;
  }

  /** The copy's query and fetch phases, with contexts kept in `contexts`. */
  searchClient(meta: IndexMetadata, contexts: SearchContexts): WorkerShardClient {
    return new WorkerShardClient(this.engine, () => this.rebuilding || this.emptiedAtOpen, meta, contexts, this.opts.slowLog ?? null);
  }

  /** Applies the log from the copy's offsets on. */
  start(): void {
    for (const p of this.parts.values()) this.follow(p);
    this.scheduleRefresh();
  }

  /** Everything the log held when the copy opened is applied and searchable: it serves searches. */
  caughtUpAtOpen(): void {
    this.emptiedAtOpen = false;
  }

  private follow(part: PartitionProgress): void {
    let handlerFailed = false;
    const apply = async (records: readonly LogRecord[]): Promise<void> => {
      try {
        await this.applyBatch(part, records);
        part.readFailures = 0;
      } catch (err) {
        handlerFailed = true;
        throw err;
      }
    };
    const subscription = this.opts.log.follow(
      this.opts.topic,
      part.partition,
      part.applied,
      // One span per applied batch, in the trace of the write that produced it (context in the record headers).
      (records) => traceApply(records, this.applySpanAttributes(part.partition), () => apply(records)),
      { maxBatch: MAX_APPLY_BATCH, onError: (err) => this.applyFailed(part, subscription, err, handlerFailed) },
    );
    part.subscription = subscription;
  }

  /**
   * Following stopped. A failed read of the log (a broker not ready, a
   * metadata answer missing the topic for a moment) is followed again after a
   * growing delay: otherwise the copy would stay started while applying
   * nothing, and every write waiting for it would time out. A failed apply is
   * the engine's (its worker's death reopens the copy: `reopened`).
   */
  private applyFailed(part: PartitionProgress, failed: Subscription, err: Error, handlerFailed: boolean): void {
    if (this.closing) return;
    this.opts.onError(err);
    if (handlerFailed) return;
    const delay = Math.min(FOLLOW_RETRY_MAX_MS, FOLLOW_RETRY_FIRST_MS * 2 ** part.readFailures++);
    setTimeout(() => {
      // Closed, or reopened meanwhile (that follows the log again itself).
      if (this.closing || this.rebuilding || part.subscription !== failed) return;
      this.follow(part);
    }, delay).unref();
  }

  /**
   * A merge found one of the copy's segment files damaged (its checksum: damaged since the open, or the
   * open did not read it, `index.shard.check_on_startup: false`): the copy is emptied and rebuilt from the log,
   * refusing searches (and counted initializing) until it caught up, as after a damaged open.
   */
  private rebuildDamaged(reason: string): void {
    if (this.closing || this.rebuilding) return;
    this.opts.onNotice?.(`[${this.opts.topic}][${this.shard}] rebuilding from the log: ${reason}`);
    this.reopened(this.engine.reset());
  }

  /** The worker holding the engine died: follow the log again from where its last commit left the copy. */
  private reopened(opening: Promise<OpenReply>): void {
    if (this.closing) return;
    const reached = [...this.parts.values()].map((p) => [p.partition, p.applied] as const);
    this.rebuilding = true;
    const replay = (async () => {
      await Promise.all([...this.parts.values()].map((p) => p.subscription?.close()));
      const reply = await opening;
      if (this.closing) return;
      for (const [p, offset] of reply.nextOffsets) {
        const part = this.parts.get(p);
        if (part !== undefined) part.applied = offset;
      }
      for (const p of this.parts.values()) this.follow(p);
      await Promise.all(reached.map(([p, offset]) => this.waitForApplied(offset, p)));
    })();
    this.caughtUp = replay.catch(() => undefined);
    void replay
      .then(async () => {
        this.refresh();
        await this.engine.settled();
        this.rebuilding = false;
      })
      .catch((err: Error) => this.opts.onError(err));
  }

  private applySpanAttributes(partition: number): Attributes {
    return {
      [ATTR_MESSAGING_DESTINATION_NAME]: this.opts.topic,
      [ATTR_MESSAGING_DESTINATION_PARTITION_ID]: String(partition),
      [ATTR_INDEX]: this.opts.meta().name,
      [ATTR_SHARD]: this.shard,
    };
  }

  /** Listens for outcomes of the ops appended under `requestId`; returns the unsubscribe function. */
  listen(requestId: string, listener: OutcomeListener): () => void {
    this.listeners.set(requestId, listener);
    return () => this.listeners.delete(requestId);
  }

  private async applyBatch(part: PartitionProgress, records: readonly LogRecord[]): Promise<void> {
    if (this.closing) return;
    const meta = this.opts.meta();
    this.engine.syncMeta(meta);
    const next = records[records.length - 1]!.offset + 1;
    // A copy of a shared log (a rebuild with another shard count) reads every partition: the ops routed to
    // other shards are dropped here, from their id and routing alone, so the worker neither receives nor decodes them.
    const mine = this.seqNoStride === 1 ? records : records.filter((r) => this.routesHere(r, meta));
    const slowLog = this.opts.slowLog?.watches(meta, 'index') ? this.opts.slowLog : null;
    const started = slowLog === null ? 0 : performance.now();
    const reply = await this.engine.apply(part.partition, mine, next);
    slowLog?.record(meta, this.shard, 'index', performance.now() - started, mine.length);
    if (reply.refusal != null && this.rebuildFailure === null) {
      this.rebuildFailure = reply.refusal;
      this.opts.onNotice?.(`[${meta.name}][${this.shard}] the rebuild's mapping refuses ${reply.refusal}`);
    }
    // Up to 2,000 outcomes, each handed to the write waiting for it: on the HTTP thread, so in time slices (issue 11).
    const clock = writeSlice();
    for (let i = 0; i < mine.length; i++) {
      if ((i & 127) === 127 && clock.due()) await clock.pause();
      if (reply.results[i] === SKIPPED) continue;
      const outcome = outcomeOf(reply, i);
      const offset = mine[i]!.offset;
      this.outcomes.record(this.seqNoStride === 1 ? offset : offset * this.seqNoStride + part.partition, outcome);
      if (this.listeners.size === 0) continue;
      const { requestId, item } = docOpHeader(mine[i]!.value);
      const l = this.listeners.get(requestId);
      if (l) l(item, outcome, offset);
    }
    part.applied = next;
    part.appliedWaiters = resolveUpTo(part.appliedWaiters, next);
  }

  /** Whether a record of a shared log routes to this copy's shard (Elasticsearch's formula, as the writer routed it). */
  private routesHere(record: LogRecord, meta: IndexMetadata): boolean {
    const { id, routing } = docOpRoute(record.value);
    return shardForDocument(id, routing, meta.settings) === this.shard;
  }

  /** Resolves once every op below `offset` of `partition` (the copy's own by default) has been applied. */
  waitForApplied(offset: number, partition = OWN_PARTITION): Promise<void> {
    const part = this.part(partition);
    if (part.applied >= offset) return Promise.resolve();
    return new Promise((resolve) => part.appliedWaiters.push({ offset, resolve }));
  }

  /** Resolves once every op below `offset` of `partition` is visible to searches (`refresh=wait_for`). */
  waitForRefresh(offset: number, partition = OWN_PARTITION): Promise<void> {
    const part = this.part(partition);
    if (part.refreshed >= offset) return Promise.resolve();
    const p = new Promise<void>((resolve) => part.refreshWaiters.push({ offset, resolve }));
    if (this.refreshIntervalMs < 0) this.refresh();
    return p;
  }

  /** Every applied op counts as searchable from here (a refresh, flush or merge was posted to the worker). */
  private markRefreshed(): void {
    for (const p of this.parts.values()) {
      p.refreshed = p.applied;
      p.refreshWaiters = resolveUpTo(p.refreshWaiters, p.refreshed);
    }
  }

  private get refreshWaiting(): boolean {
    for (const p of this.parts.values()) if (p.refreshWaiters.length > 0) return true;
    return false;
  }

  /** Resolves once the engine handled what was sent to it so far and reported its figures (see EngineHandle.settled). */
  segmentsSettled(): Promise<void> {
    return this.engine.settled();
  }

  /** Makes every applied op searchable now. */
  refresh(): void {
    // Searches are posted to the worker behind the refresh, so they see it: the ops are searchable from here on.
    this.engine.refresh();
    this.markRefreshed();
  }

  /** Makes every applied op durable in segment files (`_flush`). */
  async flush(): Promise<void> {
    const done = this.engine.flush();
    this.markRefreshed();
    await done;
  }

  /** `_forcemerge`: merged (and committed with `flush`) once this resolves; every applied op is searchable after. */
  async forceMerge(maxNumSegments: number, onlyExpungeDeletes: boolean, flush: boolean): Promise<void> {
    const done = this.engine.forceMerge(maxNumSegments, onlyExpungeDeletes, flush);
    this.markRefreshed();
    await done;
  }

  /** (Re)arms the periodic refresh from the index's `refresh_interval`. */
  scheduleRefresh(): void {
    const interval = this.opts.meta().settings.refreshIntervalMs;
    if (interval === this.refreshIntervalMs && (this.refreshTimer !== null || interval < 0)) return;
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.refreshTimer = null;
    this.refreshIntervalMs = interval;
    if (interval > 0) {
      this.refreshTimer = setInterval(() => {
        if (this.engine.pendingOps > 0 || this.refreshWaiting) this.refresh();
      }, interval);
      this.refreshTimer.unref();
    }
  }

  /** Realtime get: the engine answers after every op applied so far. */
  async get(id: string): Promise<DocState | undefined> {
    return (await this.getMany([id]))[0];
  }

  async getMany(ids: readonly string[]): Promise<(DocState | undefined)[]> {
    // A reopened engine answers from its last commit until the replay catches up: not realtime yet.
    if (this.rebuilding) await this.caughtUp;
    const states = await this.engine.get(ids);
    return states.map((s) =>
      s === null ? undefined : { ...s, source: s.source === null ? null : Buffer.from(s.source.buffer, s.source.byteOffset, s.source.byteLength) },
    );
  }

  /** Stops applying; `flush` commits first (a clean shutdown: nothing to replay at the next start). */
  async close(flush = true): Promise<void> {
    this.closing = true;
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    await Promise.all([...this.parts.values()].map((p) => p.subscription?.close()));
    await this.engine.close(flush);
  }
}

function outcomeOf(reply: ApplyReply, i: number): DocOutcome {
  const code = reply.results[i]!;
  if (code < 0) return { ok: false, error: errorFromWire(reply.errors![i]!) as EsError };
  const source = reply.sources?.[i] ?? null;
  return {
    ok: true,
    result: APPLY_RESULTS[code]!,
    version: reply.versions[i]!,
    seqNo: reply.seqNos[i]!,
    next: null,
    source: source === null ? null : Buffer.from(source.buffer, source.byteOffset, source.byteLength),
  };
}

function resolveUpTo(waiters: OffsetWaiter[], offset: number): OffsetWaiter[] {
  if (waiters.length === 0) return waiters;
  const rest: OffsetWaiter[] = [];
  for (const w of waiters) {
    if (w.offset <= offset) w.resolve();
    else rest.push(w);
  }
  return rest;
}
