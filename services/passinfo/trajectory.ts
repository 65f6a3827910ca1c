/**
 * Query 3: every pass of one plate in a time range, in time order, however
 * many there are. Pages of search_after on (pass_time, event_id): no scroll
 * context to keep open, and no page limit.
 */
import type { IndexNames } from './index-setup.ts';
import { parsePassTime } from './pass-time.ts';
import { normalisePlate, parseRange, rangeClause, type TimeRange } from './query-params.ts';
import type { SearchClient } from './search-client.ts';

const PAGE = 5000;

export interface TrajectoryPoint {
  readonly event_id: string;
  readonly land_id: string;
  readonly pass_time: string;
  readonly speed: number;
}

/** A pass reduced to what similarity and companions need. */
export interface Visit {
  readonly land: string;
  readonly t: number;
}

export interface TrajectoryParams extends TimeRange {
  readonly plate: string;
}

/** Yields the plate's passes in time order, one page at a time. */
export async function* trajectoryPages(client: SearchClient, names: IndexNames, params: TrajectoryParams): AsyncGenerator<readonly TrajectoryPoint[]> {
  const plate = normalisePlate(params.plate);
  const range = rangeClause(parseRange(params));
  let after: readonly (string | number)[] | undefined;
  for (;;) {
    const body: Record<string, unknown> = {
      query: { bool: { filter: [{ term: { 'plate.keyword': plate } }, ...(range ? [range] : [])] } },
      _source: ['event_id', 'land_id', 'pass_time', 'speed'],
      sort: [{ pass_time: 'asc' }, { event_id: 'asc' }],
      size: PAGE,
    };
    if (after !== undefined) body.search_after = after;
    const res = await client.search<TrajectoryPoint>(names.passes, body, `trajectory of [${plate}]`);
    const hits = res.hits.hits;
    if (hits.length > 0) yield hits.map((h) => h._source);
    if (hits.length < PAGE) return;
    after = hits[hits.length - 1]!.sort;
  }
}

export async function trajectory(client: SearchClient, names: IndexNames, params: TrajectoryParams): Promise<{ plate: string; total: number; passes: TrajectoryPoint[] }> {
  const passes: TrajectoryPoint[] = [];
  for await (const page of trajectoryPages(client, names, params)) passes.push(...page);
  return { plate: normalisePlate(params.plate), total: passes.length, passes };
}

/** The plate's visits (checkpoint, epoch ms) in time order. */
export async function visitsOf(client: SearchClient, names: IndexNames, params: TrajectoryParams): Promise<Visit[]> {
  const visits: Visit[] = [];
  for await (const page of trajectoryPages(client, names, params)) {
    for (const p of page) visits.push({ land: p.land_id, t: parsePassTime(p.pass_time) ?? 0 });
  }
  return visits;
}
