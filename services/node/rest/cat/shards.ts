/**
 * `GET /_cat/shards[/{index}]` (RestShardsAction): one row per copy of
 * every shard, assigned or not. A shard none of whose copies is assigned
 * lists its primary as `p`, the rest as `r`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext } from '../node-context.ts';
import type { IndexMetadata } from '../../cluster/index-metadata.ts';
import type { NodeInfo } from '../../cluster/membership-protocol.ts';
import { CommonStats } from '../../stats/common-stats.ts';
import type { CopyStatsView } from '../../stats/copy-view.ts';
import { params } from '../params.ts';
import { Bytes, Millis, col, sendCat, type Column } from './table.ts';
import { SHARD_STAT_COLUMNS, statColumns } from './stats-columns.ts';
import { catIndices, hostOf } from './sources.ts';

interface Row {
  readonly meta: IndexMetadata;
  readonly shard: number;
  readonly primary: boolean;
  readonly state: string;
  readonly node: NodeInfo | null;
  readonly view: CopyStatsView | null;
  readonly stats: CommonStats | null;
  readonly now: number;
}

const unassigned = (r: Row) => r.node === null;

const COLUMNS: Column<Row>[] = [
  col('index', 'default:true;alias:i,idx;desc:index name', (r) => r.meta.name),
  col('shard', 'default:true;alias:s,sh;desc:shard name', (r) => r.shard),
  col('prirep', 'alias:p,pr,primaryOrReplica;default:true;desc:primary or replica', (r) => (r.primary ? 'p' : 'r')),
  col('state', 'default:true;alias:st;desc:shard state', (r) => r.state),
  col('docs', 'alias:d,dc;text-align:right;desc:number of docs in shard', (r) => r.stats?.docCount ?? null),
  col('store', 'alias:sto;text-align:right;desc:store size of shard (how much disk it uses)', (r) => (r.stats ? new Bytes(r.stats.storeBytes) : null)),
  col('ip', 'default:true;desc:ip of node where it lives', (r) => (r.node ? hostOf(r.node.transportAddress) : null)),
  col('id', 'default:false;desc:unique id of node where it lives', (r) => r.node?.id ?? null),
  col('node', 'default:true;alias:n;desc:name of node where it lives', (r) => r.node?.name ?? null),
  col('sync_id', 'alias:sync_id;default:false;desc:sync id', () => null),
  col('unassigned.reason', 'alias:ur;default:false;desc:reason shard is unassigned', (r) => (unassigned(r) ? (r.primary ? 'INDEX_CREATED' : 'REPLICA_ADDED') : null)),
  col('unassigned.at', 'alias:ua;default:false;desc:time shard became unassigned (UTC)', (r) => (unassigned(r) ? new Date(r.meta.creationDate).toISOString() : null)),
  col('unassigned.for', 'alias:uf;default:false;text-align:right;desc:time has been unassigned', (r) =>
    unassigned(r) ? new Millis(Math.max(0, r.now - r.meta.creationDate)) : null,
  ),
  col('unassigned.details', 'alias:ud;default:false;desc:additional details as to why the shard became unassigned', () => null),
  col('recoverysource.type', 'alias:rs;default:false;desc:recovery source type', (r) =>
    r.state === 'INITIALIZING' ? (r.view !== null && r.view.stats.committedOffset > 0 ? 'existing_store' : 'empty_store') : null,
  ),
  ...statColumns<Row>(SHARD_STAT_COLUMNS, (r) => r.stats),
  col('seq_no.max', 'alias:sqm,maxSeqNo;default:false;text-align:right;desc:max sequence number', (r) => (r.view ? r.view.appliedOffset - 1 : null)),
  col('seq_no.local_checkpoint', 'alias:sql,localCheckpoint;default:false;text-align:right;desc:local checkpoint', (r) => (r.view ? r.view.appliedOffset - 1 : null)),
  col('seq_no.global_checkpoint', 'alias:sqg,globalCheckpoint;default:false;text-align:right;desc:global checkpoint', (r) => (r.view ? r.view.appliedOffset - 1 : null)),
];

export function catShards(node: NodeContext) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const metas = catIndices(node, params(req).index);
    const gathered = await node.nodeAdmin.copyStats(metas.filter((m) => !m.closed));
    const views = new Map<string, CopyStatsView>();
    for (const v of gathered.results.flat()) views.set(`${v.uuid}:${v.shard}:${v.nodeId}`, v);
    const now = Date.now();
    const rows: Row[] = [];
    for (const meta of metas) {
      if (meta.closed) continue;
      for (let shard = 0; shard < meta.settings.numberOfShards; shard++) {
        const routes = node.directory.routes(meta, shard);
        for (const r of routes) {
          const view = views.get(`${meta.uuid}:${shard}:${r.node.id}`) ?? null;
          rows.push({ meta, shard, primary: r.primary, state: r.state, node: r.node, view, stats: view ? new CommonStats().add(view) : null, now });
        }
        let primaryMissing = !routes.some((r) => r.primary);
        for (let u = node.directory.unassigned(meta, shard); u > 0; u--) {
          rows.push({ meta, shard, primary: primaryMissing, state: 'UNASSIGNED', node: null, view: null, stats: null, now });
          primaryMissing = false;
        }
      }
    }
    return sendCat(req, reply, COLUMNS, rows);
  };
}
