/**
 * `GET|POST /{index}/{type}/{id}/_explain` (RestExplainAction): how one
 * document scores against a query. It runs as a search of the document's
 * shard with `explain: true`, the query as given and the document's id as a
 * post filter (which changes no score), so the explanation is the one a
 * search would give the hit; alias filters apply as they do to searches.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EsError, illegalArgument, parsingException } from '../../../../shared/errors/es-errors.ts';
import { getOwn } from '../../../../shared/json/own-keys.ts';
import type { NodeContext } from '../node-context.ts';
import type { SearchRequest } from '../../coordinator/search-coordinator.ts';
import { resolveIndices } from '../../cluster/index-resolver.ts';
import { readHitPage } from '../../coordinator/hit-page.ts';
import { boolParam, jsonBody, listParam, params, query, type Query } from '../params.ts';
import { sendJson } from '../reply.ts';

interface ExplainedHit {
  _index: string;
  _explanation?: unknown;
  _source?: unknown;
}

/** The `query` of an explain body (RestActions.getQueryContent: nothing else is allowed). */
function bodyQuery(body: unknown): unknown {
  if (body === undefined) return undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw parsingException('request body or source parameter is required');
  let q: unknown;
  for (const [key, v] of Object.entries(body as Record<string, unknown>)) {
    if (key !== 'query') throw parsingException(`request does not support [${key}]`);
    q = v;
  }
  return q;
}

function searchOf(q: Query, p: Record<string, string>, body: Record<string, unknown>): SearchRequest {
  return {
    indices: p.index,
    types: [p.type!],
    body,
    rawBody: null,
    url: {
      q: q.q,
      df: q.df,
      analyzer: q.analyzer,
      defaultOperator: q.default_operator,
      lenient: q.lenient === undefined ? undefined : boolParam(q, 'lenient', false),
      analyzeWildcard: q.analyze_wildcard === undefined ? undefined : boolParam(q, 'analyze_wildcard', false),
    },
    scrollKeepAliveMs: 0,
    routing: q.routing ?? q.parent ? [(q.routing ?? q.parent)!] : null,
    preference: q.preference ?? null,
    searchType: 'query_then_fetch',
    ignoreUnavailable: false,
    allowNoIndices: false,
    typedKeys: false,
    timeoutMs: null,
    countOnly: false,
  };
}

export function explainHandlers(node: NodeContext) {
  const explain = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    const userQuery = bodyQuery(jsonBody(req));
    if (userQuery === undefined && q.q === undefined) throw new EsError('action_request_validation_exception', 'Validation Failed: 1: query is missing;', 400);
    const resolved = resolveIndices(node.cluster, p.index, {});
    if (resolved.length !== 1) {
      throw illegalArgument(`Alias [${p.index}] has more than one indices associated with it [[${resolved.map((r) => r.meta.name).join(', ')}]], can't execute a single index op`);
    }
    const index = resolved[0]!.meta.name;
    const id = p.id!;
    const filter = { ids: { values: [id] } };
    const sourceParam = q._source ?? (listParam(q, '_source_includes', '_source_include') ? 'true' : undefined);
    const body: Record<string, unknown> = { post_filter: filter, explain: true, size: 1, _source: sourceParam === undefined ? false : sourceParam === 'true' ? true : sourceParam === 'false' ? false : sourceParam.split(',') };
    if (userQuery !== undefined) body.query = userQuery;
    const { body: res } = await node.search.search(searchOf(q, p, body));
    const hits = readHitPage((res.hits as { hits: unknown }).hits, false) as unknown as ExplainedHit[];
    const out: Record<string, unknown> = { _index: index, _type: p.type, _id: id };
    const hit = hits[0];
    if (hit !== undefined) {
      out.matched = true;
      out.explanation = hit._explanation;
      const source = getOwn(hit as unknown as Record<string, unknown>, '_source');
      if (source !== undefined) out.get = { found: true, _source: source };
      return sendJson(reply, 200, out);
    }
    // Not matched: does the document exist (a 404 then, as Elasticsearch's explain of a missing id)?
    const exists = await node.search.search(searchOf({ ...q, q: undefined }, p, { query: { match_all: {} }, post_filter: filter, size: 0 }));
    out.matched = false;
    if ((exists.body.hits as { total: number }).total === 0) return sendJson(reply, 404, out);
    out.explanation = { value: 0, description: `the query does not match document [${id}]`, details: [] };
    return sendJson(reply, 200, out);
  };
  return { explain };
}
