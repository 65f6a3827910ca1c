/**
 * A ShardClient for a shard copy in this process: runs the query phase on a
 * pinned snapshot of the copy's segments, computes partial aggregations,
 * and renders hits in the fetch phase.
 */
import { searchContextMissing } from '../../../shared/errors/es-errors.ts';
import { executeQueryPhase } from '../../../shared/engine/search/query-phase.ts';
import { renderHits } from '../../../shared/engine/search/render-hit.ts';
import type { FilterCache } from '../../../shared/engine/search/filter-cache.ts';
import type { RenderedHits, ShardSearchContext } from '../../../shared/engine/search/types.ts';
import { collectShardAggs } from '../../../shared/engine/aggs/collect.ts';
import type { AggSpec } from '../../../shared/engine/aggs/spec.ts';
import type { AggContext } from '../../../shared/engine/aggs/types.ts';
import type { SegmentView } from '../../../shared/engine/segment/types.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import type { ShardCopy } from '../indexer/shard-copy.ts';
import type { ShardClient, ShardFetchRequest, ShardQueryRequest, ShardQueryResponse } from '../coordinator/shard-client.ts';
import type { SearchContexts } from './search-contexts.ts';
import { emptyMapping } from './empty-mapping.ts';

export class LocalShardClient implements ShardClient {
  readonly index: string;
  readonly shard: number;

  constructor(
    private readonly meta: IndexMetadata,
    private readonly copy: ShardCopy,
    private readonly contexts: SearchContexts,
    private readonly filterCache: FilterCache,
    /** Parsed aggregations for this index (mappings differ per index), or null. */
    private readonly aggs: AggSpec[] | null,
    private readonly filterBits: (query: unknown, view: SegmentView, ctx: ShardSearchContext) => Uint32Array,
  ) {
    this.index = meta.name;
    this.shard = copy.shard;
  }

  private shardContext(nowMillis: number): ShardSearchContext {
    return {
      mapping: this.meta.mapping ?? emptyMapping,
      analyzers: this.meta.analyzers,
      nowMillis,
      filterCache: this.filterCache,
      typeName: this.meta.mapping?.typeName ?? '_doc',
    };
  }

  async query(req: ShardQueryRequest): Promise<ShardQueryResponse> {
    let ctx;
    if (req.contextId !== null) {
      ctx = this.contexts.get(req.contextId);
      if (!ctx) throw searchContextMissing(req.contextId);
      ctx.expiresAt = Date.now() + req.keepAliveMs;
    } else {
      ctx = this.contexts.open(this.copy.acquireSnapshot(), req.search, req.keepAliveMs);
    }
    const shardCtx = this.shardContext(req.nowMillis);
    const wantAggs = this.aggs !== null && req.contextId === null;
    // A continuation runs the search its context was opened with (alias filters included).
    const result = executeQueryPhase(ctx.snapshot, ctx.search, shardCtx, {
      size: req.size,
      after: req.after,
      collectMatches: wantAggs,
    });
    let aggs = null;
    if (wantAggs && this.aggs && result.matches) {
      const aggCtx: AggContext = {
        mapping: shardCtx.mapping,
        nowMillis: req.nowMillis,
        filterBits: (q, view) => this.filterBits(q, view, shardCtx),
        indexName: this.meta.name,
        typeName: shardCtx.typeName,
        numberOfShards: this.meta.settings.numberOfShards,
      };
      aggs = collectShardAggs(this.aggs, result.matches, aggCtx);
    }
    return { contextId: ctx.id, result: { ...result, matches: null }, aggs };
  }

  async fetch(req: ShardFetchRequest): Promise<string[]> {
    const { bytes, starts, release } = this.render(req);
    const out: string[] = new Array<string>(req.docs.length);
    for (let i = 0; i < out.length; i++) out[i] = bytes.toString('utf8', starts[i], starts[i + 1]);
    release?.();
    return out;
  }

  async fetchRendered(req: ShardFetchRequest): Promise<RenderedHits> {
    return this.render(req);
  }

  private render(req: ShardFetchRequest): RenderedHits {
    const ctx = this.contexts.get(req.contextId);
    if (!ctx) throw searchContextMissing(req.contextId);
    const rendered = renderHits(ctx.snapshot, req, {
      index: this.meta.name,
      type: this.meta.mapping?.typeName ?? '_doc',
      search: ctx.search,
      mapping: this.meta.mapping ?? emptyMapping,
    });
    if (req.release) this.contexts.free(req.contextId);
    return rendered;
  }

  release(contextId: number): void {
    this.contexts.free(contextId);
  }
}
