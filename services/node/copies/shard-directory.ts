/**
 * Where every shard copy is and whether it is started (DESIGN.md 2): the one
 * place the coordinators ask which copies may serve a read or must confirm a
 * write. On one node every copy is local. In a cluster the allocation table
 * (from the membership group) says which node holds which copy; each node
 * reports the state of its own copies, and every node polls the others for
 * theirs (NODE_STATUS), so any node can answer for the whole cluster.
 */
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import type { NodeInfo } from '../cluster/membership-protocol.ts';
import { isFreshShard, type AllocationTable } from '../cluster/allocation.ts';
import type { IndicesService, CopyRecovery, CopyState } from '../indexer/indices-service.ts';
import type { ShardCopy } from '../indexer/shard-copy.ts';
import type { NodeAddress, TransportClient } from '../transport/transport-client.ts';
import { fetchNodeStatus } from '../transport/remote-node-status.ts';
import { illegalArgument } from '../../../shared/errors/es-errors.ts';
import { nodeMatches, parsePreference, type Preference } from './preference.ts';
import { orNullAfter } from '../timeouts.ts';

export interface CopyRoute {
  readonly node: NodeInfo;
  readonly primary: boolean;
  readonly state: CopyState;
  /** The copy itself when this node holds it. */
  readonly local: ShardCopy | null;
  readonly docCount: number | null;
  /** How the copy was built when it opened, and how far it has applied (null until its node reported it). */
  readonly recovery: CopyRecoveryStatus | null;
  /** A copy of an index being rebuilt: the first document its mapping refused, and why (coordinator/rebuild.ts). */
  readonly rebuildFailure?: string | null;
}

export interface CopyRecoveryStatus extends Readonly<CopyRecovery> {
  readonly appliedOffset: number;
}

/** What a cluster gives the directory; absent on one node. */
export interface ClusterView {
  readonly members: readonly NodeInfo[];
  readonly master: NodeInfo | null;
  readonly table: AllocationTable;
}

export interface ShardDirectoryOptions {
  /** This node (its ports are known once it listens). */
  readonly self: () => NodeInfo;
  readonly indices: IndicesService;
  /** The membership's current view; absent = a single node. */
  readonly view?: () => ClusterView;
  readonly transport?: TransportClient;
  /** How often the other nodes' copy states are polled (default 500 ms). */
  readonly statusIntervalMs?: number;
  readonly onError?: (err: Error, context: string) => void;
}

interface RemoteCopyStatus {
  readonly state: CopyState;
  readonly docCount: number;
  readonly recovery: CopyRecoveryStatus;
  readonly rebuildFailure: string | null;
}

export function transportAddress(node: NodeInfo): NodeAddress {
  const i = node.transportAddress.lastIndexOf(':');
  return { name: node.name, host: node.transportAddress.slice(0, i), port: Number(node.transportAddress.slice(i + 1)) };
}

function localRecovery(held: { copy: ShardCopy; recovery: CopyRecovery }): CopyRecoveryStatus {
  return { ...held.recovery, appliedOffset: held.copy.appliedOffset };
}

/** Java's String.hashCode, as Elasticsearch hashes a custom `preference`. */
function stringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

export class ShardDirectory {
  private readonly remote = new Map<string, Map<string, RemoteCopyStatus>>();
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  /** Per index and shard, the next read's starting copy (one counter for all would pin a shard to one copy whenever a search's shard count is a multiple of the copies). */
  private readonly rotation = new Map<string, number>();

  constructor(private readonly opts: ShardDirectoryOptions) {}

  get self(): NodeInfo {
    return this.opts.self();
  }

  get clustered(): boolean {
    return this.opts.view !== undefined;
  }

  /** Starts polling the other nodes for their copy states (cluster only). */
  start(): void {
    if (!this.opts.view || this.timer) return;
    this.timer = setInterval(() => void this.poll(), this.opts.statusIntervalMs ?? 500);
    this.timer.unref();
    void this.poll();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Polls every other member now; resolves when all answered or failed. */
  poll(): Promise<void> {
    if (this.polling) return this.polling;
    const view = this.opts.view?.();
    const transport = this.opts.transport;
    if (!view || !transport) return Promise.resolve();
    this.polling = (async () => {
      const others = view.members.filter((m) => m.id !== this.self.id && m.data);
      await Promise.all(
        others.map(async (m) => {
          try {
            const status = await fetchNodeStatus(transport, transportAddress(m), 5000);
            const copies = new Map<string, RemoteCopyStatus>();
            for (const c of status.copies) {
              const recovery: CopyRecoveryStatus = {
                type: c.recovery_type === 'existing_store' ? 'existing_store' : 'empty_store',
                startOffset: c.start_offset,
                targetOffset: c.target_offset,
                startTime: c.start_time,
                stopTime: c.stop_time,
                appliedOffset: c.applied_offset,
              };
              copies.set(`${c.index_uuid}:${c.shard}`, { state: c.state, docCount: c.doc_count, recovery, rebuildFailure: c.rebuild_failure ?? null });
            }
            this.remote.set(m.id, copies);
          } catch {
            // An unreachable node serves nothing until the group drops it.
            this.remote.delete(m.id);
          }
        }),
      );
      for (const id of [...this.remote.keys()]) if (!others.some((m) => m.id === id)) this.remote.delete(id);
    })().finally(() => {
      this.polling = null;
    });
    return this.polling;
  }

  /** Resolves once this node opened its copies of a new index (one node; a cluster routes to whoever holds them). */
  async ready(meta: IndexMetadata): Promise<void> {
    if (!this.clustered) await this.opts.indices.copiesOf(meta);
  }

  /** Resolves true once every shard of the index has a started primary, false after `timeoutMs`. */
  async waitForPrimaries(meta: IndexMetadata, timeoutMs: number): Promise<boolean> {
    await this.ready(meta);
    const held = Array.from({ length: meta.settings.numberOfShards }, (_, s) => this.opts.indices.held(meta.uuid, s)?.started);
    // One node holding every shard waits on them; a shard allocation holds back is polled for below.
    if (!this.clustered && held.every((p) => p !== undefined)) {
      return (await orNullAfter(Promise.all(held).then(() => true), timeoutMs)) ?? false;
    }
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let all = true;
      for (let s = 0; s < meta.settings.numberOfShards && all; s++) all = this.routes(meta, s).some((r) => r.primary && r.state === 'STARTED');
      if (all) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, 100));
      await this.poll();
    }
  }

  nodes(): readonly NodeInfo[] {
    return this.opts.view?.().members ?? [this.self];
  }

  master(): NodeInfo | null {
    return this.opts.view ? this.opts.view().master : this.self;
  }

  /** The assigned copies of a shard, primary first (unassigned ones are absent). */
  routes(meta: IndexMetadata, shard: number): CopyRoute[] {
    const view = this.opts.view?.();
    if (!view) {
      const held = this.opts.indices.held(meta.uuid, shard);
      return held
        ? [{ node: this.self, primary: true, state: held.state, local: held.copy, docCount: held.copy.docCount, recovery: localRecovery(held), rebuildFailure: held.copy.rebuildFailure }]
        : [];
    }
    const assigned = view.table.indices[meta.uuid]?.[shard] ?? [];
    const out: CopyRoute[] = [];
    for (const c of assigned) {
      const node = view.members.find((m) => m.id === c.nodeId);
      if (!node) continue;
      if (node.id === this.self.id) {
        const held = this.opts.indices.held(meta.uuid, shard);
        out.push({
          node,
          primary: c.primary,
          state: held?.state ?? 'INITIALIZING',
          local: held?.copy ?? null,
          docCount: held?.copy.docCount ?? null,
          recovery: held ? localRecovery(held) : null,
          rebuildFailure: held?.copy.rebuildFailure ?? null,
        });
      } else {
        const st = this.remote.get(node.id)?.get(`${meta.uuid}:${shard}`);
        out.push({
          node,
          primary: c.primary,
          state: st?.state ?? 'INITIALIZING',
          local: null,
          docCount: st?.docCount ?? null,
          recovery: st?.recovery ?? null,
          rebuildFailure: st?.rebuildFailure ?? null,
        });
      }
    }
    return out.sort((a, b) => Number(b.primary) - Number(a.primary));
  }

  /**
   * Copies that serve reads and count for writes. On one node that is the
   * local copy even while it catches up on the log: it applies in order, so
   * waiting on it is always right, and there is no other copy to prefer.
   */
  started(meta: IndexMetadata, shard: number): CopyRoute[] {
    const routes = this.routes(meta, shard);
    return this.clustered ? routes.filter((r) => r.state === 'STARTED') : routes;
  }

  /**
   * Started copies in the order a read tries them: rotated over all copies
   * by default, or as `preference` asks (see preference.ts); a custom
   * preference string always picks the same order.
   */
  readOrder(meta: IndexMetadata, shard: number, preference: Preference | string | null): CopyRoute[] {
    const pref = typeof preference === 'object' && preference !== null ? preference : parsePreference(preference);
    const started = this.started(meta, shard);
    const c = pref.copies;
    switch (c.kind) {
      // Only this node's copies, even when the one started copy is elsewhere.
      case 'only_local':
        return started.filter((r) => r.local !== null);
      case 'local':
        return [...started.filter((r) => r.local !== null), ...started.filter((r) => r.local === null)];
      case 'primary':
        return started.filter((r) => r.primary);
      case 'primary_first':
        return started;
      case 'replica':
        return started.filter((r) => !r.primary);
      case 'replica_first':
        return [...started.filter((r) => !r.primary), ...started.filter((r) => r.primary)];
      case 'only_nodes': {
        const only = started.filter((r) => nodeMatches(r.node, c.nodes, this.self, this.master()));
        if (only.length === 0) {
          throw illegalArgument(`no data nodes with ${c.nodes.length === 1 ? 'criteria' : 'criterion'} [${c.spec}] found for shard: [${meta.name}][${shard}]`);
        }
        return only;
      }
      case 'prefer_nodes': {
        const order = this.rotated(started, this.nextRotation(`${meta.uuid}:${shard}`));
        const matches = (r: CopyRoute) => nodeMatches(r.node, c.nodes, this.self, this.master());
        return [...order.filter(matches), ...order.filter((r) => !matches(r))];
      }
      case 'custom':
        return this.rotated(started, stringHash(c.key) + shard);
      case 'rotate':
        return this.rotated(started, this.nextRotation(`${meta.uuid}:${shard}`));
    }
  }

  private rotated(started: CopyRoute[], start: number): CopyRoute[] {
    if (started.length <= 1) return started;
    const k = ((start % started.length) + started.length) % started.length;
    return [...started.slice(k), ...started.slice(0, k)];
  }

  private nextRotation(key: string): number {
    const n = this.rotation.get(key) ?? 0;
    this.rotation.set(key, (n + 1) % 1_000_000);
    return n;
  }

  /**
   * Whether no primary of the shard was ever allocated (what
   * `new_primaries` allows). On one node a shard it never opened is new: a
   * shard it held opens again from its files whatever the setting.
   */
  freshShard(meta: IndexMetadata, shard: number): boolean {
    const view = this.opts.view?.();
    if (!view) return this.opts.indices.held(meta.uuid, shard) === undefined;
    return isFreshShard(view.table, meta.uuid, shard);
  }

  /** Copies the index wants that no node holds (fewer data nodes than copies). */
  unassigned(meta: IndexMetadata, shard: number): number {
    return Math.max(0, meta.settings.numberOfReplicas + 1 - this.routes(meta, shard).length);
  }
}
