/**
 * `GET /_cat/indices[/{index}]` (RestIndicesAction): one row per index,
 * closed ones included (status `close`, no health, shard counts or
 * figures, as Elasticsearch before 7.2 prints them); `health=` keeps the
 * open indices of that health.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { illegalArgument } from '../../../../shared/errors/es-errors.ts';
import type { NodeContext } from '../node-context.ts';
import type { IndexMetadata } from '../../cluster/index-metadata.ts';
import { clusterHealth, healthRank } from '../../copies/health.ts';
import { CommonStats } from '../../stats/common-stats.ts';
import { params, query } from '../params.ts';
import { Bytes, col, sendCat, type Column } from './table.ts';
import { INDEX_STAT_COLUMNS, pairedStatColumns } from './stats-columns.ts';
import { catIndices } from './sources.ts';

interface Row {
  readonly meta: IndexMetadata;
  /** null for a closed index. */
  readonly health: string | null;
  readonly total: CommonStats | null;
  readonly primaries: CommonStats | null;
}

const open = (r: Row) => !r.meta.closed;

const COLUMNS: Column<Row>[] = [
  col('health', 'alias:h;desc:current health status', (r) => r.health),
  col('status', 'alias:s;desc:open/close status', (r) => (r.meta.closed ? 'close' : 'open')),
  col('index', 'alias:i,idx;desc:index name', (r) => r.meta.name),
  col('uuid', 'alias:id,uuid;desc:index uuid', (r) => r.meta.uuid),
  col('pri', 'alias:p,shards.primary,shardsPrimary;text-align:right;desc:number of primary shards', (r) => (open(r) ? r.meta.settings.numberOfShards : null)),
  col('rep', 'alias:r,shards.replica,shardsReplica;text-align:right;desc:number of replica shards', (r) => (open(r) ? r.meta.settings.numberOfReplicas : null)),
  col('docs.count', 'alias:dc,docsCount;text-align:right;desc:available docs', (r) => r.primaries?.docCount ?? null),
  col('docs.deleted', 'alias:dd,docsDeleted;text-align:right;desc:deleted docs', (r) => r.primaries?.deletedCount ?? null),
  col('creation.date', 'alias:cd;default:false;desc:index creation date (millisecond value)', (r) => r.meta.creationDate),
  col('creation.date.string', 'alias:cds;default:false;desc:index creation date (as string)', (r) => new Date(r.meta.creationDate).toISOString()),
  col('store.size', 'sibling:pri;alias:ss,storeSize;text-align:right;desc:store size of primaries & replicas', (r) => (r.total ? new Bytes(r.total.storeBytes) : null)),
  col('pri.store.size', 'text-align:right;desc:store size of primaries', (r) => (r.primaries ? new Bytes(r.primaries.storeBytes) : null)),
  ...pairedStatColumns<Row>(INDEX_STAT_COLUMNS, (r) => r.total, (r) => r.primaries),
];

export function catIndicesHandler(node: NodeContext) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const wanted = query(req).health;
    if (wanted !== undefined && healthRank(wanted) < 0) throw illegalArgument(`unknown cluster health status [${wanted}]`);
    const metas = catIndices(node, params(req).index);
    const gathered = await node.nodeAdmin.copyStats(metas.filter((m) => !m.closed));
    const total = new Map<string, CommonStats>();
    const primaries = new Map<string, CommonStats>();
    for (const v of gathered.results.flat()) {
      if (!total.has(v.uuid)) {
        total.set(v.uuid, new CommonStats());
        primaries.set(v.uuid, new CommonStats());
      }
      total.get(v.uuid)!.add(v);
      if (v.primary) primaries.get(v.uuid)!.add(v);
    }
    const rows: Row[] = [];
    for (const meta of metas) {
      const health = meta.closed ? null : String(clusterHealth(node, [meta], 'cluster').body.status);
      if (wanted !== undefined && health !== wanted) continue;
      // An open index whose copies reported nothing yet has all-zero figures, as a new Elasticsearch index does.
      const empty = meta.closed ? null : new CommonStats();
      rows.push({ meta, health, total: total.get(meta.uuid) ?? empty, primaries: primaries.get(meta.uuid) ?? empty });
    }
    return sendCat(req, reply, COLUMNS, rows);
  };
}
