/** `GET /_cat/nodeattrs` (RestNodeAttrsAction): one row per attribute of each node (`node.attr.*`). */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext } from '../node-context.ts';
import type { NodeInfo } from '../../cluster/membership-protocol.ts';
import { col, sendCat } from './table.ts';
import { catNodes, hostOf, portOf } from './sources.ts';

interface Row {
  readonly node: NodeInfo;
  readonly local: boolean;
  readonly attr: string;
  readonly value: string;
}

const COLUMNS = [
  col<Row>('node', 'default:true;alias:name;desc:node name', (r) => r.node.name),
  col<Row>('id', 'default:false;alias:id,nodeId;desc:unique node id', (r) => r.node.id),
  col<Row>('pid', 'default:false;alias:p;desc:process id', (r) => (r.local ? process.pid : null)),
  col<Row>('host', 'alias:h;desc:host name', (r) => hostOf(r.node.transportAddress)),
  col<Row>('ip', 'alias:i;desc:ip address', (r) => hostOf(r.node.transportAddress)),
  col<Row>('port', 'default:false;alias:po;desc:bound transport port', (r) => portOf(r.node.transportAddress)),
  col<Row>('attr', 'default:true;alias:attr.name;desc:attribute description', (r) => r.attr),
  col<Row>('value', 'default:true;alias:attr.value;desc:attribute value', (r) => r.value),
];

export function catNodeAttrs(node: NodeContext) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const rows: Row[] = [];
    for (const n of catNodes(node)) {
      const attrs = n.attributes ?? {};
      for (const attr of Object.keys(attrs).sort()) rows.push({ node: n, local: n.id === node.nodeId, attr, value: String(attrs[attr]) });
    }
    return sendCat(req, reply, COLUMNS, rows);
  };
}
