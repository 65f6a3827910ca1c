/**
 * One copy of one shard (DESIGN.md 2 and 3): consumes its partition of the
 * index topic in offset order, applies each DocOp to the doc store (durable,
 * with the checkpoint in the same batch), tells the coordinator the outcome
 * of the ops it is waiting for, and hands the changes to the copy's
 * segments, which a shard worker thread analyzes, indexes and searches
 * (services/node/shard-worker).
 */
import { mkdir } from 'node:fs/promises';
import type { CommitLog, LogRecord, Subscription } from '../../../shared/log/commit-log.ts';
import { docOpCodec, type DocOp } from '../../../shared/records/doc-op.ts';
import { DocStore, type DocChange, type DocState } from '../../../shared/engine/store/doc-store.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import type { SearchContexts } from '../search/search-contexts.ts';
import { SegmentsHandle } from '../shard-worker/segments-handle.ts';
import type { ShardWorkers } from '../shard-worker/shard-workers.ts';
import { WorkerShardClient } from '../shard-worker/worker-shard-client.ts';
import { applyDocOp, type DocOutcome } from './apply-doc-op.ts';
import { OutcomeRing } from './outcome-ring.ts';
import { traceApply, type Attributes } from '../../../shared/telemetry/spans.ts';
import { ATTR_INDEX, ATTR_MESSAGING_DESTINATION_NAME, ATTR_MESSAGING_DESTINATION_PARTITION_ID, ATTR_SHARD } from '../../../shared/telemetry/attributes.ts';

export type OutcomeListener = (item: number, outcome: DocOutcome, offset: number) => void;

interface OffsetWaiter {
  readonly offset: number;
  readonly resolve: () => void;
}

const EMPTY_SOURCE = Buffer.from('{}');

export interface ShardCopyOptions {
  readonly dir: string;
  readonly log: CommitLog;
  readonly topic: string;
  readonly shard: number;
  /** The index's current metadata (mapping, analyzers, settings). */
  readonly meta: () => IndexMetadata;
  /** The threads that hold the copy's segments. */
  readonly workers: ShardWorkers;
  readonly onError: (err: Error) => void;
}

export class ShardCopy {
  readonly shard: number;
  /** Offset of the next record to apply. */
  appliedOffset = 0;
  /** Every op below this offset is visible to searches. */
  refreshedOffset = 0;
  /** Outcomes of recent ops, for coordinators on other nodes (WAIT_OUTCOMES). */
  readonly outcomes = new OutcomeRing();
  private readonly listeners = new Map<string, OutcomeListener>();
  private appliedWaiters: OffsetWaiter[] = [];
  private refreshWaiters: OffsetWaiter[] = [];
  private subscription: Subscription | null = null;
  /** The last apply or rebuild, which the next one waits for. */
  private exclusive: Promise<void> = Promise.resolve();
  private refreshTimer: NodeJS.Timeout | null = null;
  private refreshIntervalMs = -1;
  private closing = false;
  /** Resolves when `close` begins: a load waiting for its turn gives up. */
  private readonly closeBegun: Promise<void>;
  private beginClose!: () => void;

  private constructor(
    private readonly opts: ShardCopyOptions,
    private readonly store: DocStore,
    /** The copy's searchable segments, in a shard worker. */
    readonly segments: SegmentsHandle,
  ) {
    this.shard = opts.shard;
    this.closeBegun = new Promise((resolve) => (this.beginClose = resolve));
  }

  static async open(opts: ShardCopyOptions): Promise<ShardCopy> {
    await mkdir(opts.dir, { recursive: true });
    const store = await DocStore.open(`${opts.dir}/docs`);
    let copy: ShardCopy | null = null;
    const segments = SegmentsHandle.open(opts.workers, opts.shard, opts.meta(), {
      onError: (context, err) => opts.onError(Object.assign(err, { message: `${context}: ${err.message}` })),
      rebuild: () => copy?.rebuildSegments(),
    });
    copy = new ShardCopy(opts, store, segments);
    copy.appliedOffset = await store.appliedOffset();
    return copy;
  }

  /** Resolves once the segments hold every document the doc store had at `start` (searches wait for it). */
  get loaded(): Promise<void> {
    return this.segments.loaded;
  }

  /** Live docs visible to searches, as of the worker's last report. */
  get docCount(): number {
    return this.segments.stats.docCount;
  }

  get deletedCount(): number {
    return this.segments.stats.deletedCount;
  }

  get sizeInBytes(): number {
    return this.segments.stats.sizeInBytes;
  }

  get segmentCount(): number {
    return this.segments.stats.segmentCount;
  }

  /** The copy's query and fetch phases, with contexts kept in `contexts`. */
  searchClient(meta: IndexMetadata, contexts: SearchContexts): WorkerShardClient {
    return new WorkerShardClient(this.segments, meta, contexts);
  }

  /** Sends every live document of the doc store to the segments, then refreshes them. */
  private async indexStoredDocs(): Promise<void> {
    this.segments.syncMeta(this.opts.meta());
    for await (const [id, state] of this.store.entries()) {
      if (this.closing) return;
      if (!state.deleted) this.indexDoc(id, state, false);
    }
    // Searches posted from here on are handled after this refresh: they see every document.
    this.segments.refresh();
  }

  /**
   * Fills the searchable segments from the doc store (segments live in
   * memory only; see docs/decisions/001-segments-rebuilt-from-doc-store.md),
   * then applies the log from the stored checkpoint on. The node serves HTTP
   * meanwhile: the copy stays INITIALIZING until both are done, and
   * searches of it wait for the segments (`loaded`). The load begins once
   * `turn` resolves (the node loads one copy at a time).
   */
  start(turn: Promise<void> = Promise.resolve()): void {
    this.segments.isLoaded = false;
    const load = this.exclusively(async () => {
      try {
        await Promise.race([turn, this.closeBegun]);
        await this.indexStoredDocs();
        this.refreshedOffset = this.appliedOffset;
        this.refreshWaiters = resolveUpTo(this.refreshWaiters, this.refreshedOffset);
      } finally {
        this.segments.isLoaded = true;
      }
    });
    this.segments.loaded = load.catch((err: Error) => this.opts.onError(err));
    // Applies queue behind the load (`exclusively`).
    this.subscription = this.opts.log.follow(
      this.opts.topic,
      this.shard,
      this.appliedOffset,
      // One span per applied batch, in the trace of the write that produced it (context in the record headers).
      (records) => traceApply(records, this.applySpanAttributes(), () => this.applyBatch(records)),
      { maxBatch: 2000, onError: this.opts.onError },
    );
    this.scheduleRefresh();
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

  /**
   * Runs `task` after the applies and rebuilds before it: a rebuild reads
   * the doc store while no apply changes it, and resends every document
   * before any later change.
   */
  private exclusively(task: () => Promise<void>): Promise<void> {
    const run = this.exclusive.then(task);
    this.exclusive = run.catch(() => undefined);
    return run;
  }

  private applyBatch(records: readonly LogRecord[]): Promise<void> {
    return this.exclusively(() => this.applyBatchNow(records));
  }

  /** The copy's worker died and a new one holds its segments, empty: sends every live document again. */
  rebuildSegments(): void {
    void this.exclusively(async () => {
      await this.indexStoredDocs();
      this.segments.rebuilding = false;
    }).catch((err: Error) => this.opts.onError(err));
  }

  private async applyBatchNow(records: readonly LogRecord[]): Promise<void> {
    const meta = this.opts.meta();
    const ops: DocOp[] = records.map((r) => docOpCodec.decode(r.value));
    const ids = [...new Set(ops.map((o) => o.id))];
    const stored = await this.store.getMany(ids);
    const current = new Map<string, DocState | undefined>();
    ids.forEach((id, i) => current.set(id, stored[i]));

    const changes: DocChange[] = [];
    /** Per change: whether the doc had a live copy before it (else the index need not look for one). */
    const replaces: boolean[] = [];
    const outcomes: DocOutcome[] = new Array(ops.length);
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i];
      const coords = { index: meta.name, uuid: meta.uuid, shard: this.shard, type: op.type, id: op.id };
      const before = current.get(op.id);
      const outcome = applyDocOp(before, op, records[i].offset, coords);
      outcomes[i] = outcome;
      if (outcome.ok && outcome.next) {
        current.set(op.id, outcome.next);
        changes.push({ id: op.id, state: outcome.next });
        replaces.push(before !== undefined && !before.deleted);
      }
    }
    const next = records[records.length - 1].offset + 1;
    await this.store.commit(changes, next);

    this.segments.syncMeta(meta);
    for (let k = 0; k < changes.length; k++) {
      const c = changes[k];
      if (c.state.deleted) this.segments.delete(c.id);
      else this.indexDoc(c.id, c.state, replaces[k]);
    }
    this.segments.flush();
    this.appliedOffset = next;
    for (let i = 0; i < ops.length; i++) {
      this.outcomes.record(records[i].offset, outcomes[i]);
      const l = this.listeners.get(ops[i].request_id);
      if (l) l(ops[i].item, outcomes[i], records[i].offset);
    }
    this.appliedWaiters = resolveUpTo(this.appliedWaiters, this.appliedOffset);
  }

  private indexDoc(id: string, state: DocState, mayReplace: boolean): void {
    this.segments.index(id, state.version, state.seqNo, state.routing, state.source ?? EMPTY_SOURCE, mayReplace);
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

  /** Resolves once the segments handled what was sent to them so far and reported their figures (see SegmentsHandle.settled). */
  segmentsSettled(): Promise<void> {
    return this.segments.settled();
  }

  /** Makes every applied op searchable now. */
  refresh(): void {
    // The start-up load ends with a refresh of everything applied so far.
    if (!this.segments.isLoaded) return;
    // Searches are posted to the worker behind the refresh, so they see it: the ops are searchable from here on.
    this.segments.refresh();
    this.refreshedOffset = this.appliedOffset;
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
        if (this.segments.pendingOps > 0 || this.refreshWaiters.length > 0) this.refresh();
      }, interval);
      this.refreshTimer.unref();
    }
  }

  /** Realtime get: reads the doc store, so it sees every applied op at once. */
  get(id: string): Promise<DocState | undefined> {
    return this.store.get(id);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.beginClose();
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    await this.subscription?.close();
    // A load or apply under way stops reading the doc store before it closes.
    await this.exclusive;
    await this.segments.close();
    await this.store.close();
  }
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
