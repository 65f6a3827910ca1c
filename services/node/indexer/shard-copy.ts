/**
 * One copy of one shard (DESIGN.md 2 and 3), as the main thread sees it:
 * consumes its partition of the index topic in offset order, hands each batch
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
import { errorFromWire } from '../transport/transport-errors.ts';
import type { DocState } from '../../../shared/engine/store/doc-state.ts';
import { docOpHeader } from '../../../shared/records/doc-op.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import type { SearchContexts } from '../search/search-contexts.ts';
import { EngineHandle } from '../shard-worker/engine-handle.ts';
import { APPLY_RESULTS, type ApplyReply, type OpenReply } from '../shard-worker/protocol.ts';
import type { ShardWorkers } from '../shard-worker/shard-workers.ts';
import { WorkerShardClient } from '../shard-worker/worker-shard-client.ts';
import type { DocOutcome } from './apply-doc-op.ts';
import { OutcomeRing } from './outcome-ring.ts';
import { traceApply, type Attributes } from '../../../shared/telemetry/spans.ts';
import { ATTR_INDEX, ATTR_MESSAGING_DESTINATION_NAME, ATTR_MESSAGING_DESTINATION_PARTITION_ID, ATTR_SHARD } from '../../../shared/telemetry/attributes.ts';

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
  /** The index's current metadata (mapping, analyzers, settings). */
  readonly meta: () => IndexMetadata;
  /** The threads that hold the copies' engines. */
  readonly workers: ShardWorkers;
  readonly onError: (err: Error) => void;
  /** Something the node's log should say about the copy (a rebuild and why). */
  readonly onNotice?: (message: string) => void;
}

/** Records handed to the engine in one message (a recovery replays millions). */
const MAX_APPLY_BATCH = 2000;

export class ShardCopy {
  readonly shard: number;
  /** Offset of the next record to apply. */
  appliedOffset = 0;
  /** Every op below this offset is visible to searches. */
  refreshedOffset = 0;
  /** How the copy opened (for `_cat/recovery`). */
  opened: OpenReply;
  /** Outcomes of recent ops, for coordinators on other nodes (WAIT_OUTCOMES). */
  readonly outcomes = new OutcomeRing();
  /**
   * The engine reopened after its worker died and is replaying the log up to
   * where it was: searches would see part of its documents meanwhile.
   */
  rebuilding = false;
  /** Resolves once a reopened engine applied again every op the copy had applied (realtime gets wait for it). */
  private caughtUp: Promise<void> = Promise.resolve();
  private readonly listeners = new Map<string, OutcomeListener>();
  private appliedWaiters: OffsetWaiter[] = [];
  private refreshWaiters: OffsetWaiter[] = [];
  private subscription: Subscription | null = null;
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
    this.appliedOffset = opened.nextOffset;
    this.refreshedOffset = opened.nextOffset;
  }

  static async open(opts: ShardCopyOptions): Promise<ShardCopy> {
    await mkdir(opts.dir, { recursive: true });
    let copy: ShardCopy | null = null;
    const { handle, opened } = EngineHandle.open(opts.workers, opts.shard, opts.meta(), opts.dir, {
      onError: (context, err) => opts.onError(Object.assign(err, { message: `${context}: ${err.message}` })),
      reopened: (reply) => copy?.reopened(reply),
    });
    const reply = await opened;
    if (reply.recovery === 'rebuilt') opts.onNotice?.(`[${opts.topic}][${opts.shard}] rebuilding from the log: ${reply.reason}`);
    copy = new ShardCopy(opts, handle, reply);
    // The log lost records the copy had applied (an OS crash with log.fsync off): the copy would
    // skip the offsets new writes get. It is emptied and rebuilt from what the log still holds.
    const end = await opts.log.highWatermark(opts.topic, opts.shard);
    if (copy.appliedOffset > end) {
      opts.onNotice?.(
        `[${opts.topic}][${opts.shard}] applied up to offset ${copy.appliedOffset} but the log ends at ${end}: rebuilding the copy from the log`,
      );
      copy.opened = await handle.reset();
      copy.opened = { ...copy.opened, recovery: 'rebuilt', reason: `the log ends at ${end}, before the copy's offset` };
      copy.appliedOffset = 0;
      copy.refreshedOffset = 0;
    }
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
    return new WorkerShardClient(this.engine, () => this.rebuilding, meta, contexts);
  }

  /** Applies the log from the copy's offset on. */
  start(): void {
    this.follow();
    this.scheduleRefresh();
  }

  private follow(): void {
    this.subscription = this.opts.log.follow(
      this.opts.topic,
      this.shard,
      this.appliedOffset,
      // One span per applied batch, in the trace of the write that produced it (context in the record headers).
      (records) => traceApply(records, this.applySpanAttributes(), () => this.applyBatch(records)),
      { maxBatch: MAX_APPLY_BATCH, onError: (err) => this.applyFailed(err) },
    );
  }

  private applyFailed(err: Error): void {
    if (this.closing) return;
    this.opts.onError(err);
  }

  /** The worker holding the engine died: follow the log again from where its last commit left the copy. */
  private reopened(opening: Promise<OpenReply>): void {
    if (this.closing) return;
    const reached = this.appliedOffset;
    this.rebuilding = true;
    const replay = (async () => {
      await this.subscription?.close();
      const reply = await opening;
      if (this.closing) return;
      this.appliedOffset = reply.nextOffset;
      this.follow();
      await this.waitForApplied(reached);
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

  private applySpanAttributes(): Attributes {
    return {
      [ATTR_MESSAGING_DESTINATION_NAME]: this.opts.topic,
      [ATTR_MESSAGING_DESTINATION_PARTITION_ID]: String(this.shard),
      [ATTR_INDEX]: this.opts.meta().name,
      [ATTR_SHARD]: this.shard,
    };
  }

  /** Listens for outcomes of the ops appended under `requestId`; returns the unsubscribe function. */
  listen(requestId: string, listener: OutcomeListener): () => void {
    this.listeners.set(requestId, listener);
    return () => this.listeners.delete(requestId);
  }

  private async applyBatch(records: readonly LogRecord[]): Promise<void> {
    if (this.closing) return;
    this.engine.syncMeta(this.opts.meta());
    const reply = await this.engine.apply(records);
    const next = records[records.length - 1]!.offset + 1;
    for (let i = 0; i < records.length; i++) {
      const outcome = outcomeOf(reply, i);
      const offset = records[i]!.offset;
      this.outcomes.record(offset, outcome);
      if (this.listeners.size === 0) continue;
      const { requestId, item } = docOpHeader(records[i]!.value);
      const l = this.listeners.get(requestId);
      if (l) l(item, outcome, offset);
    }
    this.appliedOffset = next;
    this.appliedWaiters = resolveUpTo(this.appliedWaiters, this.appliedOffset);
  }

  /** Resolves once every op below `offset` has been applied. */
  waitForApplied(offset: number): Promise<void> {
    if (this.appliedOffset >= offset) return Promise.resolve();
    return new Promise((resolve) => this.appliedWaiters.push({ offset, resolve }));
  }

  /** Resolves once every op below `offset` is visible to searches (`refresh=wait_for`). */
  waitForRefresh(offset: number): Promise<void> {
    if (this.refreshedOffset >= offset) return Promise.resolve();
    const p = new Promise<void>((resolve) => this.refreshWaiters.push({ offset, resolve }));
    if (this.refreshIntervalMs < 0) this.refresh();
    return p;
  }

  /** Resolves once the engine handled what was sent to it so far and reported its figures (see EngineHandle.settled). */
  segmentsSettled(): Promise<void> {
    return this.engine.settled();
  }

  /** Makes every applied op searchable now. */
  refresh(): void {
    // Searches are posted to the worker behind the refresh, so they see it: the ops are searchable from here on.
    this.engine.refresh();
    this.refreshedOffset = this.appliedOffset;
    this.refreshWaiters = resolveUpTo(this.refreshWaiters, this.refreshedOffset);
  }

  /** Makes every applied op durable in segment files (`_flush`). */
  async flush(): Promise<void> {
    this.refreshedOffset = this.appliedOffset;
    await this.engine.flush();
    this.refreshWaiters = resolveUpTo(this.refreshWaiters, this.refreshedOffset);
  }

  /** `_forcemerge`: merged (and committed with `flush`) once this resolves; every applied op is searchable after. */
  async forceMerge(maxNumSegments: number, onlyExpungeDeletes: boolean, flush: boolean): Promise<void> {
    this.refreshedOffset = this.appliedOffset;
    await this.engine.forceMerge(maxNumSegments, onlyExpungeDeletes, flush);
    this.refreshWaiters = resolveUpTo(this.refreshWaiters, this.refreshedOffset);
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
        if (this.engine.pendingOps > 0 || this.refreshWaiters.length > 0) this.refresh();
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
    await this.subscription?.close();
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
