/**
 * Cluster health from shard copy states (DESIGN.md 2): green when every copy
 * is started, yellow when every primary is started but some copy is not
 * (initializing, or unassigned for want of data nodes), red when some
 * shard's primary is not started. On one node the replicas of an index with
 * number_of_replicas > 0 stay unassigned: yellow, as in Elasticsearch.
 */
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import type { ShardDirectory } from './shard-directory.ts';
import { getOwn } from '../../../shared/json/own-keys.ts';

export type HealthStatus = 'green' | 'yellow' | 'red';

const RANK: Record<string, number> = { red: 0, yellow: 1, green: 2 };

export function healthRank(s: string): number {
  return getOwn(RANK, s) ?? -1;
}

interface HealthSource {
  readonly config: { readonly clusterName: string };
  readonly directory: ShardDirectory;
}

interface ShardHealth {
  status: HealthStatus;
  primary_active: boolean;
  active_shards: number;
  relocating_shards: number;
  initializing_shards: number;
  unassigned_shards: number;
}

function worst(a: HealthStatus, b: HealthStatus): HealthStatus {
  return healthRank(a) <= healthRank(b) ? a : b;
}

export function clusterHealth(
  src: HealthSource,
  metas: readonly IndexMetadata[],
  level: string,
): { body: Record<string, unknown>; totalCopies: number } {
  let status: HealthStatus = 'green';
  let activePrimaries = 0;
  let active = 0;
  let unassigned = 0;
  let initializing = 0;
  let totalCopies = 0;
  const indices: Record<string, unknown> = {};
  for (const m of metas) {
    // Closed indices have no active shards and are left out, as in Elasticsearch 6.x.
    if (m.closed) continue;
    let iStatus: HealthStatus = 'green';
    let iActive = 0;
    let iPrimaries = 0;
    let iUnassigned = 0;
    let iInit = 0;
    const shards: Record<string, ShardHealth> = {};
    for (let s = 0; s < m.settings.numberOfShards; s++) {
      const routes = src.directory.routes(m, s);
      const started = routes.filter((r) => r.state === 'STARTED').length;
      const primaryActive = routes.some((r) => r.primary && r.state === 'STARTED');
      const init = routes.length - started;
      const missing = src.directory.unassigned(m, s);
      const sStatus: HealthStatus = !primaryActive ? 'red' : init > 0 || missing > 0 ? 'yellow' : 'green';
      iActive += started;
      if (primaryActive) iPrimaries++;
      iInit += init;
      iUnassigned += missing;
      iStatus = worst(iStatus, sStatus);
      shards[String(s)] = {
        status: sStatus,
        primary_active: primaryActive,
        active_shards: started,
        relocating_shards: 0,
        initializing_shards: init,
        unassigned_shards: missing,
      };
    }
    totalCopies += m.settings.numberOfShards * (m.settings.numberOfReplicas + 1);
    status = worst(status, iStatus);
    activePrimaries += iPrimaries;
    active += iActive;
    unassigned += iUnassigned;
    initializing += iInit;
    if (level !== 'cluster') {
      const entry: Record<string, unknown> = {
        status: iStatus,
        number_of_shards: m.settings.numberOfShards,
        number_of_replicas: m.settings.numberOfReplicas,
        active_primary_shards: iPrimaries,
        active_shards: iActive,
        relocating_shards: 0,
        initializing_shards: iInit,
        unassigned_shards: iUnassigned,
      };
      if (level === 'shards') entry.shards = shards;
      indices[m.name] = entry;
    }
  }
  const body: Record<string, unknown> = {
    cluster_name: src.config.clusterName,
    status,
    timed_out: false,
    number_of_nodes: src.directory.nodes().length,
    number_of_data_nodes: src.directory.nodes().filter((n) => n.data).length,
    active_primary_shards: activePrimaries,
    active_shards: active,
    relocating_shards: 0,
    initializing_shards: initializing,
    unassigned_shards: unassigned,
    delayed_unassigned_shards: 0,
    number_of_pending_tasks: 0,
    number_of_in_flight_fetch: 0,
    task_max_waiting_in_queue_millis: 0,
    active_shards_percent_as_number: totalCopies === 0 ? 100 : (active / totalCopies) * 100,
  };
  if (level !== 'cluster') body.indices = indices;
  return { body, totalCopies };
}
