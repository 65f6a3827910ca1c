/**
 * The designated entry checkpoints and the look-back window of query 7, kept
 * in one document of the config index. The ingest side writes it when it
 * starts (it is what ingest decides with); the query side reads it to refuse
 * checkpoints no first entry is recorded for.
 */
import { invalidParameter } from './errors.ts';
import { CONFIG_TYPE, type IndexNames } from './index-setup.ts';
import { statusOf, type SearchClient } from './search-client.ts';

export interface EntryDesignation {
  readonly entry_checkpoints: readonly string[];
  readonly look_back_days: number;
}

const DOC_ID = 'first-entry';
export const DEFAULT_LOOK_BACK_DAYS = 30;

export function designation(checkpoints: readonly string[], lookBackDays = DEFAULT_LOOK_BACK_DAYS): EntryDesignation {
  const list = [...new Set(checkpoints.map((c) => c.trim()).filter((c) => c.length > 0))].sort();
  if (list.length === 0) throw invalidParameter('entry-checkpoints', 'needs at least one checkpoint');
  if (!Number.isInteger(lookBackDays) || lookBackDays < 1 || lookBackDays > 3650) {
    throw invalidParameter('look-back-days', `[${lookBackDays}] must be an integer from 1 to 3650`);
  }
  return { entry_checkpoints: list, look_back_days: lookBackDays };
}

export async function saveDesignation(client: SearchClient, names: IndexNames, d: EntryDesignation): Promise<void> {
  await client.call('save entry designation', (es) =>
    es.index({ index: names.config, type: CONFIG_TYPE, id: DOC_ID, refresh: 'true', body: d }),
  );
}

export async function loadDesignation(client: SearchClient, names: IndexNames): Promise<EntryDesignation | null> {
  try {
    const { body } = await client.es.get({ index: names.config, type: CONFIG_TYPE, id: DOC_ID });
    return (body as { _source: EntryDesignation })._source;
  } catch (err) {
    if (statusOf(err) === 404) return null;
    return client.call('load entry designation', () => Promise.reject(err));
  }
}
