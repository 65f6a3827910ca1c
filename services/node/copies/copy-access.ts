/**
 * The operations the coordinators run on one shard copy, wherever it is: on
 * this node straight on the ShardCopy, on another node over the transport
 * (RemoteShardCopy, RemoteShardClient). Callers pick copies from the
 * ShardDirectory and never look at where they are. The choice between the
 * two is made here and only here, above the indexer and the transport; node.ts
 * builds the one CopyAccess of the node with its transport client (none on a
 * single node) and hands it to the coordinators.
 */
import type { DocState } from '../../../shared/engine/store/doc-state.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import type { CopyRoute } from './shard-directory.ts';
import { transportAddress } from './shard-directory.ts';
import type { NodeInfo } from '../cluster/membership-protocol.ts';
import { FREE_CONTEXT, FREE_SCROLL_CONTEXTS } from '../transport/rpc-messages.ts';
import type { DocOutcome } from '../shard-worker/apply-doc-op.ts';
import { OWN_PARTITION } from '../indexer/shard-copy.ts';
import { settledWithin, type AfterApplied } from '../indexer/wait-applied.ts';
import type { ShardClient } from '../search/shard-client.ts';
import type { SearchContexts } from '../search/search-contexts.ts';
import type { TransportClient } from '../transport/transport-client.ts';
import { RemoteShardCopy } from '../transport/remote-shard-copy.ts';
import { RemoteShardClient } from '../transport/remote-shard-client.ts';

export interface CopyRead {
  readonly doc: DocState | undefined;
  /** Ops below this offset are visible to searches (for `realtime=false`). */
  readonly refreshedOffset: number;
}

export class CopyAccess {
  constructor(
    private readonly transport: TransportClient | null,
    private readonly onReleaseError: (err: Error) => void = () => {},
  ) {}

  private remote(route: CopyRoute, meta: IndexMetadata, shard: number): RemoteShardCopy {
    if (!this.transport) throw new Error(`copy [${meta.name}][${shard}] on node [${route.node.name}] but this node has no transport`);
    return new RemoteShardCopy(this.transport, transportAddress(route.node), meta, shard);
  }

  async get(route: CopyRoute, meta: IndexMetadata, shard: number, id: string): Promise<CopyRead> {
    if (route.local) return { doc: await route.local.get(id), refreshedOffset: route.local.refreshedOffset };
    const r = await this.remote(route, meta, shard).get(id);
    return { doc: r.doc, refreshedOffset: r.refreshedOffset };
  }

  /** Several documents of one shard in one read (a local copy answers them in one message to its worker). */
  async getMany(route: CopyRoute, meta: IndexMetadata, shard: number, ids: readonly string[]): Promise<{ docs: (DocState | undefined)[]; refreshedOffset: number }> {
    if (route.local) return { docs: await route.local.getMany(ids), refreshedOffset: route.local.refreshedOffset };
    const remote = this.remote(route, meta, shard);
    const reads = await Promise.all(ids.map((id) => remote.get(id)));
    return { docs: reads.map((r) => r.doc), refreshedOffset: Math.min(...reads.map((r) => r.refreshedOffset)) };
  }

  /**
   * True once the copy applied every op below `offset` of `partition` of its
   * log (the shard's own by default; then refreshed, if asked), false after `timeoutMs`.
   */
  async waitApplied(
    route: CopyRoute,
    meta: IndexMetadata,
    shard: number,
    offset: number,
    timeoutMs: number,
    then: AfterApplied = 'none',
    partition = OWN_PARTITION,
  ): Promise<boolean> {
    if (!route.local) return this.remote(route, meta, shard).waitForApplied(offset, timeoutMs, then, partition);
    return settledWithin(route.local, offset, timeoutMs, then, partition);
  }

  refresh(route: CopyRoute, meta: IndexMetadata, shard: number): Promise<boolean> {
    return this.waitApplied(route, meta, shard, 0, 30_000, 'refresh');
  }

  /** Refreshes and commits a copy: every applied op durable in its segment files. */
  flush(route: CopyRoute, meta: IndexMetadata, shard: number): Promise<boolean> {
    return this.waitApplied(route, meta, shard, 0, 30_000, 'flush');
  }

  /** Outcomes of the ops at offsets [from, to) of `partition` from a copy on another node. */
  outcomes(route: CopyRoute, meta: IndexMetadata, shard: number, from: number, to: number, timeoutMs: number, partition = OWN_PARTITION): Promise<(DocOutcome | undefined)[]> {
    return this.remote(route, meta, shard).outcomes(from, to, timeoutMs, partition);
  }

  /** The search client of a copy; a copy of this node keeps its contexts in `contexts`. */
  searchClient(route: CopyRoute, meta: IndexMetadata, shard: number, contexts: SearchContexts): ShardClient {
    if (route.local) return route.local.searchClient(meta, contexts);
    if (!this.transport) throw new Error(`copy [${meta.name}][${shard}] on node [${route.node.name}] but this node has no transport`);
    return new RemoteShardClient(this.transport, transportAddress(route.node), meta, shard, { onReleaseError: this.onReleaseError });
  }

  /** Frees a search context on another node; true when it was still open there. */
  async freeContext(node: NodeInfo, contextId: number): Promise<boolean> {
    if (!this.transport) return false;
    return (await this.transport.call(transportAddress(node), FREE_CONTEXT, { context_id: contextId })).freed;
  }

  /** Frees every scroll context of another node; how many there were. */
  async freeScrollContexts(node: NodeInfo): Promise<number> {
    if (!this.transport) return 0;
    return (await this.transport.call(transportAddress(node), FREE_SCROLL_CONTEXTS, {})).freed;
  }
}
