/** `GET /_cat/master` (RestMasterAction): the elected master node. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext } from '../node-context.ts';
import type { NodeInfo } from '../../cluster/membership-protocol.ts';
import { col, sendCat } from './table.ts';
import { hostOf } from './sources.ts';

const COLUMNS = [
  col<NodeInfo | null>('id', 'desc:node id', (n) => n?.id ?? '-'),
  col<NodeInfo | null>('host', 'alias:h;desc:host name', (n) => (n ? hostOf(n.transportAddress) : '-')),
  col<NodeInfo | null>('ip', 'desc:ip address ', (n) => (n ? hostOf(n.transportAddress) : '-')),
  col<NodeInfo | null>('node', 'alias:n;desc:node name', (n) => n?.name ?? '-'),
];

export function catMaster(node: NodeContext) {
  return async (req: FastifyRequest, reply: FastifyReply) => sendCat(req, reply, COLUMNS, [node.directory.master()]);
}
