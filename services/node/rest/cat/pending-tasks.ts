/**
 * `GET /_cat/pending_tasks` (RestPendingClusterTasksAction): the cluster
 * changes this node appended to the meta log and has not applied yet.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext } from '../node-context.ts';
import type { PendingTask } from '../../cluster/meta-service.ts';
import { Millis, col, sendCat } from './table.ts';

type Row = PendingTask & { readonly now: number };

const COLUMNS = [
  col<Row>('insertOrder', 'alias:o;text-align:right;desc:task insertion order', (t) => t.insertOrder),
  col<Row>('timeInQueue', 'alias:t;text-align:right;desc:how long task has been in queue', (t) => new Millis(t.now - t.since)),
  col<Row>('priority', 'alias:p;desc:task priority', (t) => t.priority),
  col<Row>('source', 'alias:s;desc:task source', (t) => t.source),
];

export function catPendingTasks(node: NodeContext) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const now = Date.now();
    return sendCat(req, reply, COLUMNS, node.meta.pendingTasks().map((t) => ({ ...t, now })));
  };
}
