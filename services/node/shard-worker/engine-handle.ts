/**
 * The main thread's side of one shard copy's engine, which lives in a shard
 * worker (copy-engine.ts): log records go there to be applied, and the
 * outcomes, realtime gets and the figures the worker reports after each
 * refresh, merge or commit come back (`_cat`, stats and health read them).
 *
 * A worker that dies is replaced; the copy opens again in the new one from
 * its last commit, and its owner replays the log from there.
 */
import type { EsError } from '../../../shared/errors/es-errors.ts';
import type { LogRecord } from '../../../shared/log/commit-log.ts';
import { partitionsOf, type IndexMetadata } from '../cluster/index-metadata.ts';
import type { ApplyReply, CopyMeta, OpenReply, SegmentStats, ToWorker, WireDocState, WireSegment } from './protocol.ts';
import { zeroCounters } from './copy-counters.ts';
import { packRecordBatch } from './record-batch.ts';
import { unpackDocStates, type PackedDocStates } from './doc-states-batch.ts';
import type { ShardWorkers, SlotCopy, WorkerRequest, WorkerSlot } from './shard-workers.ts';

const NO_STATS: SegmentStats = {
  docCount: 0,
  deletedCount: 0,
  sizeInBytes: 0,
  segmentCount: 0,
  committedOffset: 0,
  segmentMemoryBytes: 0,
  versionMapEntries: 0,
  fileSizes: {},
  counters: zeroCounters(),
};

export function copyMetaOf(meta: IndexMetadata): CopyMeta {
  return {
    name: meta.name,
    uuid: meta.uuid,
    settings: meta.settings,
    typeName: meta.mapping?.typeName ?? null,
    mappingJson: meta.mapping ? JSON.stringify(meta.mapping.toJSON()) : null,
    mappingVersion: meta.mappingVersion,
    rebuilding: meta.rebuild?.state === 'running',
  };
}

/** What the copy that owns the engine hears of it. */
export interface EngineOwner {
  onError(context: string, err: EsError): void;
  /** The worker holding the engine died; it opened again in `reply`'s state in a new one. */
  reopened(reply: Promise<OpenReply>): void;
}

export class EngineHandle implements SlotCopy {
  stats: SegmentStats = NO_STATS;
  /** Ops applied since the last refresh was posted. */
  pendingOps = 0;
  private sentMeta: IndexMetadata;
  private closed = false;

  private constructor(
    /** The worker holding the engine (another one after a crash). */
    public slot: WorkerSlot,
    readonly copy: number,
    readonly shard: number,
    meta: IndexMetadata,
    private readonly dir: string,
    private readonly owner: EngineOwner,
    readonly rebuildGroup: string | null,
  ) {
    this.sentMeta = meta;
  }

  /** Opens the copy in `dir` in the worker with the fewest copies (ShardWorkers.place). */
  static open(workers: ShardWorkers, shard: number, meta: IndexMetadata, dir: string, owner: EngineOwner): { handle: EngineHandle; opened: Promise<OpenReply> } {
    const rebuildGroup = meta.rebuild?.state === 'running' ? meta.uuid : null;
    const { copy, slot } = workers.place(rebuildGroup);
    const handle = new EngineHandle(slot, copy, shard, meta, dir, owner, rebuildGroup);
    return { handle, opened: handle.attach() };
  }

  private attach(): Promise<OpenReply> {
    this.slot.copies.set(this.copy, this);
    return this.slot.request<OpenReply>({
      t: 'open',
      copy: this.copy,
      shard: this.shard,
      partitions: partitionsOf(this.sentMeta, this.shard),
      logPartitions: this.sentMeta.log.partitions,
      meta: copyMetaOf(this.sentMeta),
      dir: this.dir,
    });
  }

  onStats(stats: SegmentStats): void {
    this.stats = stats;
  }

  onError(context: string, err: EsError): void {
    this.owner.onError(context, err);
  }

  onWorkerLost(replacement: WorkerSlot): void {
    if (this.closed) return;
    this.slot = replacement;
    this.stats = NO_STATS;
    this.pendingOps = 0;
    this.owner.reopened(this.attach());
  }

  /** Sends the index's metadata again when its mapping or settings changed since it was last sent. */
  syncMeta(meta: IndexMetadata): void {
    const sent = this.sentMeta;
    if (sent === meta) return;
    this.sentMeta = meta;
    if (sent.mappingVersion === meta.mappingVersion && sent.settings === meta.settings && sent.rebuild?.state === meta.rebuild?.state) return;
    this.post({ t: 'meta', copy: this.copy, meta: copyMetaOf(meta) });
  }

  /** Applies records of one partition (in offset order, right after the last ones applied); resolves with their outcomes. */
  /** `end`: the offset after the batch `records` were taken from (all of it, or this copy's own ops of a shared log). */
  apply(partition: number, records: readonly LogRecord[], end: number): Promise<ApplyReply> {
    const bytes = packRecordBatch(records);
    this.pendingOps += records.length;
    return this.slot.request<ApplyReply>({ t: 'apply', copy: this.copy, partition, records: bytes, end }, [bytes.buffer as ArrayBuffer]);
  }

  /** Realtime gets: every op applied so far counts. */
  get(ids: readonly string[]): Promise<(WireDocState | null)[]> {
    return this.slot.request<PackedDocStates>({ t: 'get', copy: this.copy, ids }).then(unpackDocStates);
  }

  /**
   * Makes every op applied so far searchable: whatever is posted to the
   * worker after this (a search) is handled after the refresh.
   */
  refresh(): void {
    this.pendingOps = 0;
    this.post({ t: 'refresh', copy: this.copy });
  }

  /** Refreshes and commits: everything applied so far is in segment files and needs no replay after a restart. */
  async flush(): Promise<void> {
    this.pendingOps = 0;
    await this.slot.request({ t: 'flush', copy: this.copy });
  }

  /** The copy's figures as of everything posted to it so far (also kept as `stats`). */
  async statsNow(): Promise<SegmentStats> {
    const stats = await this.slot.request<SegmentStats>({ t: 'stats', copy: this.copy });
    this.stats = stats;
    return stats;
  }

  segments(): Promise<WireSegment[]> {
    return this.slot.request<WireSegment[]>({ t: 'segments', copy: this.copy });
  }

  /** `_forcemerge` (CopyEngine.forceMerge); resolves once merged (and committed, with `flush`). */
  async forceMerge(maxNumSegments: number, onlyExpungeDeletes: boolean, flush: boolean): Promise<void> {
    this.pendingOps = 0;
    await this.slot.request({ t: 'forcemerge', copy: this.copy, maxNumSegments, onlyExpungeDeletes, flush });
  }

  async clearCache(): Promise<void> {
    await this.slot.request({ t: 'clear_cache', copy: this.copy });
  }

  /** Empties the copy: it must apply its partition again from offset 0. */
  reset(): Promise<OpenReply> {
    return this.slot.request<OpenReply>({ t: 'reset', copy: this.copy });
  }

  /**
   * Resolves once the worker handled everything posted so far, a refresh
   * included, and its figures for it arrived (they come before the reply):
   * `refresh=true` and `_refresh` answer after this, so `_cat/indices` and
   * stats then count what they made searchable, as in Elasticsearch.
   */
  async settled(): Promise<void> {
    if (this.closed) return;
    // A worker that died meanwhile is replaced and the copy reopened; there is nothing to wait for.
    await this.slot.request({ t: 'settle', copy: this.copy }).catch(() => undefined);
  }

  request<T>(msg: WorkerRequest, transfer: ArrayBuffer[] = []): Promise<T> {
    return this.slot.request<T>(msg, transfer);
  }

  private post(msg: ToWorker, transfer: ArrayBuffer[] = []): void {
    if (!this.closed) this.slot.post(msg, transfer);
  }

  /** Stops the copy's engine; `flush` commits first (a clean shutdown), otherwise its files are about to be removed. */
  async close(flush: boolean): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.slot.copies.delete(this.copy);
    await this.slot.request({ t: 'close', copy: this.copy, flush }).catch(() => undefined);
  }
}
