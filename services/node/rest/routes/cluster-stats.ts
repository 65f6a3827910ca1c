/**
 * `GET /_cluster/stats[/nodes/{node_id}]` (Elasticsearch's
 * ClusterStatsResponse): every copy's figures summed (`indices`) and every
 * node's machine and process (`nodes`), asked of each node.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import os from 'node:os';
import type { NodeContext } from '../node-context.ts';
import { clusterHealth } from '../../copies/health.ts';
import { selectNodes } from '../../cluster/node-selector.ts';
import { CommonStats } from '../../stats/common-stats.ts';
import { ES_VERSION } from '../../version.ts';
import { boolParam, params, query } from '../params.ts';
import { sendJson } from '../reply.ts';
import { nodeFigures } from '../cat/sources.ts';

function minMaxAvg(values: readonly number[]): { min: number; max: number; avg: number } {
  if (values.length === 0) return { min: 0, max: 0, avg: 0 };
  return { min: Math.min(...values), max: Math.max(...values), avg: values.reduce((a, b) => a + b, 0) / values.length };
}

export function clusterStatsHandlers(node: NodeContext) {
  const stats = async (req: FastifyRequest, reply: FastifyReply) => {
    const human = boolParam(query(req), 'human', false);
    const nodes = selectNodes(params(req).node_id, node.directory.nodes(), node.info, node.directory.master());
    const [figures, copies] = await Promise.all([nodeFigures(node, nodes), node.nodeAdmin.copyStatsOfNodes(nodes)]);
    const views = copies.results.flat();
    const total = new CommonStats();
    for (const v of views) total.add(v);
    // Per index: its copies, primaries, and replicas per primary (ClusterStatsIndices.ShardStats).
    const perIndex = new Map<string, { shards: number; primaries: number }>();
    for (const v of views) {
      const e = perIndex.get(v.uuid) ?? { shards: 0, primaries: 0 };
      e.shards++;
      if (v.primary) e.primaries++;
      perIndex.set(v.uuid, e);
    }
    const entries = [...perIndex.values()];
    const shardsTotal = entries.reduce((n, e) => n + e.shards, 0);
    const primaries = entries.reduce((n, e) => n + e.primaries, 0);
    const shards =
      shardsTotal === 0
        ? {}
        : {
            total: shardsTotal,
            primaries,
            replication: primaries === 0 ? 0 : (shardsTotal - primaries) / primaries,
            index: {
              shards: minMaxAvg(entries.map((e) => e.shards)),
              primaries: minMaxAvg(entries.map((e) => e.primaries)),
              replication: minMaxAvg(entries.map((e) => (e.primaries === 0 ? 0 : (e.shards - e.primaries) / e.primaries))),
            },
          };
    const sections = total.render(new Set(['docs', 'store', 'fielddata', 'query_cache', 'completion', 'segments']), { human });

    const answered = nodes.filter((n) => figures.has(n.id));
    const f = answered.map((n) => figures.get(n.id)!);
    const sum = (pick: (x: (typeof f)[number]) => number | undefined) => f.reduce((n, x) => n + Math.max(0, pick(x) ?? 0), 0);
    const memTotal = sum((x) => x.os?.mem.total_in_bytes);
    const memUsed = sum((x) => x.os?.mem.used_in_bytes);
    const heapMax = sum((x) => x.jvm?.mem.heap_max_in_bytes);
    const heapUsed = sum((x) => x.jvm?.mem.heap_used_in_bytes);
    const out = {
      _nodes: { total: nodes.length, successful: answered.length, failed: nodes.length - answered.length },
      cluster_name: node.config.clusterName,
      cluster_uuid: node.clusterUuid,
      timestamp: Date.now(),
      status: clusterHealth(node, node.cluster.indices(), 'cluster').body.status,
      indices: { count: perIndex.size, shards, ...sections },
      nodes: {
        count: {
          total: nodes.length,
          data: nodes.filter((n) => n.data).length,
          coordinating_only: 0,
          master: nodes.length,
          ingest: nodes.length,
        },
        versions: [ES_VERSION.number],
        os: {
          available_processors: answered.length * os.availableParallelism(),
          allocated_processors: answered.length * node.config.processors,
          names: [{ name: os.type(), count: answered.length }],
          mem: {
            total_in_bytes: memTotal,
            free_in_bytes: memTotal - memUsed,
            used_in_bytes: memUsed,
            free_percent: memTotal === 0 ? 0 : Math.round((100 * (memTotal - memUsed)) / memTotal),
            used_percent: memTotal === 0 ? 0 : Math.round((100 * memUsed) / memTotal),
          },
        },
        process: {
          cpu: { percent: sum((x) => x.os?.cpu.percent) },
          open_file_descriptors: minMaxAvg(f.map((x) => x.process?.open_file_descriptors ?? 0)),
        },
        jvm: {
          max_uptime_in_millis: Math.max(0, ...f.map((x) => x.jvm?.uptime_in_millis ?? 0)),
          versions: [{ version: process.versions.node, vm_name: 'Node.js', vm_version: process.versions.v8, vm_vendor: 'OpenJS Foundation', count: answered.length }],
          mem: { heap_used_in_bytes: heapUsed, heap_max_in_bytes: heapMax },
          threads: answered.length * (node.config.processors + 1),
        },
        fs: {
          total_in_bytes: sum((x) => x.fs?.total.total_in_bytes),
          free_in_bytes: sum((x) => x.fs?.total.free_in_bytes),
          available_in_bytes: sum((x) => x.fs?.total.available_in_bytes),
        },
        plugins: [],
        network_types: { transport_types: { tcp: answered.length }, http_types: { http: answered.length } },
      },
    };
    return sendJson(reply, 200, out);
  };
  return { stats };
}
