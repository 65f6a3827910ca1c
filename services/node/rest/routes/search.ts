/**
 * Search APIs: `_search` (GET and POST, URI and body), `_count`, scroll and clear scroll.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EsError, illegalArgument } from '../../../../shared/errors/es-errors.ts';
import type { SearchUrlParams } from '../../../../shared/dsl/query/search-body.ts';
import type { NodeContext } from '../node-context.ts';
import type { SearchRequest } from '../../coordinator/search-coordinator.ts';
import { boolParam, intParam, jsonBody, listParam, params, parseTimeValue, query, rawBody, type Query } from '../params.ts';
import { sendJson } from '../reply.ts';
import type { TaskSpec } from '../../tasks/task-registry.ts';
import { warningHeader } from './indices.ts';
import { formatTimeValue } from '../../../../shared/engine/mapping/time-value.ts';
import { MAX_BUCKETS, MAX_KEEP_ALIVE } from '../../cluster/cluster-settings.ts';
import { securityOf } from '../../security/request-security.ts';
import { bindScrollId, unbindScrollId } from '../../security/scroll-binding.ts';

const SEARCH_TYPES = new Set(['query_then_fetch', 'dfs_query_then_fetch', 'count']);

function urlParams(q: Query): SearchUrlParams {
  const source = q._source;
  return {
    q: q.q,
    df: q.df,
    defaultOperator: q.default_operator,
    analyzer: q.analyzer,
    from: intParam(q, 'from'),
    size: intParam(q, 'size'),
    sort: q.sort,
    source: source === undefined ? undefined : source === 'false' ? false : source === 'true' || source === '' ? true : source,
    sourceIncludes: listParam(q, '_source_includes', '_source_include'),
    sourceExcludes: listParam(q, '_source_excludes', '_source_exclude'),
    trackScores: q.track_scores === undefined ? undefined : boolParam(q, 'track_scores', false),
    terminateAfter: intParam(q, 'terminate_after'),
    version: q.version === undefined ? undefined : boolParam(q, 'version', false),
  };
}

/**
 * SearchService.checkKeepAliveLimit: a scroll may not ask to be kept longer
 * than `search.max_keep_alive`, or 98 scrolls of `100000d` hold every context.
 */
function keepAlive(ms: number, maxMs: number): number {
  if (ms > maxMs) {
    throw illegalArgument(
      `Keep alive for scroll (${formatTimeValue(ms)}) is too large. It must be less than (${formatTimeValue(maxMs)}). This limit can be set by changing the [search.max_keep_alive] cluster level setting.`,
    );
  }
  return ms;
}

export function searchRequest(req: FastifyRequest, countOnly: boolean, maxKeepAliveMs = Number.POSITIVE_INFINITY): SearchRequest {
  const q = query(req);
  const p = params(req);
  const searchType = q.search_type ?? 'query_then_fetch';
  if (!SEARCH_TYPES.has(searchType)) throw illegalArgument(`No search type for [${searchType}]`);
  if (searchType === 'count' && q.scroll !== undefined) {
    throw illegalArgument('[search_type=count] returns no hits, so it cannot be scrolled: search without [scroll], or scroll without [search_type=count]');
  }
  const body = jsonBody(req);
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
    throw new EsError('parsing_exception', 'Expected [START_OBJECT] but found [VALUE_STRING]', 400, { line: 1, col: 1 });
  }
  let effectiveBody = body;
  // URL forms of body parameters the URL-parameter parser does not cover.
  const dvf = listParam(q, 'docvalue_fields');
  const sf = listParam(q, 'stored_fields');
  if (!countOnly && (dvf || sf)) {
    const b = { ...((body as Record<string, unknown> | undefined) ?? {}) };
    if (dvf && b.docvalue_fields === undefined) b.docvalue_fields = dvf;
    if (sf && b.stored_fields === undefined) b.stored_fields = sf;
    effectiveBody = b;
  }
  if (countOnly && body && typeof body === 'object') {
    // _count takes only a query (RestActions.getQueryContent).
    const b = body as Record<string, unknown>;
    for (const k of Object.keys(b)) {
      if (k !== 'query') throw new EsError('parsing_exception', `request does not support [${k}]`, 400, { line: 1, col: 2 });
    }
    effectiveBody = b.query === undefined ? {} : { query: b.query };
  }
  const raw = rawBody(req);
  return {
    indices: p.index,
    types: p.type ? p.type.split(',') : null,
    body: effectiveBody,
    rawBody: effectiveBody === body && raw !== null ? raw : null,
    url: urlParams(q),
    scrollKeepAliveMs: q.scroll === undefined ? 0 : keepAlive(parseTimeValue(q.scroll, 'scroll'), maxKeepAliveMs),
    routing: q.routing ? q.routing.split(',') : null,
    preference: q.preference ?? null,
    searchType,
    ignoreUnavailable: boolParam(q, 'ignore_unavailable', false),
    allowNoIndices: boolParam(q, 'allow_no_indices', true),
    typedKeys: boolParam(q, 'typed_keys', false),
    timeoutMs: q.timeout === undefined ? null : parseTimeValue(q.timeout, 'timeout'),
    countOnly,
  };
}

/** Scroll ids arrive in the body (`{"scroll_id": ...}` or plain text), the path or the query string. */
function scrollIds(req: FastifyRequest): { ids: string[]; scroll: string | undefined } {
  const q = query(req);
  const p = params(req);
  const raw = rawBody(req);
  let ids: string[] = [];
  let scroll = q.scroll;
  if (raw !== null) {
    const text = raw.toString('utf8').trim();
    if (text.startsWith('{')) {
      const body = jsonBody(req) as { scroll_id?: unknown; scroll?: unknown };
      if (body.scroll_id !== undefined) ids = [body.scroll_id].flat().map(String);
      if (body.scroll !== undefined) scroll = String(body.scroll);
    } else if (text.length > 0) {
      ids = text.split(',');
    }
  }
  if (ids.length === 0) {
    const fromPath = p.scroll_id ?? q.scroll_id;
    if (fromPath) ids = fromPath.split(',');
  }
  return { ids, scroll };
}

/** What `GET /_tasks` shows of a running search (SearchRequest.getDescription). */
export function searchTask(r: SearchRequest): TaskSpec {
  const source = r.rawBody !== null ? r.rawBody.toString('utf8') : JSON.stringify(r.body ?? {});
  return {
    action: 'indices:data/read/search',
    description: `indices[${r.indices ?? ''}], types[${(r.types ?? []).join(',')}], search_type[${r.searchType.toUpperCase()}], source[${source.slice(0, 512)}]`,
    cancellable: false,
  };
}

/** Search handlers, by name (route-table.ts says which paths they serve). */
export function searchHandlers(node: NodeContext) {
  const run = async (req: FastifyRequest, reply: FastifyReply, countOnly: boolean) => {
    const request = { ...searchRequest(req, countOnly, node.settings.get(MAX_KEEP_ALIVE)), maxBuckets: node.settings.get(MAX_BUCKETS) };
    const { body, warnings } = await node.tasks.run(searchTask(request), () => node.search.search(request));
    if (warnings.length > 0) reply.header('Warning', warnings.map(warningHeader));
    return sendJson(reply, 200, bindScroll(req, body));
  };
  /** With security on, a scroll id handed out is bound to its user (security/scroll-binding.ts). */
  const bindScroll = <T>(req: FastifyRequest, body: T): T => {
    const sec = securityOf(req);
    const b = body as { _scroll_id?: unknown };
    if (sec === null || typeof b._scroll_id !== 'string') return body;
    return { ...body, _scroll_id: bindScrollId(b._scroll_id, sec.username, node.cluster.security.secret) };
  };
  /** The scroll ids a request names, unbound; another user's is a missing context. */
  const unbind = (req: FastifyRequest, ids: string[]): string[] => {
    const sec = securityOf(req);
    if (sec === null) return ids;
    return ids.map((id) => (id === '_all' ? id : unbindScrollId(id, sec.username, node.cluster.security.secret)));
  };
  const search = (req: FastifyRequest, reply: FastifyReply) => run(req, reply, false);
  const count = (req: FastifyRequest, reply: FastifyReply) => run(req, reply, true);

  const scroll = async (req: FastifyRequest, reply: FastifyReply) => {
    const { ids, scroll } = scrollIds(req);
    if (ids.length === 0) throw new EsError('action_request_validation_exception', 'Validation Failed: 1: scrollId is missing;', 400);
    const renewal = scroll === undefined ? null : keepAlive(parseTimeValue(scroll, 'scroll'), node.settings.get(MAX_KEEP_ALIVE));
    return sendJson(reply, 200, bindScroll(req, await node.search.scroll(unbind(req, ids)[0], renewal)));
  };

  const clear = async (req: FastifyRequest, reply: FastifyReply) => {
    const { ids } = scrollIds(req);
    if (ids.length === 0) throw new EsError('action_request_validation_exception', 'Validation Failed: 1: no scroll ids specified;', 400);
    const freed = await node.search.clearScroll(ids.includes('_all') ? 'all' : unbind(req, ids));
    return sendJson(reply, freed > 0 || ids.includes('_all') ? 200 : 404, { succeeded: true, num_freed: freed });
  };

  return { search, count, scroll, clearScroll: clear };
}
