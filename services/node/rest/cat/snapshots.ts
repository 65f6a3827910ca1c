/**
 * `GET /_cat/snapshots/{repository}` (RestSnapshotAction). Snapshots are not
 * supported, so no repository exists: Elasticsearch's answer for a missing
 * repository, 404 `repository_missing_exception`; `help` prints the columns.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EsError } from '../../../../shared/errors/es-errors.ts';
import { boolParam, params, query } from '../params.ts';
import { col, sendCat } from './table.ts';

const COLUMNS = [
  col<never>('id', 'alias:id,snapshot;desc:unique snapshot', () => null),
  col<never>('status', 'alias:s,status;text-align:right;desc:snapshot name', () => null),
  col<never>('start_epoch', 'alias:ste,startEpoch;desc:start time in seconds since 1970-01-01 00:00:00', () => null),
  col<never>('start_time', 'alias:sti,startTime;desc:start time in HH:MM:SS', () => null),
  col<never>('end_epoch', 'alias:ete,endEpoch;desc:end time in seconds since 1970-01-01 00:00:00', () => null),
  col<never>('end_time', 'alias:eti,endTime;desc:end time in HH:MM:SS', () => null),
  col<never>('duration', 'alias:dur,duration;text-align:right;desc:duration', () => null),
  col<never>('indices', 'alias:i,indices;text-align:right;desc:number of indices', () => null),
  col<never>('successful_shards', 'alias:ss,successful_shards;text-align:right;desc:number of successful shards', () => null),
  col<never>('failed_shards', 'alias:fs,failed_shards;text-align:right;desc:number of failed shards', () => null),
  col<never>('total_shards', 'alias:ts,total_shards;text-align:right;desc:number of total shards', () => null),
  col<never>('reason', 'default:false;alias:r,reason;desc:reason for failures', () => null),
];

export function catSnapshots() {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (boolParam(query(req), 'help', false)) return sendCat(req, reply, COLUMNS, []);
    const repo = params(req).repository;
    throw new EsError('repository_missing_exception', `[${repo}] missing`, 404);
  };
}
