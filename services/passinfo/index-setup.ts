/**
 * The application's indices, each created behind an alias so it can be
 * rebuilt (a new `-vN` index fills up, then the alias moves):
 *
 * - passes: `passinfo-v1` behind `passinfo`, the seed's mapping, `plate.keyword`
 *   and the `location` geo_point in place before any data because index,
 *   mapping and alias are created in one request (an index set up before
 *   locations existed gets the geo_point added, before any pass with one).
 * - first entries: `passinfo-first-entry-v1` behind `passinfo-first-entry`.
 * - settings: `passinfo-config`, one document naming the designated entry
 *   checkpoints and the look-back window, so the query side refuses what the
 *   ingest side never recorded.
 *
 * Everything here is idempotent: running it against a set-up cluster changes
 * nothing, and two processes racing to create an index both succeed.
 */
import { PASSINFO_INDEX_BODY } from './pass-record-generator.ts';
import { PassinfoError } from './errors.ts';
import { statusOf, type SearchClient } from './search-client.ts';

export interface IndexNames {
  /** Alias every read and write of passes goes through. */
  readonly passes: string;
  readonly firstEntries: string;
  readonly config: string;
}

export const DEFAULT_INDEX_NAMES: IndexNames = { passes: 'passinfo', firstEntries: 'passinfo-first-entry', config: 'passinfo-config' };

/** Mapping types (Elasticsearch 6 indices have exactly one). */
export const PASS_TYPE = 'passinfo';
export const FIRST_ENTRY_TYPE = 'first_entry';
export const CONFIG_TYPE = 'config';

export interface IndexOptions {
  readonly shards?: number;
  readonly replicas?: number;
  readonly refreshInterval?: string;
}

export function passesIndexBody(options: IndexOptions = {}): object {
  return {
    settings: {
      ...PASSINFO_INDEX_BODY.settings,
      ...(options.shards !== undefined ? { number_of_shards: options.shards } : {}),
      ...(options.replicas !== undefined ? { number_of_replicas: options.replicas } : {}),
      ...(options.refreshInterval !== undefined ? { refresh_interval: options.refreshInterval } : {}),
    },
    mappings: PASSINFO_INDEX_BODY.mappings,
  };
}

export function firstEntriesIndexBody(options: IndexOptions = {}): object {
  return {
    settings: { number_of_shards: options.shards ?? 1, number_of_replicas: options.replicas ?? 0 },
    mappings: {
      [FIRST_ENTRY_TYPE]: {
        properties: {
          event_id: { type: 'keyword' },
          plate: { type: 'keyword' },
          land_id: { type: 'keyword' },
          pass_time: { type: 'date', format: 'yyyy-MM-dd HH:mm:ss' },
          previous_pass_time: { type: 'date', format: 'yyyy-MM-dd HH:mm:ss' },
          look_back_days: { type: 'integer' },
        },
      },
    },
  };
}

function configIndexBody(): object {
  return {
    settings: { number_of_shards: 1, number_of_replicas: 0 },
    mappings: { [CONFIG_TYPE]: { dynamic: false, properties: { entry_checkpoints: { type: 'keyword' }, look_back_days: { type: 'integer' } } } },
  };
}

/** Creates `<alias>-v1` with the alias, unless the alias already exists. */
async function ensureAliased(client: SearchClient, alias: string, body: object): Promise<void> {
  const exists = await client.call<boolean>(`alias [${alias}] exists`, (es) => es.indices.existsAlias({ name: alias }));
  if (exists) return;
  const concrete = await client.call<boolean>(`index [${alias}] exists`, (es) => es.indices.exists({ index: alias }));
  if (concrete) {
    throw new PassinfoError(
      'index_setup_error',
      `[${alias}] is an index, not an alias: reindex it into [${alias}-v1] and make [${alias}] an alias of it`,
    );
  }
  const index = `${alias}-v1`;
  try {
    await client.es.indices.create({ index, body: { ...body, aliases: { [alias]: {} } } });
  } catch (err) {
    // Another process won the race: fine once the alias is there.
    if (statusOf(err) !== 400) throw new PassinfoError('index_setup_error', `cannot create [${index}]: ${String(err)}`, { cause: err });
    const nowExists = await client.call<boolean>(`alias [${alias}] exists`, (es) => es.indices.existsAlias({ name: alias }));
    if (!nowExists) throw new PassinfoError('index_setup_error', `cannot create [${index}] behind [${alias}]: ${String(err)}`, { cause: err });
  }
}

async function ensureIndex(client: SearchClient, index: string, body: object): Promise<void> {
  const exists = await client.call<boolean>(`index [${index}] exists`, (es) => es.indices.exists({ index }));
  if (exists) return;
  try {
    await client.es.indices.create({ index, body });
  } catch (err) {
    if (statusOf(err) !== 400) throw new PassinfoError('index_setup_error', `cannot create [${index}]: ${String(err)}`, { cause: err });
  }
}

/**
 * Adds the `location` geo_point to a passes index created before passes had
 * locations (a no-op on a current one). Refused when dynamic mapping made
 * `location` something else: that index needs a rebuild with the mapping.
 */
async function ensureLocationMapping(client: SearchClient, alias: string): Promise<void> {
  try {
    await client.es.indices.putMapping({ index: alias, type: PASS_TYPE, body: { properties: { location: { type: 'geo_point' } } } });
  } catch (err) {
    throw new PassinfoError(
      'index_setup_error',
      `cannot map [location] of [${alias}] as a geo_point (${String(err)}): rebuild the index with the current mapping (docs/passinfo.md)`,
      { cause: err },
    );
  }
}

/** Makes sure every index and alias of the application exists. */
export async function ensureIndices(client: SearchClient, names: IndexNames = DEFAULT_INDEX_NAMES, options: IndexOptions = {}): Promise<void> {
  await ensureAliased(client, names.passes, passesIndexBody(options));
  await ensureLocationMapping(client, names.passes);
  await ensureAliased(client, names.firstEntries, firstEntriesIndexBody({ replicas: options.replicas }));
  await ensureIndex(client, names.config, configIndexBody());
}
