/**
 * Queries 1 and 2: fuzzy plate search, alone or with exact filters and a
 * time range.
 *
 * A query is one or more fragments separated by blanks; a pass matches when
 * its plate contains every fragment:
 * - `A123`: anywhere in the plate. The plate field is indexed with every 1–8
 *   character n-gram, so a fragment of up to 8 characters is one exact `term`
 *   (a real substring match, not a bag of grams); a longer one is a wildcard
 *   on `plate.keyword`.
 * - `京A*`: a prefix (`prefix` on `plate.keyword`); `*` or `?` inside a
 *   fragment make it a wildcard pattern of the whole plate.
 * Pages are newest first (`sort: newest`, with a `next` cursor for
 * search_after beyond the 10,000-hit window) or by relevance (`relevance`:
 * an exact plate first, then plates that start with a fragment, then newest).
 */
import { invalidParameter } from './errors.ts';
import type { IndexNames } from './index-setup.ts';
import type { PassRecord } from './pass-record.ts';
import { MAX_RESULT_WINDOW, intParam, parseRange, rangeClause, type TimeRange } from './query-params.ts';
import type { SearchClient } from './search-client.ts';

/** The plate analyzer's max_gram (pass-record-generator.ts, PASSINFO_INDEX_BODY). */
const MAX_GRAM = 8;
const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 1000;

export type PlateSort = 'newest' | 'relevance';

export interface PlateSearchParams extends TimeRange {
  readonly q: string;
  readonly sort?: PlateSort;
  readonly from_hit?: number;
  readonly size?: number;
  /** Cursor from a previous page's `next` (newest-first only). */
  readonly after?: string;
}

export interface PlateFilters {
  readonly plate_category?: readonly number[];
  readonly plate_color?: readonly number[];
  readonly vehicle_color?: readonly number[];
  readonly land_id?: readonly string[];
}

export interface PassHit extends PassRecord {
  readonly _score?: number | null;
}

export interface PassPage {
  readonly total: number;
  readonly hits: readonly PassHit[];
  /** Pass as `after` to get the next page (newest first); absent on the last page. */
  readonly next?: string;
}

function fragmentClauses(q: string): { filters: object[]; boosts: object[] } {
  const fragments = q.split(/\s+/).filter((f) => f.length > 0);
  if (fragments.length === 0) throw invalidParameter('q', 'needs at least one plate fragment');
  const filters: object[] = [];
  const boosts: object[] = [];
  for (const raw of fragments) {
    const f = raw.toUpperCase();
    const star = f.indexOf('*');
    if (/^[^*?]+\*$/.test(f)) {
      filters.push({ prefix: { 'plate.keyword': f.slice(0, star) } });
    } else if (/[*?]/.test(f)) {
      filters.push({ wildcard: { 'plate.keyword': f } });
    } else if ([...f].length <= MAX_GRAM) {
      filters.push({ term: { plate: f.toLowerCase() } });
      boosts.push({ term: { 'plate.keyword': { value: f, boost: 10 } } }, { prefix: { 'plate.keyword': { value: f, boost: 2 } } });
    } else {
      filters.push({ wildcard: { 'plate.keyword': `*${f}*` } });
    }
  }
  return { filters, boosts };
}

function filterClauses(filters: PlateFilters): object[] {
  const out: object[] = [];
  for (const field of ['plate_category', 'plate_color', 'vehicle_color', 'land_id'] as const) {
    const values = filters[field];
    if (values !== undefined && values.length > 0) out.push({ terms: { [field]: [...values] } });
  }
  return out;
}

const encodeCursor = (sort: readonly (string | number)[]): string => Buffer.from(JSON.stringify(sort)).toString('base64url');

function decodeCursor(after: string): (string | number)[] {
  try {
    const v = JSON.parse(Buffer.from(after, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === 2) return v as (string | number)[];
  } catch {
    // reported below
  }
  throw invalidParameter('after', 'is not a cursor this service returned');
}

async function run(client: SearchClient, names: IndexNames, params: PlateSearchParams, extra: object[]): Promise<PassPage> {
  const sort = params.sort ?? 'newest';
  if (sort !== 'newest' && sort !== 'relevance') throw invalidParameter('sort', `[${String(sort)}] must be newest or relevance`);
  const size = intParam('size', params.size, DEFAULT_PAGE_SIZE, 0, MAX_PAGE_SIZE);
  const from = intParam('from_hit', params.from_hit, 0, 0, MAX_RESULT_WINDOW);
  if (from + size > MAX_RESULT_WINDOW) throw invalidParameter('from_hit', `from_hit + size must be at most ${MAX_RESULT_WINDOW}; use the next cursor`);
  const { filters, boosts } = fragmentClauses(params.q);
  const range = rangeClause(parseRange(params));
  const bool: Record<string, object[]> = { filter: [...filters, ...extra, ...(range ? [range] : [])] };
  if (sort === 'relevance') bool.should = boosts;
  const body: Record<string, unknown> = {
    query: { bool },
    size,
    sort: sort === 'newest' ? [{ pass_time: 'desc' }, { event_id: 'asc' }] : ['_score', { pass_time: 'desc' }, { event_id: 'asc' }],
  };
  if (params.after !== undefined) {
    if (sort !== 'newest') throw invalidParameter('after', 'cursors page newest-first searches only');
    body.search_after = decodeCursor(params.after);
  } else {
    body.from = from;
  }
  const res = await client.search<PassRecord>(names.passes, body, 'plate search');
  const hits = res.hits.hits.map((h) => (sort === 'relevance' ? { ...h._source, _score: h._score } : h._source));
  const last = res.hits.hits[res.hits.hits.length - 1];
  const next = sort === 'newest' && last?.sort !== undefined && res.hits.hits.length === size ? encodeCursor(last.sort) : undefined;
  return { total: res.hits.total, hits, ...(next !== undefined ? { next } : {}) };
}

/** Query 1: passes whose plate contains every fragment of `q`. */
export function fuzzyPlateSearch(client: SearchClient, names: IndexNames, params: PlateSearchParams): Promise<PassPage> {
  return run(client, names, params, []);
}

/** Query 2: query 1 restricted by exact codes, checkpoints and a time range. */
export function filteredPlateSearch(client: SearchClient, names: IndexNames, params: PlateSearchParams & PlateFilters): Promise<PassPage> {
  return run(client, names, params, filterClauses(params));
}
