/**
 * A ShardClient for a shard copy on another node: the same query and fetch
 * phases as LocalShardClient, sent over the transport to the node's
 * ShardService. The coordinator cannot tell the two apart (STYLE.md,
 * "Clients and pools"); only errors differ in kind, never in shape — a
 * transport failure (timeout, disconnect) is an EsError like any shard failure.
 */
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import type { ShardClient, ShardFetchRequest, ShardQueryRequest, ShardQueryResponse } from '../search/shard-client.ts';
import { FREE_CONTEXT, SHARD_FETCH, SHARD_QUERY } from './rpc-messages.ts';
import { fetchRequestToWire, queryRequestToWire, queryResponseFromWire } from './shard-messages.ts';
import type { NodeAddress, TransportClient } from './transport-client.ts';

export interface RemoteShardClientOptions {
  /** Per-request timeout of the query and fetch phases; null (default) = none. */
  readonly timeoutMs?: number | null;
  /**
   * A release that failed (node gone, context already expired). Nothing to do
   * about it: the context dies with its node or its keep-alive; for the log.
   */
  readonly onReleaseError?: (err: Error) => void;
}

export class RemoteShardClient implements ShardClient {
  readonly index: string;
  private readonly uuid: string;

  constructor(
    private readonly transport: TransportClient,
    readonly node: NodeAddress,
    meta: Pick<IndexMetadata, 'name' | 'uuid'>,
    readonly shard: number,
    private readonly opts: RemoteShardClientOptions = {},
  ) {
    this.index = meta.name;
    this.uuid = meta.uuid;
  }

  async query(req: ShardQueryRequest): Promise<ShardQueryResponse> {
    const wire = queryRequestToWire(this.uuid, this.shard, req);
    const res = await this.transport.call(this.node, SHARD_QUERY, wire, { timeoutMs: this.opts.timeoutMs });
    return queryResponseFromWire(res);
  }

  async fetch(req: ShardFetchRequest): Promise<string[]> {
    const wire = fetchRequestToWire(this.uuid, this.shard, req);
    const res = await this.transport.call(this.node, SHARD_FETCH, wire, { timeoutMs: this.opts.timeoutMs });
    return res.hits;
  }

  release(contextId: number): void {
    this.transport.call(this.node, FREE_CONTEXT, { context_id: contextId }, { timeoutMs: this.opts.timeoutMs }).catch((err: Error) => this.opts.onReleaseError?.(err));
  }
}
