/**
 * Node and cluster APIs: `GET /` (info) and cluster health (`_cat` is routes/cat.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { illegalArgument } from '../../../../shared/errors/es-errors.ts';
import type { NodeContext } from '../node-context.ts';
import { clusterHealth, healthRank, type HealthStatus } from '../../copies/health.ts';
import { resolveIndices } from '../../cluster/index-resolver.ts';
import { params, query, timeParam } from '../params.ts';
import { sendJson } from '../reply.ts';
import { ES_VERSION } from '../../version.ts';

const DEFAULT_HEALTH_TIMEOUT_MS = 30_000;

/** Node and cluster handlers, by name (route-table.ts says which paths they serve). */
export function clusterHandlers(node: NodeContext) {
  const ping = async (_req: FastifyRequest, reply: FastifyReply) => reply.code(200).send();
  const info = async (_req: FastifyRequest, reply: FastifyReply) =>
    sendJson(reply, 200, {
      name: node.config.nodeName,
      cluster_name: node.config.clusterName,
      cluster_uuid: node.clusterUuid,
      version: ES_VERSION,
      tagline: 'You Know, for Search',
    });

  const health = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    const level = q.level ?? 'cluster';
    if (!['cluster', 'indices', 'shards'].includes(level)) throw illegalArgument(`level must be one of [cluster, indices, shards], got [${level}]`);
    const waitStatus = q.wait_for_status as HealthStatus | undefined;
    if (waitStatus !== undefined && healthRank(waitStatus) < 0) throw illegalArgument(`unknown cluster health status [${waitStatus}]`);
    const timeoutMs = timeParam(q, 'timeout', DEFAULT_HEALTH_TIMEOUT_MS);
    const deadline = Date.now() + timeoutMs;
    const metas = () => (p.index ? resolveIndices(node.cluster, p.index, {}).map((r) => r.meta) : node.cluster.indices());
    for (;;) {
      const h = clusterHealth(node, metas(), level);
      const satisfied =
        (waitStatus === undefined || healthRank(h.body.status as HealthStatus) >= healthRank(waitStatus)) &&
        waitForNodesSatisfied(q.wait_for_nodes, h.body.number_of_nodes as number) &&
        waitForActiveShardsSatisfied(q.wait_for_active_shards, h);
      if (satisfied || Date.now() >= deadline) {
        const timedOut = !satisfied;
        return sendJson(reply, timedOut ? 408 : 200, { ...h.body, timed_out: timedOut });
      }
      await new Promise((r) => setTimeout(r, Math.min(50, Math.max(1, deadline - Date.now()))));
    }
  };
  return { ping, info, health };
}


function waitForNodesSatisfied(spec: string | undefined, nodes: number): boolean {
  if (spec === undefined || spec === '') return true;
  const m = /^(>=|<=|>|<|ge\(|le\(|gt\(|lt\()?(\d+)\)?$/.exec(spec);
  if (!m) throw illegalArgument(`cannot parse wait_for_nodes [${spec}]`);
  const n = Number(m[2]);
  switch (m[1]) {
    case '>=':
    case 'ge(':
      return nodes >= n;
    case '<=':
    case 'le(':
      return nodes <= n;
    case '>':
    case 'gt(':
      return nodes > n;
    case '<':
    case 'lt(':
      return nodes < n;
    default:
      return nodes === n;
  }
}

function waitForActiveShardsSatisfied(spec: string | undefined, h: { body: Record<string, unknown>; totalCopies: number }): boolean {
  if (spec === undefined || spec === '') return true;
  const active = h.body.active_shards as number;
  if (spec === 'all') return active >= h.totalCopies;
  const n = Number(spec);
  if (!Number.isInteger(n) || n < 0) throw illegalArgument(`cannot parse wait_for_active_shards [${spec}]`);
  return active >= n;
}


