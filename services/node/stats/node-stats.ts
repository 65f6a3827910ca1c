/**
 * One node's entry of `GET /_nodes/stats` (Elasticsearch's NodeStats): its
 * copies' figures summed (`indices`), the process and machine (`os`,
 * `process`, `jvm`, `fs`), its shard workers as thread pools, HTTP and
 * transport connections. Sections this server has no counterpart for
 * (circuit breakers, scripts, discovery queues, ingest pipelines, adaptive
 * replica selection) print what Elasticsearch prints when nothing happened.
 */
import type { NodeInfo } from '../cluster/membership-protocol.ts';
import { CommonStats, ALL_SECTIONS, typeMatcher, type Section } from './common-stats.ts';
import type { CopyStatsView } from './copy-view.ts';
import { fsStats, heapFigures, jvmStats, osStats, processStats } from './process-figures.ts';
import { setOwn } from '../../../shared/json/own-keys.ts';

/** The node metrics of `/_nodes/stats/{metric}` (RestNodesStatsAction.METRICS). */
export const NODE_METRICS = [
  'indices',
  'os',
  'process',
  'jvm',
  'thread_pool',
  'fs',
  'transport',
  'http',
  'breaker',
  'script',
  'discovery',
  'ingest',
  'adaptive_selection',
] as const;
export type NodeMetric = (typeof NODE_METRICS)[number];

/** What a `node_stats` request asks of a node (it travels to other nodes as JSON). */
export interface NodeStatsRequest {
  readonly metrics: readonly NodeMetric[];
  readonly indexSections: readonly Section[];
  /** `level`: node (default), indices or shards. */
  readonly level: 'node' | 'indices' | 'shards';
  readonly human: boolean;
  readonly types: readonly string[] | null;
  readonly segmentFileSizes: boolean;
}

/** What the node gives the stats of itself. */
export interface NodeStatsSource {
  readonly info: NodeInfo;
  readonly dataPath: string;
  /** Shard worker threads. */
  readonly workers: number;
  /** Requests waiting for a shard worker. */
  readonly workersInFlight: () => number;
  readonly http: { readonly currentOpen: number; readonly totalOpened: number };
  readonly transport: { readonly serverOpen: number };
  /** Bytes and count of segment files mapped now. */
  readonly mapped: () => { readonly bytes: number; readonly count: number };
  readonly copies: () => Promise<CopyStatsView[]>;
}

/** Elasticsearch's default circuit breaker limits, as fractions of the heap. */
const BREAKERS: readonly (readonly [name: string, fraction: number, overhead: number])[] = [
  ['request', 0.6, 1],
  ['fielddata', 0.4, 1.03],
  ['in_flight_requests', 1, 1],
  ['accounting', 1, 1],
  ['parent', 0.7, 1],
];

export async function buildNodeStats(src: NodeStatsSource, req: NodeStatsRequest): Promise<Record<string, unknown>> {
  const now = Date.now();
  const info = src.info;
  const host = info.transportAddress.slice(0, info.transportAddress.lastIndexOf(':'));
  const out: Record<string, unknown> = {
    timestamp: now,
    name: info.name,
    transport_address: info.transportAddress,
    host,
    ip: info.transportAddress,
    roles: info.data ? ['master', 'data', 'ingest'] : ['master', 'ingest'],
  };
  if (info.attributes && Object.keys(info.attributes).length > 0) out.attributes = info.attributes;
  const metrics = new Set(req.metrics);
  const copies = metrics.has('indices') || metrics.has('thread_pool') ? await src.copies() : [];
  const total = new CommonStats();
  for (const c of copies) total.add(c);
  if (metrics.has('indices')) {
    const sections = new Set(req.indexSections);
    const opts = { human: req.human, types: typeMatcher(req.types), segmentFileSizes: req.segmentFileSizes };
    const indices = total.render(sections, opts);
    if (req.level === 'indices' || req.level === 'shards') {
      const byIndex = new Map<string, CopyStatsView[]>();
      for (const c of copies) byIndex.set(c.index, [...(byIndex.get(c.index) ?? []), c]);
      const names = [...byIndex.keys()].sort();
      if (req.level === 'indices') {
        const per: Record<string, unknown> = {};
        for (const n of names) {
          const sum = new CommonStats();
          for (const c of byIndex.get(n)!) sum.add(c);
          setOwn(per, n, sum.render(sections, opts));
        }
        indices.indices = per;
      } else {
        const per: Record<string, unknown> = {};
        for (const n of names) {
          setOwn(
            per,
            n,
            byIndex
              .get(n)!
              .sort((a, b) => a.shard - b.shard)
              .map((c) => ({ [String(c.shard)]: new CommonStats().add(c).render(sections, opts) })),
          );
        }
        indices.shards = per;
      }
    }
    out.indices = indices;
  }
  if (metrics.has('os')) out.os = osStats(now);
  if (metrics.has('process')) out.process = processStats(now);
  if (metrics.has('jvm')) {
    const mapped = src.mapped();
    out.jvm = jvmStats(now, { threads: src.workers + 1, mappedBytes: mapped.bytes, mappedCount: mapped.count });
  }
  if (metrics.has('thread_pool')) out.thread_pool = threadPools(src, total);
  if (metrics.has('fs')) out.fs = await fsStats(now, src.dataPath);
  if (metrics.has('transport')) out.transport = { server_open: src.transport.serverOpen, rx_count: 0, rx_size_in_bytes: 0, tx_count: 0, tx_size_in_bytes: 0 };
  if (metrics.has('http')) out.http = { current_open: src.http.currentOpen, total_opened: src.http.totalOpened };
  if (metrics.has('breaker')) {
    const heap = heapFigures().max;
    const breakers: Record<string, unknown> = {};
    for (const [name, fraction, overhead] of BREAKERS) {
      const limit = Math.floor(heap * fraction);
      breakers[name] = { limit_size_in_bytes: limit, limit_size: formatLimit(limit), estimated_size_in_bytes: 0, estimated_size: '0b', overhead, tripped: 0 };
    }
    out.breakers = breakers;
  }
  if (metrics.has('script')) out.script = { compilations: 0, cache_evictions: 0 };
  if (metrics.has('discovery')) out.discovery = { cluster_state_queue: { total: 0, pending: 0, committed: 0 } };
  if (metrics.has('ingest')) out.ingest = { total: { count: 0, time_in_millis: 0, current: 0, failed: 0 }, pipelines: {} };
  if (metrics.has('adaptive_selection')) out.adaptive_selection = {};
  return out;
}

function formatLimit(bytes: number): string {
  // ByteSizeValue.toString of the limit, as the breaker section prints it.
  const units = ['b', 'kb', 'mb', 'gb', 'tb'];
  let i = 0;
  let v = bytes;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  const s = String(Math.trunc(v * 10) / 10);
  return `${s}${units[i]}`;
}

/**
 * The shard workers as Elasticsearch's thread pools: each pool that does
 * that work here (search, write, get, refresh, flush, force merge) runs on
 * the workers and counts what they completed; `shard_worker` shows the
 * requests waiting for them now.
 */
function threadPools(src: NodeStatsSource, total: CommonStats): Record<string, unknown> {
  const pool = (threads: number, completed: number, active = 0, queue = 0) => ({ threads, queue, active, rejected: 0, largest: threads, completed });
  const w = src.workers;
  const inFlight = src.workersInFlight();
  return {
    flush: pool(w, total.n('flushTotal')),
    force_merge: pool(w, total.n('mergeTotal')),
    generic: pool(1, 0),
    get: pool(w, total.n('getTotal')),
    management: pool(1, 0),
    refresh: pool(w, total.n('refreshTotal')),
    search: pool(w, total.n('queryTotal') + total.n('fetchTotal')),
    shard_worker: pool(w, 0, Math.min(inFlight, w), Math.max(0, inFlight - w)),
    warmer: pool(w, 0),
    write: pool(w, total.n('indexTotal') + total.n('deleteTotal') + total.n('noopUpdateTotal')),
  };
}

export { ALL_SECTIONS };
