/**
 * The `_cat` family: `GET /_cat` lists the pages; each page is a column
 * table of its own in rest/cat/, printed by rest/cat/table.ts.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext } from '../node-context.ts';
import { catAliases } from '../cat/aliases.ts';
import { catAllocation } from '../cat/allocation.ts';
import { catCount } from '../cat/count.ts';
import { catFielddata, catPlugins, catRepositories } from '../cat/empty-tables.ts';
import { catHealth } from '../cat/health.ts';
import { catIndicesHandler } from '../cat/indices.ts';
import { catMaster } from '../cat/master.ts';
import { catNodeAttrs } from '../cat/nodeattrs.ts';
import { catNodesHandler } from '../cat/nodes.ts';
import { catPendingTasks } from '../cat/pending-tasks.ts';
import { catRecovery } from '../cat/recovery.ts';
import { catSegments } from '../cat/segments.ts';
import { catShards } from '../cat/shards.ts';
import { catSnapshots } from '../cat/snapshots.ts';
import { catTasks } from '../cat/tasks.ts';
import { catTemplates } from '../cat/templates.ts';
import { catThreadPool } from '../cat/thread-pool.ts';

/** The pages `GET /_cat` lists, in Elasticsearch 6.8's order (RestCatAction). */
const PAGES = [
  '/_cat/allocation',
  '/_cat/shards',
  '/_cat/shards/{index}',
  '/_cat/master',
  '/_cat/nodes',
  '/_cat/tasks',
  '/_cat/indices',
  '/_cat/indices/{index}',
  '/_cat/segments',
  '/_cat/segments/{index}',
  '/_cat/count',
  '/_cat/count/{index}',
  '/_cat/recovery',
  '/_cat/recovery/{index}',
  '/_cat/health',
  '/_cat/pending_tasks',
  '/_cat/aliases',
  '/_cat/aliases/{alias}',
  '/_cat/thread_pool',
  '/_cat/thread_pool/{thread_pools}',
  '/_cat/plugins',
  '/_cat/fielddata',
  '/_cat/fielddata/{fields}',
  '/_cat/nodeattrs',
  '/_cat/repositories',
  '/_cat/snapshots/{repository}',
  '/_cat/templates',
];

export function catHandlers(node: NodeContext) {
  const index = async (_req: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(200)
      .type('text/plain; charset=UTF-8')
      .send(['=^.^=', ...PAGES].map((l) => l + '\n').join(''));
  return {
    index,
    aliases: catAliases(node),
    allocation: catAllocation(node),
    count: catCount(node),
    fielddata: catFielddata(),
    health: catHealth(node),
    indices: catIndicesHandler(node),
    master: catMaster(node),
    nodeattrs: catNodeAttrs(node),
    nodes: catNodesHandler(node),
    pendingTasks: catPendingTasks(node),
    plugins: catPlugins(),
    recovery: catRecovery(node),
    repositories: catRepositories(),
    segments: catSegments(node),
    shards: catShards(node),
    snapshots: catSnapshots(),
    tasks: catTasks(node),
    templates: catTemplates(node),
    threadPool: catThreadPool(node),
  };
}
