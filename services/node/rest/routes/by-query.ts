/**
 * `_update_by_query` and `_delete_by_query` (RestUpdateByQueryAction,
 * RestDeleteByQueryAction), and what they share with `_reindex`: the URL
 * parameters of a bulk-by-scroll request, running it as a task (or
 * answering `{"task": id}` at once with `wait_for_completion=false`), and
 * `_rethrottle`. bulk-by-scroll.ts runs them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { actionRequestValidation, illegalArgument, parsingException } from '../../../../shared/errors/es-errors.ts';
import { parseScriptSpec, resolveScript } from '../../../../shared/script/script-spec.ts';
import { compileUpdateScript } from '../../../../shared/script/update-script.ts';
import type { ScriptRecord } from '../../../../shared/records/doc-op.ts';
import type { SearchUrlParams } from '../../../../shared/dsl/query/search-body.ts';
import { parseSearchBody } from '../../../../shared/dsl/query/search-body.ts';
import type { NodeContext } from '../node-context.ts';
import { resolveIndices } from '../../cluster/index-resolver.ts';
import { taskNotFound } from '../../tasks/task-registry.ts';
import type { SearchRequest } from '../../coordinator/search-coordinator.ts';
import type { WriteOptions, WriteRequest } from '../../coordinator/write-coordinator.ts';
import {
  BY_SCROLL_ACTIONS,
  DEFAULT_SCROLL_KEEP_ALIVE_MS,
  DEFAULT_SCROLL_SIZE,
  renderResult,
  resultStatus,
  rethrottle,
  startBulkByScroll,
  type BulkByScrollKind,
  type BulkByScrollRequest,
  type HitToWrite,
} from '../../coordinator/bulk-by-scroll.ts';
import { boolParam, intParam, jsonBody, params, parseTimeValue, query, type Query } from '../params.ts';
import { sendJson } from '../reply.ts';
import { writeOptions } from './documents.ts';
import { warningHeader } from './indices.ts';
import { listTasksResponse } from './tasks.ts';

/** AbstractBulkByScrollRequest's default bulk timeout (ReplicationRequest.DEFAULT_TIMEOUT). */
const DEFAULT_BULK_TIMEOUT_MS = 60_000;

/** `requests_per_second`: a positive float, or -1 (unlimited). */
export function requestsPerSecond(q: Query): number {
  const v = q.requests_per_second;
  if (v === undefined || v === '' || v === '-1') return Number.POSITIVE_INFINITY;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) {
    throw illegalArgument(`[requests_per_second] must be either [-1] for unlimited or a positive number but was [${v}]`);
  }
  return n;
}

/** `slices`: a positive integer or `auto` (one per shard of the smallest index searched). */
export function slicesParam(node: NodeContext, q: Query, indices: string | undefined): number {
  const v = q.slices;
  if (v === undefined || v === '') return 1;
  if (v === 'auto') {
    const metas = resolveIndices(node.cluster, indices, { ignoreUnavailable: true }).map((r) => r.meta);
    return metas.length === 0 ? 1 : Math.min(...metas.map((m) => m.settings.numberOfShards));
  }
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw illegalArgument(`[slices] must be at least 1, was [${v}]`);
  return n;
}

export function conflictsParam(value: unknown): boolean {
  if (value === undefined || value === 'abort') return true;
  if (value === 'proceed') return false;
  throw illegalArgument(`conflicts may only be "proceed" or "abort" but was [${String(value)}]`);
}

/** The options of the bulk requests a bulk-by-scroll request sends (timeout default 1m). */
export function bulkWriteOptions(q: Query): WriteOptions {
  return { ...writeOptions({ ...q, refresh: undefined, timeout: q.timeout ?? String(DEFAULT_BULK_TIMEOUT_MS) }), refresh: 'false' };
}

function urlSearchParams(q: Query): SearchUrlParams {
  return {
    q: q.q,
    df: q.df,
    defaultOperator: q.default_operator,
    analyzer: q.analyzer,
    lenient: q.lenient === undefined ? undefined : boolParam(q, 'lenient', false),
    analyzeWildcard: q.analyze_wildcard === undefined ? undefined : boolParam(q, 'analyze_wildcard', false),
    sort: q.sort,
  };
}

/**
 * The scroll search of a by-query request: the body's search part (`query`,
 * `sort`, `slice`, ...; `size` is the most documents to act on), pages of
 * `scroll_size` in `_doc` order unless the request sorts.
 */
export function scrollSearch(
  q: Query,
  indices: string | undefined,
  types: string | undefined,
  searchBody: Record<string, unknown>,
  withSource: boolean,
): SearchRequest {
  const scrollSize = intParam(q, 'scroll_size') ?? DEFAULT_SCROLL_SIZE;
  if (scrollSize < 1) throw illegalArgument(`[scroll_size] must be greater than 0 but was [${scrollSize}]`);
  const body: Record<string, unknown> = { ...searchBody, size: scrollSize, version: true };
  if (body.sort === undefined && q.sort === undefined) body.sort = ['_doc'];
  if (!withSource) body._source = false;
  const url = urlSearchParams(q);
  // Validated now: a body that does not parse is the request's 400, before any task starts.
  parseSearchBody(body, url);
  return {
    indices,
    types: types ? types.split(',') : null,
    body,
    rawBody: null,
    url,
    scrollKeepAliveMs: q.scroll === undefined ? DEFAULT_SCROLL_KEEP_ALIVE_MS : parseTimeValue(q.scroll, 'scroll'),
    routing: q.routing ? q.routing.split(',') : null,
    preference: q.preference ?? null,
    searchType: 'query_then_fetch',
    ignoreUnavailable: boolParam(q, 'ignore_unavailable', false),
    allowNoIndices: boolParam(q, 'allow_no_indices', true),
    typedKeys: false,
    timeoutMs: q.search_timeout === undefined ? null : parseTimeValue(q.search_timeout, 'search_timeout'),
    countOnly: false,
  };
}

/** `size` (the most documents to act on) from the URL or the body. */
export function maxDocs(q: Query, body: Record<string, unknown>): number | null {
  const v = intParam(q, 'size') ?? (body.size === undefined ? undefined : Number(body.size));
  if (v === undefined) return null;
  if (!Number.isInteger(v) || v < -1) throw illegalArgument(`[size] parameter cannot be negative, found [${v}]`);
  return v === -1 ? null : v;
}

/** `ctx` scripts of a by-query request: inline or stored, compiled now so a bad one is a 400 at once. */
export function requestScript(node: NodeContext, body: Record<string, unknown>, warn: (m: string) => void): ScriptRecord | null {
  if (body.script === undefined || body.script === null) return null;
  const script = resolveScript(parseScriptSpec(body.script, warn), (id) => node.cluster.storedScripts.get(id));
  compileUpdateScript(script.source);
  return script;
}

/** Runs a bulk-by-scroll request as its REST handler answers it. */
export async function runBulkByScroll(node: NodeContext, req: FastifyRequest, reply: FastifyReply, request: BulkByScrollRequest, slices: number, warnings: readonly string[]): Promise<FastifyReply> {
  const q = query(req);
  const wait = boolParam(q, 'wait_for_completion', true);
  if (warnings.length > 0) reply.header('Warning', warnings.map(warningHeader));
  const opaque = req.headers['x-opaque-id'];
  const started = startBulkByScroll(
    { search: node.search, writes: node.writes, tasks: node.tasks, refresh: (expr) => node.refreshFor(expr) },
    request,
    slices,
    { storeResult: !wait, headers: typeof opaque === 'string' ? { 'X-Opaque-Id': opaque } : undefined },
  );
  if (!wait) return sendJson(reply, 200, { task: started.task.taskId });
  const result = await started.done;
  return sendJson(reply, resultStatus(result), renderResult(result, request.kind));
}

/** Keys of a by-query body that are not part of its search. */
const BY_QUERY_KEYS = new Set(['conflicts', 'script', 'size', 'max_docs']);

function searchPart(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!BY_QUERY_KEYS.has(k)) out[k] = v;
  return out;
}

function description(kind: BulkByScrollKind, indices: string | undefined, types: string | undefined, script: ScriptRecord | null): string {
  const list = (s: string | undefined) => (s === undefined || s === '' ? '[all indices]' : `[${s.split(',').join(', ')}]`);
  let d = `${kind === 'update' ? 'update-by-query' : 'delete-by-query'} ${list(indices)}${types ? `[${types.split(',').join(', ')}]` : ''}`;
  if (script !== null) d += ` updated with Script{type=inline, lang='${script.lang}', idOrCode='${script.source}', options={}, params=${script.params_json}}`;
  return d;
}

export function byQueryHandlers(node: NodeContext) {
  const run = (kind: 'update' | 'delete') => async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    if (q.pipeline !== undefined) throw illegalArgument('ingest pipelines are not supported by this server');
    const raw = jsonBody(req);
    if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) throw parsingException('request body or source parameter is required');
    const body = (raw ?? {}) as Record<string, unknown>;
    if (kind === 'delete' && raw === undefined && q.q === undefined) throw actionRequestValidation(['query is missing']);
    if (kind === 'delete' && body.script !== undefined) throw parsingException('[delete_by_query] unknown field [script], parser not found');
    const warnings: string[] = [];
    const script = kind === 'update' ? requestScript(node, body, (m) => warnings.push(m)) : null;
    const abort = conflictsParam(q.conflicts ?? body.conflicts);
    const search = scrollSearch(q, p.index, p.type, searchPart(body), false);
    const toWrite: HitToWrite = (hit) => {
      const base: Omit<WriteRequest, 'op' | 'update'> = {
        index: hit._index,
        type: hit._type,
        id: hit._id,
        routing: hit._routing ?? null,
        source: null,
        version: hit._version ?? null,
        versionType: 'INTERNAL',
        ifSeqNo: null,
        ifPrimaryTerm: null,
      };
      if (kind === 'delete') return { ...base, op: 'delete', update: null };
      return {
        ...base,
        op: 'update',
        update: { doc: null, upsert: null, doc_as_upsert: false, detect_noop: false, script, scripted_upsert: false, by_query: true },
      };
    };
    const request: BulkByScrollRequest = {
      kind,
      search,
      maxDocs: maxDocs(q, body),
      abortOnVersionConflict: abort,
      write: bulkWriteOptions(q),
      toWrite,
      withSource: false,
      requestsPerSecond: requestsPerSecond(q),
      refresh: q.refresh !== undefined && q.refresh !== 'false' ? (p.index ?? '_all') : null,
      description: description(kind, p.index, p.type, script),
      script,
    };
    return runBulkByScroll(node, req, reply, request, slicesParam(node, q, p.index), warnings);
  };

  /** `POST /_update_by_query/{task_id}/_rethrottle` (and `_delete_by_query`, `_reindex`). */
  const rethrottleTask = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const taskId = params(req).task_id;
    if (q.requests_per_second === undefined) throw actionRequestValidation(['requests_per_second must be set']);
    const rps = requestsPerSecond(q);
    const task = node.tasks.list().find((t) => t.taskId === taskId && Object.values(BY_SCROLL_ACTIONS).includes(t.action));
    if (task === undefined || !rethrottle(taskId, rps)) throw taskNotFound(taskId);
    return sendJson(reply, 200, listTasksResponse(node, [task], { ...q, detailed: 'true' }));
  };

  return { updateByQuery: run('update'), deleteByQuery: run('delete'), rethrottle: rethrottleTask };
}
