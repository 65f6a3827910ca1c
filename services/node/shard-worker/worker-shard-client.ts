/**
 * A ShardClient for a copy held by this node: its query and fetch phases run
 * in the copy's shard worker. Context ids and keep-alives are the node's
 * (SearchContexts); the worker pins the views under those ids.
 */
import { EsError, noShardAvailable, searchContextMissing } from '../../../shared/errors/es-errors.ts';
import type { RenderedHits } from '../../../shared/engine/search/types.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import type { ShardClient, ShardFetchRequest, ShardQueryRequest, ShardQueryResponse, ShardSearchSource } from '../search/shard-client.ts';
import type { SearchContexts } from '../search/search-contexts.ts';
import type { SlowLog } from '../search/slow-log.ts';
import type { FetchReply, QueryReply } from './protocol.ts';
import type { EngineHandle } from './engine-handle.ts';
import { packSortRows, withSortRows } from './sort-rows.ts';
import { sortedByDocAlone } from '../../../shared/engine/search/merge-top-hits.ts';

function resultOf(contextId: number, reply: QueryReply, renderFrom?: number): ShardQueryResponse {
  const result = withSortRows(reply.result);
  const r = reply.rendered;
  const rendered = r === undefined || r === null || renderFrom === undefined ? null : { hits: { bytes: Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength), starts: r.starts }, renderFrom };
  return { contextId, result, aggs: reply.aggs, suggest: reply.suggest, rendered };
}

/** The parts of a query request a copy needs: the search travels as the client's body. */
export type SourceQueryRequest = Omit<ShardQueryRequest, 'search'>;

const parseKeys = new WeakMap<object, number>();
let nextParseKey = 1;

/** One key per body object: the shards of one search in one worker parse it once. */
function parseKeyOf(body: unknown): number {
  if (typeof body !== 'object' || body === null) return nextParseKey++;
  let key = parseKeys.get(body);
  if (key === undefined) {
    key = nextParseKey++;
    parseKeys.set(body, key);
  }
  return key;
}

function missingSource(meta: Pick<IndexMetadata, 'name'>, shard: number): EsError {
  return new EsError('illegal_state_exception', `a query phase on [${meta.name}][${shard}] needs the search body it was parsed from (ShardQueryRequest.source)`, 500);
}

export class WorkerShardClient implements ShardClient {
  readonly index: string;
  readonly shard: number;

  constructor(
    private readonly handle: EngineHandle,
    /** True while the copy holds part of its documents: rebuilding from the log (its worker died, a damaged file), or opened emptied and not started yet. */
    private readonly rebuilding: () => boolean,
    private readonly meta: IndexMetadata,
    private readonly contexts: SearchContexts,
    /** The node's slow log: query and fetch phases slower than the index's thresholds. */
    private readonly slowLog: SlowLog | null = null,
  ) {
    this.index = meta.name;
    this.shard = handle.shard;
  }

  async query(req: ShardQueryRequest): Promise<ShardQueryResponse> {
    const res = await this.querySource(req);
    // A scroll sorted by `_doc`: a shard none of whose hits make the first page answers the second from this.
    if (req.contextId === null && req.keepAliveMs > 0 && sortedByDocAlone(req.search)) {
      this.contexts.keep(res.contextId, { after: null, size: req.size, result: res.result });
    }
    return res;
  }

  /** The query phase from the client's body (what a remote coordinator sends). */
  async querySource(req: SourceQueryRequest): Promise<ShardQueryResponse> {
    // Left out rather than answered from part of the documents (another copy answers, if there is one).
    if (this.rebuilding()) throw noShardAvailable(this.meta.name, this.shard);
    const base = { size: req.size, after: req.after, nowMillis: req.nowMillis, parseKey: 0, body: null, url: null, scroll: req.keepAliveMs > 0, maxBuckets: req.maxBuckets };
    if (req.contextId !== null) {
      if (!this.contexts.renew(req.contextId, req.keepAliveMs)) throw searchContextMissing(req.contextId);
      // The page before ran this query phase with its fetch (ShardFetchRequest.queryNext): no round trip.
      const kept = req.after === null ? this.contexts.kept(req.contextId, req.size) : null;
      if (kept !== null) return { contextId: req.contextId, result: kept, aggs: null, suggest: null };
      // A scroll page continues where the context's last page ended, unless the request says where.
      const after = req.after ?? this.contexts.cursor(req.contextId);
      const reply = await this.handle.request<QueryReply>({ t: 'query', copy: this.handle.copy, contextId: req.contextId, continuation: true, ...base, after });
      return resultOf(req.contextId, reply);
    }
    const source: ShardSearchSource | undefined = req.source;
    if (source === undefined) throw missingSource(this.meta, this.shard);
    this.handle.syncMeta(this.meta);
    const id = this.contexts.open(this.handle.slot, req.keepAliveMs);
    const slowLog = this.slowLog?.watches(this.meta, 'query') ? this.slowLog : null;
    const started = slowLog === null ? 0 : performance.now();
    const transient = req.size === 0 && req.keepAliveMs <= 0;
    // A fetch phase the slow log watches runs as its own phase, to be timed as one.
    const renderFrom = req.keepAliveMs > 0 || transient || this.slowLog?.watches(this.meta, 'fetch') === true ? undefined : req.renderFrom;
    try {
      const reply = await this.handle.request<QueryReply>({
        t: 'query',
        copy: this.handle.copy,
        contextId: id,
        continuation: false,
        ...base,
        body: source.body,
        url: source.url,
        parseKey: parseKeyOf(source.body),
        transient,
        ...(renderFrom === undefined ? {} : { renderFrom, ...(req.renderCut === undefined ? {} : { renderCut: req.renderCut }) }),
      });
      slowLog?.record(this.meta, this.shard, 'query', performance.now() - started, reply.result.totalHits, source.body);
      // The worker let the view go with its answer (or with the hits it rendered): releasing the id later sends nothing.
      if (transient || (reply.rendered !== undefined && reply.rendered !== null)) this.contexts.forget(id);
      return resultOf(id, reply, renderFrom);
    } catch (err) {
      this.contexts.free(id);
      throw err;
    }
  }

  async fetchRendered(req: ShardFetchRequest): Promise<RenderedHits> {
    if (!this.contexts.has(req.contextId)) throw searchContextMissing(req.contextId);
    const slowLog = this.slowLog?.watches(this.meta, 'fetch') ? this.slowLog : null;
    const started = slowLog === null ? 0 : performance.now();
    const reply = await this.handle.request<FetchReply>({
      t: 'fetch',
      copy: this.handle.copy,
      contextId: req.contextId,
      docs: Int32Array.from(req.docs),
      scores: Float64Array.from(req.scores),
      sortValues: packSortRows(req.sortValues),
      release: req.release,
      ...(req.queryNext === undefined || req.release ? {} : { next: req.queryNext }),
    });
    slowLog?.record(this.meta, this.shard, 'fetch', performance.now() - started, req.docs.length);
    // The worker let the view go with the fetch.
    if (req.release) this.contexts.forget(req.contextId);
    else if (req.lastEmitted) this.contexts.advance(req.contextId, req.lastEmitted);
    const next = reply.next;
    if (req.queryNext !== undefined && next !== undefined && next !== null) {
      const result = withSortRows(next);
      this.contexts.keep(req.contextId, { after: req.queryNext.after, size: req.queryNext.size, result });
    }
    const b = reply.bytes;
    return { bytes: Buffer.from(b.buffer, b.byteOffset, b.byteLength), starts: reply.starts };
  }

  async fetch(req: ShardFetchRequest): Promise<string[]> {
    const { bytes, starts } = await this.fetchRendered(req);
    const out = new Array<string>(req.docs.length);
    for (let i = 0; i < out.length; i++) out[i] = bytes.toString('utf8', starts[i], starts[i + 1]);
    return out;
  }

  release(contextId: number): void {
    this.contexts.free(contextId);
  }
}
