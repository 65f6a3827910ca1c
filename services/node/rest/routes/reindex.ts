/**
 * `_reindex` (RestReindexAction, Reindexer): copies the documents a search of
 * the source finds into the destination index, page by page as
 * bulk-by-scroll.ts runs it, each source kept byte for byte. `dest` takes
 * `index`, `type`, `op_type` (`create`: existing documents are conflicts),
 * `version_type` (`internal`: overwrite; `external`: keep the source's
 * versions, older ones are conflicts) and `routing` (`keep`, `discard`,
 * `=value`). A `script` runs on each document before it is written, with
 * `ctx._source`, `ctx._id`, `ctx._index`, `ctx._type`, `ctx._routing`,
 * `ctx._version` and `ctx.op` (`noop`, `delete`, `index`) as Elasticsearch
 * gives them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EsError, actionRequestValidation, illegalArgument, isEsError, parsingException } from '../../../../shared/errors/es-errors.ts';
import { compileUpdateScript } from '../../../../shared/script/update-script.ts';
import { isMap, type ScriptMap, type Value } from '../../../../shared/script/painless/values.ts';
import type { ScriptRecord, VersionType } from '../../../../shared/records/doc-op.ts';
import { failedToExecuteScript } from '../../../../shared/errors/es-errors.ts';
import type { NodeContext } from '../node-context.ts';
import type { WriteRequest } from '../../coordinator/write-coordinator.ts';
import { PAGES_IN_FLIGHT, type BulkByScrollRequest, type HitToWrite } from '../../coordinator/bulk-by-scroll.ts';
import type { PageHit } from '../../coordinator/hit-page.ts';
import { resolveIndices } from '../../cluster/index-resolver.ts';
import { jsonBody, query } from '../params.ts';
import { securityOf } from '../../security/request-security.ts';
import { bulkWriteOptions, conflictsParam, maxDocs, requestScript, requestsPerSecond, runBulkByScroll, scrollSearch, slicesParam } from './by-query.ts';
import { versionType } from './documents.ts';
import { LogHistoryIncomplete, ReindexReplay, replayRefusal } from '../../coordinator/reindex-replay.ts';

const BODY_KEYS = new Set(['source', 'dest', 'size', 'max_docs', 'script', 'conflicts']);
const DEST_KEYS = new Set(['index', 'type', 'routing', 'op_type', 'version_type', 'pipeline']);

interface Dest {
  readonly index: string;
  readonly type: string | null;
  readonly opType: 'index' | 'create';
  readonly versionType: VersionType;
  /** keep: the source's; discard: none; else this value. */
  readonly routing: { kind: 'keep' } | { kind: 'discard' } | { kind: 'set'; value: string };
}

function stringOf(v: unknown, what: string): string {
  if (typeof v !== 'string') throw parsingException(`[${what}] must be a string`);
  return v;
}

function parseDest(v: unknown): Dest {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw actionRequestValidation(['index must be specified']);
  const d = v as Record<string, unknown>;
  for (const k of Object.keys(d)) if (!DEST_KEYS.has(k)) throw parsingException(`[dest] unknown field [${k}], parser not found`);
  if (d.pipeline !== undefined) throw illegalArgument('ingest pipelines are not supported by this server');
  if (d.index === undefined) throw actionRequestValidation(['index must be specified']);
  const opType = d.op_type === undefined ? 'index' : stringOf(d.op_type, 'op_type');
  if (opType !== 'index' && opType !== 'create') throw illegalArgument(`opType must be 'create' or 'index', found: [${opType}]`);
  const routingText = d.routing === undefined || d.routing === null ? 'keep' : stringOf(d.routing, 'routing');
  let routing: Dest['routing'];
  if (routingText === 'keep') routing = { kind: 'keep' };
  else if (routingText === 'discard') routing = { kind: 'discard' };
  else if (routingText.startsWith('=')) routing = { kind: 'set', value: routingText.slice(1) };
  else throw illegalArgument(`Unsupported routing command [${routingText}]`);
  const vt = versionType(d.version_type === undefined ? undefined : stringOf(d.version_type, 'version_type'));
  if (opType === 'create' && vt !== 'INTERNAL') throw actionRequestValidation(['create operations only support internal versioning. use index instead']);
  return { index: stringOf(d.index, 'index'), type: d.type === undefined ? null : stringOf(d.type, 'type'), opType, versionType: vt, routing };
}

/** The write of one hit, after the request's script if it has one. */
function hitWriter(dest: Dest, script: ScriptRecord | null): HitToWrite {
  const compiled = script === null ? null : compileUpdateScript(script.source);
  return (hit: PageHit): WriteRequest | 'noop' | EsError => {
    let index = dest.index;
    let type = dest.type ?? hit._type;
    let id: string | null = hit._id;
    let routing: string | null = dest.routing.kind === 'keep' ? (hit._routing ?? null) : dest.routing.kind === 'discard' ? null : dest.routing.value;
    let version: number | null = dest.versionType === 'INTERNAL' ? null : (hit._version ?? null);
    let source = hit.source ?? Buffer.from('{}');
    if (compiled !== null && script !== null) {
      const ctx: ScriptMap = {
        _index: hit._index,
        _type: hit._type,
        _id: hit._id,
        _version: hit._version ?? null,
        _routing: routing,
        op: 'index',
        _source: JSON.parse(source.toString('utf8')) as Value,
      };
      try {
        compiled.run({ ctx, params: JSON.parse(script.params_json) as Value });
      } catch (err) {
        if (isEsError(err)) throw failedToExecuteScript(err);
        throw err;
      }
      const op = ctx.op;
      if (op === 'noop') return 'noop';
      if (op !== 'index' && op !== 'delete') throw illegalArgument(`Operation type [${String(op)}] not allowed, only [noop, index, delete] are allowed`);
      // Reindex scripts may move a document: to another index, type, id or routing (ReindexScriptApplier).
      if (ctx._index !== hit._index) index = String(ctx._index);
      if (ctx._type !== hit._type) type = String(ctx._type);
      id = ctx._id === null ? null : String(ctx._id);
      routing = ctx._routing === null || ctx._routing === undefined ? null : String(ctx._routing);
      if (ctx._version === null) version = null;
      if (op === 'delete') {
        if (id === null) throw illegalArgument('a delete needs an [_id]');
        return { op: 'delete', index, type, id, routing, source: null, version: null, versionType: 'INTERNAL', ifSeqNo: null, ifPrimaryTerm: null, update: null };
      }
      if (!isMap(ctx._source)) throw illegalArgument('ctx._source must be a map');
      source = Buffer.from(JSON.stringify(ctx._source), 'utf8');
    }
    return {
      op: dest.opType,
      index,
      type,
      id,
      routing,
      source,
      version,
      versionType: dest.versionType,
      ifSeqNo: null,
      ifPrimaryTerm: null,
      update: null,
    };
  };
}

/** The source keys a copy of a whole index may have (`size` is only the page size). */
const WHOLE_INDEX_SOURCE_KEYS = new Set(['query', 'size']);

function isMatchAll(query: unknown): boolean {
  if (query === undefined) return true;
  if (typeof query !== 'object' || query === null || Array.isArray(query)) return false;
  const keys = Object.keys(query);
  if (keys.length !== 1 || keys[0] !== 'match_all') return false;
  const body = (query as Record<string, unknown>).match_all;
  return typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0;
}

/**
 * The source's log, read instead of a scroll (coordinator/reindex-replay.ts,
 * docs/rebuild.md), when the request copies one whole index: one index (or an
 * alias to one, without a filter or search routing), no query but match_all, no script, no type filter, no
 * `size`, no `sort`, no `_source` filtering, no slices. Null: copy by scroll.
 */
async function replayPages(
  node: NodeContext,
  q: Record<string, string | undefined>,
  body: Record<string, unknown>,
  source: Record<string, unknown>,
  indexList: string | undefined,
  typeList: string | undefined,
  script: ScriptRecord | null,
  slices: number,
  search: { size: number },
): Promise<ReindexReplay | null> {
  if (script !== null || typeList !== undefined || slices !== 1) return null;
  if (body.size !== undefined || body.max_docs !== undefined) return null;
  if (Object.keys(source).some((k) => !WHOLE_INDEX_SOURCE_KEYS.has(k)) || !isMatchAll(source.query)) return null;
  if (q.sort !== undefined || q.q !== undefined || q.routing !== undefined || q.size !== undefined || q.max_docs !== undefined) return null;
  const resolved = resolveIndices(node.cluster, indexList, { ignoreUnavailable: false });
  if (resolved.length !== 1) return null;
  const { meta, direct, viaAliases } = resolved[0]!;
  // Through a filtered alias (or one with search routing) a search sees part of the index: copied by scroll.
  if (!direct && viaAliases.some((a) => (a.filter !== null && a.filter !== undefined) || a.searchRouting !== null)) return null;
  if (replayRefusal(meta) !== null) return null;
  const replay = new ReindexReplay({ log: node.log, topicOf: (m) => node.indices.topicOf(m), directory: node.directory, reader: node.reader }, meta, search.size);
  try {
    await replay.snapshot();
  } catch (err) {
    if (err instanceof LogHistoryIncomplete) return null;
    throw err;
  }
  return replay;
}

export function reindexHandlers(node: NodeContext) {
  const reindex = async (req: FastifyRequest, reply: FastifyReply) => {
    // A copy: `source.size` below becomes the scroll size.
    const q = { ...query(req) };
    const raw = jsonBody(req);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw parsingException('request body is required');
    const body = raw as Record<string, unknown>;
    for (const k of Object.keys(body)) if (!BODY_KEYS.has(k)) throw parsingException(`[reindex] unknown field [${k}], parser not found`);
    const src = body.source;
    if (typeof src !== 'object' || src === null || Array.isArray(src)) throw actionRequestValidation(['source is missing']);
    const source = { ...(src as Record<string, unknown>) };
    if (source.remote !== undefined) throw illegalArgument('reindex from a remote cluster is not supported by this server');
    const dest = parseDest(body.dest);
    const indexList = source.index === undefined ? undefined : [source.index].flat().map((i) => stringOf(i, 'index')).join(',');
    const typeList = source.type === undefined ? undefined : [source.type].flat().map((t) => stringOf(t, 'type')).join(',');
    delete source.index;
    delete source.type;
    // `source.size` is the scroll's page size; the body's `size` is the most documents to copy.
    if (source.size !== undefined) {
      q.scroll_size = String(source.size);
      delete source.size;
    }
    // With security on: reading every source index and writing the destination (creating it when missing).
    const sec = securityOf(req);
    if (sec !== null) {
      sec.requireEvery('indices:data/read/search', indexList);
      const refusal = sec.indexRefusal('indices:data/write/index', dest.index) ?? sec.autoCreateRefusal(dest.index);
      if (refusal) throw refusal;
    }
    const sourceIndices = resolveIndices(node.cluster, indexList, { ignoreUnavailable: false }).map((r) => r.meta.name);
    if (sourceIndices.includes(dest.index) || resolveIndices(node.cluster, dest.index, { ignoreUnavailable: true }).some((r) => sourceIndices.includes(r.meta.name))) {
      throw actionRequestValidation([`reindex cannot write into an index its reading from [${dest.index}]`]);
    }
    const warnings: string[] = [];
    const script = requestScript(node, body, (m) => warnings.push(m));

    const search = scrollSearch(q, indexList, typeList, source, true);
    const slices = slicesParam(node, q, indexList);
    const request: BulkByScrollRequest = {
      kind: 'reindex',
      search,
      maxDocs: maxDocs({ ...q, size: undefined }, body),
      abortOnVersionConflict: conflictsParam(q.conflicts ?? body.conflicts),
      write: bulkWriteOptions(q),
      toWrite: hitWriter(dest, script),
      withSource: true,
      requestsPerSecond: requestsPerSecond(q),
      refresh: q.refresh !== undefined && q.refresh !== 'false' ? dest.index : null,
      description: `reindex from [${indexList ?? 'all indices'}]${typeList ? `[${typeList}]` : ''} to [${dest.index}]${dest.type ? `[${dest.type}]` : ''}`,
      script,
    };
    const pages = await replayPages(node, q, body, source, indexList, typeList, script, slices, search.body as { size: number });
    // Pages in flight at once only when no version conflict can stop the copy (with `conflicts: abort` the
    // copy stops at the page that had one, as a scroll's does, not pages later).
    const mayConflict = request.abortOnVersionConflict && (dest.opType === 'create' || dest.versionType !== 'INTERNAL');
    const replay = pages === null ? request : { ...request, pages, pagesInFlight: mayConflict ? 1 : PAGES_IN_FLIGHT };
    return runBulkByScroll(node, req, reply, replay, slices, warnings);
  };
  return { reindex };
}

