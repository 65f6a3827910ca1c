/**
 * `GET /_cat/recovery[/{index}]` (RestRecoveryAction): how each copy was
 * built when it opened. A copy replays its partition from its checkpoint
 * (`existing_store`, after a restart) or from offset 0 (`empty_store`, a
 * new copy): Elasticsearch's translog columns count those records; no
 * files are copied. `start_offset`, `target_offset` and `applied_offset`
 * (only with `h=`) show the offsets. `active_only` keeps copies still
 * catching up.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext } from '../node-context.ts';
import type { CopyRecoveryStatus, CopyRoute } from '../../copies/shard-directory.ts';
import { boolParam, params, query } from '../params.ts';
import { Bytes, Millis, col, sendCat, type Column } from './table.ts';
import { catIndices, hostOf } from './sources.ts';

interface Row {
  readonly index: string;
  readonly shard: number;
  readonly route: CopyRoute;
  readonly recovery: CopyRecoveryStatus;
  readonly now: number;
}

const ops = (r: Row) => r.recovery.targetOffset - r.recovery.startOffset;
const replayed = (r: Row) => Math.max(0, Math.min(r.recovery.appliedOffset, r.recovery.targetOffset) - r.recovery.startOffset);
const percent = (done: number, total: number) => `${(total === 0 ? 100 : (100 * done) / total).toFixed(1)}%`;

const COLUMNS: Column<Row>[] = [
  col('index', 'alias:i,idx;desc:index name', (r) => r.index),
  col('shard', 'alias:s,sh;desc:shard name', (r) => r.shard),
  col('time', 'alias:t,ti;text-align:right;desc:recovery time', (r) => new Millis((r.recovery.stopTime ?? r.now) - r.recovery.startTime)),
  col('type', 'alias:ty;desc:recovery type', (r) => r.recovery.type),
  // Replaying the partition is the translog stage of an Elasticsearch recovery.
  col('stage', 'alias:st;desc:recovery stage', (r) => (r.recovery.stopTime === null ? 'translog' : 'done')),
  col('source_host', 'alias:shost;desc:source host', () => 'n/a'),
  col('source_node', 'alias:snode;desc:source node name', () => 'n/a'),
  col('target_host', 'alias:thost;desc:target host', (r) => hostOf(r.route.node.transportAddress)),
  col('target_node', 'alias:tnode;desc:target node name', (r) => r.route.node.name),
  col('repository', 'alias:rep;desc:repository', () => 'n/a'),
  col('snapshot', 'alias:snap;desc:snapshot', () => 'n/a'),
  col('files', 'alias:f;desc:number of files to recover', () => 0),
  col('files_recovered', 'alias:fr;desc:files recovered', () => 0),
  col('files_percent', 'alias:fp;desc:percent of files recovered', () => '100.0%'),
  col('files_total', 'alias:tf;desc:total number of files', () => 0),
  col('bytes', 'alias:b;desc:number of bytes to recover', () => new Bytes(0)),
  col('bytes_recovered', 'alias:br;desc:bytes recovered', () => new Bytes(0)),
  col('bytes_percent', 'alias:bp;desc:percent of bytes recovered', () => '100.0%'),
  col('bytes_total', 'alias:tb;desc:total number of bytes', () => new Bytes(0)),
  col('translog_ops', 'alias:to;desc:number of translog ops to recover', (r) => ops(r)),
  col('translog_ops_recovered', 'alias:tor;desc:translog ops recovered', (r) => replayed(r)),
  col('translog_ops_percent', 'alias:top;desc:percent of translog ops recovered', (r) => percent(replayed(r), ops(r))),
  col('start_offset', 'default:false;desc:log offset the copy resumed from', (r) => r.recovery.startOffset),
  col('target_offset', 'default:false;desc:end of the partition when the copy opened', (r) => r.recovery.targetOffset),
  col('applied_offset', 'default:false;desc:log offset applied so far', (r) => r.recovery.appliedOffset),
  col('start_time_millis', 'default:false;desc:recovery start time in epoch milliseconds', (r) => r.recovery.startTime),
  col('stop_time_millis', 'default:false;desc:recovery stop time in epoch milliseconds', (r) => r.recovery.stopTime),
];

export function catRecovery(node: NodeContext) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const activeOnly = boolParam(query(req), 'active_only', false);
    const now = Date.now();
    const rows: Row[] = [];
    for (const m of catIndices(node, params(req).index)) {
      if (m.closed) continue;
      for (let shard = 0; shard < m.settings.numberOfShards; shard++) {
        for (const route of node.directory.routes(m, shard)) {
          const recovery = route.recovery;
          if (recovery === null || (activeOnly && recovery.stopTime !== null)) continue;
          rows.push({ index: m.name, shard, route, recovery, now });
        }
      }
    }
    return sendCat(req, reply, COLUMNS, rows);
  };
}
