/**
 * Index settings as Elasticsearch 6.8 accepts, validates and prints them.
 *
 * A settings body may be nested (`{index: {number_of_shards: 3}}`), flat
 * (`{"index.number_of_shards": "3"}`), bare (`{number_of_shards: 3}`) or any mix;
 * like Elasticsearch's `Settings.Builder` we flatten it to dotted keys, prefix
 * the bare ones with `index.`, and keep every value as a string (lists as lists
 * of strings). The settings we understand are parsed and range-checked with
 * Elasticsearch's messages; the others are kept as given.
 */
import { javaCause, javaCauseChain, numberFormatException, type EsError } from '../../errors/es-errors.ts';
import { javaHashOrder, javaHashSetOrder } from './java-hash-order.ts';
import { parseTimeValue } from './time-value.ts';
import { getOwn, setOwn } from '../../json/own-keys.ts';

/** `IndexMetaData.INDEX_NUMBER_OF_SHARDS_SETTING`: default 5 in 6.x, at most `es.index.max_number_of_shards` (1024). */
export const DEFAULT_NUMBER_OF_SHARDS = 5;
export const MAX_NUMBER_OF_SHARDS = 1024;
/** `IndexMetaData.INDEX_NUMBER_OF_REPLICAS_SETTING` default. */
export const DEFAULT_NUMBER_OF_REPLICAS = 1;
/** `IndexSettings.DEFAULT_REFRESH_INTERVAL`. */
export const DEFAULT_REFRESH_INTERVAL = '1s';
/** `IndexSettings.MAX_RESULT_WINDOW_SETTING` default. */
export const DEFAULT_MAX_RESULT_WINDOW = 10_000;
/** `IndexSettings.MAX_NGRAM_DIFF_SETTING` default. */
export const DEFAULT_MAX_NGRAM_DIFF = 1;
/** `IndexMetaData.INDEX_ROUTING_PARTITION_SIZE_SETTING` default. */
export const DEFAULT_ROUTING_PARTITION_SIZE = 1;
/** `Version.V_6_8_0.id`, printed as `index.version.created`. */
export const ES_VERSION_CREATED = '6080099';

const K_SHARDS = 'index.number_of_shards';
const K_REPLICAS = 'index.number_of_replicas';
const K_REFRESH = 'index.refresh_interval';
const K_MAX_RESULT_WINDOW = 'index.max_result_window';
const K_MAX_NGRAM_DIFF = 'index.max_ngram_diff';
const K_ROUTING_SHARDS = 'index.number_of_routing_shards';
const K_PARTITION_SIZE = 'index.routing_partition_size';
const ANALYSIS_PREFIX = 'index.analysis.';

const K_TOTAL_FIELDS_LIMIT = 'index.mapping.total_fields.limit';
const K_DEPTH_LIMIT = 'index.mapping.depth.limit';
const K_NESTED_FIELDS_LIMIT = 'index.mapping.nested_fields.limit';
const K_NESTED_OBJECTS_LIMIT = 'index.mapping.nested_objects.limit';
/** `MapperService.INDEX_MAPPING_TOTAL_FIELDS_LIMIT_SETTING` default. */
export const DEFAULT_TOTAL_FIELDS_LIMIT = 1000;
/** `MapperService.INDEX_MAPPING_DEPTH_LIMIT_SETTING` default. */
export const DEFAULT_DEPTH_LIMIT = 20;
const DEFAULT_NESTED_FIELDS_LIMIT = 50;
const DEFAULT_NESTED_OBJECTS_LIMIT = 10000;

/**
 * The index settings Elasticsearch 6.8 knows (IndexScopedSettings
 * BUILT_IN_INDEX_SETTINGS, the x-pack ones of the default distribution, and
 * the private ones it writes itself); anything else is refused as an unknown
 * setting. Most are kept as given and have no effect here.
 */
const KNOWN_SETTINGS: ReadonlySet<string> = new Set(
  [
    'allocation.max_retries', 'ttl.disable_purge', 'merge.scheduler.auto_throttle', 'merge.scheduler.max_merge_count',
    'merge.scheduler.max_thread_count', 'auto_expand_replicas', 'number_of_replicas', 'number_of_shards', 'routing_partition_size',
    'number_of_routing_shards', 'blocks.read_only', 'blocks.read', 'blocks.write', 'blocks.metadata', 'blocks.read_only_allow_delete',
    'priority', 'data_path', 'format', 'search.slowlog.threshold.fetch.debug', 'search.slowlog.threshold.fetch.warn',
    'search.slowlog.threshold.fetch.info', 'search.slowlog.threshold.fetch.trace', 'search.slowlog.threshold.query.debug',
    'search.slowlog.threshold.query.warn', 'search.slowlog.threshold.query.info', 'search.slowlog.threshold.query.trace',
    'search.slowlog.level', 'indexing.slowlog.threshold.index.debug', 'indexing.slowlog.threshold.index.warn',
    'indexing.slowlog.threshold.index.info', 'indexing.slowlog.threshold.index.trace', 'indexing.slowlog.level',
    'indexing.slowlog.reformat', 'indexing.slowlog.source', 'compound_format', 'merge.policy.expunge_deletes_allowed',
    'merge.policy.floor_segment', 'merge.policy.max_merge_at_once', 'merge.policy.max_merge_at_once_explicit',
    'merge.policy.max_merged_segment', 'merge.policy.segments_per_tier', 'merge.policy.reclaim_deletes_weight', 'merge.enabled',
    'sort.field', 'sort.order', 'sort.missing', 'sort.mode', 'translog.durability', 'translog.sync_interval',
    'translog.flush_threshold_size', 'translog.generation_threshold_size', 'translog.retention.age', 'translog.retention.size',
    'warmer.enabled', 'refresh_interval', 'max_result_window', 'max_inner_result_window', 'max_docvalue_fields_search',
    'max_script_fields', 'max_ngram_diff', 'max_shingle_diff', 'max_rescore_window', 'max_adjacency_matrix_filters',
    'max_terms_count', 'analyze.max_token_count', 'max_regex_length', 'max_refresh_listeners', 'max_slices_per_scroll', 'query.default_field',
    'query_string.lenient', 'query.parse.allow_unmapped_fields', 'shard.check_on_startup', 'routing.allocation.total_shards_per_node',
    'gc_deletes', 'requests.cache.enable', 'unassigned.node_left.delayed_timeout', 'routing.rebalance.enable',
    'routing.allocation.enable', 'fielddata.cache', 'mapping.ignore_malformed', 'mapping.coerce', 'store.stats_refresh_interval',
    'mapper.dynamic', 'mapping.nested_fields.limit', 'mapping.nested_objects.limit', 'mapping.total_fields.limit',
    'mapping.depth.limit', 'mapping.single_type', 'load_fixed_bitset_filters_eagerly', 'store.type', 'store.preload',
    'queries.cache.enabled', 'queries.cache.everything', 'store.fs.fs_lock', 'codec', 'optimize_auto_generated_id',
    'write.wait_for_active_shards', 'highlight.max_analyzed_offset', 'search.idle.after', 'soft_deletes.enabled',
    'soft_deletes.retention.operations', 'soft_deletes.retention_lease.period', 'default_pipeline', 'frozen', 'search.throttled',
    'lifecycle.name', 'lifecycle.rollover_alias', 'lifecycle.indexing_complete', 'creation_date', 'uuid', 'version.created',
    'version.upgraded', 'provided_name', 'shrink.source.uuid', 'shrink.source.name', 'resize.source.uuid', 'resize.source.name',
  ].map((k) => 'index.' + k),
);

/** Group settings: any key below these prefixes is allowed. */
const KNOWN_GROUPS: readonly string[] = [
  'index.analysis.', 'index.similarity.', 'index.routing.allocation.include.', 'index.routing.allocation.exclude.',
  'index.routing.allocation.require.', 'index.routing.allocation.initial_recovery.',
];

/**
 * Checks a create or update request's settings as Elasticsearch does before
 * it changes anything: every key known, the mapping limits whole numbers.
 * (Applying the meta log does not repeat these checks, so an index created
 * before a check existed still replays.)
 */
export function checkIndexSettingsRequest(body: unknown): void {
  const flat = flatten(body);
  for (const key of flat.keys()) {
    if (KNOWN_SETTINGS.has(key) || KNOWN_GROUPS.some((g) => key.startsWith(g))) continue;
    throw javaCause(
      'illegal_argument_exception',
      `unknown setting [${key}] please check that any required plugins are installed, or check the breaking changes documentation for removed settings`,
    );
  }
  intSetting(flat, K_TOTAL_FIELDS_LIMIT, DEFAULT_TOTAL_FIELDS_LIMIT, 0);
  intSetting(flat, K_DEPTH_LIMIT, DEFAULT_DEPTH_LIMIT, 1);
  intSetting(flat, K_NESTED_FIELDS_LIMIT, DEFAULT_NESTED_FIELDS_LIMIT, 0);
  intSetting(flat, K_NESTED_OBJECTS_LIMIT, DEFAULT_NESTED_OBJECTS_LIMIT, 0);
  const enable = flat.get(K_ALLOCATION_ENABLE)?.text;
  if (typeof enable === 'string' && !ALLOCATION_ENABLE_VALUES.has(enable.toLowerCase())) {
    throw javaCause('illegal_argument_exception', `Illegal allocation.enable value [${enable.toUpperCase()}]`);
  }
}

/** `index.routing.allocation.enable` overrides the cluster's setting for the index (the node's allocation reads it). */
const K_ALLOCATION_ENABLE = 'index.routing.allocation.enable';
/** EnableAllocationDecider.Allocation's values, matched in any case. */
const ALLOCATION_ENABLE_VALUES: ReadonlySet<string> = new Set(['all', 'primaries', 'new_primaries', 'none']);

/** A setting read leniently (the default when missing or not a whole number): the meta log may hold values from before it was checked. */
function lenientInt(flat: ReadonlyMap<string, FlatEntry>, key: string, dflt: number, min: number): number {
  try {
    return intSetting(flat, key, dflt, min);
  } catch {
    return dflt;
  }
}

/** Settings that cannot change on an open index (they are not `Property.Dynamic` in Elasticsearch). */
const STATIC_SETTINGS: ReadonlySet<string> = new Set([
  K_SHARDS,
  K_ROUTING_SHARDS,
  K_PARTITION_SIZE,
  ...[
    'codec',
    'store.type',
    'store.preload',
    'shard.check_on_startup',
    'sort.field',
    'sort.order',
    'sort.missing',
    'sort.mode',
    'data_path',
    'soft_deletes.enabled',
    'mapping.single_type',
    'load_fixed_bitset_filters_eagerly',
    'queries.cache.enabled',
  ].map((k) => 'index.' + k),
]);
const STATIC_GROUPS: readonly string[] = [ANALYSIS_PREFIX, 'index.similarity.'];
/** Settings fixed at creation, closed or not (`Property.Final`). */
const FINAL_SETTINGS: ReadonlySet<string> = new Set([K_SHARDS, K_ROUTING_SHARDS, K_PARTITION_SIZE]);

export type SettingValue = string | readonly string[];

/** Normalised, validated settings of one index. */
export interface IndexSettings {
  readonly numberOfShards: number;
  readonly numberOfReplicas: number;
  /** `index.refresh_interval` as given (default `1s`). */
  readonly refreshInterval: string;
  /** The refresh interval in milliseconds; -1 disables periodic refresh. */
  readonly refreshIntervalMs: number;
  readonly maxResultWindow: number;
  readonly maxNgramDiff: number;
  /** `index.mapping.total_fields.limit`. */
  readonly totalFieldsLimit: number;
  /** `index.mapping.depth.limit`. */
  readonly depthLimit: number;
  /** `index.mapping.nested_fields.limit`. */
  readonly nestedFieldsLimit: number;
  /** `index.mapping.nested_objects.limit`: nested documents one document may hold. */
  readonly nestedObjectsLimit: number;
  /** `index.number_of_routing_shards`, defaulting to `numberOfShards` as on 6.x. */
  readonly routingNumShards: number;
  readonly routingPartitionSize: number;
  /**
   * `index.analysis` as a nested object for the analysis registry (values keep
   * the JSON type they were given in), or undefined when the index has none.
   */
  readonly analysis: Record<string, unknown> | undefined;
  /**
   * Every setting of the index as flat `index.*` keys with Elasticsearch's
   * string values, including `number_of_shards`/`number_of_replicas` and
   * settings we do not interpret. This is what GET _settings prints.
   */
  readonly flat: Readonly<Record<string, SettingValue>>;
}

interface FlatEntry {
  /** The value as Elasticsearch keeps it; null marks "reset to default" in an update. */
  readonly text: SettingValue | null;
  /** The JSON value as given (for `analysis`). */
  readonly raw: unknown;
}

/** Settings.Builder.loadFromMap + normalizePrefix("index."). */
function flatten(body: unknown): Map<string, FlatEntry> {
  const out = new Map<string, FlatEntry>();
  if (body === null || body === undefined) return out;
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw javaCause('illegal_argument_exception', `malformed settings: expected an object but got [${String(body)}]`);
  }
  const walk = (obj: Record<string, unknown>, prefix: string): void => {
    for (const key of Object.keys(obj)) {
      const v = obj[key];
      const path = prefix + key;
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
        walk(v as Record<string, unknown>, path + '.');
      } else {
        out.set(path, { text: settingText(v), raw: v });
      }
    }
  };
  walk(body as Record<string, unknown>, '');
  const normalized = new Map<string, FlatEntry>();
  for (const [key, entry] of out) {
    const k = key.startsWith('index.') || key.endsWith('*') ? key : 'index.' + key;
    normalized.set(k, entry);
  }
  return normalized;
}

/**
 * A settings body flattened as Settings.Builder does (dotted `index.*` keys),
 * each value the JSON value as given (`null` resets). Index templates keep
 * settings this way and merge them by key before an index is created.
 */
export function flattenSettingsBody(body: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [key, entry] of flatten(body)) out.set(key, entry.raw);
  return out;
}

/** A setting's value as Elasticsearch keeps it: text, or a list of texts; null for `null`. */
export function settingText(v: unknown): SettingValue | null {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map((x) => (x !== null && typeof x === 'object' ? JSON.stringify(x) : String(x)));
  return String(v);
}

/** Java's Integer.parseInt accepts an optional sign and decimal digits only. */
function javaInt(s: string): number | null {
  if (!/^[+-]?\d+$/.test(s)) return null;
  const n = Number(s);
  return n >= -2147483648 && n <= 2147483647 ? n : null;
}

function settingError(reason: string, cause?: EsError): EsError {
  return cause ? javaCauseChain('illegal_argument_exception', reason, cause) : javaCause('illegal_argument_exception', reason);
}

/** `Setting.intSetting(key, default, min[, max])` as Elasticsearch parses and checks it. */
function intSetting(flat: ReadonlyMap<string, FlatEntry>, key: string, dflt: number, min: number, max = 2147483647): number {
  const entry = flat.get(key);
  if (entry === undefined || entry.text === null) return dflt;
  const s = Array.isArray(entry.text) ? `[${entry.text.join(', ')}]` : (entry.text as string);
  const n = javaInt(s);
  if (n === null) {
    throw settingError(`Failed to parse value [${s}] for setting [${key}]`, numberFormatException(`For input string: "${s}"`));
  }
  if (n < min) throw settingError(`Failed to parse value [${s}] for setting [${key}] must be >= ${min}`);
  if (n > max) throw settingError(`Failed to parse value [${s}] for setting [${key}] must be <= ${max}`);
  return n;
}

function refreshSetting(flat: ReadonlyMap<string, FlatEntry>): { text: string; ms: number } {
  const entry = flat.get(K_REFRESH);
  if (entry === undefined || entry.text === null) return { text: DEFAULT_REFRESH_INTERVAL, ms: parseTimeValue(DEFAULT_REFRESH_INTERVAL, K_REFRESH) };
  const s = String(entry.text);
  const ms = parseTimeValue(s, K_REFRESH);
  // Setting.timeSetting's minimum is TimeValue(-1, MILLISECONDS), printed "-1".
  if (ms < -1) throw settingError(`Failed to parse value [${s}] for setting [${K_REFRESH}] must be >= -1`);
  return { text: s, ms };
}

/** Rebuilds the nested `analysis` object from its flat keys. */
function analysisOf(flat: ReadonlyMap<string, FlatEntry>): Record<string, unknown> | undefined {
  let root: Record<string, unknown> | undefined;
  for (const [key, entry] of flat) {
    if (!key.startsWith(ANALYSIS_PREFIX) || entry.text === null) continue;
    root ??= {};
    const parts = key.slice(ANALYSIS_PREFIX.length).split('.');
    let cur = root;
    for (let i = 0; i < parts.length - 1; i++) {
      let next = getOwn(cur, parts[i]);
      if (next === null || typeof next !== 'object' || Array.isArray(next)) setOwn(cur, parts[i], (next = {}));
      cur = next as Record<string, unknown>;
    }
    setOwn(cur, parts[parts.length - 1], entry.raw);
  }
  return root;
}

/** Routing shards must be a multiple of the shards (`IndexMetaData.getRoutingFactor`, 6.8's own wording). */
function checkRoutingShards(numberOfShards: number, routingNumShards: number): void {
  if (routingNumShards < numberOfShards) {
    throw settingError(`index.number_of_routing_shards [${routingNumShards}] must be >= index.number_of_shards [${numberOfShards}]`);
  }
  if (routingNumShards % numberOfShards !== 0) {
    throw settingError(`the number of source shards [${numberOfShards}] must be a must be a factor of [${routingNumShards}]`);
  }
}

/** The slow logs' thresholds: time values, `-1` (off) at the least (SearchSlowLog, IndexingSlowLog). */
const SLOWLOG_THRESHOLD = /^index\.(search\.slowlog\.threshold\.(query|fetch)|indexing\.slowlog\.threshold\.index)\.(warn|info|debug|trace)$/;

function checkSlowLogThresholds(flat: ReadonlyMap<string, FlatEntry>): void {
  for (const [key, entry] of flat) {
    if (entry.text === null || !SLOWLOG_THRESHOLD.test(key)) continue;
    const s = String(entry.text);
    if (parseTimeValue(s, key) < -1) throw settingError(`Failed to parse value [${s}] for setting [${key}] must be >= -1`);
  }
}

/** `index.shard.check_on_startup`: Elasticsearch 6.8's values (what each checks here: file-format.ts checkOnStartup). */
function checkCheckOnStartup(flat: ReadonlyMap<string, FlatEntry>): void {
  const s = flat.get('index.shard.check_on_startup')?.text;
  if (s === undefined || s === null || s === 'false' || s === 'true' || s === 'fix' || s === 'checksum') return;
  throw settingError(`unknown value for [index.shard.check_on_startup] must be one of [true, false, fix, checksum] but was: ${String(s)}`);
}

function build(flat: Map<string, FlatEntry>, index: string): IndexSettings {
  checkSlowLogThresholds(flat);
  checkCheckOnStartup(flat);
  const numberOfShards = intSetting(flat, K_SHARDS, DEFAULT_NUMBER_OF_SHARDS, 1, MAX_NUMBER_OF_SHARDS);
  const numberOfReplicas = intSetting(flat, K_REPLICAS, DEFAULT_NUMBER_OF_REPLICAS, 0);
  const refresh = refreshSetting(flat);
  const maxResultWindow = intSetting(flat, K_MAX_RESULT_WINDOW, DEFAULT_MAX_RESULT_WINDOW, 1);
  const maxNgramDiff = intSetting(flat, K_MAX_NGRAM_DIFF, DEFAULT_MAX_NGRAM_DIFF, 0);
  const routingNumShards = intSetting(flat, K_ROUTING_SHARDS, numberOfShards, 1);
  checkRoutingShards(numberOfShards, routingNumShards);
  const routingPartitionSize = intSetting(flat, K_PARTITION_SIZE, DEFAULT_ROUTING_PARTITION_SIZE, 1);
  if (routingPartitionSize !== 1 && routingPartitionSize >= routingNumShards) {
    throw settingError(
      `routing partition size [${routingPartitionSize}] should be a positive number less than the number of shards [${routingNumShards}] for [${index}]`,
    );
  }
  const out: Record<string, SettingValue> = {};
  for (const [key, entry] of flat) if (entry.text !== null) out[key] = entry.text;
  // Elasticsearch writes both into every index's metadata at creation.
  out[K_SHARDS] ??= String(numberOfShards);
  out[K_REPLICAS] ??= String(numberOfReplicas);
  return {
    numberOfShards,
    numberOfReplicas,
    refreshInterval: refresh.text,
    refreshIntervalMs: refresh.ms,
    maxResultWindow,
    maxNgramDiff,
    totalFieldsLimit: lenientInt(flat, K_TOTAL_FIELDS_LIMIT, DEFAULT_TOTAL_FIELDS_LIMIT, 0),
    depthLimit: lenientInt(flat, K_DEPTH_LIMIT, DEFAULT_DEPTH_LIMIT, 1),
    nestedFieldsLimit: lenientInt(flat, K_NESTED_FIELDS_LIMIT, DEFAULT_NESTED_FIELDS_LIMIT, 0),
    nestedObjectsLimit: lenientInt(flat, K_NESTED_OBJECTS_LIMIT, DEFAULT_NESTED_OBJECTS_LIMIT, 0),
    routingNumShards,
    routingPartitionSize,
    analysis: analysisOf(flat),
    flat: Object.freeze(out),
  };
}

/** Parses the `settings` of a create-index request (or index metadata being restored). */
export function parseIndexSettings(body: unknown, opts: { readonly index?: string } = {}): IndexSettings {
  return build(flatten(body), opts.index ?? '_na_');
}

function entriesOf(settings: IndexSettings): Map<string, FlatEntry> {
  const map = new Map<string, FlatEntry>();
  for (const key of Object.keys(settings.flat)) {
    const text = settings.flat[key];
    let raw: unknown = text;
    if (key.startsWith(ANALYSIS_PREFIX)) {
      // keep the JSON types the analysis was created with
      let cur: unknown = settings.analysis;
      for (const part of key.slice(ANALYSIS_PREFIX.length).split('.')) {
        cur = cur !== null && typeof cur === 'object' ? getOwn(cur as Record<string, unknown>, part) : undefined;
      }
      if (cur !== undefined) raw = cur;
    }
    map.set(key, { text, raw });
  }
  return map;
}

export interface SettingsUpdateOptions {
  /** A closed index also takes static settings (analysis, codec, ...); only final ones are refused. */
  readonly closed?: boolean;
  /** `preserve_existing`: settings the index already has keep their values. */
  readonly preserveExisting?: boolean;
}

/**
 * Applies a PUT _settings body to an index's settings, as Elasticsearch 6.8's
 * MetaDataUpdateSettingsService does: on an open index static settings
 * (codec, analysis, ...) are refused; settings fixed at creation
 * (number_of_shards, ...) are refused on a closed one too; `null` resets a
 * setting to its default; with `preserveExisting` a setting the index has
 * is left as it is; the result is validated like at creation.
 */
export function validateSettingsUpdate(
  current: IndexSettings,
  update: unknown,
  target: { readonly index: string; readonly uuid: string } = { index: '_na_', uuid: '_na_' },
  opts: SettingsUpdateOptions = {},
): IndexSettings {
  const changes = flatten(update);
  if (opts.closed) {
    const fixed = [...changes.keys()].find((k) => FINAL_SETTINGS.has(k));
    if (fixed !== undefined) throw settingError(`final index setting [${fixed}], not updateable`);
  } else {
    const skipped = [...changes.keys()].filter((k) => STATIC_SETTINGS.has(k) || STATIC_GROUPS.some((g) => k.startsWith(g)));
    if (skipped.length > 0) {
      throw settingError(`Can't update non dynamic settings [[${javaHashSetOrder(skipped).join(', ')}]] for open indices [[${target.index}/${target.uuid}]]`);
    }
  }
  const next = entriesOf(current);
  for (const [key, entry] of changes) {
    if (opts.preserveExisting && next.has(key)) continue;
    if (entry.text === null) next.delete(key);
    else next.set(key, entry);
  }
  if (!next.has(K_REPLICAS) || next.get(K_REPLICAS)?.text === null) {
    next.set(K_REPLICAS, { text: String(DEFAULT_NUMBER_OF_REPLICAS), raw: DEFAULT_NUMBER_OF_REPLICAS });
  }
  return build(next, target.index);
}

export interface IndexMetadataForSettings {
  readonly uuid: string;
  /** Epoch milliseconds. */
  readonly creationDate: number;
  readonly providedName: string;
  /** `index.version.created`; defaults to 6.8.0's id. */
  readonly version?: string;
}

/**
 * The `settings` object of GET /{index}/_settings (`{"index": {...}}`): every
 * value a string, nested by the dots of the keys, in the order Elasticsearch's
 * `Settings.getAsStructuredMap` (Java HashMaps of capacity 2) yields.
 */
export function renderSettings(settings: IndexSettings, meta: IndexMetadataForSettings): Record<string, unknown> {
  return structured(allSettings(settings, meta));
}

/** Every setting of the index as flat keys, those Elasticsearch writes itself (creation date, uuid, ...) included. */
export function allSettings(settings: IndexSettings, meta: IndexMetadataForSettings): Record<string, SettingValue> {
  const all: Record<string, SettingValue> = { ...settings.flat };
  all['index.creation_date'] = String(meta.creationDate);
  all['index.uuid'] = meta.uuid;
  all['index.version.created'] = meta.version ?? ES_VERSION_CREATED;
  all['index.provided_name'] = meta.providedName;
  return all;
}

interface Tree {
  readonly keys: string[];
  readonly values: Map<string, SettingValue | Tree>;
}

function isTree(v: SettingValue | Tree): v is Tree {
  return typeof v === 'object' && !Array.isArray(v);
}

/** Settings.getAsStructuredMap: keys inserted in sorted order; a value and a map under one name fall back to dotted keys. */
export function structuredSettings(flat: Record<string, SettingValue>): Record<string, unknown> {
  return structured(flat);
}

function structured(flat: Record<string, SettingValue>): Record<string, unknown> {
  const root: Tree = { keys: [], values: new Map() };
  const put = (tree: Tree, key: string, value: SettingValue | Tree): void => {
    if (!tree.values.has(key)) tree.keys.push(key);
    tree.values.set(key, value);
  };
  const process = (tree: Tree, prefix: string, setting: string, value: SettingValue): void => {
    const dot = setting.indexOf('.');
    if (dot === -1) {
      const inner = tree.values.get(prefix + setting);
      if (inner !== undefined && isTree(inner)) {
        for (const k of inner.keys) put(tree, `${prefix}${setting}.${k}`, inner.values.get(k) as SettingValue | Tree);
      }
      put(tree, prefix + setting, value);
      return;
    }
    const key = setting.slice(0, dot);
    const rest = setting.slice(dot + 1);
    const existing = tree.values.get(prefix + key);
    if (existing === undefined) {
      const child: Tree = { keys: [], values: new Map() };
      process(child, '', rest, value);
      put(tree, prefix + key, child);
    } else if (isTree(existing)) {
      process(existing, '', rest, value);
    } else {
      process(tree, prefix + key + '.', rest, value);
    }
  };
  for (const key of Object.keys(flat).sort()) process(root, '', key, flat[key]);
  const render = (tree: Tree): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const k of javaHashOrder(tree.keys, 2)) {
      const v = tree.values.get(k) as SettingValue | Tree;
      setOwn(out, k, isTree(v) ? render(v) : v);
    }
    return out;
  };
  return render(root);
}
