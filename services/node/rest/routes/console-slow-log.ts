/**
 * The console's list of slow requests: the recent entries of the search and
 * indexing slow logs (services/node/search/slow-log.ts) of every node, each
 * with the trace id of the request it served, so the page opens its trace.
 *
 * - `GET /_console/api/slow_log?size=`: newest first, from every node (each
 *   asked over the transport, NODE_ADMIN `slow_log`, 2 s at most; a node
 *   that does not answer is named in `failed_nodes`).
 *
 * Not an Elasticsearch API; it goes through the route table like one, so
 * authentication guards it too.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { illegalArgument } from '../../../../shared/errors/es-errors.ts';
import type { NodeContext } from '../node-context.ts';
import type { SlowLogEntry } from '../../search/slow-log.ts';
import { intParam, query } from '../params.ts';
import { sendJson } from '../reply.ts';

const MAX_SIZE = 1000;
/** How long the list waits for another node's entries. */
const GATHER_TIMEOUT_MS = 2000;

export function consoleSlowLogHandler(node: NodeContext) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const size = intParam(query(req), 'size') ?? 50;
    if (size < 0 || size > MAX_SIZE) throw illegalArgument(`[size] must be between 0 and ${MAX_SIZE}, was [${size}]`);
    const gathered = await node.nodeAdmin.onNodes(
      node.directory.nodes(),
      'slow_log',
      {},
      () => Promise.resolve(node.nodeAdmin.localSlowLog()),
      GATHER_TIMEOUT_MS,
    );
    const entries: SlowLogEntry[] = gathered.results.flat();
    entries.sort((a, b) => b.timestamp - a.timestamp);
    const failed = gathered.failedNodes.map((f) => ({ name: f.node.name, reason: f.error instanceof Error ? f.error.message : String(f.error) }));
    return sendJson(reply, 200, { entries: entries.slice(0, size), failed_nodes: failed });
  };
}
