/**
 * Node and cluster APIs: `GET /` (info), cluster health, and the `_cat` family.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { illegalArgument } from '../../../../shared/errors/es-errors.ts';
import type { Node } from '../../node.ts';
import { clusterHealth, healthRank, type HealthStatus } from '../../cluster/health.ts';
import { resolveIndices } from '../../coordinator/index-resolver.ts';
import { params, query, timeParam } from '../params.ts';
import { sendJson } from '../reply.ts';
import { renderCat, type CatColumn } from '../cat-table.ts';
import { ES_VERSION } from '../../version.ts';
import { formatTimeValue } from '../../../../shared/engine/mapping/time-value.ts';

export { formatTimeValue };
import type { CopyRecoveryStatus, CopyRoute } from '../../cluster/shard-directory.ts';

const DEFAULT_HEALTH_TIMEOUT_MS = 30_000;

/** Node and cluster handlers, by name (route-table.ts says which paths they serve). */
export function clusterHandlers(node: Node) {
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
  const catHealth = async (req: FastifyRequest, reply: FastifyReply) => {
    const h = clusterHealth(node, node.cluster.indices(), 'cluster').body;
    const now = Date.now();
    const cols: CatColumn[] = [
      { name: 'epoch', value: () => String(Math.floor(now / 1000)) },
      { name: 'timestamp', value: () => new Date(now).toISOString().slice(11, 19) },
      { name: 'cluster', value: () => String(h.cluster_name) },
      { name: 'status', value: () => String(h.status) },
      { name: 'node.total', value: () => String(h.number_of_nodes) },
      { name: 'node.data', value: () => String(h.number_of_data_nodes) },
      { name: 'shards', value: () => String(h.active_shards) },
      { name: 'pri', value: () => String(h.active_primary_shards) },
      { name: 'relo', value: () => '0' },
      { name: 'init', value: () => '0' },
      { name: 'unassign', value: () => String(h.unassigned_shards) },
      { name: 'pending_tasks', value: () => '0' },
      { name: 'max_task_wait_time', value: () => '-' },
      { name: 'active_shards_percent', value: () => String(h.active_shards_percent_as_number) + '%' },
    ];
    return renderCat(reply, query(req), cols, [null]);
  };

  const catIndices = async (req: FastifyRequest, reply: FastifyReply) => {
    const p = params(req);
    const metas = p.index ? resolveIndices(node.cluster, p.index, {}).map((r) => r.meta) : node.cluster.indices();
    metas.sort((a, b) => (a.name < b.name ? -1 : 1));
    const rows = metas.map((m) => {
      // Sizes of the primaries this node can see: its own copies' exact figures, others' doc counts as last polled.
      let docs = 0;
      let deleted = 0;
      let bytes = 0;
      for (let sh = 0; sh < m.settings.numberOfShards; sh++) {
        const primary = node.directory.started(m, sh)[0];
        docs += primary?.docCount ?? 0;
        deleted += primary?.local?.deletedCount ?? 0;
        bytes += primary?.local?.sizeInBytes ?? 0;
      }
      const h = clusterHealth(node, [m], 'cluster').body;
      return { m, docs, deleted, bytes, status: String(h.status) };
    });
    type Row = (typeof rows)[number];
    const cols: CatColumn<Row>[] = [
      { name: 'health', value: (r) => r.status },
      { name: 'status', value: () => 'open' },
      { name: 'index', value: (r) => r.m.name },
      { name: 'uuid', value: (r) => r.m.uuid },
      { name: 'pri', value: (r) => String(r.m.settings.numberOfShards) },
      { name: 'rep', value: (r) => String(r.m.settings.numberOfReplicas) },
      { name: 'docs.count', value: (r) => String(r.docs) },
      { name: 'docs.deleted', value: (r) => String(r.deleted) },
      { name: 'store.size', value: (r) => formatBytes(r.bytes, query(req).bytes) },
      { name: 'pri.store.size', value: (r) => formatBytes(r.bytes, query(req).bytes) },
    ];
    return renderCat(reply, query(req), cols, rows);
  };

  const catShards = async (req: FastifyRequest, reply: FastifyReply) => {
    const p = params(req);
    const metas = p.index ? resolveIndices(node.cluster, p.index, {}).map((r) => r.meta) : node.cluster.indices();
    metas.sort((a, b) => (a.name < b.name ? -1 : 1));
    interface ShardRow {
      index: string;
      shard: number;
      prirep: string;
      state: string;
      docs: string;
      store: string;
      ip: string;
      node: string;
    }
    const rows: ShardRow[] = [];
    for (const m of metas) {
      for (let sh = 0; sh < m.settings.numberOfShards; sh++) {
        for (const r of node.directory.routes(m, sh)) {
          rows.push({
            index: m.name,
            shard: sh,
            prirep: r.primary ? 'p' : 'r',
            state: r.state,
            docs: r.docCount === null ? '' : String(r.docCount),
            store: r.local ? formatBytes(r.local.sizeInBytes, query(req).bytes) : '',
            ip: hostOf(r.node.transportAddress),
            node: r.node.name,
          });
        }
        for (let u = node.directory.unassigned(m, sh); u > 0; u--) {
          rows.push({ index: m.name, shard: sh, prirep: 'r', state: 'UNASSIGNED', docs: '', store: '', ip: '', node: '' });
        }
      }
    }
    const cols: CatColumn<ShardRow>[] = [
      { name: 'index', value: (r) => r.index },
      { name: 'shard', value: (r) => String(r.shard) },
      { name: 'prirep', value: (r) => r.prirep },
      { name: 'state', value: (r) => r.state },
      { name: 'docs', value: (r) => r.docs },
      { name: 'store', value: (r) => r.store },
      { name: 'ip', value: (r) => r.ip },
      { name: 'node', value: (r) => r.node },
    ];
    return renderCat(reply, query(req), cols, rows);
  };

  /**
   * `_cat/recovery`: how each copy was built when it opened. A copy replays
   * its partition from its checkpoint (`existing_store`, after a restart)
   * or from offset 0 (`empty_store`, a new copy): Elasticsearch's translog
   * columns count those records; no files are copied. `start_offset`,
   * `target_offset` and `applied_offset` (only with `h=`) show the offsets.
   */
  const catRecovery = async (req: FastifyRequest, reply: FastifyReply) => {
    const p = params(req);
    const q = query(req);
    const activeOnly = q.active_only !== undefined && q.active_only !== 'false';
    const metas = p.index ? resolveIndices(node.cluster, p.index, {}).map((r) => r.meta) : node.cluster.indices();
    metas.sort((a, b) => (a.name < b.name ? -1 : 1));
    const now = Date.now();
    interface RecoveryRow {
      index: string;
      shard: number;
      route: CopyRoute;
      recovery: CopyRecoveryStatus;
    }
    const rows: RecoveryRow[] = [];
    for (const m of metas) {
      for (let sh = 0; sh < m.settings.numberOfShards; sh++) {
        for (const route of node.directory.routes(m, sh)) {
          const recovery = route.recovery;
          if (recovery === null || (activeOnly && recovery.stopTime !== null)) continue;
          rows.push({ index: m.name, shard: sh, route, recovery });
        }
      }
    }
    const ops = (r: RecoveryRow) => r.recovery.targetOffset - r.recovery.startOffset;
    const replayed = (r: RecoveryRow) => Math.max(0, Math.min(r.recovery.appliedOffset, r.recovery.targetOffset) - r.recovery.startOffset);
    const na = () => 'n/a';
    const zero = () => '0';
    const cols: CatColumn<RecoveryRow>[] = [
      { name: 'index', value: (r) => r.index },
      { name: 'shard', value: (r) => String(r.shard) },
      { name: 'time', value: (r) => formatTimeValue((r.recovery.stopTime ?? now) - r.recovery.startTime) },
      { name: 'type', value: (r) => r.recovery.type },
      // Replaying the partition is the translog stage of an Elasticsearch recovery.
      { name: 'stage', value: (r) => (r.recovery.stopTime === null ? 'translog' : 'done') },
      { name: 'source_host', value: na },
      { name: 'source_node', value: na },
      { name: 'target_host', value: (r) => hostOf(r.route.node.transportAddress) },
      { name: 'target_node', value: (r) => r.route.node.name },
      { name: 'repository', value: na },
      { name: 'snapshot', value: na },
      { name: 'files', value: zero },
      { name: 'files_recovered', value: zero },
      { name: 'files_percent', value: () => '100.0%' },
      { name: 'files_total', value: zero },
      { name: 'bytes', value: zero },
      { name: 'bytes_recovered', value: zero },
      { name: 'bytes_percent', value: () => '100.0%' },
      { name: 'bytes_total', value: zero },
      { name: 'translog_ops', value: (r) => String(ops(r)) },
      { name: 'translog_ops_recovered', value: (r) => String(replayed(r)) },
      { name: 'translog_ops_percent', value: (r) => `${(ops(r) === 0 ? 100 : (100 * replayed(r)) / ops(r)).toFixed(1)}%` },
      { name: 'start_offset', value: (r) => String(r.recovery.startOffset), hidden: true },
      { name: 'target_offset', value: (r) => String(r.recovery.targetOffset), hidden: true },
      { name: 'applied_offset', value: (r) => String(r.recovery.appliedOffset), hidden: true },
      { name: 'start_time_millis', value: (r) => String(r.recovery.startTime), hidden: true },
      { name: 'stop_time_millis', value: (r) => (r.recovery.stopTime === null ? '' : String(r.recovery.stopTime)), hidden: true },
    ];
    return renderCat(reply, q, cols, rows);
  };
  const catMaster = async (req: FastifyRequest, reply: FastifyReply) => {
    const master = node.directory.master();
    const cols: CatColumn[] = [
      { name: 'id', value: () => master?.id ?? '-' },
      { name: 'host', value: () => (master ? hostOf(master.transportAddress) : '-') },
      { name: 'ip', value: () => (master ? hostOf(master.transportAddress) : '-') },
      { name: 'node', value: () => master?.name ?? '-' },
    ];
    return renderCat(reply, query(req), cols, [null]);
  };

  const catNodes = async (req: FastifyRequest, reply: FastifyReply) => {
    const mem = process.memoryUsage();
    const masterId = node.directory.master()?.id;
    const nodes = [...node.directory.nodes()].sort((a, b) => (a.name < b.name ? -1 : 1));
    type N = (typeof nodes)[number];
    const cols: CatColumn<N>[] = [
      { name: 'ip', value: (n) => hostOf(n.transportAddress) },
      // Only this node's heap is known here; the others' is not polled.
      { name: 'heap.percent', value: (n) => (n.id === node.nodeId ? String(Math.round((mem.heapUsed / mem.heapTotal) * 100)) : '-') },
      { name: 'ram.percent', value: () => '-' },
      { name: 'cpu', value: () => '-' },
      { name: 'node.role', value: (n) => (n.data ? 'dim' : 'mi') },
      { name: 'master', value: (n) => (n.id === masterId ? '*' : '-') },
      { name: 'name', value: (n) => n.name },
    ];
    return renderCat(reply, query(req), cols, nodes);
  };

  const nodesInfo = async (_req: FastifyRequest, reply: FastifyReply) => {
    const nodes = node.directory.nodes();
    const out: Record<string, unknown> = {};
    for (const n of nodes) {
      const host = hostOf(n.transportAddress);
      out[n.id] = {
        name: n.name,
        transport_address: n.transportAddress,
        host,
        ip: host,
        version: ES_VERSION.number,
        build_hash: ES_VERSION.build_hash,
        roles: n.data ? ['master', 'data', 'ingest'] : ['master', 'ingest'],
        attributes: n.attributes ?? {},
        http: { publish_address: n.httpAddress, bound_address: [n.httpAddress] },
      };
    }
    return sendJson(reply, 200, { _nodes: { total: nodes.length, successful: nodes.length, failed: 0 }, cluster_name: node.config.clusterName, nodes: out });
  };

  return { ping, info, health, catHealth, catIndices, catShards, catRecovery, catMaster, catNodes, nodesInfo };
}

/** The host part of `host:port`. */
function hostOf(address: string): string {
  const i = address.lastIndexOf(':');
  return i < 0 ? address : address.slice(0, i);
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

function formatBytes(bytes: number, unit: string | undefined): string {
  if (unit === 'b') return String(bytes);
  if (unit === 'kb') return String(Math.floor(bytes / 1024));
  if (unit === 'mb') return String(Math.floor(bytes / 1024 ** 2));
  if (bytes < 1024) return `${bytes}b`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)}kb`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)}mb`;
  return `${(bytes / 1024 ** 3).toFixed(1)}gb`;
}
