/** `GET /_cat/health` (RestHealthAction): the cluster's health on one line. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext } from '../node-context.ts';
import { clusterHealth } from '../../copies/health.ts';
import { col, sendCat } from './table.ts';
import { epochAndTime } from './sources.ts';

type Row = Record<string, unknown> & { readonly now: number };

const COLUMNS = [
  col<Row>('epoch', 'alias:t,time;desc:seconds since 1970-01-01 00:00:00', (r) => epochAndTime(r.now).epoch),
  col<Row>('timestamp', 'alias:ts,hms,hhmmss;desc:time in HH:MM:SS', (r) => epochAndTime(r.now).timestamp),
  col<Row>('cluster', 'alias:cl;desc:cluster name', (r) => String(r.cluster_name)),
  col<Row>('status', 'alias:st;desc:health status', (r) => String(r.status)),
  col<Row>('node.total', 'alias:nt,nodeTotal;text-align:right;desc:total number of nodes', (r) => r.number_of_nodes as number),
  col<Row>('node.data', 'alias:nd,nodeData;text-align:right;desc:number of nodes that can store data', (r) => r.number_of_data_nodes as number),
  col<Row>('shards', 'alias:t,sh,shards.total,shardsTotal;text-align:right;desc:total number of shards', (r) => r.active_shards as number),
  col<Row>('pri', 'alias:p,shards.primary,shardsPrimary;text-align:right;desc:number of primary shards', (r) => r.active_primary_shards as number),
  col<Row>('relo', 'alias:r,shards.relocating,shardsRelocating;text-align:right;desc:number of relocating nodes', (r) => r.relocating_shards as number),
  col<Row>('init', 'alias:i,shards.initializing,shardsInitializing;text-align:right;desc:number of initializing nodes', (r) => r.initializing_shards as number),
  col<Row>('unassign', 'alias:u,shards.unassigned,shardsUnassigned;text-align:right;desc:number of unassigned shards', (r) => r.unassigned_shards as number),
  col<Row>('pending_tasks', 'alias:pt,pendingTasks;text-align:right;desc:number of pending tasks', (r) => r.number_of_pending_tasks as number),
  col<Row>('max_task_wait_time', 'alias:mtwt,maxTaskWaitTime;text-align:right;desc:wait time of longest task pending', (r) => {
    const ms = r.task_max_waiting_in_queue_millis as number;
    return ms === 0 ? '-' : `${ms}ms`;
  }),
  col<Row>('active_shards_percent', 'alias:asp,activeShardsPercent;text-align:right;desc:active number of shards in percent', (r) =>
    `${(r.active_shards_percent_as_number as number).toFixed(1)}%`,
  ),
];

export function catHealth(node: NodeContext) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const body = clusterHealth(node, node.cluster.indices(), 'cluster').body;
    const pending = node.meta.pendingTasks();
    const oldest = pending.length === 0 ? 0 : Date.now() - Math.min(...pending.map((t) => t.since));
    return sendCat(req, reply, COLUMNS, [{ ...body, number_of_pending_tasks: pending.length, task_max_waiting_in_queue_millis: oldest, now: Date.now() }]);
  };
}
