/**
 * What the REST layer uses of the node it serves. The composition root
 * (node.ts) assembles the node and hands it to routeTable(), which passes it
 * to every handler; routes take this interface, never node.ts, so the node
 * imports the routes and not the other way round.
 */
import type { CommitLog } from '../../../shared/log/commit-log.ts';
import type { ClusterState } from '../cluster/cluster-state.ts';
import type { EffectiveSettings } from '../cluster/cluster-settings.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import type { MetaService } from '../cluster/meta-service.ts';
import type { NodeInfo } from '../cluster/membership-protocol.ts';
import type { ShardDirectory } from '../copies/shard-directory.ts';
import type { DocReader } from '../coordinator/doc-reader.ts';
import type { IndexAdmin } from '../coordinator/index-admin.ts';
import type { Rebuilds } from '../coordinator/rebuild.ts';
import type { SearchCoordinator } from '../coordinator/search-coordinator.ts';
import type { WriteCoordinator } from '../coordinator/write-coordinator.ts';
import type { IndicesService } from '../indexer/indices-service.ts';
import type { Logger } from '../logger.ts';
import type { NodeSecurity } from '../security/request-security.ts';
import type { NodeAdmin } from '../stats/node-admin.ts';
import type { NodeStatsRequest } from '../stats/node-stats.ts';
import type { TaskRegistry } from '../tasks/task-registry.ts';

/** The node's settings that responses report or requests obey (a part of config.ts's NodeConfig). */
export interface NodeContextConfig {
  readonly clusterName: string;
  readonly nodeName: string;
  readonly pathData: string;
  readonly pathLogs: string;
  readonly networkHost: string;
  readonly maxContentLength: number;
  readonly processors: number;
  /** Where the console's traces link to in Jaeger; empty = no link. */
  readonly jaegerUiUrl: string;
}

export interface NodeContext {
  readonly config: NodeContextConfig;
  readonly logger: Logger;
  readonly nodeId: string;
  readonly clusterUuid: string;
  /** This node as `_nodes` and the membership group describe it. */
  readonly info: NodeInfo;
  readonly httpPort: number;
  /** The cluster state this node has applied. */
  readonly cluster: ClusterState;
  /** Submits metadata changes to the meta log and waits for them to apply. */
  readonly meta: MetaService;
  /** Dynamic cluster settings in force on this node. */
  readonly settings: EffectiveSettings;
  readonly log: CommitLog;
  readonly indices: IndicesService;
  readonly directory: ShardDirectory;
  readonly admin: IndexAdmin;
  readonly writes: WriteCoordinator;
  readonly reader: DocReader;
  readonly search: SearchCoordinator;
  readonly rebuilds: Rebuilds;
  readonly tasks: TaskRegistry;
  readonly nodeAdmin: NodeAdmin;
  /** Authentication and authorization of requests; null with `xpack.security.enabled: false`. */
  readonly security: NodeSecurity | null;
  /** This node's entry of `_nodes/stats`. */
  localNodeStats(req: NodeStatsRequest): Promise<Record<string, unknown>>;
  /** Refreshes every started copy of the indices; `_shards` as Elasticsearch counts them. */
  refresh(metas: readonly IndexMetadata[]): Promise<{ total: number; successful: number }>;
  /** Refreshes and commits every started copy of the indices (`_flush`). */
  flush(metas: readonly IndexMetadata[]): Promise<{ total: number; successful: number }>;
  /** Refreshes every shard copy of the indices an expression names (`refresh` on reads). */
  refreshFor(expr: string): Promise<void>;
}
