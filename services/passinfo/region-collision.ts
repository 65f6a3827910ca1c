/**
 * Query 6: region collision. A region is a set of checkpoints, a polygon or
 * a circle around a place (area.ts), and a time window; the answer is the plates seen in every region, with their number
 * of passes in each.
 *
 * Each region's passes per plate come from a terms aggregation on
 * `plate.keyword` (plate-counts.ts), or, when a region holds more plates than
 * one aggregation returns, from a scroll in `_doc` order (only the plate of
 * each pass); each further region counts only plates still in the running,
 * after which plates it did not see are dropped. Memory is one number per
 * distinct plate of a region, never a list of passes, so regions of millions
 * of passes work.
 */
import { invalidParameter } from './errors.ts';
import type { IndexNames } from './index-setup.ts';
import { areaClause, type AreaParams } from './area.ts';
import { intParam, parseRange, rangeClause, requireRange, type TimeRange } from './query-params.ts';
import type { SearchClient } from './search-client.ts';
import { platePassCounts } from './plate-counts.ts';

/** A time window and one of land_id, polygon or circle. */
export interface Region extends TimeRange, AreaParams {}

export interface CollisionParams {
  readonly regions: readonly Region[];
  /** Plates returned, most passes first; `total` counts them all. Default 1000. */
  readonly size?: number;
  readonly batch_size?: number;
}

export interface CollisionPlate {
  readonly plate: string;
  /** Passes in each region, in the order the regions were given. */
  readonly counts: readonly number[];
}

export interface CollisionResult {
  readonly total: number;
  readonly plates: readonly CollisionPlate[];
  /** Passes read per region. */
  readonly scanned: readonly number[];
}

const MAX_REGIONS = 10;

function regionQuery(region: Region, index: number): object {
  if (typeof region !== 'object' || region === null || Array.isArray(region)) throw invalidParameter(`regions[${index}]`, 'must be an object {land_id | polygon | circle, from, to}');
  const area = areaClause(`regions[${index}]`, region, true);
  const range = requireRange(parseRange(region, [`regions[${index}].from`, `regions[${index}].to`]), `region ${index + 1}`);
  return { bool: { filter: [area, rangeClause({ fromMs: range.fromMs, toMs: range.toMs })] } };
}

export async function regionCollision(client: SearchClient, names: IndexNames, params: CollisionParams): Promise<CollisionResult> {
  const regions = params.regions ?? [];
  if (regions.length < 2 || regions.length > MAX_REGIONS) throw invalidParameter('regions', `needs 2 to ${MAX_REGIONS} regions, got ${regions.length}`);
  const size = intParam('size', params.size, 1000, 0, 1_000_000);
  const batchSize = intParam('batch_size', params.batch_size, 5000, 100, 10_000);
  const queries = regions.map(regionQuery);
  // counts[k]: passes in region k of each plate still in the running.
  const counts: Map<string, number>[] = [];
  const scanned: number[] = [];
  for (let k = 0; k < queries.length; k++) {
    const previous = counts[k - 1];
    const region = await platePassCounts(client, names.passes, queries[k], { batchSize });
    let seen = region.counts;
    if (previous !== undefined) {
      seen = new Map();
      for (const [plate, n] of region.counts) if (previous.has(plate)) seen.set(plate, n);
    }
    scanned.push(region.passes);
    counts.push(seen);
    if (seen.size === 0) break;
  }
  const last = counts[counts.length - 1]!;
  const plates: CollisionPlate[] = [];
  if (counts.length === queries.length) {
    for (const plate of last.keys()) plates.push({ plate, counts: counts.map((m) => m.get(plate) ?? 0) });
  }
  const sum = (p: CollisionPlate): number => p.counts.reduce((a, b) => a + b, 0);
  plates.sort((a, b) => sum(b) - sum(a) || (a.plate < b.plate ? -1 : a.plate > b.plate ? 1 : 0));
  while (scanned.length < queries.length) scanned.push(0);
  return { total: plates.length, plates: plates.slice(0, size), scanned };
}
