/**
 * A shard's search client that tries its copies in order (DESIGN.md 2,
 * "Reads"): a copy that fails the query phase (node gone, copy moved, any
 * shard failure) is retried on the next copy before the shard is reported
 * failed. The fetch phase and the release go to the copy that answered the
 * query, since only it holds the search context.
 */
import { fetchRendered, type ShardClient, type ShardFetchRequest, type ShardQueryRequest, type ShardQueryResponse } from './shard-client.ts';
import type { RenderedHits } from '../../../shared/engine/search/types.ts';

export class FailoverShardClient implements ShardClient {
  private chosen: ShardClient | null = null;

  constructor(
    readonly index: string,
    readonly shard: number,
    private readonly candidates: readonly ShardClient[],
  ) {
    if (candidates.length === 0) throw new Error('FailoverShardClient needs at least one copy');
  }

  async query(req: ShardQueryRequest): Promise<ShardQueryResponse> {
    // A scroll continuation (contextId set) must go back to the copy holding the context.
    if (this.chosen && req.contextId !== null) return this.chosen.query(req);
    let last: unknown;
    for (const c of this.candidates) {
      try {
        const res = await c.query(req);
        this.chosen = c;
        return res;
      } catch (err) {
        last = err;
      }
    }
    throw last;
  }

  fetch(req: ShardFetchRequest): Promise<string[]> {
    return (this.chosen ?? this.candidates[0]).fetch(req);
  }

  fetchRendered(req: ShardFetchRequest): Promise<RenderedHits> {
    return fetchRendered(this.chosen ?? this.candidates[0], req);
  }

  release(contextId: number): void {
    (this.chosen ?? this.candidates[0]).release(contextId);
  }
}
