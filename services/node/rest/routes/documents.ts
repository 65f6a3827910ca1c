/**
 * Document APIs: index, create, get, head, _source, delete, update.
 */
import type { DocumentChecker } from '../../coordinator/document-check.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EsError, actionRequestValidation, illegalArgument, parsingException, versionConflictInternal } from '../../../../shared/errors/es-errors.ts';
import { parseStrictJsonSliced } from '../sliced-json.ts';
import { writeRequestProblems } from '../../coordinator/write-validation.ts';
import type { UpdateBody, VersionType } from '../../../../shared/records/doc-op.ts';
import type { NodeContext } from '../node-context.ts';
import type { RefreshPolicy, WriteItemResult, WriteOptions, WriteRequest } from '../../coordinator/write-coordinator.ts';
import type { GetResult } from '../../coordinator/doc-reader.ts';
import { longParam, params, query, rawBody, timeParam, type Query } from '../params.ts';
import { renderSource, sourceFilterFromParams } from '../source-params.ts';
import { sendJson } from '../reply.ts';
import { getOwn, setOwn } from '../../../../shared/json/own-keys.ts';
import { valuesAtPath } from '../../../../shared/json/source-values.ts';
import { parseScriptSpec, resolveScript } from '../../../../shared/script/script-spec.ts';
import { compileUpdateScript } from '../../../../shared/script/update-script.ts';
import { warningHeader } from './indices.ts';

const DEFAULT_WRITE_TIMEOUT_MS = 60_000;

export function refreshPolicy(q: Query): RefreshPolicy {
  const v = q.refresh;
  if (v === undefined || v === 'false') return 'false';
  if (v === '' || v === 'true') return 'true';
  if (v === 'wait_for') return 'wait_for';
  throw illegalArgument(`Unknown value for refresh: [${v}].`);
}

export function versionType(v: string | undefined): VersionType {
  switch (v ?? 'internal') {
    case 'internal':
      return 'INTERNAL';
    case 'external':
      return 'EXTERNAL';
    case 'external_gt':
      return 'EXTERNAL';
    case 'external_gte':
      return 'EXTERNAL_GTE';
    case 'force':
      return 'FORCE';
    default:
      throw illegalArgument(`No version type match [${v}]`);
  }
}

/**
 * Reads a document body: it must be a JSON object. A large one is read on
 * the document check thread (document-check.ts), so `parsed` is undefined.
 */
export async function documentBody(raw: Buffer | null, checker: DocumentChecker): Promise<{ source: Buffer; parsed: Record<string, unknown> | undefined }> {
  if (raw === null) throw actionRequestValidation(['source is missing']);
  return { source: raw, parsed: await checker.validate(raw) };
}

/** The request, or Elasticsearch's validation error for it. */
function validated(r: WriteRequest): WriteRequest {
  const problems = writeRequestProblems(r);
  if (problems.length > 0) throw actionRequestValidation(problems);
  return r;
}

export function writeResponse(r: WriteItemResult & { ok: true }): Record<string, unknown> {
  const out: Record<string, unknown> = {
    _index: r.index,
    _type: r.type,
    _id: r.id,
    _version: r.version,
    result: r.result,
  };
  if (r.forcedRefresh) out.forced_refresh = true;
  out._shards = { total: r.shardsTotal, successful: r.shardsSuccessful, failed: 0 };
  out._seq_no = r.seqNo;
  out._primary_term = 1;
  return out;
}

export function writeStatus(r: WriteItemResult & { ok: true }): number {
  if (r.result === 'created') return 201;
  if (r.result === 'not_found') return 404;
  return 200;
}

function baseWrite(q: Query, p: Record<string, string>): Pick<WriteRequest, 'index' | 'type' | 'routing' | 'version' | 'versionType' | 'ifSeqNo' | 'ifPrimaryTerm'> {
  return {
    index: p.index,
    type: p.type,
    routing: q.routing ?? q.parent ?? null,
    version: longParam(q, 'version'),
    versionType: versionType(q.version_type),
    ifSeqNo: longParam(q, 'if_seq_no'),
    ifPrimaryTerm: longParam(q, 'if_primary_term'),
  };
}

/** `wait_for_active_shards` (6.x) or `consistency` (5.x: one, quorum, all). */
function activeShards(q: Query): number | 'all' | 'quorum' | undefined {
  const v = q.wait_for_active_shards ?? q.consistency;
  if (v === undefined || v === '' || v === 'one') return undefined;
  if (v === 'all') return 'all';
  if (v === 'quorum') return 'quorum';
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw illegalArgument(`Invalid wait_for_active_shards value [${v}]`);
  return n;
}

/** `replication`: `sync` (default) answers once every started copy applied the write, `async` once the first did. */
function replication(q: Query): 'sync' | 'async' {
  const v = q.replication;
  if (v === undefined || v === '' || v === 'sync') return 'sync';
  if (v === 'async') return 'async';
  throw illegalArgument(`No replication type match for [${v}]`);
}

export function writeOptions(q: Query): WriteOptions {
  return {
    refresh: refreshPolicy(q),
    timeoutMs: timeParam(q, 'timeout', DEFAULT_WRITE_TIMEOUT_MS),
    waitForActiveShards: activeShards(q),
    replication: replication(q),
  };
}

export function getResponse(r: GetResult, q: Query): Record<string, unknown> {
  const out: Record<string, unknown> = { _index: r.meta.name, _type: r.type, _id: r.id };
  if (!r.doc) {
    out.found = false;
    return out;
  }
  out._version = r.doc.version;
  out._seq_no = r.doc.seqNo;
  out._primary_term = 1;
  if (r.doc.routing !== null) out._routing = r.doc.routing;
  out.found = true;
  const storedFields = q.stored_fields ?? q.fields;
  if (storedFields !== undefined) {
    const names = storedFields.split(',').filter(Boolean);
    const fields = storedFieldValues(r, names);
    if (Object.keys(fields).length > 0) out.fields = fields;
    if (!names.includes('_source') && q._source === undefined && q._source_includes === undefined && q._source_include === undefined) return out;
  }
  const source = renderSource(r.meta, r.doc.source, sourceFilterFromParams(q));
  if (source !== undefined) out._source = source;
  return out;
}

/** Values of `store: true` fields, read from `_source` (where we keep them), as arrays. */
function storedFieldValues(r: GetResult, names: readonly string[]): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  if (!r.doc?.source) return out;
  const src = JSON.parse(r.doc.source.toString('utf8')) as Record<string, unknown>;
  for (const name of names) {
    if (name === '_source') continue;
    const mapping = r.meta.mapping?.field(name);
    if (!mapping || !mapping.store) continue;
    const values = valuesAtPath(src, name);
    if (values.length > 0) setOwn(out, name, values);
  }
  return out;
}

/** Document handlers, by name (route-table.ts says which paths they serve). */
export function documentHandlers(node: NodeContext) {
  const indexDoc = (op: 'index' | 'create', idFromPath: boolean) => async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    const { source, parsed } = await documentBody(rawBody(req), node.writes.checker);
    let opType = op;
    if (q.op_type !== undefined) {
      if (q.op_type === 'create') opType = 'create';
      else if (q.op_type !== 'index') throw illegalArgument(`opType must be 'create' or 'index', found: [${q.op_type}]`);
    }
    const id = idFromPath ? p.id : null;
    const r = await node.writes.write(validated({ ...baseWrite(q, p), op: opType, id, source, parsedSource: parsed, update: null }), writeOptions(q));
    if (!r.ok) throw r.error;
    return sendJson(reply, writeStatus(r), writeResponse(r));
  };

  const get = async (req: FastifyRequest) => {
    const q = query(req);
    const p = params(req);
    if (q.refresh !== undefined && q.refresh !== 'false') await node.refreshFor(p.index);
    const r = await node.reader.get({
      index: p.index,
      type: p.type,
      id: p.id,
      routing: q.routing ?? q.parent ?? null,
      version: null,
      realtime: q.realtime !== 'false',
    });
    const expected = longParam(q, 'version');
    if (r.doc && expected !== null && r.doc.version !== expected && versionType(q.version_type) === 'INTERNAL') {
      throw versionConflictInternal({ index: r.meta.name, uuid: r.meta.uuid, shard: 0, type: r.type, id: r.id }, r.doc.version, expected);
    }
    return r;
  };

  const getDoc = async (req: FastifyRequest, reply: FastifyReply) => {
    const r = await get(req);
    return sendJson(reply, r.doc ? 200 : 404, getResponse(r, query(req)));
  };

  const getSource = async (req: FastifyRequest, reply: FastifyReply) => {
    const r = await get(req);
    const q = query(req);
    if (!r.doc) throw documentNotFoundForSource(r);
    if (r.meta.mapping && !r.meta.mapping.sourceEnabled) throw documentNotFoundForSource(r);
    const source = renderSource(r.meta, r.doc.source, sourceFilterFromParams(q));
    if (source === undefined) throw documentNotFoundForSource(r);
    return sendJson(reply, 200, source);
  };

  const del = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    const r = await node.writes.write(validated({ ...baseWrite(q, p), op: 'delete', id: p.id, source: null, update: null }), writeOptions(q));
    if (!r.ok) throw r.error;
    return sendJson(reply, writeStatus(r), writeResponse(r));
  };
  const update = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    const raw = rawBody(req);
    if (raw === null) throw actionRequestValidation(['script or doc is missing']);
    const warnings: string[] = [];
    const { update, sourceSpec } = updateBody(await parseStrictJsonSliced(raw), (id) => node.cluster.storedScripts.get(id), (m) => warnings.push(m));
    const r = await node.writes.write(validated({ ...baseWrite(q, p), op: 'update', id: p.id, source: null, update }), writeOptions(q));
    if (!r.ok) throw r.error;
    const out = writeResponse(r);
    const get = updateGetSection(node, r, sourceSpec ?? q._source);
    if (get) out.get = get;
    if (warnings.length > 0) reply.header('Warning', warnings.map(warningHeader));
    return sendJson(reply, r.result === 'created' ? 201 : 200, out);
  };

  return { index: indexDoc('index', true), indexAutoId: indexDoc('index', false), create: indexDoc('create', true), get: getDoc, getSource, delete: del, update };
}

/**
 * The `get` section of an update response, when the request asked for
 * `_source` (true, a field list, or {includes, excludes}).
 */
export function updateGetSection(node: NodeContext, r: WriteItemResult, spec: unknown): Record<string, unknown> | undefined {
  if (!r.ok || spec === undefined || spec === false || spec === 'false' || r.source === null) return undefined;
  const meta = node.cluster.index(r.index);
  if (!meta) return undefined;
  const q: Query = {};
  if (typeof spec === 'string' && spec !== 'true' && spec !== '') q._source = spec;
  else if (Array.isArray(spec)) q._source = spec.join(',');
  else if (typeof spec === 'object' && spec !== null) {
    const o = spec as { includes?: unknown; include?: unknown; excludes?: unknown; exclude?: unknown };
    const inc = o.includes ?? o.include;
    const exc = o.excludes ?? o.exclude;
    if (inc !== undefined) q._source_includes = [inc].flat().join(',');
    if (exc !== undefined) q._source_excludes = [exc].flat().join(',');
  }
  return { _seq_no: r.seqNo, _primary_term: 1, found: true, _source: renderSource(meta, r.source, sourceFilterFromParams(q)) };
}

function documentNotFoundForSource(r: GetResult): EsError {
  return new EsError('resource_not_found_exception', `Document not found [${r.meta.name}]/[${r.type}]/[${r.id}]`, 404);
}

/** A stored script by id (the cluster state's), for requests that name one. */
export type StoredScriptLookup = (id: string) => { lang: string; source: string } | undefined;

/**
 * The update API body: `doc`, `upsert`, `doc_as_upsert`, `detect_noop`,
 * `script` (inline or stored), `scripted_upsert`. `_source` is what the
 * response shows.
 */
export function updateBody(json: unknown, stored: StoredScriptLookup, warn: (m: string) => void = () => {}): { readonly update: UpdateBody; readonly sourceSpec: unknown } {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw parsingException(`Expected [START_OBJECT] but found [${json === null ? 'VALUE_NULL' : Array.isArray(json) ? 'START_ARRAY' : 'VALUE_STRING'}]`);
  }
  const body = json as Record<string, unknown>;
  const known = new Set(['doc', 'upsert', 'doc_as_upsert', 'detect_noop', 'script', '_source', 'scripted_upsert', 'fields']);
  for (const k of Object.keys(body)) {
    if (!known.has(k)) throw parsingException(`[UpdateRequest] unknown field [${k}], parser not found`);
  }
  const asObject = (v: unknown, what: string): Buffer | null => {
    if (v === undefined || v === null) return null;
    if (typeof v !== 'object' || Array.isArray(v)) throw parsingException(`[${what}] must be an object`);
    return Buffer.from(JSON.stringify(v), 'utf8');
  };
  const doc = asObject(getOwn(body, 'doc'), 'doc');
  const upsert = asObject(getOwn(body, 'upsert'), 'upsert');
  const scriptJson = getOwn(body, 'script');
  const script = scriptJson === undefined || scriptJson === null ? null : resolveScript(parseScriptSpec(scriptJson, warn), stored);
  if (script !== null) {
    // Compiled now, so a script that does not compile is the request's 400 before anything is appended.
    compileUpdateScript(script.source);
    if (doc !== null) throw actionRequestValidation(["can't provide both script and doc"]);
    if (body.doc_as_upsert === true) throw actionRequestValidation(['doc must be specified if doc_as_upsert is enabled']);
  } else if (doc === null && upsert === null) {
    throw actionRequestValidation(['script or doc is missing']);
  }
  return {
    update: {
      doc,
      upsert,
      doc_as_upsert: body.doc_as_upsert === true,
      detect_noop: body.detect_noop !== false,
      script,
      scripted_upsert: body.scripted_upsert === true,
      by_query: false,
    },
    sourceSpec: getOwn(body, '_source'),
  };
}
