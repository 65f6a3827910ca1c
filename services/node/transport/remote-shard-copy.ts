/**
 * The write and realtime-get side of a shard copy on another node: what the
 * write coordinator and the doc reader use ShardCopy.waitForApplied and
 * ShardCopy.get for locally, over the transport.
 */
import type { DocState } from '../../../shared/engine/store/doc-store.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import { SHARD_GET, WAIT_APPLIED } from './rpc-messages.ts';
import type { NodeAddress, TransportClient } from './transport-client.ts';

/**
 * How much longer than the remote wait the caller waits for its answer, so
 * the remote's "not applied yet" arrives before the transport times out.
 */
const WAIT_MARGIN_MS = 5000;

export interface RemoteGetResult {
  /** As ShardCopy.get returns it: tombstones included, undefined when never written. */
  readonly doc: DocState | undefined;
  readonly appliedOffset: number;
  /** Ops below this offset are visible to searches (for `realtime=false`). */
  readonly refreshedOffset: number;
}

export class RemoteShardCopy {
  readonly index: string;
  private readonly uuid: string;

  constructor(
    private readonly transport: TransportClient,
    readonly node: NodeAddress,
    meta: Pick<IndexMetadata, 'name' | 'uuid'>,
    readonly shard: number,
    private readonly timeoutMs: number | null = null,
  ) {
    this.index = meta.name;
    this.uuid = meta.uuid;
  }

  async get(id: string): Promise<RemoteGetResult> {
    const res = await this.transport.call(this.node, SHARD_GET, { index_uuid: this.uuid, shard: this.shard, id }, { timeoutMs: this.timeoutMs });
    const d = res.doc;
    return {
      doc: d ? { version: d.version, seqNo: d.seq_no, deleted: d.deleted, routing: d.routing, source: d.source } : undefined,
      appliedOffset: res.applied_offset,
      refreshedOffset: res.refreshed_offset,
    };
  }

  /** Resolves true once the copy applied every op below `offset`, false if `timeoutMs` passed first. */
  async waitForApplied(offset: number, timeoutMs: number): Promise<boolean> {
    const res = await this.transport.call(
      this.node,
      WAIT_APPLIED,
      { index_uuid: this.uuid, shard: this.shard, offset, timeout_ms: timeoutMs },
      { timeoutMs: timeoutMs + WAIT_MARGIN_MS },
    );
    return res.applied;
  }
}
