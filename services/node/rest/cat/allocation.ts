/**
 * `GET /_cat/allocation[/{node_id}]` (RestAllocationAction): per data
 * node, its shard copies, the disk they take and the disk of the file
 * system under `path.data`; one `UNASSIGNED` row counts the copies no node
 * holds.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext } from '../node-context.ts';
import type { NodeInfo } from '../../cluster/membership-protocol.ts';
import { selectNodes } from '../../cluster/node-selector.ts';
import { params } from '../params.ts';
import { Bytes, col, sendCat, type Column } from './table.ts';
import { hostOf, nodeFigures, type NodeFigures } from './sources.ts';

interface Row {
  /** null: the row of unassigned copies. */
  readonly node: NodeInfo | null;
  readonly shards: number;
  readonly indexBytes: number;
  readonly f: NodeFigures | null;
}

const fs = (r: Row) => (r.f?.fs && r.f.fs.total.total_in_bytes >= 0 ? r.f.fs.total : null);

const COLUMNS: Column<Row>[] = [
  col('shards', 'alias:s;text-align:right;desc:number of shards on node', (r) => r.shards),
  col('disk.indices', 'alias:di,diskIndices;text-align:right;desc:disk used by ES indices', (r) => (r.node ? new Bytes(r.indexBytes) : null)),
  col('disk.used', 'alias:du,diskUsed;text-align:right;desc:disk used (total, not just ES)', (r) => {
    const t = fs(r);
    return t ? new Bytes(t.total_in_bytes - t.available_in_bytes) : null;
  }),
  col('disk.avail', 'alias:da,diskAvail;text-align:right;desc:disk available', (r) => {
    const t = fs(r);
    return t ? new Bytes(t.available_in_bytes) : null;
  }),
  col('disk.total', 'alias:dt,diskTotal;text-align:right;desc:total capacity of all volumes', (r) => {
    const t = fs(r);
    return t ? new Bytes(t.total_in_bytes) : null;
  }),
  col('disk.percent', 'alias:dp,diskPercent;text-align:right;desc:percent disk used', (r) => {
    const t = fs(r);
    return t && t.total_in_bytes > 0 ? Math.trunc((100 * (t.total_in_bytes - t.available_in_bytes)) / t.total_in_bytes) : null;
  }),
  col('host', 'alias:h;desc:host of node', (r) => (r.node ? hostOf(r.node.transportAddress) : null)),
  col('ip', 'desc:ip of node', (r) => (r.node ? hostOf(r.node.transportAddress) : null)),
  col('node', 'alias:n;desc:name of node', (r) => r.node?.name ?? 'UNASSIGNED'),
];

export function catAllocation(node: NodeContext) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const chosen = selectNodes(params(req).node_id, node.directory.nodes(), node.info, node.directory.master()).filter((n) => n.data);
    const shards = new Map<string, number>();
    let unassigned = 0;
    for (const m of node.cluster.indices()) {
      if (m.closed) continue;
      for (let s = 0; s < m.settings.numberOfShards; s++) {
        for (const r of node.directory.routes(m, s)) shards.set(r.node.id, (shards.get(r.node.id) ?? 0) + 1);
        unassigned += node.directory.unassigned(m, s);
      }
    }
    const [figures, copies] = await Promise.all([nodeFigures(node, chosen), node.nodeAdmin.copyStatsOfNodes(chosen)]);
    const rows: Row[] = chosen.map((n) => ({
      node: n,
      shards: shards.get(n.id) ?? 0,
      indexBytes: (copies.byNode.get(n.id) ?? []).reduce((sum, v) => sum + v.stats.sizeInBytes, 0),
      f: figures.get(n.id) ?? null,
    }));
    if (unassigned > 0 && params(req).node_id === undefined) rows.push({ node: null, shards: unassigned, indexBytes: 0, f: null });
    return sendCat(req, reply, COLUMNS, rows);
  };
}
