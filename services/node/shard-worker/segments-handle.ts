/**
 * The main thread's side of one shard copy's segments, which live in a
 * shard worker: the changes the copy applied go there in one message per
 * applied batch, refreshes are posted in order behind them, and the figures
 * the worker reports after each refresh or merge are kept here for
 * `_cat`, stats and health.
 */
import type { EsError } from '../../../shared/errors/es-errors.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import { ChangeBatchWriter } from './change-batch.ts';
import type { CopyMeta, SegmentStats, ToWorker } from './protocol.ts';
import type { ShardWorkers, SlotCopy, WorkerRequest, WorkerSlot } from './shard-workers.ts';

/** Changes buffered before they are posted even within one applied batch (a recovery replays millions). */
const MAX_BUFFERED_CHANGES = 2000;

const NO_STATS: SegmentStats = { docCount: 0, deletedCount: 0, sizeInBytes: 0, segmentCount: 0 };

export function copyMetaOf(meta: IndexMetadata): CopyMeta {
  return {
    name: meta.name,
    uuid: meta.uuid,
    settings: meta.settings,
    typeName: meta.mapping?.typeName ?? null,
    mappingJson: meta.mapping ? JSON.stringify(meta.mapping.toJSON()) : null,
    mappingVersion: meta.mappingVersion,
  };
}

/** What the copy that owns the segments hears of them. */
export interface SegmentsOwner {
  onError(context: string, err: EsError): void;
  /**
   * The worker holding the segments died and a new one holds them, empty:
   * the owner sends every live document again (its doc store has them).
   */
  rebuild(): void;
}

export class SegmentsHandle implements SlotCopy {
  stats: SegmentStats = NO_STATS;
  /** Index and delete operations sent since the last refresh. */
  pendingOps = 0;
  /** The segments are being rebuilt after their worker died: searches would see part of them. */
  rebuilding = false;
  /**
   * False while the copy fills the segments from its doc store at start-up
   * (ShardCopy.start): searches then wait for `loaded`, and a refresh would
   * show part of the documents. Checked before awaiting, since an await on
   * every shard page costs scroll throughput.
   */
  isLoaded = true;
  loaded: Promise<void> = Promise.resolve();
  private readonly writer = new ChangeBatchWriter();
  private sentMeta: IndexMetadata;
  private closed = false;

  constructor(
    /** The worker holding the segments (another one after a crash). */
    public slot: WorkerSlot,
    readonly copy: number,
    readonly shard: number,
    meta: IndexMetadata,
    private readonly owner: SegmentsOwner,
  ) {
    this.sentMeta = meta;
    this.attach();
  }

  static open(workers: ShardWorkers, shard: number, meta: IndexMetadata, owner: SegmentsOwner): SegmentsHandle {
    const { copy, slot } = workers.place();
    return new SegmentsHandle(slot, copy, shard, meta, owner);
  }

  private attach(): void {
    this.slot.copies.set(this.copy, this);
    this.slot.post({ t: 'open', copy: this.copy, shard: this.shard, meta: copyMetaOf(this.sentMeta) });
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
    this.rebuilding = true;
    this.stats = NO_STATS;
    this.pendingOps = 0;
    this.writer.take();
    this.attach();
    this.owner.rebuild();
  }

  /** Sends the index's metadata again when its mapping or settings changed since it was last sent. */
  syncMeta(meta: IndexMetadata): void {
    const sent = this.sentMeta;
    if (sent === meta) return;
    this.sentMeta = meta;
    if (sent.mappingVersion === meta.mappingVersion && sent.settings === meta.settings) return;
    this.post({ t: 'meta', copy: this.copy, meta: copyMetaOf(meta) });
  }

  index(id: string, version: number, seqNo: number, routing: string | null, source: Buffer, mayReplace: boolean): void {
    this.writer.index(id, version, seqNo, routing, source, mayReplace);
    this.pendingOps++;
    if (this.writer.count >= MAX_BUFFERED_CHANGES) this.flush();
  }

  delete(id: string): void {
    this.writer.delete(id);
    this.pendingOps++;
    if (this.writer.count >= MAX_BUFFERED_CHANGES) this.flush();
  }

  /** Posts the buffered changes. */
  flush(): void {
    if (this.writer.count === 0) return;
    const bytes = this.writer.take();
    this.post({ t: 'changes', copy: this.copy, bytes }, [bytes.buffer as ArrayBuffer]);
  }

  /**
   * Makes every change sent so far searchable: whatever is posted to the
   * worker after this (a search) is handled after the refresh.
   */
  refresh(): void {
    this.flush();
    this.pendingOps = 0;
    this.post({ t: 'refresh', copy: this.copy });
  }

  /**
   * Resolves once the worker handled everything posted so far, a refresh
   * included, and its figures for it arrived (they come before the reply):
   * `refresh=true` and `_refresh` answer after this, so `_cat/indices` and
   * stats then count what they made searchable, as in Elasticsearch.
   */
  async settled(): Promise<void> {
    if (this.closed) return;
    // A worker that died meanwhile is replaced and the copy rebuilt; there is nothing to wait for.
    await this.slot.request({ t: 'ping' }).catch(() => undefined);
  }

  request<T>(msg: WorkerRequest, transfer: ArrayBuffer[] = []): Promise<T> {
    return this.slot.request<T>(msg, transfer);
  }

  private post(msg: ToWorker, transfer: ArrayBuffer[] = []): void {
    if (!this.closed) this.slot.post(msg, transfer);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.slot.copies.delete(this.copy);
    await this.slot.request({ t: 'close', copy: this.copy }).catch(() => undefined);
  }
}
