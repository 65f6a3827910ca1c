/**
 * Query 4: how many passes per checkpoint, per day, or per checkpoint per
 * day, over a time range. One aggregation request: a terms aggregation on
 * land_id and/or a date_histogram by day (days of the pass-time scale,
 * pass-time.ts).
 */
import { invalidParameter } from './errors.ts';
import type { IndexNames } from './index-setup.ts';
import { checkpointsParam, parseRange, rangeClause, type TimeRange } from './query-params.ts';
import type { SearchClient } from './search-client.ts';

export type TrafficGrouping = 'checkpoint' | 'day' | 'checkpoint_day';

export interface TrafficParams extends TimeRange {
  readonly by?: TrafficGrouping;
  readonly land_id?: readonly string[];
}

export interface TrafficRow {
  readonly land_id?: string;
  readonly day?: string;
  readonly count: number;
}

/** More checkpoints than any city has; the terms aggregation returns them all. */
const MAX_CHECKPOINTS = 100_000;

interface Bucket {
  readonly key: string | number;
  readonly key_as_string?: string;
  readonly doc_count: number;
  readonly days?: { readonly buckets: readonly Bucket[] };
}

const byDay = { date_histogram: { field: 'pass_time', interval: '1d', format: 'yyyy-MM-dd', min_doc_count: 1 } };
const byCheckpoint = { terms: { field: 'land_id', size: MAX_CHECKPOINTS, order: { _key: 'asc' } } };

export async function trafficCounts(client: SearchClient, names: IndexNames, params: TrafficParams): Promise<{ total: number; rows: TrafficRow[] }> {
  const by = params.by ?? 'checkpoint';
  if (by !== 'checkpoint' && by !== 'day' && by !== 'checkpoint_day') throw invalidParameter('by', `[${String(by)}] must be checkpoint, day or checkpoint_day`);
  const lands = checkpointsParam('land_id', params.land_id, false);
  const range = rangeClause(parseRange(params));
  const filter = [...(range ? [range] : []), ...(lands.length > 0 ? [{ terms: { land_id: lands } }] : [])];
  const aggs =
    by === 'day' ? { groups: byDay } : by === 'checkpoint' ? { groups: byCheckpoint } : { groups: { ...byCheckpoint, aggs: { days: byDay } } };
  const res = await client.search<never>(names.passes, { size: 0, query: { bool: { filter } }, aggs }, 'traffic counts');
  const buckets = (res.aggregations?.groups as { buckets: readonly Bucket[] }).buckets;
  const rows: TrafficRow[] = [];
  for (const b of buckets) {
    if (by === 'day') rows.push({ day: b.key_as_string ?? String(b.key), count: b.doc_count });
    else if (by === 'checkpoint') rows.push({ land_id: String(b.key), count: b.doc_count });
    else for (const d of b.days?.buckets ?? []) rows.push({ land_id: String(b.key), day: d.key_as_string ?? String(d.key), count: d.doc_count });
  }
  return { total: res.hits.total, rows };
}
