/** `GET /_cat/nodes` (RestNodesAction): one row per node, with its machine, process and copies' figures. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext } from '../node-context.ts';
import type { NodeInfo } from '../../cluster/membership-protocol.ts';
import { CommonStats } from '../../stats/common-stats.ts';
import { ES_VERSION } from '../../version.ts';
import { boolParam, query } from '../params.ts';
import { Bytes, Millis, col, sendCat, type Column } from './table.ts';
import { NODE_STAT_COLUMNS, statColumns } from './stats-columns.ts';
import { catNodes, hostOf, nodeFigures, portOf, roleLetters, type NodeFigures } from './sources.ts';

interface Row {
  readonly node: NodeInfo;
  readonly local: boolean;
  readonly master: boolean;
  readonly fullId: boolean;
  readonly f: NodeFigures | null;
  readonly stats: CommonStats | null;
}

const load = (r: Row, key: string): string | null => {
  const v = r.f?.os?.cpu.load_average[key];
  return v === undefined || v < 0 ? null : v.toFixed(2);
};

const diskUsed = (r: Row): number | null => {
  const t = r.f?.fs?.total;
  return t === undefined || t.total_in_bytes < 0 ? null : t.total_in_bytes - t.available_in_bytes;
};

const COLUMNS: Column<Row>[] = [
  col('id', 'default:false;alias:id,nodeId;desc:unique node id', (r) => (r.fullId ? r.node.id : r.node.id.slice(0, 4))),
  col('pid', 'default:false;alias:p;desc:process id', (r) => (r.local ? process.pid : null)),
  col('ip', 'alias:i;desc:ip address', (r) => hostOf(r.node.transportAddress)),
  col('port', 'default:false;alias:po;desc:bound transport port', (r) => portOf(r.node.transportAddress)),
  col('http_address', 'default:false;alias:http;desc:bound http address', (r) => r.node.httpAddress),
  col('version', 'default:false;alias:v;desc:es version', () => ES_VERSION.number),
  col('flavor', 'default:false;alias:f;desc:es distribution flavor', () => ES_VERSION.build_flavor),
  col('type', 'default:false;alias:t;desc:es distribution type', () => ES_VERSION.build_type),
  col('build', 'default:false;alias:b;desc:es build hash', () => ES_VERSION.build_hash),
  col('jdk', 'default:false;alias:j;desc:jdk version', () => process.versions.node),
  col('disk.total', 'default:false;alias:dt,diskTotal;text-align:right;desc:total disk space', (r) =>
    r.f?.fs && r.f.fs.total.total_in_bytes >= 0 ? new Bytes(r.f.fs.total.total_in_bytes) : null,
  ),
  col('disk.used', 'default:false;alias:du,diskUsed;text-align:right;desc:used disk space', (r) => {
    const u = diskUsed(r);
    return u === null ? null : new Bytes(u);
  }),
  col('disk.avail', 'default:false;alias:d,da,disk,diskAvail;text-align:right;desc:available disk space', (r) =>
    r.f?.fs && r.f.fs.total.available_in_bytes >= 0 ? new Bytes(r.f.fs.total.available_in_bytes) : null,
  ),
  col('disk.used_percent', 'default:false;alias:dup,diskUsedPercent;text-align:right;desc:used disk space percentage', (r) => {
    const u = diskUsed(r);
    const total = r.f?.fs?.total.total_in_bytes ?? 0;
    return u === null || total <= 0 ? null : ((100 * u) / total).toFixed(2);
  }),
  col('heap.current', 'default:false;alias:hc,heapCurrent;text-align:right;desc:used heap', (r) => (r.f?.jvm ? new Bytes(r.f.jvm.mem.heap_used_in_bytes) : null)),
  col('heap.percent', 'alias:hp,heapPercent;text-align:right;desc:used heap ratio', (r) => r.f?.jvm?.mem.heap_used_percent ?? null),
  col('heap.max', 'default:false;alias:hm,heapMax;text-align:right;desc:max configured heap', (r) => (r.f?.jvm ? new Bytes(r.f.jvm.mem.heap_max_in_bytes) : null)),
  col('ram.current', 'default:false;alias:rc,ramCurrent;text-align:right;desc:used machine memory', (r) => (r.f?.os ? new Bytes(r.f.os.mem.used_in_bytes) : null)),
  col('ram.percent', 'alias:rp,ramPercent;text-align:right;desc:used machine memory ratio', (r) => r.f?.os?.mem.used_percent ?? null),
  col('ram.max', 'default:false;alias:rm,ramMax;text-align:right;desc:total machine memory', (r) => (r.f?.os ? new Bytes(r.f.os.mem.total_in_bytes) : null)),
  col('file_desc.current', 'default:false;alias:fdc,fileDescriptorCurrent;text-align:right;desc:used file descriptors', (r) => r.f?.process?.open_file_descriptors ?? null),
  col('file_desc.percent', 'default:false;alias:fdp,fileDescriptorPercent;text-align:right;desc:used file descriptor ratio', (r) => {
    const p = r.f?.process;
    return p === undefined || p.max_file_descriptors <= 0 ? null : Math.round((100 * p.open_file_descriptors) / p.max_file_descriptors);
  }),
  col('file_desc.max', 'default:false;alias:fdm,fileDescriptorMax;text-align:right;desc:max file descriptors', (r) => r.f?.process?.max_file_descriptors ?? null),
  col('cpu', 'alias:cpu;text-align:right;desc:recent cpu usage', (r) => r.f?.os?.cpu.percent ?? null),
  col('load_1m', 'alias:l;text-align:right;desc:1m load avg', (r) => load(r, '1m')),
  col('load_5m', 'alias:l;text-align:right;desc:5m load avg', (r) => load(r, '5m')),
  col('load_15m', 'alias:l;text-align:right;desc:15m load avg', (r) => load(r, '15m')),
  col('uptime', 'default:false;alias:u;text-align:right;desc:node uptime', (r) => (r.f?.jvm ? new Millis(r.f.jvm.uptime_in_millis) : null)),
  col('node.role', 'alias:r,role,nodeRole;desc:m:master eligible node, d:data node, i:ingest node, -:coordinating node only', (r) => roleLetters(r.node)),
  col('master', 'alias:m;desc:*:current master', (r) => (r.master ? '*' : '-')),
  col('name', 'alias:n;desc:node name', (r) => r.node.name),
  ...statColumns<Row>(NODE_STAT_COLUMNS, (r) => r.stats),
];

export function catNodesHandler(node: NodeContext) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const nodes = catNodes(node);
    const masterId = node.directory.master()?.id;
    const [figures, copies] = await Promise.all([nodeFigures(node, nodes), node.nodeAdmin.copyStatsOfNodes(nodes)]);
    const fullId = boolParam(query(req), 'full_id', false);
    const rows = nodes.map((n): Row => {
      const views = copies.byNode.get(n.id);
      const stats = views === undefined ? (n.data ? null : new CommonStats()) : views.reduce((s, v) => s.add(v), new CommonStats());
      return { node: n, local: n.id === node.nodeId, master: n.id === masterId, fullId, f: figures.get(n.id) ?? null, stats };
    });
    return sendCat(req, reply, COLUMNS, rows);
  };
}
