/**
 * `POST /{index}/_rebuild` (docs/rebuild.md): a new index built by replaying
 * the source's log with a new mapping and settings, the alias moved to it
 * once it caught up (coordinator/rebuild.ts). With
 * `wait_for_completion=false` the answer is the task id; `GET /_tasks/{id}`
 * shows its progress and, once it ended, its result; `_tasks/_cancel` stops
 * it (the new index is deleted, the alias stays).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { actionRequestValidation, illegalArgument, parsingException } from '../../../../shared/errors/es-errors.ts';
import type { NodeContext } from '../node-context.ts';
import { resolveIndices } from '../../cluster/index-resolver.ts';
import { renderRebuildResult, type RebuildBody } from '../../coordinator/rebuild.ts';
import { boolParam, jsonBody, params, query } from '../params.ts';
import { sendJson } from '../reply.ts';

const BODY_KEYS = new Set(['dest', 'alias', 'delete_source']);
const DEST_KEYS = new Set(['index', 'settings', 'mappings']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function parseRebuildBody(raw: unknown): RebuildBody {
  if (!isObject(raw)) throw parsingException('request body is required');
  for (const k of Object.keys(raw)) if (!BODY_KEYS.has(k)) throw parsingException(`[rebuild] unknown field [${k}], parser not found`);
  const dest = raw.dest;
  if (!isObject(dest) || dest.index === undefined) throw actionRequestValidation(['dest index must be specified']);
  for (const k of Object.keys(dest)) if (!DEST_KEYS.has(k)) throw parsingException(`[dest] unknown field [${k}], parser not found`);
  if (typeof dest.index !== 'string') throw parsingException('[index] must be a string');
  if (raw.alias !== undefined && raw.alias !== null && typeof raw.alias !== 'string') throw parsingException('[alias] must be a string');
  if (raw.delete_source !== undefined && typeof raw.delete_source !== 'boolean') throw parsingException('[delete_source] must be a boolean');
  return {
    dest: { index: dest.index, settings: dest.settings, mappings: dest.mappings },
    alias: typeof raw.alias === 'string' ? raw.alias : null,
    deleteSource: raw.delete_source === true,
  };
}

export function rebuildHandlers(node: NodeContext) {
  const rebuild = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const wait = boolParam(q, 'wait_for_completion', true);
    const body = parseRebuildBody(jsonBody(req));
    const resolved = resolveIndices(node.cluster, params(req).index, { ignoreUnavailable: false });
    if (resolved.length !== 1) throw illegalArgument(`[${params(req).index}] must name one index to rebuild, it names ${resolved.length}`);
    const opaque = req.headers['x-opaque-id'];
    const started = await node.rebuilds.start(resolved[0]!.meta, body, {
      storeResult: !wait,
      headers: typeof opaque === 'string' ? { 'X-Opaque-Id': opaque } : undefined,
    });
    if (!wait) {
      started.done.catch(() => undefined);
      return sendJson(reply, 200, { task: started.task.taskId });
    }
    return sendJson(reply, 200, renderRebuildResult(await started.done));
  };
  return { rebuild };
}
