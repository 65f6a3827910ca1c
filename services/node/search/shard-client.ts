/**
 * The coordinator's view of one shard copy for searches (DESIGN.md 2,
 * "Searches"): a query phase that returns doc refs, sort values, the total
 * and partial aggregations, and a fetch phase that renders the hits of the
 * final page. One interface for a copy in this process or on another node,
 * so the coordinator cannot tell them apart.
 */
import type { ParsedSearch, RenderedHits, ShardCursor, ShardQueryResult } from '../../../shared/engine/search/types.ts';
import type { ShardAggState } from '../../../shared/engine/aggs/state.ts';
import type { ShardSuggestResult } from '../../../shared/engine/suggest/types.ts';
import type { SearchUrlParams } from '../../../shared/dsl/query/search-body.ts';

/**
 * The search as the client sent it: the body (with this index's alias
 * filters applied) and the URL parameters `search` was parsed from. A copy on
 * another node re-parses it (services/node/transport), so the wire format
 * does not depend on the engine's parsed types.
 */
export interface ShardSearchSource {
  readonly body: unknown;
  readonly url: SearchUrlParams;
}

export interface ShardQueryRequest {
  readonly search: ParsedSearch;
  /** Where `search` came from; required by remote copies for a first page (contextId null). */
  readonly source?: ShardSearchSource;
  /** Hits to return: from + size (or the scroll batch size). */
  readonly size: number;
  readonly after: ShardCursor | null;
  readonly nowMillis: number;
  /** Keep the point-in-time view open this long after the call (scroll), else 0. */
  readonly keepAliveMs: number;
  /** Reuse this context (next scroll page) instead of opening a new one. */
  readonly contextId: number | null;
  /** `search.max_buckets`: the shard stops building aggregations past it (too_many_buckets_exception). */
  readonly maxBuckets?: number;
  /**
   * The fetch phase folded into this query phase (a plain search whose page
   * is small, Elasticsearch's query-and-fetch for one shard): the copy also
   * renders its hits from this position of its list on and lets its view go
   * with the answer. A copy that cannot (another node's) leaves `rendered`
   * out, and the coordinator fetches its hits as usual.
   */
  readonly renderFrom?: number;
  /**
   * With renderFrom: the search is ordered by score alone and the coordinator
   * merges every shard's answer (no `timeout`), so a copy may leave out of its
   * rendering the hits that the hits of its node's other shards of the search
   * already put past the page (shard-worker/render-cut.ts). A number this
   * node gives this one search (one execution: a body run twice gets two).
   */
  readonly renderCut?: number;
}

/** A shard's hits rendered with its query phase: hit `renderFrom + i` of its list is `hits` entry i. */
export interface RenderedPage {
  readonly hits: RenderedHits;
  readonly renderFrom: number;
}

export interface ShardQueryResponse {
  readonly contextId: number;
  /** The node holding the context (its id), when the client knows it: scroll ids name it. */
  readonly nodeId?: string;
  readonly result: ShardQueryResult;
  readonly aggs: ShardAggState | null;
  /** The shard's suggestions (`suggest`), computed with the first page; absent or null without. */
  readonly suggest?: ShardSuggestResult | null;
  /** The hits of the page, when the request asked for them (`renderFrom`) and the copy rendered them; its context is gone then. */
  readonly rendered?: RenderedPage | null;
}

export interface ShardFetchRequest {
  readonly contextId: number;
  readonly docs: ArrayLike<number>;
  readonly scores: ArrayLike<number>;
  readonly sortValues: readonly (ShardQueryResult['sortValues'] extends (infer T)[] | null ? T | null : never)[];
  /** Free the context after fetching (plain searches; scrolls keep it). */
  readonly release: boolean;
  /**
   * Scrolls: the last of this shard's hits on the page. The context keeps it
   * and the next page's query phase on the context continues after it, as
   * Elasticsearch's context keeps its lastEmittedDoc (search/search-contexts.ts).
   */
  readonly lastEmitted?: ShardCursor | null;
  /**
   * Scrolls sorted by `_doc`: the copy also runs the next page's query phase
   * on the context, after `after` (this page's last hit of the shard), with
   * this fetch; the next page takes it without a round trip to the copy
   * while the context's cursor is `after` (search/search-contexts.ts). A
   * copy that cannot leaves it out, and the next page asks as usual.
   */
  readonly queryNext?: { readonly after: ShardCursor; readonly size: number; readonly nowMillis: number };
}

export interface ShardClient {
  /** `<index name>` and shard number, for `_shards.failures` and logs. */
  readonly index: string;
  readonly shard: number;
  query(req: ShardQueryRequest): Promise<ShardQueryResponse>;
  /** Hit JSON texts, in the order of `docs`. */
  fetch(req: ShardFetchRequest): Promise<string[]>;
  /**
   * The same hits as UTF-8 bytes in one buffer (optional: a copy in this
   * process renders them so, and the coordinator splices them into the
   * response without decoding; other clients answer through `fetch`).
   */
  fetchRendered?(req: ShardFetchRequest): Promise<RenderedHits>;
  release(contextId: number): void;
}

/** The fetch phase of `client` as bytes, through `fetchRendered` when it has it. */
export async function fetchRendered(client: ShardClient, req: ShardFetchRequest): Promise<RenderedHits> {
  if (client.fetchRendered !== undefined) return client.fetchRendered(req);
  const texts = await client.fetch(req);
  const parts = texts.map((t) => Buffer.from(t, 'utf8'));
  const starts = new Uint32Array(parts.length + 1);
  for (let i = 0; i < parts.length; i++) starts[i + 1] = starts[i]! + parts[i]!.length;
  return { bytes: Buffer.concat(parts), starts };
}
