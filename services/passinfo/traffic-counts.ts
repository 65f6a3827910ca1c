/**
 * Query 4: how many passes per checkpoint, per day, per checkpoint per day,
 * or per map cell, over a time range and an optional area (checkpoints, a
 * polygon or a circle: area.ts). One aggregation request: a terms
 * aggregation on land_id and/or a date_histogram by day (days of the
 * pass-time scale, pass-time.ts), or a geohash_grid on the passes' location
 * with each cell's centroid, for drawing traffic on a map.
 */
import { invalidParameter } from './errors.ts';
import type { IndexNames } from './index-setup.ts';
import { areaClause, type AreaParams } from './area.ts';
import { intParam, parseRange, rangeClause, type TimeRange } from './query-params.ts';
import type { SearchClient } from './search-client.ts';

export type TrafficGrouping = 'checkpoint' | 'day' | 'checkpoint_day' | 'grid';

export interface TrafficParams extends TimeRange, AreaParams {
  readonly by?: TrafficGrouping;
  /** Geohash length of the grid's cells (`by: grid`), 1 to 10; default 7 (about 150 m). */
  readonly precision?: number;
}

export interface TrafficRow {
  readonly land_id?: string;
  readonly day?: string;
  /** `by: grid`: the cell, and the centroid of its passes. */
  readonly geohash?: string;
  readonly lat?: number;
  readonly lon?: number;
  readonly count: number;
}

/** Most cells a grid answer holds (geohash_grid's default size). */
const MAX_CELLS = 10_000;

/** More checkpoints than any city has; the terms aggregation returns them all. */
const MAX_CHECKPOINTS = 100_000;

interface Bucket {
  readonly key: string | number;
  readonly key_as_string?: string;
  readonly doc_count: number;
  readonly days?: { readonly buckets: readonly Bucket[] };
  readonly centroid?: { readonly location?: { readonly lat: number; readonly lon: number } };
}

const byDay = { date_histogram: { field: 'pass_time', interval: '1d', format: 'yyyy-MM-dd', min_doc_count: 1 } };
const byCheckpoint = { terms: { field: 'land_id', size: MAX_CHECKPOINTS, order: { _key: 'asc' } } };

export async function trafficCounts(client: SearchClient, names: IndexNames, params: TrafficParams): Promise<{ total: number; rows: TrafficRow[] }> {
  const by = params.by ?? 'checkpoint';
  if (by !== 'checkpoint' && by !== 'day' && by !== 'checkpoint_day' && by !== 'grid') throw invalidParameter('by', `[${String(by)}] must be checkpoint, day, checkpoint_day or grid`);
  if (params.precision !== undefined && by !== 'grid') throw invalidParameter('precision', 'applies to by=grid only');
  const precision = intParam('precision', params.precision, 7, 1, 10);
  const area = areaClause('', params, false);
  const range = rangeClause(parseRange(params));
  const filter = [...(range ? [range] : []), ...(area ? [area] : [])];
  const grid = { geohash_grid: { field: 'location', precision, size: MAX_CELLS }, aggs: { centroid: { geo_centroid: { field: 'location' } } } };
  const aggs =
    by === 'day'
      ? { groups: byDay }
      : by === 'checkpoint'
        ? { groups: byCheckpoint }
        : by === 'grid'
          ? { groups: grid }
          : { groups: { ...byCheckpoint, aggs: { days: byDay } } };
  const res = await client.search<never>(names.passes, { size: 0, query: { bool: { filter } }, aggs }, 'traffic counts');
  const buckets = (res.aggregations?.groups as { buckets: readonly Bucket[] }).buckets;
  const rows: TrafficRow[] = [];
  for (const b of buckets) {
    if (by === 'day') rows.push({ day: b.key_as_string ?? String(b.key), count: b.doc_count });
    else if (by === 'checkpoint') rows.push({ land_id: String(b.key), count: b.doc_count });
    else if (by === 'grid') rows.push({ geohash: String(b.key), lat: b.centroid?.location?.lat, lon: b.centroid?.location?.lon, count: b.doc_count });
    else for (const d of b.days?.buckets ?? []) rows.push({ land_id: String(b.key), day: d.key_as_string ?? String(d.key), count: d.doc_count });
  }
  return { total: res.hits.total, rows };
}
