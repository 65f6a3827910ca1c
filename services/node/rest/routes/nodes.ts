/**
 * Node APIs: `GET /_nodes` (info) and `GET /_nodes/stats`, each for
 * `/{node_id}` specifications (`_local`, `_master`, ids, names, wildcards,
 * role filters) and metric filters, with every other node asked over the
 * transport (NODE_ADMIN).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import os from 'node:os';
import { illegalArgument } from '../../../../shared/errors/es-errors.ts';
import { setOwn } from '../../../../shared/json/own-keys.ts';
import type { NodeContext } from '../node-context.ts';
import type { NodeInfo } from '../../cluster/membership-protocol.ts';
import { selectNodes } from '../../cluster/node-selector.ts';
import { NODE_METRICS, type NodeMetric, type NodeStatsRequest } from '../../stats/node-stats.ts';
import { heapFigures } from '../../stats/process-figures.ts';
import { ES_VERSION } from '../../version.ts';
import { boolParam, listParam, params, query } from '../params.ts';
import { sendJson } from '../reply.ts';
import { unrecognized } from '../unrecognized.ts';
import { indexSections, pathOf } from './stats.ts';

const INFO_METRICS = ['settings', 'os', 'process', 'jvm', 'thread_pool', 'transport', 'http', 'plugins', 'ingest'] as const;

function hostOf(address: string): string {
  const i = address.lastIndexOf(':');
  return i < 0 ? address : address.slice(0, i);
}

/** `_nodes.{total,successful,failed}` with Elasticsearch's failure entries. */
function nodesHeader(total: number, failures: readonly { node: NodeInfo; error: unknown }[]): Record<string, unknown> {
  const header: Record<string, unknown> = { total, successful: total - failures.length, failed: failures.length };
  if (failures.length > 0) {
    header.failures = failures.map((f) => ({
      type: 'failed_node_exception',
      reason: `Failed node [${f.node.id}]`,
      node_id: f.node.id,
      caused_by: { type: 'exception', reason: f.error instanceof Error ? f.error.message : String(f.error) },
    }));
  }
  return header;
}

export function nodeHandlers(node: NodeContext) {
  const selected = (spec: string | undefined): NodeInfo[] => selectNodes(spec, node.directory.nodes(), node.info, node.directory.master());

  const stats = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    const path = pathOf(req);
    const metricList = (p.metric ?? '_all').split(',').map((m) => m.trim());
    let metrics: NodeMetric[];
    let indexMetric = p.index_metric;
    if (metricList.length === 1 && metricList[0] === '_all') {
      if (indexMetric !== undefined) throw illegalArgument(`request [${path}] contains index metrics [${indexMetric}] but all stats requested`);
      metrics = [...NODE_METRICS];
    } else {
      if (metricList.includes('_all')) throw illegalArgument(`request [${path}] contains _all and individual metrics [${p.metric}]`);
      const invalid = metricList.filter((m) => !(NODE_METRICS as readonly string[]).includes(m));
      if (invalid.length > 0) throw unrecognized(path, invalid, NODE_METRICS, 'metric');
      metrics = metricList as NodeMetric[];
      if (!metrics.includes('indices') && indexMetric !== undefined) {
        throw illegalArgument(`request [${path}] contains index metrics [${indexMetric}] but indices stats not requested`);
      }
    }
    indexMetric ??= '_all';
    const level = q.level ?? 'node';
    if (!['node', 'indices', 'shards'].includes(level)) throw illegalArgument(`level parameter must be one of [indices] or [node] or [shards] but was [${level}]`);
    const statsReq: NodeStatsRequest = {
      metrics,
      indexSections: [...indexSections(path, indexMetric === '_all' ? undefined : indexMetric)],
      level: level as NodeStatsRequest['level'],
      human: boolParam(q, 'human', false),
      types: listParam(q, 'types') ?? null,
      segmentFileSizes: boolParam(q, 'include_segment_file_sizes', false),
    };
    const nodes = selected(p.node_id);
    const gathered = await node.nodeAdmin.onNodes(nodes, 'node_stats', statsReq, () => node.localNodeStats(statsReq));
    const out: Record<string, unknown> = {};
    for (const n of nodes) {
      const r = gathered.byNode.get(n.id);
      if (r !== undefined) setOwn(out, n.id, r);
    }
    return sendJson(reply, 200, { _nodes: nodesHeader(nodes.length, gathered.failedNodes), cluster_name: node.config.clusterName, nodes: out });
  };

  const info = async (req: FastifyRequest, reply: FastifyReply) => {
    const p = params(req);
    const path = pathOf(req);
    // `/_nodes/{x}` is a node specification unless every part is a metric name (RestNodesInfoAction).
    let spec: string | undefined = p.node_id;
    let metricParam: string | undefined = p.metric;
    if (metricParam === undefined && spec !== undefined && spec.split(',').every((s) => s === '_all' || (INFO_METRICS as readonly string[]).includes(s))) {
      metricParam = spec;
      spec = undefined;
    }
    const metricList = (metricParam ?? '_all').split(',').map((m) => m.trim());
    let metrics: Set<string>;
    if (metricList.length === 1 && metricList[0] === '_all') metrics = new Set(INFO_METRICS);
    else {
      const invalid = metricList.filter((m) => !(INFO_METRICS as readonly string[]).includes(m));
      if (invalid.length > 0) throw unrecognized(path, invalid, INFO_METRICS, 'metric');
      metrics = new Set(metricList);
    }
    const nodes = selected(spec);
    const out: Record<string, unknown> = {};
    for (const n of nodes) setOwn(out, n.id, nodeInfoBody(node, n, metrics));
    return sendJson(reply, 200, { _nodes: nodesHeader(nodes.length, []), cluster_name: node.config.clusterName, nodes: out });
  };

  return { stats, info };
}

/**
 * One node's `_nodes` entry. Every node of a cluster runs this same build on
 * the same kind of machine set-up, so the process figures of the node that
 * answers stand for the others' static ones (versions, limits); addresses
 * and roles are each node's own.
 */
function nodeInfoBody(node: NodeContext, n: NodeInfo, metrics: ReadonlySet<string>): Record<string, unknown> {
  const host = hostOf(n.transportAddress);
  const out: Record<string, unknown> = {
    name: n.name,
    transport_address: n.transportAddress,
    host,
    ip: host,
    version: ES_VERSION.number,
    build_flavor: ES_VERSION.build_flavor,
    build_type: ES_VERSION.build_type,
    build_hash: ES_VERSION.build_hash,
    total_indexing_buffer: 0,
    roles: n.data ? ['master', 'data', 'ingest'] : ['master', 'ingest'],
    attributes: n.attributes ?? {},
  };
  const heap = heapFigures();
  const processors = node.config.processors;
  if (metrics.has('settings')) {
    out.settings = {
      cluster: { name: node.config.clusterName },
      node: { name: n.name, data: String(n.data), master: 'true' },
      path: { data: [node.config.pathData], logs: node.config.pathLogs },
      http: { port: String(node.httpPort) },
      network: { host: node.config.networkHost },
    };
  }
  if (metrics.has('os')) {
    out.os = {
      refresh_interval_in_millis: 1000,
      name: os.type(),
      arch: os.arch(),
      version: os.release(),
      available_processors: os.availableParallelism(),
      allocated_processors: processors,
    };
  }
  if (metrics.has('process')) out.process = { refresh_interval_in_millis: 1000, id: process.pid, mlockall: false };
  if (metrics.has('jvm')) {
    out.jvm = {
      pid: process.pid,
      version: process.versions.node,
      vm_name: 'Node.js',
      vm_version: process.versions.v8,
      vm_vendor: 'OpenJS Foundation',
      start_time_in_millis: Math.floor(Date.now() - process.uptime() * 1000),
      mem: { heap_init_in_bytes: 0, heap_max_in_bytes: heap.max, non_heap_init_in_bytes: 0, non_heap_max_in_bytes: 0, direct_max_in_bytes: 0 },
      gc_collectors: ['young', 'old'],
      memory_pools: ['young', 'survivor', 'old'],
      using_compressed_ordinary_object_pointers: 'true',
      input_arguments: process.execArgv,
    };
  }
  if (metrics.has('thread_pool')) {
    const fixed = (size: number) => ({ type: 'fixed', size, queue_size: -1 });
    out.thread_pool = {
      flush: fixed(processors),
      force_merge: fixed(processors),
      generic: fixed(1),
      get: fixed(processors),
      management: fixed(1),
      refresh: fixed(processors),
      search: fixed(processors),
      shard_worker: fixed(processors),
      warmer: fixed(processors),
      write: fixed(processors),
    };
  }
  if (metrics.has('transport')) out.transport = { bound_address: [n.transportAddress], publish_address: n.transportAddress, profiles: {} };
  if (metrics.has('http')) out.http = { bound_address: [n.httpAddress], publish_address: n.httpAddress, max_content_length_in_bytes: node.config.maxContentLength };
  if (metrics.has('plugins')) {
    out.plugins = [];
    out.modules = [];
  }
  if (metrics.has('ingest')) out.ingest = { processors: [] };
  return out;
}
