/**
 * Index APIs: create, delete, exists, get, settings, mappings, refresh, _analyze.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EsError, analyzeNonTokenizedField, indexNotFound } from '../../../../shared/errors/es-errors.ts';
import { renderSettings } from '../../../../shared/engine/mapping/index-settings.ts';
import { runAnalyze } from '../../../../shared/engine/analysis/analyze-request.ts';
import { AnalysisRegistry } from '../../../../shared/engine/analysis/registry.ts';
import type { NodeContext } from '../node-context.ts';
import type { IndexMetadata } from '../../cluster/index-metadata.ts';
import { globToRegExp, resolveIndices, splitExpression } from '../../cluster/index-resolver.ts';
import { boolParam, indicesOptions, jsonBody, jsonBodySliced, objectBody, params, query, timeParam, type Query } from '../params.ts';
import { CREATE_WAIT_MS } from '../../coordinator/index-admin.ts';
import { sendJson } from '../reply.ts';
import { setOwn } from '../../../../shared/json/own-keys.ts';
import { aliasesBody } from './aliases.ts';
import { indexSettingsFlat, renderFlatOrNested } from './settings.ts';

export function settingsBody(meta: IndexMetadata): Record<string, unknown> {
  return renderSettings(meta.settings, {
    uuid: meta.uuid,
    creationDate: meta.creationDate,
    providedName: meta.name,
  });
}

/** `include_type_name` (6.7+): false prints and reads mappings without the type level, the 7.x way. */
export function includeTypeName(q: Query): boolean {
  return boolParam(q, 'include_type_name', true);
}

export function mappingsBody(meta: IndexMetadata, withType = true): Record<string, unknown> {
  if (!meta.mapping || !meta.mapping.typeName) return {};
  return withType ? { [meta.mapping.typeName]: meta.mapping.toJSON() } : meta.mapping.toJSON();
}

/** Index handlers, by name (route-table.ts says which paths they serve). */
export function indexHandlers(node: NodeContext) {
  const create = async (req: FastifyRequest, reply: FastifyReply) => {
    const body = objectBody(req) ?? {};
    const known = new Set(['settings', 'mappings', 'aliases']);
    // Elasticsearch accepts bare settings at the top level of the body.
    let settings = body.settings;
    if (Object.keys(body).some((k) => !known.has(k))) {
      const extra = Object.fromEntries(Object.entries(body).filter(([k]) => !known.has(k)));
      settings = { ...((settings as object) ?? {}), ...extra };
    }
    let mappings = body.mappings;
    if (!includeTypeName(query(req)) && mappings && typeof mappings === 'object' && Object.keys(mappings).length > 0) {
      mappings = { _doc: mappings };
    }
    const q = query(req);
    // `wait_for_active_shards=0` answers at once; otherwise the primaries, for up to `timeout`.
    const noWait = q.wait_for_active_shards === '0' || q.wait_for_active_shards === 'none';
    const { meta, shardsAcknowledged } = await node.admin.createIndexWaiting(
      params(req).index,
      { settings, mappings, aliases: body.aliases },
      noWait ? null : timeParam(q, 'timeout', CREATE_WAIT_MS),
    );
    if (meta.warnings.length > 0) reply.header('Warning', meta.warnings.map(warningHeader));
    return sendJson(reply, 200, { acknowledged: true, shards_acknowledged: shardsAcknowledged, index: meta.name });
  };

  const remove = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    await node.admin.deleteIndices(params(req).index, boolParam(q, 'ignore_unavailable', false), boolParam(q, 'allow_no_indices', true));
    return sendJson(reply, 200, { acknowledged: true });
  };

  const exists = async (req: FastifyRequest, reply: FastifyReply) => {
    try {
      const resolved = resolveIndices(node.cluster, params(req).index, { allowNoIndices: false });
      return reply.code(resolved.length > 0 ? 200 : 404).send();
    } catch {
      return reply.code(404).send();
    }
  };

  const get = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const resolved = resolveIndices(node.cluster, params(req).index, indicesOptions(q));
    const out: Record<string, unknown> = {};
    for (const { meta } of resolved) {
      const settings = boolParam(q, 'flat_settings', false) ? renderFlatOrNested(indexSettingsFlat(meta), true) : settingsBody(meta);
      out[meta.name] = { aliases: aliasesBody(meta, null), mappings: mappingsBody(meta, includeTypeName(q)), settings };
    }
    return sendJson(reply, 200, out);
  };

  const putMapping = async (req: FastifyRequest, reply: FastifyReply) => {
    const p = params(req);
    const type = p.type ?? (includeTypeName(query(req)) ? undefined : '_doc');
    if (!type) throw new EsError('action_request_validation_exception', 'Validation Failed: 1: mapping type is missing;', 400);
    const body = jsonBody(req);
    if (body === undefined) throw new EsError('action_request_validation_exception', 'Validation Failed: 1: mapping source is missing;', 400);
    await node.admin.putMapping(p.index, type, body);
    return sendJson(reply, 200, { acknowledged: true });
  };

  const getMapping = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    const resolved = resolveIndices(node.cluster, p.index, indicesOptions(q));
    const typePatterns = p.type ? splitExpression(p.type) : null;
    const out: Record<string, unknown> = {};
    const foundTypes = new Set<string>();
    for (const { meta } of resolved) {
      const mappings = mappingsBody(meta);
      if (!includeTypeName(q)) {
        out[meta.name] = { mappings: mappingsBody(meta, false) };
        continue;
      }
      if (typePatterns) {
        const kept: Record<string, unknown> = {};
        for (const [t, m] of Object.entries(mappings)) {
          const hit = typePatterns.filter((pt) => pt === '_all' || globToRegExp(pt).test(t));
          if (hit.length > 0) {
            setOwn(kept, t, m);
            hit.forEach((h) => foundTypes.add(h));
          }
        }
        if (Object.keys(kept).length > 0) out[meta.name] = { mappings: kept };
      } else {
        out[meta.name] = { mappings };
      }
    }
    if (typePatterns) {
      const missing = typePatterns.filter((t) => !foundTypes.has(t) && t !== '_all').sort();
      if (missing.length > 0) {
        if (Object.keys(out).length === 0) {
          const idx = p.index ?? '_all';
          throw new EsError('type_missing_exception', `type[[${missing.join(', ')}]] missing`, 404, { index_uuid: '_na_', index: idx });
        }
        // Elasticsearch 6.8 answers a partial match with 404, the found mappings and a plain error string.
        const reason = missing.length === 1 ? `type [${missing[0]}] missing` : `types [${missing.join(',')}] missing`;
        return sendJson(reply, 404, { error: reason, status: 404, ...out });
      }
    }
    return sendJson(reply, 200, out);
  };

  const openClose = (closed: boolean) => async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    await node.admin.setClosed(params(req).index, closed, boolParam(q, 'ignore_unavailable', false), boolParam(q, 'allow_no_indices', true));
    return sendJson(reply, 200, closed ? { acknowledged: true } : { acknowledged: true, shards_acknowledged: true });
  };

  const refresh = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const resolved = resolveIndices(node.cluster, params(req).index, indicesOptions(q));
    const { total, successful } = await node.refresh(resolved.map((r) => r.meta));
    return sendJson(reply, 200, { _shards: { total, successful, failed: 0 } });
  };

  const analyze = async (req: FastifyRequest, reply: FastifyReply) => {
    const p = params(req);
    const q = query(req);
    const body = ((await jsonBodySliced(req)) ?? {}) as Record<string, unknown>;
    // Parameters may also come in the query string.
    for (const k of ['analyzer', 'tokenizer', 'field', 'text', 'filter', 'char_filter']) {
      if (body[k] === undefined && q[k] !== undefined) body[k] = k === 'filter' || k === 'char_filter' ? q[k]!.split(',') : q[k];
    }
    let registry = AnalysisRegistry.builtins;
    let fieldAnalyzer: ((field: string) => string | null) | undefined;
    let maxTokenCount: number | undefined;
    if (p.index) {
      const resolved = resolveIndices(node.cluster, p.index, { allowNoIndices: false });
      if (resolved.length !== 1) throw indexNotFound(p.index);
      const meta = resolved[0].meta;
      registry = meta.analyzers;
      const limit = Number(meta.settings.flat['index.analyze.max_token_count']);
      if (Number.isSafeInteger(limit) && limit > 0) maxTokenCount = limit;
      fieldAnalyzer = (field: string) => {
        const f = meta.mapping?.field(field);
        if (!f) return null;
        if (f.type === 'text') return f.analyzer ?? 'standard';
        if (f.type === 'keyword') return 'keyword';
        throw analyzeNonTokenizedField(field);
      };
    }
    const warnings: string[] = [];
    const result = runAnalyze(body, { registry, fieldAnalyzer, indexScoped: p.index !== undefined, warnings, maxTokenCount });
    if (warnings.length > 0) reply.header('Warning', warnings.map(warningHeader));
    return sendJson(reply, 200, result);
  };

  return { create, delete: remove, exists, get, putMapping, getMapping, close: openClose(true), open: openClose(false), refresh, analyze };
}

/** Elasticsearch's `Warning` header form: `299 Elasticsearch-<version> "<text>" "<date>"`. */
export function warningHeader(text: string): string {
  return `299 Elasticsearch-6.8.23-logsearch "${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
