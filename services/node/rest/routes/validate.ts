/**
 * `GET|POST /_validate/query`, `/{index}/_validate/query`,
 * `/{index}/{type}/_validate/query` (RestValidateQueryAction): whether a
 * query parses and builds against each index's mapping, without running
 * it. `explain` adds each index's query as Lucene prints it (or the error),
 * `rewrite` the same after rewriting (this engine's queries are what it
 * runs, so both print the same).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isEsError, parsingException } from '../../../../shared/errors/es-errors.ts';
import { parseSearchBody, type SearchUrlParams } from '../../../../shared/dsl/query/search-body.ts';
import { FilterCache } from '../../../../shared/engine/search/filter-cache.ts';
import { queryString } from '../../../../shared/engine/search/explain.ts';
import type { ParsedSearch } from '../../../../shared/engine/search/types.ts';
import type { NodeContext } from '../node-context.ts';
import { resolveIndices } from '../../cluster/index-resolver.ts';
import { emptyMapping } from '../../search/empty-mapping.ts';
import { boolParam, jsonBody, params, query } from '../params.ts';
import { sendJson } from '../reply.ts';

/** The `query` of the body (RestActions.getQueryContent: nothing else is allowed). */
function bodyQuery(body: unknown): Record<string, unknown> | undefined {
  if (body === undefined) return undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw parsingException('request body or source parameter is required');
  for (const key of Object.keys(body)) if (key !== 'query') throw parsingException(`request does not support [${key}]`);
  return body as Record<string, unknown>;
}

function errorText(err: unknown): string {
  if (!isEsError(err)) return String(err);
  const cause = err.causedBy ? `; nested: ${err.causedBy.type}[${err.causedBy.reason}]` : '';
  return `[${err.extra.index ?? '_na_'}] ${err.type}[${err.reason}]${cause}`;
}

export function validateHandlers(node: NodeContext) {
  const validate = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    const explain = boolParam(q, 'explain', false);
    boolParam(q, 'rewrite', false);
    boolParam(q, 'all_shards', false);
    const resolved = resolveIndices(node.cluster, p.index, {
      ignoreUnavailable: boolParam(q, 'ignore_unavailable', false),
      allowNoIndices: boolParam(q, 'allow_no_indices', true),
    });
    const total = resolved.reduce((n, r) => n + r.meta.settings.numberOfShards, 0);
    const url: SearchUrlParams = {
      q: q.q,
      df: q.df,
      analyzer: q.analyzer,
      defaultOperator: q.default_operator,
      lenient: q.lenient === undefined ? undefined : boolParam(q, 'lenient', false),
      analyzeWildcard: q.analyze_wildcard === undefined ? undefined : boolParam(q, 'analyze_wildcard', false),
    };
    let parsed: ParsedSearch;
    try {
      const body = bodyQuery(jsonBody(req)) ?? {};
      parsed = parseSearchBody((await node.search.rewriteBody(body)) ?? body, url);
    } catch (err) {
      if (!isEsError(err)) throw err;
      // A query that does not parse is invalid everywhere (TransportValidateQueryAction answers it without asking the shards).
      const out: Record<string, unknown> = { valid: false };
      if (explain) out.error = `${err.type}: ${err.reason}`;
      return sendJson(reply, 200, out);
    }
    const explanations: Record<string, unknown>[] = [];
    let valid = true;
    const now = Date.now();
    for (const r of resolved) {
      const meta = r.meta;
      try {
        const built = parsed.query.toQuery({
          mapping: meta.mapping ?? emptyMapping,
          analyzers: meta.analyzers,
          nowMillis: now,
          filterCache: new FilterCache(),
          typeName: meta.mapping?.typeName ?? '_doc',
          index: meta.name,
          indexUuid: meta.uuid,
        });
        explanations.push({ index: meta.name, valid: true, explanation: queryString(built) });
      } catch (err) {
        if (!isEsError(err)) throw err;
        valid = false;
        explanations.push({ index: meta.name, valid: false, error: errorText(err) });
      }
    }
    const out: Record<string, unknown> = { _shards: { total, successful: total, failed: 0 }, valid };
    if (explain || !valid) out.explanations = explanations.filter((e) => explain || e.valid === false);
    if (!explain && valid) delete out.explanations;
    return sendJson(reply, 200, out);
  };
  return { validate };
}
