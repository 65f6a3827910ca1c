/**
 * `_termvectors` and `_mtermvectors` (RestTermVectorsAction,
 * RestMultiTermVectorsAction). A document's term vectors are computed on a
 * copy of its shard, in the fetch phase of a search for its id
 * (shared/engine/search/term-vectors.ts): positions and offsets from its
 * stored source analyzed again, statistics from that copy's segments. An
 * artificial document (`doc`) is analyzed the same way against a shard of
 * the index. `realtime` (the default) refreshes the index first, so a
 * document just written is found.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { securityOf } from '../../security/request-security.ts';
import { actionRequestValidation, illegalArgument, isEsError, parsingException, renderError } from '../../../../shared/errors/es-errors.ts';
import { getOwn } from '../../../../shared/json/own-keys.ts';
import { SnapshotTermStatistics, buildTermVectors, type TermVectorsSpec } from '../../../../shared/engine/search/term-vectors.ts';
import type { NodeContext } from '../node-context.ts';
import { resolveIndices } from '../../cluster/index-resolver.ts';
import { readHitPage } from '../../coordinator/hit-page.ts';
import { boolParam, jsonBody, params, query, type Query } from '../params.ts';
import { sendJson } from '../reply.ts';

interface TermVectorsRequest {
  readonly index: string;
  readonly type: string | undefined;
  readonly id: string | null;
  readonly routing: string | null;
  readonly preference: string | null;
  readonly realtime: boolean;
  readonly spec: TermVectorsSpec;
}

const BODY_KEYS = new Set(['fields', 'offsets', 'positions', 'payloads', 'term_statistics', 'field_statistics', 'per_field_analyzer', 'doc', 'filter', 'routing', 'version', 'version_type', '_index', '_type', '_id', 'preference', 'realtime', 'dfs']);

function flag(v: unknown, name: string, dflt: boolean): boolean {
  if (v === undefined) return dflt;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === '') return true;
  if (v === 'false') return false;
  throw illegalArgument(`Failed to parse value [${String(v)}] for [${name}]; only [true] or [false] are allowed.`);
}

/** The request's options from the URL, overridden by a body (or an mtermvectors doc entry). */
function specOf(q: Query, body: Record<string, unknown>): TermVectorsSpec {
  for (const k of Object.keys(body)) if (!BODY_KEYS.has(k)) throw parsingException(`failed to parse term vectors request: unknown parameter [${k}]`);
  if (body.filter !== undefined) throw illegalArgument('[filter] of term vectors is not supported by this server');
  if (body.dfs !== undefined || q.dfs !== undefined) throw illegalArgument('[dfs] term vectors are not supported by this server');
  const fieldsValue = body.fields ?? q.fields;
  const fields = fieldsValue === undefined ? null : typeof fieldsValue === 'string' ? fieldsValue.split(',') : Array.isArray(fieldsValue) ? fieldsValue.map(String) : null;
  const doc = body.doc;
  if (doc !== undefined && (typeof doc !== 'object' || doc === null || Array.isArray(doc))) throw parsingException('[doc] must be an object');
  const pfa = body.per_field_analyzer;
  if (pfa !== undefined && (typeof pfa !== 'object' || pfa === null || Array.isArray(pfa))) throw parsingException('[per_field_analyzer] must be an object');
  return {
    fields,
    positions: flag(body.positions ?? q.positions, 'positions', true),
    offsets: flag(body.offsets ?? q.offsets, 'offsets', true),
    payloads: flag(body.payloads ?? q.payloads, 'payloads', true),
    termStatistics: flag(body.term_statistics ?? q.term_statistics, 'term_statistics', false),
    fieldStatistics: flag(body.field_statistics ?? q.field_statistics, 'field_statistics', true),
    doc: (doc as Record<string, unknown> | undefined) ?? null,
    perFieldAnalyzer: pfa as Record<string, string> | undefined,
  };
}

async function termVectorsOf(node: NodeContext, r: TermVectorsRequest): Promise<Record<string, unknown>> {
  const start = Date.now();
  const resolved = resolveIndices(node.cluster, r.index, {});
  if (resolved.length !== 1) throw illegalArgument(`Alias [${r.index}] has more than one indices associated with it, can't execute a single index op`);
  const meta = resolved[0]!.meta;
  const type = r.type ?? meta.mapping?.typeName ?? '_doc';
  if (r.id === null && r.spec.doc === null) throw actionRequestValidation(['id or doc is missing']);
  if (r.realtime) await node.refreshFor(meta.name);
  const query = r.id !== null && r.spec.doc === null ? { ids: { values: [r.id] } } : { match_all: {} };
  const { body } = await node.search.search({
    indices: meta.name,
    types: null,
    body: { query, size: 1, _source: false, version: true },
    rawBody: null,
    url: { termVectors: r.spec },
    scrollKeepAliveMs: 0,
    routing: r.routing !== null ? [r.routing] : r.id !== null ? [r.id] : null,
    preference: r.preference,
    searchType: 'query_then_fetch',
    ignoreUnavailable: false,
    allowNoIndices: false,
    typedKeys: false,
    timeoutMs: null,
    countOnly: false,
  });
  const hit = readHitPage((body.hits as { hits: unknown }).hits, false)[0] as unknown as Record<string, unknown> | undefined;
  const out: Record<string, unknown> = { _index: meta.name, _type: type };
  if (r.id !== null && r.spec.doc === null) out._id = r.id;
  if (r.spec.doc !== null && r.spec.doc !== undefined) {
    out._version = 0;
    out.found = true;
    out.took = Date.now() - start;
    // A shard without documents has no statistics: the artificial document is analyzed here.
    const doc = r.spec.doc;
    out.term_vectors = hit !== undefined ? getOwn(hit, '_termvectors') : meta.mapping === null ? {} : buildTermVectors(meta.mapping.parse(doc), r.spec, meta.mapping, meta.analyzers, new SnapshotTermStatistics(null));
    return out;
  }
  if (hit === undefined) {
    out.found = false;
    out.took = Date.now() - start;
    return out;
  }
  out._version = hit._version;
  out.found = true;
  out.took = Date.now() - start;
  out.term_vectors = getOwn(hit, '_termvectors');
  return out;
}

function bodyObject(v: unknown): Record<string, unknown> {
  if (v === undefined) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw parsingException('request body must be an object');
  return v as Record<string, unknown>;
}

export function termVectorHandlers(node: NodeContext) {
  const single = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    const body = bodyObject(jsonBody(req));
    const out = await termVectorsOf(node, {
      index: p.index!,
      type: p.type,
      id: p.id ?? null,
      routing: q.routing ?? q.parent ?? null,
      preference: q.preference ?? null,
      realtime: boolParam(q, 'realtime', true),
      spec: specOf(q, body),
    });
    return sendJson(reply, 200, out);
  };

  const multi = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    const body = bodyObject(jsonBody(req));
    let docs: Record<string, unknown>[];
    if (Array.isArray(body.docs)) docs = body.docs.map(bodyObject);
    else if (Array.isArray(body.ids)) docs = body.ids.map((id) => ({ _id: String(id) }));
    else if (q.ids !== undefined) docs = q.ids.split(',').map((id) => ({ _id: id }));
    else throw actionRequestValidation(['multi term vectors: no documents requested']);
    if (docs.length === 0) throw actionRequestValidation(['multi term vectors: no documents requested']);
    const sec = securityOf(req);
    const results = await Promise.all(
      docs.map(async (d) => {
        const index = (d._index as string | undefined) ?? p.index;
        const type = (d._type as string | undefined) ?? p.type;
        const id = d._id === undefined ? null : String(d._id);
        const { _index: _i, _type: _t, _id: _d, ...rest } = d;
        void _i;
        void _t;
        void _d;
        try {
          if (index === undefined) throw actionRequestValidation(['index is missing']);
          // With security on, a document of an index the user may not read fails alone.
          const refusal = sec?.indexRefusal('indices:data/read/tv', index, 'indices:data/read/mtv[shard]') ?? null;
          if (refusal) throw refusal;
          return await termVectorsOf(node, {
            index,
            type,
            id,
            routing: (d.routing as string | undefined) ?? q.routing ?? null,
            preference: q.preference ?? null,
            realtime: boolParam(q, 'realtime', true),
            spec: specOf(q, rest),
          });
        } catch (err) {
          if (!isEsError(err)) throw err;
          const rendered = renderError(err).error as Record<string, unknown>;
          return { _index: index, _type: type, _id: id, error: rendered };
        }
      }),
    );
    return sendJson(reply, 200, { docs: results });
  };

  return { single, multi };
}

