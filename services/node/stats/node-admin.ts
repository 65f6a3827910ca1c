/**
 * The operations APIs' reach into shard copies, wherever they are: stats
 * and segments of copies, force merges and cache clears. Each node answers
 * for its own copies (`local*`); a coordinator asks every node that holds
 * copies, itself directly and the others over the transport (NODE_ADMIN),
 * so `_stats` on any node sums the whole cluster's copies.
 */
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import type { ShardDirectory } from '../copies/shard-directory.ts';
import { transportAddress } from '../copies/shard-directory.ts';
import type { NodeInfo } from '../cluster/membership-protocol.ts';
import type { HeldCopy, IndicesService } from '../indexer/indices-service.ts';
import type { TransportClient } from '../transport/transport-client.ts';
import { NODE_ADMIN } from '../transport/rpc-messages.ts';
import { spanBuffer, type SpanRecord } from '../../../shared/telemetry/span-buffer.ts';
import type { SlowLogEntry } from '../search/slow-log.ts';
import type { CopySegmentsView, CopyStatsView } from './copy-view.ts';

/** How long a coordinator waits for another node's answer (Elasticsearch's stats requests have no timeout; a dead node must not hang them). */
const NODE_ADMIN_TIMEOUT_MS = 30_000;

export interface ForceMergeOptions {
  readonly maxNumSegments: number;
  readonly onlyExpungeDeletes: boolean;
  readonly flush: boolean;
}

/** Node-level figures (`_nodes/stats`), produced by the node; opaque here. */
export type NodeStatsProducer = (body: unknown) => Promise<unknown>;

export interface NodeAdminOptions {
  readonly self: () => NodeInfo;
  readonly indices: IndicesService;
  readonly directory: ShardDirectory;
  readonly transport: TransportClient | null;
  readonly nodeStats: NodeStatsProducer;
  /** The tasks this node runs now, as TaskInfo JSON (`_cat/tasks`); `detailed` adds descriptions. */
  readonly tasks: (detailed: boolean) => Record<string, unknown>[];
}

/** Per node, what a cluster-wide action got: answers, and the nodes that failed. */
export interface Gathered<T> {
  readonly results: T[];
  /** The same answers by node id. */
  readonly byNode: ReadonlyMap<string, T>;
  readonly failedNodes: readonly { readonly node: NodeInfo; readonly error: unknown }[];
}

export class NodeAdmin {
  constructor(private readonly opts: NodeAdminOptions) {}

  private held(uuids: ReadonlySet<string> | null): HeldCopy[] {
    return this.opts.indices.allHeld().filter((h) => !h.meta.closed && (uuids === null || uuids.has(h.meta.uuid)));
  }

  private isPrimary(h: HeldCopy): boolean {
    const route = this.opts.directory.routes(h.meta, h.shard).find((r) => r.node.id === this.opts.self().id);
    return route?.primary ?? true;
  }

  /** This node's copies of the indices (all when `uuids` is null), with their figures now. */
  async localCopyStats(uuids: ReadonlySet<string> | null): Promise<CopyStatsView[]> {
    const held = this.held(uuids);
    const self = this.opts.self().id;
    return Promise.all(
      held.map(async (h) => ({
        index: h.meta.name,
        uuid: h.meta.uuid,
        shard: h.shard,
        primary: this.isPrimary(h),
        nodeId: self,
        state: h.state,
        typeName: h.meta.mapping?.typeName ?? null,
        appliedOffset: h.copy.appliedOffset,
        dataPath: h.copy.dir,
        stats: await h.copy.engine.statsNow(),
      })),
    );
  }

  async localSegments(uuids: ReadonlySet<string> | null): Promise<CopySegmentsView[]> {
    const held = this.held(uuids);
    const self = this.opts.self().id;
    return Promise.all(
      held.map(async (h) => ({
        index: h.meta.name,
        uuid: h.meta.uuid,
        shard: h.shard,
        primary: this.isPrimary(h),
        nodeId: self,
        state: h.state,
        committedOffset: h.copy.engine.stats.committedOffset,
        segments: await h.copy.engine.segments(),
      })),
    );
  }

  /** Force-merges this node's copies; how many did it. */
  async localForceMerge(uuids: ReadonlySet<string> | null, o: ForceMergeOptions): Promise<number> {
    const held = this.held(uuids);
    await Promise.all(held.map((h) => h.copy.forceMerge(o.maxNumSegments, o.onlyExpungeDeletes, o.flush)));
    return held.length;
  }

  async localClearCache(uuids: ReadonlySet<string> | null): Promise<number> {
    const held = this.held(uuids);
    await Promise.all(held.map((h) => h.copy.engine.clearCache()));
    return held.length;
  }

  /** Answers another node's NODE_ADMIN request. */
  async handle(action: string, body: unknown): Promise<unknown> {
    const b = (body ?? {}) as { uuids?: string[] | null; options?: ForceMergeOptions };
    const uuids = b.uuids === undefined || b.uuids === null ? null : new Set(b.uuids);
    switch (action) {
      case 'copy_stats':
        return this.localCopyStats(uuids);
      case 'copy_segments':
        return this.localSegments(uuids);
      case 'force_merge':
        return this.localForceMerge(uuids, b.options!);
      case 'clear_cache':
        return this.localClearCache(uuids);
      case 'node_stats':
        return this.opts.nodeStats(body);
      case 'tasks':
        return this.localTasks((body as { detailed?: boolean } | null)?.detailed === true);
      case 'slow_log':
        return this.localSlowLog();
      case 'trace_spans':
        return this.localTraceSpans(String((body as { trace_id?: unknown } | null)?.trace_id ?? ''));
      default:
        throw new Error(`unknown node admin action [${action}]`);
    }
  }

  /** This node's running tasks; times as plain numbers (they travel as JSON). */
  localTasks(detailed: boolean): Record<string, unknown>[] {
    return this.opts.tasks(detailed).map((t) => ({ ...t, running_time_in_nanos: Number(t.running_time_in_nanos) }));
  }

  /** The recent entries of this node's slow logs, newest first. */
  localSlowLog(): SlowLogEntry[] {
    return this.opts.indices.slowLog?.recent() ?? [];
  }

  /** The spans of one trace this node keeps for the console (span-buffer.ts); null when it keeps none. */
  localTraceSpans(traceId: string): SpanRecord[] | null {
    return spanBuffer()?.trace(traceId) ?? null;
  }

  /** Runs `action` on each of `nodes`: this node directly, the others over the transport (waiting `timeoutMs` at most for each). */
  async onNodes<T>(nodes: readonly NodeInfo[], action: string, body: unknown, local: () => Promise<T>, timeoutMs = NODE_ADMIN_TIMEOUT_MS): Promise<Gathered<T>> {
    const self = this.opts.self().id;
    const byNode = new Map<string, T>();
    const failedNodes: { node: NodeInfo; error: unknown }[] = [];
    await Promise.all(
      nodes.map(async (n) => {
        try {
          if (n.id === self) byNode.set(n.id, await local());
          else {
            if (this.opts.transport === null) throw new Error(`node [${n.name}] is not this node and there is no transport`);
            const res = await this.opts.transport.call(transportAddress(n), NODE_ADMIN, { action, body_json: JSON.stringify(body) }, { timeoutMs });
            byNode.set(n.id, JSON.parse(res.body_json) as T);
          }
        } catch (error) {
          failedNodes.push({ node: n, error });
        }
      }),
    );
    // In the order the nodes were given, whatever order they answered in.
    const results = nodes.filter((n) => byNode.has(n.id)).map((n) => byNode.get(n.id)!);
    return { results, byNode, failedNodes };
  }

  /** The data nodes that hold some copy of `metas` (every data node when the allocation is unknown). */
  private holders(metas: readonly IndexMetadata[]): NodeInfo[] {
    const ids = new Set<string>();
    for (const m of metas) for (let s = 0; s < m.settings.numberOfShards; s++) for (const r of this.opts.directory.routes(m, s)) ids.add(r.node.id);
    return this.opts.directory.nodes().filter((n) => ids.has(n.id));
  }

  private uuidsOf(metas: readonly IndexMetadata[]): string[] {
    return metas.filter((m) => !m.closed).map((m) => m.uuid);
  }

  /** Every copy on each of `nodes` (all indices), with its figures. */
  async copyStatsOfNodes(nodes: readonly NodeInfo[]): Promise<Gathered<CopyStatsView[]>> {
    return this.onNodes(nodes.filter((n) => n.data), 'copy_stats', { uuids: null }, () => this.localCopyStats(null));
  }

  /** Every copy of `metas` on every node, with its figures. */
  async copyStats(metas: readonly IndexMetadata[]): Promise<Gathered<CopyStatsView[]>> {
    const uuids = this.uuidsOf(metas);
    return this.onNodes(this.holders(metas), 'copy_stats', { uuids }, () => this.localCopyStats(new Set(uuids)));
  }

  async segments(metas: readonly IndexMetadata[]): Promise<Gathered<CopySegmentsView[]>> {
    const uuids = this.uuidsOf(metas);
    return this.onNodes(this.holders(metas), 'copy_segments', { uuids }, () => this.localSegments(new Set(uuids)));
  }

  async forceMerge(metas: readonly IndexMetadata[], options: ForceMergeOptions): Promise<Gathered<number>> {
    const uuids = this.uuidsOf(metas);
    return this.onNodes(this.holders(metas), 'force_merge', { uuids, options }, () => this.localForceMerge(new Set(uuids), options));
  }

  async clearCache(metas: readonly IndexMetadata[]): Promise<Gathered<number>> {
    const uuids = this.uuidsOf(metas);
    return this.onNodes(this.holders(metas), 'clear_cache', { uuids }, () => this.localClearCache(new Set(uuids)));
  }
}
