/**
 * query_then_fetch across shards (DESIGN.md 2, "Searches" and "Scroll"):
 * scatter the query phase, merge the shards' top hits into the global order,
 * reduce aggregations, then fetch only the hits of the final page. Scrolls
 * keep each shard's point-in-time context on the node that holds the copy
 * and continue after the last hit each shard contributed; the scroll id
 * names those contexts (scroll-id.ts), so any node continues a scroll.
 */
import { EsError, illegalArgument, indexNotFound, isEsError, noShardAvailable, renderError, searchContextMissing } from '../../../shared/errors/es-errors.ts';
import { parseSearchBody, type SearchUrlParams } from '../../../shared/dsl/query/search-body.ts';
import { mergeTopHits, scoresShown, sortedByDocAlone, type MergedHit } from '../../../shared/engine/search/merge-top-hits.ts';
import { plainBytes } from '../../../shared/engine/search/render-hit.ts';
import { releaseOnce, responseBuffers } from '../../../shared/engine/search/buffer-pool.ts';
import type { ParsedSearch, RenderedHits, ShardCursor, ShardQueryResult, SortValue } from '../../../shared/engine/search/types.ts';
import { parseAggregations } from '../../../shared/dsl/aggs/parse.ts';
import { reduceAggsToJson } from '../../../shared/engine/aggs/reduce.ts';
import type { AggSpec } from '../../../shared/engine/aggs/spec.ts';
import { reduceSuggestToJson } from '../../../shared/engine/suggest/reduce-suggest.ts';
import type { ShardSuggestResult } from '../../../shared/engine/suggest/types.ts';
import type { ShardAggState } from '../../../shared/engine/aggs/state.ts';
import { shardsForSearchRouting } from '../../../shared/routing/shard-routing.ts';
import type { ClusterState } from '../cluster/cluster-state.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import type { CopyRoute, ShardDirectory } from '../copies/shard-directory.ts';
import type { CopyAccess } from '../copies/copy-access.ts';
import { FailoverShardClient } from '../search/failover-shard-client.ts';
import { SearchContexts } from '../search/search-contexts.ts';
import { decodeScrollId, encodeScrollId, type ScrollId, type ScrollShard } from './scroll-id.ts';
import { ScrollPrefetch, type PreparedPage } from './scroll-prefetch.ts';
import { emptyMapping } from '../search/empty-mapping.ts';
import { RawJson, stringifyWithRaw } from './raw-json.ts';
import { resolveIndices, globToRegExp, type ResolvedIndex } from '../cluster/index-resolver.ts';
import { parsePreference, type Preference } from '../copies/preference.ts';
import { fetchRendered, type ShardClient, type ShardQueryResponse, type ShardSearchSource } from '../search/shard-client.ts';
import { parseTimeValue } from './request-time-value.ts';
import { rewriteSearchBody, type RewriteDeps } from './request-rewrite.ts';
import { orNullAfter } from '../timeouts.ts';
import { checkSearchLimits, parseSlice, shardsOfSlice } from './search-limits.ts';
import { inSpan, inSpanSync, type Attributes } from '../../../shared/telemetry/spans.ts';
import { ATTR_HITS, ATTR_INDEX, ATTR_SHARD, ATTR_SHARDS } from '../../../shared/telemetry/attributes.ts';


/**
 * The largest `from + size` a search over several shards asks every shard to
 * render with its query phase (ShardQueryRequest.renderFrom): each shard then
 * renders up to that many hits of which the page keeps `size` in all, but
 * the search saves a message to and from every shard worker (the fetch
 * phase's round trip), which costs more than rendering a few hits. A search
 * of one shard always does (its list is the page: Elasticsearch's
 * query-and-fetch shortcut).
 */
const QUERY_AND_FETCH_HITS = 10;

/** Names each search whose shards may cut what they render (ShardQueryRequest.renderCut): one number per execution. */
let nextRenderCut = 1;

export interface SearchRequest {
  readonly indices: string | undefined;
  readonly types: readonly string[] | null;
  readonly body: unknown;
  /** The body as sent, when it is the body parsed: lets the DSL parser keep big integers and report line/col. */
  readonly rawBody: Buffer | null;
  readonly url: SearchUrlParams;
  readonly scrollKeepAliveMs: number;
  readonly routing: readonly string[] | null;
  readonly preference: string | null;
  readonly searchType: string;
  readonly ignoreUnavailable: boolean;
  readonly allowNoIndices: boolean;
  readonly typedKeys: boolean;
  /** `search.max_buckets`: the most buckets the reduced aggregations may hold; none when absent. */
  readonly maxBuckets?: number;
  /** `timeout` URL parameter in ms, or null. */
  readonly timeoutMs: number | null;
  /** `_count`: answers `{count, _shards}`. (`search_type=count` is a search of size 0 with the search response.) */
  readonly countOnly: boolean;
}

interface ShardTarget {
  readonly client: ShardClient;
  readonly search: ParsedSearch;
  /** What `search` was parsed from, for a copy on another node to parse again. */
  readonly source: ShardSearchSource;
  readonly meta: IndexMetadata;
  /** `indices_boost` factor for this shard's index (1 when none applies). */
  readonly boost: number;
}

interface ShardFailure {
  readonly index: string;
  readonly shard: number;
  readonly error: EsError;
}

export class SearchCoordinator {
  private readonly contexts: SearchContexts;
  private readonly prefetch = new ScrollPrefetch();

  constructor(
    private readonly state: ClusterState,
    private readonly directory: ShardDirectory,
    private readonly access: CopyAccess,
    opts: { maxOpenScrollContexts: number | (() => number); contexts?: SearchContexts; rewrite?: RewriteDeps },
  ) {
    this.contexts = opts.contexts ?? new SearchContexts(opts.maxOpenScrollContexts);
    this.rewriteDeps = opts.rewrite ?? null;
  }

  private readonly rewriteDeps: RewriteDeps | null;

  close(): void {
    this.prefetch.clear();
    this.contexts.close();
  }

  /** The request's body with the aliases' filters of this index added as filters. */
  private bodyFor(body: unknown, r: ResolvedIndex): unknown {
    const filters = r.direct ? [] : r.viaAliases.map((a) => a.filter).filter((f) => f !== null && f !== undefined);
    if (filters.length === 0) return body;
    const b = (body ?? {}) as Record<string, unknown>;
    const query = b.query ?? { match_all: {} };
    return { ...b, query: { bool: { must: [query], filter: filters.length === 1 ? filters[0] : [{ bool: { should: filters } }] } } };
  }

  private async targets(
    req: SearchRequest,
    validated: ParsedSearch,
    warn: (message: string) => void,
  ): Promise<{ targets: ShardTarget[]; aggs: AggSpec[] | null }> {
    let resolved = resolveIndices(this.state, req.indices, {
      ignoreUnavailable: req.ignoreUnavailable,
      allowNoIndices: req.allowNoIndices,
      forbidClosed: true,
    });
    if (req.types && req.types.length > 0 && !req.types.includes('_all')) {
      const res = req.types.map((t) => globToRegExp(t));
      resolved = resolved.filter((r) => r.meta.mapping?.typeName !== undefined && r.meta.mapping?.typeName !== null && res.some((re) => re.test(r.meta.mapping!.typeName!)));
    }
    const targets: ShardTarget[] = [];
    let firstAggs: AggSpec[] | null = null;
    const slice = parseSlice(req.body);
    const boosts = this.indexBoosts(validated, req.body, req.ignoreUnavailable, warn);
    const preference = parsePreference(req.preference);
    for (const r of resolved) {
      const meta = r.meta;
      const unfiltered = r.direct || r.viaAliases.every((a) => a.filter === null);
      const sourceBody = unfiltered ? (req.rawBody ?? req.body) : this.bodyFor(req.body, r);
      const search = unfiltered ? validated : parseSearchBody(sourceBody, req.url);
      // Deprecation warnings are the same for every index: report the first index's.
      const aggs: AggSpec[] | null = search.aggregations ? parseAggregations(search.aggregations, meta.mapping ?? emptyMapping, firstAggs === null ? warn : () => {}) : null;
      if (firstAggs === null && aggs) firstAggs = aggs;
      await this.directory.ready(meta);
      const routings = req.routing ?? aliasSearchRouting(r);
      let shards = routings ? shardsForSearchRouting(routings, meta.settings) : Array.from({ length: meta.settings.numberOfShards }, (_, i) => i);
      if (slice) shards = shardsOfSlice(meta, slice, shards);
      if (preference.shards) shards = shards.filter((s) => preference.shards!.has(s));
      const boost = boostFor(boosts, r);
      for (const s of shards) {
        targets.push({ client: this.shardClient(meta, s, preference), search, source: { body: sourceBody, url: req.url }, meta, boost });
      }
    }
    // Elasticsearch parses the aggregations with the request: bad ones fail even when no index matches
    if (firstAggs === null && validated.aggregations) parseAggregations(validated.aggregations, emptyMapping, warn);
    return { targets, aggs: firstAggs };
  }

  /** The copies of a shard this search may use, in the order it tries them (retrying a failed copy on the next). */
  private shardClient(meta: IndexMetadata, shard: number, preference: Preference): ShardClient {
    const order = this.directory.readOrder(meta, shard, preference);
    const clients = order.map((route) => this.copyClient(route, meta, shard));
    if (clients.length === 0) return unavailableShard(meta, shard);
    return clients.length === 1 ? clients[0] : new FailoverShardClient(meta.name, shard, clients);
  }

  /** A copy's search client, naming the copy's node in its query responses (scroll ids need it). */
  private copyClient(route: CopyRoute, meta: IndexMetadata, shard: number): ShardClient {
    return onNode(route.node.id, this.access.searchClient(route, meta, shard, this.contexts));
  }

  /**
   * `indices_boost` entries resolved to concrete index names (an entry may
   * name an index, an alias or a pattern; the first entry that matches wins).
   */
  private indexBoosts(search: ParsedSearch, body: unknown, ignoreUnavailable: boolean, warn: (m: string) => void): Map<string, number> {
    const out = new Map<string, number>();
    if (search.indicesBoost.length === 0) return out;
    const raw = (body as { indices_boost?: unknown } | null)?.indices_boost;
    if (raw !== undefined && !Array.isArray(raw)) warn('Object format in indices_boost is deprecated, please use array format instead');
    for (const { index, boost } of search.indicesBoost) {
      const matched = resolveIndices(this.state, index, { ignoreUnavailable });
      if (matched.length === 0 && !index.includes('*') && !ignoreUnavailable) throw indexNotFound(index);
      for (const m of matched) if (!out.has(m.meta.name)) out.set(m.meta.name, boost);
    }
    return out;
  }

  /**
   * The request's body with its terms lookups and stored script fields
   * resolved (request-rewrite.ts); the request itself when it has none.
   */
  async rewrite(req: SearchRequest): Promise<SearchRequest> {
    const body = await this.rewriteBody(req.body);
    return body === null ? req : { ...req, body, rawBody: null };
  }

  /** A body with its lookups resolved, or null when it has none. */
  async rewriteBody(body: unknown): Promise<unknown | null> {
    if (this.rewriteDeps === null || body === undefined || body === null) return null;
    return rewriteSearchBody(body, this.rewriteDeps);
  }

  /** Runs a search; `warnings` are Elasticsearch's deprecation warnings for the `Warning` header. */
  async search(request: SearchRequest): Promise<{ body: Record<string, unknown>; warnings: string[] }> {
    const req = await this.rewrite(request);
    const warnings: string[] = [];
    const body = await this.runSearch(req, (m) => {
      if (!warnings.includes(m)) warnings.push(m);
    });
    return { body, warnings };
  }

  private async runSearch(req: SearchRequest, warn: (message: string) => void): Promise<Record<string, unknown>> {
    const start = Date.now();
    const nowMillis = start;
    const search = parseSearchBody(req.rawBody ?? req.body, req.url);
    const scroll = req.scrollKeepAliveMs > 0;
    // search_type=count (Elasticsearch 2.x, kept from the seed's interface): the query phase only, with the search response.
    const size = req.countOnly || req.searchType === 'count' ? 0 : search.size;
    if (scroll && size === 0 && !req.countOnly) throw illegalArgument('[size] cannot be [0] in a scroll context');
    const { targets, aggs } = await this.targets(req, search, warn);
    for (const meta of new Set(targets.map((t) => t.meta))) checkSearchLimits(meta, search, size, scroll);
    const timeoutMs = req.timeoutMs ?? (search.timeout ? parseTimeValue(search.timeout, 'timeout') : null);
    const window = scroll ? size : search.from + size;
    const renderFrom = scroll || size === 0 || search.collapse !== null ? undefined : targets.length === 1 ? search.from : window <= QUERY_AND_FETCH_HITS ? 0 : undefined;
    // Several shards whose every answer is merged (no timeout leaves one out), by score alone: a worker's shards may render fewer hits.
    const renderCut = targets.length > 1 && timeoutMs === null && (search.sort === null || search.sort.length === 0) ? nextRenderCut++ : undefined;
    const { responses, failures, timedOut } = await this.queryPhase(targets, (i) => ({
      search: targets[i].search,
      source: targets[i].source,
      size: window,
      after: null,
      nowMillis,
      keepAliveMs: scroll ? req.scrollKeepAliveMs : 0,
      contextId: null,
      maxBuckets: req.maxBuckets,
      // A boosted shard's hits show the boosted score, known only here.
      ...(renderFrom === undefined || targets[i].boost !== 1 ? {} : { renderFrom, ...(renderCut === undefined ? {} : { renderCut }) }),
    }), timeoutMs);
    // Too many buckets on one shard means too many in the response: the request fails as a whole, as after the reduce.
    const tooMany = failures.find((f) => f.error.type === 'too_many_buckets_exception');
    if (tooMany !== undefined) throw tooMany.error;
    if (responses.every((r) => r === null) && failures.length > 0) throw allShardsFailed(failures);

    const results = responses.map((r, i) => (r ? boosted(r.result, targets[i].boost) : null));
    const total = results.reduce((n, r) => n + (r?.totalHits ?? 0), 0);
    const maxScore = results.reduce((m, r) => (r && !Number.isNaN(r.maxScore) && (Number.isNaN(m) || r.maxScore > m) ? r.maxScore : m), NaN);
    const from = scroll ? 0 : search.from;
    let merged: MergedHit[];
    let hits: RawJson;
    if (search.collapse !== null) {
      checkCollapseRequest(search, scroll);
      merged = size === 0 ? [] : mergeCollapsed(search, results, from, size);
      const suffixes = search.collapse.innerHits.length === 0 ? undefined : await this.collapseInnerHits(req, search, merged);
      // The collapse value rode along as a last sort value: clients see the request's sort values only.
      const visible = merged.map((h) => ({ ...h, sortValues: search.sort === null || h.sortValues === null ? null : h.sortValues.slice(0, -1) }));
      hits = await this.fetchPhase(targets, responses, visible, !scroll, undefined, suffixes);
    } else {
      merged = size === 0 ? [] : inSpanSync('reduce', { [ATTR_SHARDS]: results.length }, () => mergeTopHits(search, results, from, size));
      const queryAhead = scroll && sortedByDocAlone(search) ? { size, nowMillis } : undefined;
      hits = await this.fetchPhase(targets, responses, merged, !scroll, undefined, undefined, queryAhead);
    }

    const body: Record<string, unknown> = {};
    if (scroll) {
      const scrollId = this.scrollIdOf(targets, responses, search, size, total, req.scrollKeepAliveMs);
      body._scroll_id = scrollId;
      if (merged.length === size) this.prepareNextPage(scrollId, decodeScrollId(scrollId), req.scrollKeepAliveMs);
    } else {
      this.releaseUnfetched(targets, responses, merged);
    }
    body.took = Date.now() - start;
    body.timed_out = timedOut;
    const terminated = results.some((r) => r?.terminatedEarly === true);
    if (search.terminateAfter > 0) body.terminated_early = terminated;
    body._shards = shardsHeader(targets.length, failures);
    if (req.countOnly) return { count: total, _shards: body._shards };
    body.hits = {
      total,
      max_score: Number.isNaN(maxScore) ? null : maxScore,
      hits,
    };
    if (aggs) {
      const states = responses.map((r) => r?.aggs).filter((s): s is ShardAggState => s !== null && s !== undefined);
      // Rendered to JSON text here: the response writer embeds it instead of walking thousands of buckets.
      body.aggregations = new RawJson(inSpanSync('reduce aggregations', { [ATTR_SHARDS]: states.length }, () => reduceAggsToJson(aggs, states, { typedKeys: req.typedKeys, maxBuckets: req.maxBuckets })));
    }
    if (search.suggest) {
      const shards = responses.map((r) => r?.suggest).filter((s): s is ShardSuggestResult => s !== null && s !== undefined);
      body.suggest = new RawJson(inSpanSync('reduce suggest', { [ATTR_SHARDS]: shards.length }, () => reduceSuggestToJson(withShardOrder(shards), { typedKeys: req.typedKeys })));
    }
    return body;
  }

  private async queryPhase(
    targets: readonly ShardTarget[],
    request: (i: number) => Parameters<ShardClient['query']>[0],
    timeoutMs: number | null,
  ): Promise<{ responses: (ShardQueryResponse | null)[]; failures: ShardFailure[]; timedOut: boolean }> {
    const deadline = timeoutMs !== null && timeoutMs >= 0 ? Date.now() + timeoutMs : Infinity;
    const failures: ShardFailure[] = [];
    let timedOut = false;
    // Every shard's query goes out in this turn of the event loop, so the queries for one worker travel in one message.
    const responses = await Promise.all(
      targets.map(async (t, i) => {
        try {
          const answer = inSpan('query', shardAttributes(t.client), () => t.client.query(request(i)));
          if (deadline === Infinity) return await answer;
          const res = await orNullAfter(answer, deadline - Date.now());
          if (res !== null) return res;
          // Left out, as Elasticsearch leaves out what a shard had not collected by then; its context is freed once it answers.
          timedOut = true;
          answer.then(
            (late) => t.client.release(late.contextId),
            () => undefined,
          );
          return null;
        } catch (err) {
          if (!isEsError(err)) throw err;
          failures.push({ index: t.client.index, shard: t.client.shard, error: err });
          return null;
        }
      }),
    );
    return { responses, failures, timedOut };
  }

  /**
   * Fetches the final page from the shards that own it and returns the
   * `hits.hits` array as JSON bytes: each shard renders its hits into one
   * buffer and the page is spliced together in merged order.
   */
  private async fetchPhase(
    targets: readonly ShardTarget[],
    responses: readonly (ShardQueryResponse | null)[],
    merged: readonly { shardIndex: number; rank?: number; doc: number; score: number; sortValues: SortValue[] | null }[],
    release: boolean,
    /** Given: the scroll cursors are not moved by the fetch; where each context's page ended is put here instead. */
    deferredCursors?: { contextId: number; cursor: ShardCursor }[],
    /** Members added at the end of each hit of the page (`,"inner_hits":{...}`), by position. */
    suffixes?: readonly string[],
    /** A scroll sorted by `_doc` alone: its page size, for each shard to run its next query phase with the fetch. */
    queryAhead?: { readonly size: number; readonly nowMillis: number },
  ): Promise<RawJson> {
    const byShard = new Map<number, number[]>();
    merged.forEach((h, pos) => {
      const list = byShard.get(h.shardIndex);
      if (list) list.push(pos);
      else byShard.set(h.shardIndex, [pos]);
    });
    const renderedOf: RenderedHits[] = new Array<RenderedHits>(merged.length);
    const bytesOf: Uint8Array[] = new Array<Uint8Array>(merged.length);
    const indexIn = new Int32Array(merged.length);
    const fetched: RenderedHits[] = [];
    await Promise.all(
      [...byShard].map(async ([shardIndex, positions]) => {
        const resp = responses[shardIndex]!;
        const inline = resp.rendered;
        if (inline !== undefined && inline !== null && release && deferredCursors === undefined) {
          // Rendered with the query phase (renderFrom): the page is spliced from those bytes, no fetch round trip
          // (the span still says which shard's hits the page holds).
          const bytes = plainBytes(inline.hits.bytes);
          inSpanSync('fetch', { ...shardAttributes(targets[shardIndex].client), [ATTR_HITS]: positions.length }, () =>
            positions.forEach((p) => {
              renderedOf[p] = inline.hits;
              bytesOf[p] = bytes;
              indexIn[p] = merged[p]!.rank! - inline.renderFrom;
            }),
          );
          return;
        }
        const search = targets[shardIndex].search;
        const scoreShown = scoresShown(search);
        const client = targets[shardIndex].client;
        const emitted = release ? null : lastEmitted(resp, merged[positions[positions.length - 1]!]!);
        let cursor = emitted;
        if (cursor !== null && deferredCursors !== undefined) {
          deferredCursors.push({ contextId: resp.contextId, cursor });
          cursor = null;
        }
        const queryNext = emitted === null || queryAhead === undefined ? undefined : { after: emitted, size: queryAhead.size, nowMillis: queryAhead.nowMillis };
        const rendered = await inSpan('fetch', { ...shardAttributes(client), [ATTR_HITS]: positions.length }, () =>
          fetchRendered(client, {
            contextId: resp.contextId,
            docs: positions.map((p) => merged[p].doc),
            scores: positions.map((p) => (scoreShown ? merged[p].score : NaN)),
            sortValues: positions.map((p) => merged[p].sortValues),
            release,
            lastEmitted: cursor,
            ...(queryNext === undefined ? {} : { queryNext }),
          }),
        );
        fetched.push(rendered);
        const bytes = plainBytes(rendered.bytes);
        positions.forEach((p, i) => {
          renderedOf[p] = rendered;
          bytesOf[p] = bytes;
          indexIn[p] = i;
        });
      }),
    );
    const extra = suffixes?.map((x) => Buffer.from(x, 'utf8'));
    let length = 2 + Math.max(0, merged.length - 1);
    for (let p = 0; p < merged.length; p++) {
      const { starts } = renderedOf[p]!;
      length += starts[indexIn[p]! + 1]! - starts[indexIn[p]!]! + (extra?.[p]?.length ?? 0);
    }
    const out = responseBuffers.take(length);
    const u8 = plainBytes(out);
    let at = 0;
    u8[at++] = 0x5b; // [
    for (let p = 0; p < merged.length; p++) {
      if (p > 0) u8[at++] = 0x2c; // ,
      const { starts } = renderedOf[p]!;
      const from = starts[indexIn[p]!]!;
      const to = starts[indexIn[p]! + 1]!;
      const suffix = extra?.[p];
      if (suffix === undefined || suffix.length === 0) {
        u8.set(bytesOf[p]!.subarray(from, to), at);
        at += to - from;
      } else {
        // The hit's closing brace goes after the added members.
        u8.set(bytesOf[p]!.subarray(from, to - 1), at);
        at += to - 1 - from;
        u8.set(suffix, at);
        at += suffix.length;
        u8[at++] = 0x7d; // }
      }
    }
    u8[at] = 0x5d; // ]
    for (const r of fetched) r.release?.();
    return new RawJson(out.subarray(0, length), releaseOnce(responseBuffers, out));
  }

  /**
   * `collapse.inner_hits`: for each group on the page, a search of the
   * group's documents (the request's query and the group's value), as
   * Elasticsearch's ExpandSearchPhase runs them; each hit gets
   * `,"inner_hits":{"<name>":{"hits":{...}}}`.
   */
  private async collapseInnerHits(req: SearchRequest, search: ParsedSearch, merged: readonly MergedHit[]): Promise<string[]> {
    const collapse = search.collapse!;
    const query = (req.body as { query?: unknown } | undefined)?.query ?? { match_all: {} };
    const field = collapse.field;
    const limit = collapse.maxConcurrentGroupSearches ?? 4;
    const out: string[] = new Array<string>(merged.length).fill('');
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < merged.length) {
        const p = next++;
        const row = merged[p]!.sortValues;
        const value = row === null ? null : row[row.length - 1];
        const group = value === null || value === undefined ? { bool: { must_not: [{ exists: { field } }] } } : { term: { [field]: typeof value === 'bigint' ? value.toString() : value } };
        const parts: string[] = [];
        for (const ih of collapse.innerHits) {
          const body = { ...ih.body, query: { bool: { must: [query], filter: [group] } } };
          const res = await this.search({ ...req, body, rawBody: null, scrollKeepAliveMs: 0, countOnly: false, searchType: 'query_then_fetch' });
          parts.push(`${JSON.stringify(ih.name)}:{"hits":${stringifyWithRaw(res.body.hits)}}`);
        }
        out[p] = `,"inner_hits":{${parts.join(',')}}`;
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, merged.length) }, lane));
    return out;
  }

  /** Frees the contexts of shards that contributed no hit to the page (plain searches). */
  private releaseUnfetched(
    targets: readonly ShardTarget[],
    responses: readonly (ShardQueryResponse | null)[],
    merged: readonly { shardIndex: number }[],
  ): void {
    const used = new Set(merged.map((h) => h.shardIndex));
    responses.forEach((r, i) => {
      if (r && !used.has(i)) targets[i].client.release(r.contextId);
    });
  }

  /** The id of a scroll just opened: the contexts of the shards that answered, and how to continue them. */
  private scrollIdOf(
    targets: readonly ShardTarget[],
    responses: readonly (ShardQueryResponse | null)[],
    search: ParsedSearch,
    size: number,
    total: number,
    keepAliveMs: number,
  ): string {
    const shards: ScrollShard[] = [];
    responses.forEach((r, i) => {
      if (r === null) return;
      const t = targets[i]!;
      shards.push({ node: r.nodeId ?? this.directory.self.id, indexUuid: t.meta.uuid, index: t.meta.name, shard: t.client.shard, context: r.contextId, boost: t.boost });
    });
    return encodeScrollId({ size, total, sort: search.sort, trackScores: search.trackScores, keepAliveMs, shards });
  }

  /**
   * The next page of a scroll, on whichever node: the id says which node
   * holds each shard's context. A context whose node has left the cluster
   * (or died, or no longer holds the copy) is missing, as an expired one is.
   */
  async scroll(scrollId: string, keepAliveMs: number | null): Promise<Record<string, unknown>> {
    const start = Date.now();
    const id = decodeScrollId(scrollId);
    const keepAlive = keepAliveMs ?? id.keepAliveMs;
    const page = (await this.prefetch.take(scrollId, keepAlive)) ?? (await this.scrollPage(id, keepAlive, start, false))!;
    page.commit();
    if (page.full) this.prepareNextPage(scrollId, id, keepAlive);
    return { _scroll_id: scrollId, took: Date.now() - start, ...page.body };
  }

  /**
   * While the client reads a page of a scroll whose contexts are all on this
   * node, computes the next one (scroll-prefetch.ts). A scroll with contexts
   * on other nodes is not prepared ahead: its cursors live on those nodes,
   * and any node may be asked for its next page.
   */
  private prepareNextPage(scrollId: string, id: ScrollId, keepAliveMs: number): void {
    const self = this.directory.self.id;
    if (!id.shards.every((s) => s.node === self)) return;
    // In the trace of the request whose page it follows: the request that takes it computes nothing.
    this.prefetch.prepare(scrollId, keepAliveMs, () => inSpan('scroll page ahead', { [ATTR_SHARDS]: id.shards.length }, () => this.scrollPage(id, keepAliveMs, Date.now(), true)));
  }

  /**
   * One page of a scroll: query and fetch phases on its contexts. A page
   * computed ahead (`ahead`) leaves the cursors where they are until it is
   * sent, and comes out null unless every shard answered.
   */
  private async scrollPage(id: ScrollId, keepAlive: number, start: number, ahead: boolean): Promise<PreparedPage | null> {
    const search = continuationSearch(id);
    const failures: ShardFailure[] = [];
    const targets: ShardTarget[] = [];
    const contexts: number[] = [];
    for (const s of id.shards) {
      const target = this.scrollTarget(s, search);
      if (target instanceof EsError) failures.push({ index: s.index, shard: s.shard, error: target });
      else {
        targets.push(target);
        contexts.push(s.context);
      }
    }
    if (ahead && failures.length > 0) return null;
    const responses: (ShardQueryResponse | null)[] = targets.map(() => null);
    await Promise.all(
      targets.map(async (t, i) => {
        try {
          const req = { search, size: id.size, after: null, nowMillis: start, keepAliveMs: keepAlive, contextId: contexts[i]! };
          responses[i] = await inSpan('query', shardAttributes(t.client), () => t.client.query(req));
        } catch (err) {
          if (!isEsError(err)) throw err;
          failures.push({ index: t.meta.name, shard: t.client.shard, error: contextGone(err) ? searchContextMissing(contexts[i]!) : err });
        }
      }),
    );
    if (ahead && failures.length > 0) return null;
    if (failures.length > 0 && responses.every((r) => r === null)) throw allShardsFailed(failures, 'query');
    const results = responses.map((r, i) => (r ? boosted(r.result, targets[i]!.boost) : null));
    const merged = mergeTopHits(search, results, 0, id.size);
    const deferred: { contextId: number; cursor: ShardCursor }[] | undefined = ahead ? [] : undefined;
    const queryAhead = sortedByDocAlone(search) ? { size: id.size, nowMillis: start } : undefined;
    const hits = await this.fetchPhase(targets, responses, merged, false, deferred, undefined, queryAhead);
    const maxScore = merged.reduce((m, h) => (Number.isNaN(h.score) ? m : Math.max(m, h.score)), -Infinity);
    return {
      body: {
        timed_out: false,
        _shards: shardsHeader(id.shards.length, failures),
        hits: { total: id.total, max_score: search.sort === null && merged.length > 0 && maxScore > -Infinity ? maxScore : null, hits },
      },
      full: merged.length === id.size,
      commit: () => {
        for (const d of deferred ?? []) this.contexts.advance(d.contextId, d.cursor);
      },
      discard: () => hits.release?.(),
    };
  }

  /** The client of a scroll's shard context, on this node or another; an EsError when the context cannot be there. */
  private scrollTarget(s: ScrollShard, search: ParsedSearch): ShardTarget | EsError {
    const meta = this.state.indexByUuid(s.indexUuid);
    const node = this.directory.nodes().find((n) => n.id === s.node);
    if (!meta || !node) return searchContextMissing(s.context);
    let route: CopyRoute | undefined;
    if (node.id === this.directory.self.id) {
      route = this.directory.routes(meta, s.shard).find((r) => r.local !== null && r.node.id === node.id);
      if (!route) return searchContextMissing(s.context);
    } else {
      route = { node, primary: false, state: 'STARTED', local: null, docCount: null, recovery: null };
    }
    return { client: this.copyClient(route, meta, s.shard), search, source: { body: null, url: {} }, meta, boost: s.boost };
  }

  /** Frees scrolls, on whichever nodes hold their contexts; returns how many shard contexts were freed. */
  async clearScroll(ids: readonly string[] | 'all'): Promise<number> {
    const self = this.directory.self.id;
    if (ids === 'all') {
      this.prefetch.clear();
      let freed = this.contexts.freeAllScrolls();
      const others = this.directory.nodes().filter((n) => n.id !== self);
      for (const n of await Promise.all(others.map((node) => this.access.freeScrollContexts(node).catch(() => 0)))) freed += n;
      return freed;
    }
    for (const text of ids) this.prefetch.drop(text);
    const shards = ids.flatMap((text) => decodeScrollId(text).shards);
    const freed = await Promise.all(
      shards.map(async (s) => {
        if (s.node === self) return this.contexts.free(s.context);
        const node = this.directory.nodes().find((n) => n.id === s.node);
        return node ? this.access.freeContext(node, s.context).catch(() => false) : false;
      }),
    );
    return freed.filter(Boolean).length;
  }
}



/** Completion options of equal score rank by the shard's position in the search, then the doc (as Lucene's TopDocs.merge). */
function withShardOrder(shards: readonly ShardSuggestResult[]): ShardSuggestResult[] {
  return shards.map((suggestions, shardOrder) =>
    suggestions.map((s) => (s.type !== 'completion' ? s : { ...s, entries: s.entries.map((e) => ({ ...e, options: e.options.map((o) => ({ ...o, shardOrder })) })) })),
  );
}

function shardAttributes(client: ShardClient): Attributes {
  return { [ATTR_INDEX]: client.index, [ATTR_SHARD]: client.shard };
}

/** The shard's last hit on a page, as the cursor its context continues after (the shard's own score, not the boosted one). */
function lastEmitted(resp: ShardQueryResponse, hit: { doc: number; score: number; sortValues: SortValue[] | null }): ShardCursor {
  const { docs, scores } = resp.result;
  let score = hit.score;
  for (let k = 0; k < docs.length; k++) {
    if (docs[k] === hit.doc) {
      score = scores[k]!;
      break;
    }
  }
  return { sortValues: hit.sortValues, score, doc: hit.doc };
}

/** A client whose query responses name the node holding their context (scroll ids need it). */
function onNode(nodeId: string, client: ShardClient): ShardClient {
  const tagged: ShardClient = {
    index: client.index,
    shard: client.shard,
    query: async (req) => ({ ...(await client.query(req)), nodeId }),
    fetch: (req) => client.fetch(req),
    fetchRendered: (req) => fetchRendered(client, req),
    release: (contextId) => client.release(contextId),
  };
  return tagged;
}

/**
 * What a continuation needs of the search: how to merge the shards' pages
 * and whether scores are shown. The query itself runs in each shard's
 * context, as the context was opened with it.
 */
function continuationSearch(id: ScrollId): ParsedSearch {
  return { ...parseSearchBody({ size: id.size }, {}), sort: id.sort, trackScores: id.trackScores };
}

/** Failures that mean the context is gone: its node left or died, or no longer holds the copy. */
function contextGone(err: EsError): boolean {
  return ['search_context_missing_exception', 'shard_not_found_exception', 'connect_transport_exception', 'node_disconnected_exception', 'transport_exception'].includes(err.type);
}

function boostFor(boosts: ReadonlyMap<string, number>, r: ResolvedIndex): number {
  return boosts.get(r.meta.name) ?? 1;
}

/** A shard result with its scores multiplied by the index's boost (`indices_boost`). */
function boosted(result: ShardQueryResult, boost: number): ShardQueryResult {
  if (boost === 1) return result;
  const scores = new Float32Array(result.scores.length);
  for (let i = 0; i < scores.length; i++) scores[i] = result.scores[i] * boost;
  // Named, not spread: a worker's result makes its sort rows when read (sort-rows.ts withSortRows).
  return {
    totalHits: result.totalHits,
    maxScore: result.maxScore * boost,
    docs: result.docs,
    scores,
    sortValues: result.sortValues,
    ...(result.sortColumn === undefined ? {} : { sortColumn: result.sortColumn }),
    terminatedEarly: result.terminatedEarly,
    matches: result.matches,
  };
}

function aliasSearchRouting(r: ResolvedIndex): string[] | null {
  if (r.direct) return null;
  const routings = r.viaAliases.map((a) => a.searchRouting).filter((x): x is string => x !== null);
  if (routings.length === 0 || routings.length < r.viaAliases.length) return null;
  return routings.flatMap((x) => x.split(','));
}

function shardsHeader(total: number, failures: readonly ShardFailure[]): Record<string, unknown> {
  const h: Record<string, unknown> = { total, successful: total - failures.length, skipped: 0, failed: failures.length };
  if (failures.length > 0) {
    h.failures = failures.map((f) => ({ shard: f.shard, index: f.index, node: null, reason: renderError(f.error).error }));
  }
  return h;
}

/** Elasticsearch's search_phase_execution_exception when no shard answered. */
function allShardsFailed(failures: readonly ShardFailure[], phase = 'query'): EsError {
  const first = failures[0].error;
  const seen = new Set<string>();
  const roots: EsError[] = [];
  for (const f of failures) {
    const key = `${f.error.type}:${f.error.reason}`;
    if (!seen.has(key)) {
      seen.add(key);
      roots.push(f.error);
    }
  }
  const failedShards = failures.map((f) => ({ shard: f.shard, index: f.index, node: null, reason: renderError(f.error).error }));
  return new EsError('search_phase_execution_exception', 'all shards failed', first.status, { phase, grouped: true, failed_shards: failedShards }, first, roots);
}

/** A shard with no started copy: every phase fails as Elasticsearch reports it. */
function unavailableShard(meta: IndexMetadata, shard: number): ShardClient {
  const fail = () => Promise.reject(noShardAvailable(meta.name, shard));
  return { index: meta.name, shard, query: fail, fetch: fail, release: () => {} };
}

/** What a collapsed search may not be combined with (SearchService.parseSource). */
function checkCollapseRequest(search: ParsedSearch, scroll: boolean): void {
  if (scroll) throw new EsError('search_context_exception', 'cannot use `collapse` in a scroll context', 400);
  if (search.searchAfter !== null) throw new EsError('search_context_exception', 'cannot use `collapse` in conjunction with `search_after`', 400);
  if (search.rescoreWindow !== null) throw new EsError('search_context_exception', 'cannot use `collapse` in conjunction with `rescore`', 400);
}

/**
 * The shards' collapsed hits merged: a group reported by several shards keeps
 * its best hit (the first in sort order), as CollapseTopFieldDocs.merge does.
 * The collapse value is each hit's last sort value.
 */
function mergeCollapsed(search: ParsedSearch, results: readonly (ShardQueryResult | null)[], from: number, size: number): MergedHit[] {
  const all = mergeTopHits(search, results, 0, results.reduce((n, r) => n + (r?.docs.length ?? 0), 0));
  const seen = new Set<string>();
  const out: MergedHit[] = [];
  for (const h of all) {
    const row = h.sortValues;
    const v = row === null ? null : row[row.length - 1];
    const key = v === null || v === undefined ? 'null' : `${typeof v}:${String(v)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(h);
  }
  return out.slice(from, from + size);
}
