/**
 * Query 7's read half: the first entries recorded at ingest (first-entry.ts)
 * at designated checkpoints over a time range, oldest first. Asking for a
 * checkpoint that is not designated is an error, not an empty answer: no
 * first entry was ever recorded there.
 */
import { noEntryDesignation, notAnEntryCheckpoint } from './errors.ts';
import { loadDesignation } from './entry-designation.ts';
import type { FirstEntryDoc } from './first-entry.ts';
import type { IndexNames } from './index-setup.ts';
import { MAX_RESULT_WINDOW, checkpointsParam, intParam, parseRange, rangeClause, type TimeRange } from './query-params.ts';
import type { SearchClient } from './search-client.ts';
import { invalidParameter } from './errors.ts';

export interface FirstEntryParams extends TimeRange {
  /** Designated checkpoints to list; all designated ones when absent. */
  readonly land_id?: readonly string[];
  readonly from_hit?: number;
  readonly size?: number;
}

export async function firstEntries(
  client: SearchClient,
  names: IndexNames,
  params: FirstEntryParams,
): Promise<{ total: number; look_back_days: number; entry_checkpoints: readonly string[]; entries: FirstEntryDoc[] }> {
  const designation = await loadDesignation(client, names);
  if (designation === null) throw noEntryDesignation();
  const asked = checkpointsParam('land_id', params.land_id, false);
  for (const land of asked) if (!designation.entry_checkpoints.includes(land)) throw notAnEntryCheckpoint(land, designation.entry_checkpoints);
  const size = intParam('size', params.size, 100, 0, MAX_RESULT_WINDOW);
  const from = intParam('from_hit', params.from_hit, 0, 0, MAX_RESULT_WINDOW);
  if (from + size > MAX_RESULT_WINDOW) throw invalidParameter('from_hit', `from_hit + size must be at most ${MAX_RESULT_WINDOW}`);
  const range = rangeClause(parseRange(params));
  const filter = [...(range ? [range] : []), ...(asked.length > 0 ? [{ terms: { land_id: asked } }] : [])];
  const res = await client.search<FirstEntryDoc>(
    names.firstEntries,
    { query: { bool: { filter } }, sort: [{ pass_time: 'asc' }, { event_id: 'asc' }], from, size },
    'first entries',
  );
  return {
    total: res.hits.total,
    look_back_days: designation.look_back_days,
    entry_checkpoints: designation.entry_checkpoints,
    entries: res.hits.hits.map((h) => h._source),
  };
}
