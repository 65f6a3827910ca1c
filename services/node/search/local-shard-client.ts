/**
 * A ShardClient over segments in this thread: runs the query phase on a
 * pinned snapshot of a copy's segments, computes partial aggregations, and
 * renders hits in the fetch phase. The segment worker threads serve every
 * shard copy's searches through it (services/node/shard-worker).
 */
import { nextTurn } from '../../../shared/steps/run-steps.ts';
import { SLICE_MS } from '../../../shared/steps/time-slice.ts';
import { searchContextMissing } from '../../../shared/errors/es-errors.ts';
import { executeQueryPhase } from '../../../shared/engine/search/query-phase.ts';
import { renderHits } from '../../../shared/engine/search/render-hit.ts';
import { fetchHooks } from '../../../shared/engine/search/fetch-hooks.ts';
import { scriptFieldHooks } from './script-doc-values.ts';
import type { FilterCache } from '../../../shared/engine/search/filter-cache.ts';
import type { ParsedSearch, RenderedHits, ShardSearchContext } from '../../../shared/engine/search/types.ts';
import { collectShardAggsInSlices } from '../../../shared/engine/aggs/collect.ts';
import { readsScores, type AggSpec } from '../../../shared/engine/aggs/spec.ts';
import type { AggContext } from '../../../shared/engine/aggs/types.ts';
import type { SearcherSnapshot, SegmentView } from '../../../shared/engine/segment/types.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import type { ShardClient, ShardFetchRequest, ShardQueryRequest, ShardQueryResponse } from './shard-client.ts';
import { emptyMapping } from './empty-mapping.ts';
import { runSuggest } from '../../../shared/engine/suggest/run-suggest.ts';
import { giveBits } from '../../../shared/engine/search/recycled-bits.ts';
import type { ShardSuggestResult } from '../../../shared/engine/suggest/types.ts';

/**
 * The longest stretch an aggregation collects before it gives the thread a
 * turn: a shard worker collecting terms × terms over every doc still answers
 * the small searches sent to it meanwhile (issue 11).
 */
const AGG_SLICE_MS = SLICE_MS;

/** What a search needs of the index: its name, mapping, analyzers and shard count. */
export type SearchMeta = Pick<IndexMetadata, 'name' | 'mapping' | 'analyzers'> & { readonly settings: Pick<IndexMetadata['settings'], 'numberOfShards' | 'flat'> };

/** The segments of one copy, as searches see them. */
export interface SearchableCopy {
  readonly shard: number;
  acquireSnapshot(): SearcherSnapshot;
}

/** A point-in-time view held between a query phase and its fetch phase or next scroll page. */
export interface PinnedContext {
  readonly snapshot: SearcherSnapshot;
  readonly search: ParsedSearch;
}

/**
 * Where contexts live: their ids and lifetimes are kept by the node
 * (SearchContexts), the views themselves beside the segments.
 */
export interface PinnedContexts {
  get(id: number): PinnedContext | undefined;
  /** Pins a view under the id the node allocated. */
  pin(id: number, context: PinnedContext): void;
  drop(id: number): void;
}

export class LocalShardClient implements ShardClient {
  readonly index: string;
  readonly shard: number;

  constructor(
    private readonly meta: SearchMeta,
    private readonly copy: SearchableCopy,
    private readonly contexts: PinnedContexts,
    private readonly filterCache: FilterCache,
    /** Parsed aggregations for this index (mappings differ per index), or null. */
    private readonly aggs: AggSpec[] | null,
    private readonly filterBits: (query: unknown, view: SegmentView, ctx: ShardSearchContext) => Uint32Array,
    /** The id a first page pins its view under, allocated by the node (a fetch pins nothing). */
    private readonly newContextId: number | null = null,
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
    let id: number;
    let ctx: PinnedContext | undefined;
    if (req.contextId !== null) {
      id = req.contextId;
      ctx = this.contexts.get(id);
      if (!ctx) throw searchContextMissing(id);
    } else {
      if (this.newContextId === null) throw new Error('a first query phase pins its view under the id the node allocated');
      id = this.newContextId;
      ctx = { snapshot: this.copy.acquireSnapshot(), search: req.search };
      this.contexts.pin(id, ctx);
    }
    const shardCtx = this.shardContext(req.nowMillis);
    const wantAggs = this.aggs !== null && req.contextId === null;
    // A continuation runs the search its context was opened with (alias filters included).
    const result = executeQueryPhase(ctx.snapshot, ctx.search, shardCtx, {
      size: req.size,
      after: req.after,
      collectMatches: wantAggs,
      matchScores: wantAggs && this.aggs !== null && readsScores(this.aggs),
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
        maxBuckets: req.maxBuckets,
        analyzers: this.meta.analyzers,
        maxAdjacencyMatrixFilters: intOr(this.meta.settings.flat['index.max_adjacency_matrix_filters'], 100),
      };
      aggs = await collectShardAggsInSlices(this.aggs, result.matches, aggCtx, AGG_SLICE_MS, nextTurn);
      // The aggregations are built: nothing reads the matches again.
      for (const m of result.matches) if (m.owned === true) giveBits(m.bits);
    }
    // Suggestions are computed once, with the first page (SuggestPhase runs in the query phase).
    const suggest = req.contextId === null && ctx.search.suggest ? this.suggest(ctx.snapshot, ctx.search, shardCtx) : null;
    // Not spread when there is nothing to drop: a result with a sort column makes its rows when read.
    return { contextId: id, result: result.matches === null ? result : { ...result, matches: null }, aggs, suggest };
  }

  private suggest(snapshot: SearcherSnapshot, search: ParsedSearch, shardCtx: ShardSearchContext): ShardSuggestResult {
    return runSuggest(search.suggest!, {
      snapshot,
      mapping: shardCtx.mapping,
      analyzers: this.meta.analyzers,
      index: this.meta.name,
      typeName: shardCtx.typeName,
      source: search.source,
    });
  }

  async fetch(req: ShardFetchRequest): Promise<string[]> {
    const { bytes, starts, release } = this.renderNow(req);
    const out: string[] = new Array<string>(req.docs.length);
    for (let i = 0; i < out.length; i++) out[i] = bytes.toString('utf8', starts[i], starts[i + 1]);
    release?.();
    return out;
  }

  async fetchRendered(req: ShardFetchRequest): Promise<RenderedHits> {
    return this.renderNow(req);
  }

  /** The fetch phase, in this turn (a shard worker folds it into a query phase: ShardQueryRequest.renderFrom). */
  renderNow(req: ShardFetchRequest): RenderedHits {
    const ctx = this.contexts.get(req.contextId);
    if (!ctx) throw searchContextMissing(req.contextId);
    const mapping = this.meta.mapping;
    const extra = ctx.search.scriptFieldSpecs.length > 0 ? [scriptFieldHooks(ctx.search.scriptFieldSpecs, mapping ?? emptyMapping, mapping?.typeName ?? '_doc')] : [];
    const hooks = fetchHooks({
      snapshot: ctx.snapshot,
      search: ctx.search,
      shardCtx: this.shardContext(Date.now()),
      index: this.meta.name,
      shardLabel: `[${this.meta.name}][${this.shard}]`,
      parseSource: mapping === null ? null : (source) => mapping.parse(source),
      analyzers: this.meta.analyzers,
    }, extra);
    const rendered = renderHits(ctx.snapshot, req, {
      index: this.meta.name,
      type: this.meta.mapping?.typeName ?? '_doc',
      search: ctx.search,
      mapping: this.meta.mapping ?? emptyMapping,
      hooks,
    });
    if (req.release) this.contexts.drop(req.contextId);
    return rendered;
  }

  release(contextId: number): void {
    this.contexts.drop(contextId);
  }
}

/** An integer index setting's value (settings keep Elasticsearch's strings), or the default. */
function intOr(v: string | readonly string[] | undefined, dflt: number): number {
  const n = typeof v === 'string' ? Number(v) : NaN;
  return Number.isInteger(n) ? n : dflt;
}
