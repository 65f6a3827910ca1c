/**
 * One copy of one shard (DESIGN.md 2 and 3): consumes its partition of the
 * index topic in offset order, applies each DocOp to the doc store (durable,
 * with the checkpoint in the same batch) and to the in-memory segments
 * (searchable after refresh), and tells the coordinator the outcome of the
 * ops it is waiting for.
 */
import { mkdir } from 'node:fs/promises';
import type { CommitLog, LogRecord, Subscription } from '../../../shared/log/commit-log.ts';
import { docOpCodec, type DocOp } from '../../../shared/records/doc-op.ts';
import { DocStore, type DocChange, type DocState } from '../../../shared/engine/store/doc-store.ts';
import { ShardIndex } from '../../../shared/engine/segment/shard-index.ts';
import type { SearcherSnapshot } from '../../../shared/engine/segment/types.ts';
import type { ParsedDocument } from '../../../shared/engine/mapping/types.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import { applyDocOp, type DocOutcome } from './apply-doc-op.ts';
import { OutcomeRing } from './outcome-ring.ts';
import { traceApply, type Attributes } from '../../../shared/telemetry/spans.ts';
import { ATTR_INDEX, ATTR_MESSAGING_DESTINATION_NAME, ATTR_MESSAGING_DESTINATION_PARTITION_ID, ATTR_SHARD } from '../../../shared/telemetry/attributes.ts';

export type OutcomeListener = (item: number, outcome: DocOutcome, offset: number) => void;

/**
 * Documents the coordinator in this process already parsed against the
 * mapping of `mappingVersion`, by item. Parsing is a pure function of the
 * source and the mapping, so reusing them gives what parsing again would,
 * without doing the work twice.
 */
export interface ParsedHandoff {
  readonly docs: ReadonlyMap<number, ParsedDocument>;
  readonly mappingVersion: number;
}

interface OffsetWaiter {
  readonly offset: number;
  readonly resolve: () => void;
}

const EMPTY_DOC: ParsedDocument = { fields: [], dynamicUpdate: null };

export interface ShardCopyOptions {
  readonly dir: string;
  readonly log: CommitLog;
  readonly topic: string;
  readonly shard: number;
  /** The index's current metadata (mapping, analyzers, settings). */
  readonly meta: () => IndexMetadata;
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
  private readonly listeners = new Map<string, { listener: OutcomeListener; handoff: ParsedHandoff | undefined }>();
  private appliedWaiters: OffsetWaiter[] = [];
  private refreshWaiters: OffsetWaiter[] = [];
  private subscription: Subscription | null = null;
  private refreshTimer: NodeJS.Timeout | null = null;
  private refreshIntervalMs = -1;
  private closed = false;

  private constructor(
    private readonly opts: ShardCopyOptions,
    private readonly store: DocStore,
    readonly index: ShardIndex,
  ) {
    this.shard = opts.shard;
  }

  static async open(opts: ShardCopyOptions): Promise<ShardCopy> {
    await mkdir(opts.dir, { recursive: true });
    const store = await DocStore.open(`${opts.dir}/docs`);
    const copy = new ShardCopy(opts, store, new ShardIndex(opts.meta().analyzers));
    await copy.recover();
    return copy;
  }

  /**
   * Rebuilds the searchable segments from the doc store (segments live in
   * memory only; see docs/decisions/001-segments-rebuilt-from-doc-store.md),
   * then resumes the log after the stored checkpoint.
   */
  private async recover(): Promise<void> {
    this.appliedOffset = await this.store.appliedOffset();
    const meta = this.opts.meta();
    for await (const [id, state] of this.store.entries()) {
      if (!state.deleted) this.indexDoc(meta, id, state, false);
    }
    this.index.refresh();
    this.refreshedOffset = this.appliedOffset;
  }

  start(): void {
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
  listen(requestId: string, listener: OutcomeListener, handoff?: ParsedHandoff): () => void {
    this.listeners.set(requestId, { listener, handoff });
    return () => this.listeners.delete(requestId);
  }

  private async applyBatch(records: readonly LogRecord[]): Promise<void> {
    const meta = this.opts.meta();
    const ops: DocOp[] = records.map((r) => docOpCodec.decode(r.value));
    const ids = [...new Set(ops.map((o) => o.id))];
    const stored = await this.store.getMany(ids);
    const current = new Map<string, DocState | undefined>();
    ids.forEach((id, i) => current.set(id, stored[i]));

    const changes: DocChange[] = [];
    const changeOps: number[] = [];
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
        changeOps.push(i);
      }
    }
    /** Per change: whether the doc had a live copy before it (else the index need not look for one). */
    const replaces: boolean[] = [];
    const next = records[records.length - 1].offset + 1;
    await this.store.commit(changes, next);

    for (let k = 0; k < changes.length; k++) {
      const c = changes[k];
      if (c.state.deleted) this.index.delete(c.id);
      else this.indexDoc(meta, c.id, c.state, replaces[k], this.handedOff(meta, ops[changeOps[k]]));
    }
    this.appliedOffset = next;
    for (let i = 0; i < ops.length; i++) {
        replaces.push(before !== undefined && !before.deleted);
      this.outcomes.record(records[i].offset, outcomes[i]);
      const l = this.listeners.get(ops[i].request_id);
      if (l) l.listener(ops[i].item, outcomes[i], records[i].offset);
    }
    this.appliedWaiters = resolveUpTo(this.appliedWaiters, this.appliedOffset);
  }

  /** The coordinator's parse of an INDEX/CREATE op's source, when still valid for the current mapping. */
  private handedOff(meta: IndexMetadata, op: DocOp): ParsedDocument | undefined {
    if (op.op !== 'INDEX' && op.op !== 'CREATE') return undefined;
    const h = this.listeners.get(op.request_id)?.handoff;
    if (!h || h.mappingVersion !== meta.mappingVersion) return undefined;
    return h.docs.get(op.item);
  }

  private indexDoc(meta: IndexMetadata, id: string, state: DocState, mayReplace: boolean, handedOff?: ParsedDocument): void {
    const source = state.source ?? Buffer.from('{}');
    let parsed = handedOff ?? EMPTY_DOC;
    if (!handedOff && meta.mapping) {
      try {
        parsed = meta.mapping.parse(JSON.parse(source.toString('utf8')) as Record<string, unknown>);
      } catch {
        // The coordinator validated the document against the mapping before
        // appending it; a failure here means the mapping changed in between.
        // The document stays stored and retrievable, only unsearchable by field.
        parsed = EMPTY_DOC;
      }
    }
    this.index.index({ id, version: state.version, seqNo: state.seqNo, routing: state.routing, source, parsed }, mayReplace);
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

  /** Makes every applied op searchable now. */
  refresh(): void {
    this.index.refresh();
    this.refreshedOffset = this.appliedOffset;
    this.refreshWaiters = resolveUpTo(this.refreshWaiters, this.refreshedOffset);
    setImmediate(() => {
      if (!this.closed) this.index.maybeMerge();
    });
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
        if (this.index.pendingOps > 0 || this.refreshWaiters.length > 0) this.refresh();
      }, interval);
      this.refreshTimer.unref();
    }
  }

  /** Realtime get: reads the doc store, so it sees every applied op at once. */
  get(id: string): Promise<DocState | undefined> {
    return this.store.get(id);
  }

  acquireSnapshot(): SearcherSnapshot {
    return this.index.acquireSnapshot();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    await this.subscription?.close();
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
