/**
 * Query 5: where one plate was seen: passes per checkpoint (most first), with
 * the first and last pass at each. One terms aggregation with min/max.
 */
import type { IndexNames } from './index-setup.ts';
import { formatPassTime } from './pass-time.ts';
import { normalisePlate, parseRange, rangeClause, type TimeRange } from './query-params.ts';
import type { SearchClient } from './search-client.ts';

export interface LandingPoint {
  readonly land_id: string;
  readonly count: number;
  readonly first_pass: string;
  readonly last_pass: string;
}

const MAX_CHECKPOINTS = 100_000;

interface Bucket {
  readonly key: string;
  readonly doc_count: number;
  readonly first: { readonly value: number };
  readonly last: { readonly value: number };
}

export async function landingPoints(
  client: SearchClient,
  names: IndexNames,
  params: TimeRange & { readonly plate: string },
): Promise<{ plate: string; total: number; points: LandingPoint[] }> {
  const plate = normalisePlate(params.plate);
  const range = rangeClause(parseRange(params));
  const res = await client.search<never>(
    names.passes,
    {
      size: 0,
      query: { bool: { filter: [{ term: { 'plate.keyword': plate } }, ...(range ? [range] : [])] } },
      aggs: {
        lands: {
          terms: { field: 'land_id', size: MAX_CHECKPOINTS, order: [{ _count: 'desc' }, { _key: 'asc' }] },
          aggs: { first: { min: { field: 'pass_time' } }, last: { max: { field: 'pass_time' } } },
        },
      },
    },
    `landing points of [${plate}]`,
  );
  const buckets = (res.aggregations?.lands as { buckets: readonly Bucket[] }).buckets;
  return {
    plate,
    total: res.hits.total,
    points: buckets.map((b) => ({
      land_id: b.key,
      count: b.doc_count,
      first_pass: formatPassTime(b.first.value),
      last_pass: formatPassTime(b.last.value),
    })),
  };
}
