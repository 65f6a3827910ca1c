/**
 * The write and realtime-get side of a shard copy on another node: what the
 * write coordinator and the doc reader use ShardCopy.waitForApplied and
 * ShardCopy.get for locally, over the transport.
 */
import type { DocState } from '../../../shared/engine/store/doc-state.ts';
import type { AfterApplied } from '../indexer/wait-applied.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import type { DocOutcome, WriteResult } from '../shard-worker/apply-doc-op.ts';
import { SHARD_GET, WAIT_APPLIED, WAIT_OUTCOMES, type WireDocOutcome } from './rpc-messages.ts';
import { errorFromWire } from '../../../shared/errors/transport-errors.ts';
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
  async waitForApplied(offset: number, timeoutMs: number, then: AfterApplied = 'none', partition = -1): Promise<boolean> {
    const res = await this.transport.call(
      this.node,
      WAIT_APPLIED,
      {
        index_uuid: this.uuid,
        shard: this.shard,
        offset,
        timeout_ms: timeoutMs,
        refresh: then === 'refresh',
        wait_for_refresh: then === 'wait_for',
        flush: then === 'flush',
        partition,
      },
      { timeoutMs: timeoutMs + WAIT_MARGIN_MS },
    );
    return res.applied;
  }

  /**
   * The outcomes of the ops at offsets [from, to), once applied; an entry is
   * undefined when the copy did not apply it within `timeoutMs` (or forgot it).
   */
  async outcomes(from: number, to: number, timeoutMs: number, partition = -1): Promise<(DocOutcome | undefined)[]> {
    const res = await this.transport.call(
      this.node,
      WAIT_OUTCOMES,
      { index_uuid: this.uuid, shard: this.shard, from_offset: from, to_offset: to, timeout_ms: timeoutMs, partition },
      { timeoutMs: timeoutMs + WAIT_MARGIN_MS },
    );
    return res.outcomes.map((o) => (o ? outcomeFromWire(o) : undefined));
  }
}

function outcomeFromWire(o: WireDocOutcome): DocOutcome {
  if (o.error || o.result === null) return { ok: false, error: errorFromWire(o.error!) };
  return { ok: true, result: o.result as WriteResult, version: o.version, seqNo: o.seq_no, next: null, source: o.source };
}
