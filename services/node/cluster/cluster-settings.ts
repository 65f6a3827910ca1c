/**
 * Dynamic cluster settings (`PUT /_cluster/settings`): the ones this server
 * knows, how they are validated, and which value is in force. As in
 * Elasticsearch a value comes from, in rising precedence: the built-in
 * default, the node's configuration (config file, environment, flags), a
 * `persistent` and a `transient` cluster setting. Cluster settings are
 * MetaEvents on the meta log, so every node applies the same ones.
 */
import { EsError, actionRequestValidation, javaCause } from '../../../shared/errors/es-errors.ts';
import { parseTimeValue } from '../../../shared/engine/mapping/time-value.ts';
import { getOwn } from '../../../shared/json/own-keys.ts';

export type SettingsScope = 'persistent' | 'transient';

interface SettingDef<T> {
  readonly key: string;
  /** Elasticsearch's default, as text. */
  readonly dflt: string;
  /** Parses a value; throws Elasticsearch's IllegalArgumentException for a bad one. */
  readonly parse: (value: string) => T;
}

function booleanSetting(key: string, dflt: boolean): SettingDef<boolean> {
  return {
    key,
    dflt: String(dflt),
    parse: (v) => {
      if (v === 'true') return true;
      if (v === 'false') return false;
      throw javaCause('illegal_argument_exception', `Failed to parse value [${v}] as only [true] or [false] are allowed.`);
    },
  };
}

function intSetting(key: string, dflt: number, min: number): SettingDef<number> {
  return {
    key,
    dflt: String(dflt),
    parse: (v) => {
      const n = /^[+-]?\d+$/.test(v) ? Number(v) : NaN;
      if (!Number.isSafeInteger(n) || n > 2147483647) throw javaCause('number_format_exception', `For input string: "${v}"`);
      if (n < min) throw javaCause('illegal_argument_exception', `Failed to parse value [${v}] for setting [${key}] must be >= ${min}`);
      return n;
    },
  };
}

function timeSetting(key: string, dflt: string, minMs: number): SettingDef<number> {
  return {
    key,
    dflt,
    parse: (v) => {
      const ms = parseTimeValue(v, key);
      if (ms < minMs) throw javaCause('illegal_argument_exception', `failed to parse value [${v}] for setting [${key}], must be >= [${minMs}ms]`);
      return ms;
    },
  };
}

/** `action.destructive_requires_name` (6.8 default false): wildcard and `_all` deletes, closes and opens are refused. */
export const DESTRUCTIVE_REQUIRES_NAME = booleanSetting('action.destructive_requires_name', false);
/**
 * `search.max_buckets`: buckets one aggregation response may hold. 6.8 only
 * warns above 10,000 (its default is -1); this server enforces 7.x's limit of
 * 10,000 with `too_many_buckets_exception`, because an unbounded response is
 * what let one request stall a node.
 */
export const MAX_BUCKETS = intSetting('search.max_buckets', 10_000, 0);
/** `search.max_keep_alive`: the longest scroll keep-alive a request may ask for (24h). */
export const MAX_KEEP_ALIVE = timeSetting('search.max_keep_alive', '24h', 1);

/** `search.max_open_scroll_context`: scroll contexts a node keeps open at once (Elasticsearch's default 500). */
export const MAX_OPEN_SCROLL_CONTEXT = intSetting('search.max_open_scroll_context', 500, 0);

const DEFS: ReadonlyMap<string, SettingDef<unknown>> = new Map(
  [DESTRUCTIVE_REQUIRES_NAME, MAX_BUCKETS, MAX_KEEP_ALIVE, MAX_OPEN_SCROLL_CONTEXT].map((d) => [d.key, d as SettingDef<unknown>]),
);

/** The keys of every dynamic cluster setting (node configuration accepts them too). */
export const CLUSTER_SETTING_KEYS: readonly string[] = [...DEFS.keys()];

/** A dynamic cluster setting's default, as text (`logsearch start --help` shows it). */
export function clusterSettingDefault(key: string): string | undefined {
  return DEFS.get(key)?.dflt;
}

/**
 * A settings object as Elasticsearch's Settings.Builder reads it: nested
 * (`{"action":{"destructive_requires_name":true}}`) or dotted, values as text,
 * `null` resets.
 */
export function flattenSettings(body: unknown, scope: SettingsScope): Map<string, string | null> {
  const out = new Map<string, string | null>();
  if (body === undefined || body === null) return out;
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new EsError('parse_exception', `failed to parse [${scope}] settings: expected an object`, 400);
  }
  const walk = (obj: Record<string, unknown>, prefix: string): void => {
    for (const key of Object.keys(obj)) {
      const v = getOwn(obj, key);
      const path = prefix + key;
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) walk(v as Record<string, unknown>, path + '.');
      else if (v === null) out.set(path, null);
      else if (Array.isArray(v)) out.set(path, v.map(String).join(','));
      else out.set(path, String(v));
    }
  };
  walk(body as Record<string, unknown>, '');
  return out;
}

/** Checks every key and value of an update (Elasticsearch's ClusterSettings.updateDynamicSettings wording). */
export function validateUpdate(scope: SettingsScope, flat: ReadonlyMap<string, string | null>): void {
  for (const [key, value] of flat) {
    const def = DEFS.get(key);
    if (def === undefined) {
      // `null` with a wildcard resets every matching setting.
      if (value === null && key.endsWith('*')) continue;
      throw new EsError('illegal_argument_exception', `${scope} setting [${key}], not recognized`, 400);
    }
    if (value !== null) def.parse(value);
  }
}

/** Applies a validated update to the settings of one scope. */
export function applyUpdate(current: ReadonlyMap<string, string>, flat: ReadonlyMap<string, string | null>): Map<string, string> {
  const next = new Map(current);
  for (const [key, value] of flat) {
    if (value !== null) {
      next.set(key, value);
      continue;
    }
    const prefix = key.endsWith('*') ? key.slice(0, -1) : null;
    for (const k of [...next.keys()]) if (k === key || (prefix !== null && k.startsWith(prefix))) next.delete(k);
  }
  return next;
}

/** The body of `PUT /_cluster/settings`, checked; an update with nothing in it is refused as in Elasticsearch. */
export function parseUpdateBody(body: unknown): { persistent: Map<string, string | null>; transient: Map<string, string | null> } {
  const b = (body ?? {}) as Record<string, unknown>;
  const persistent = flattenSettings(getOwn(b, 'persistent'), 'persistent');
  const transient = flattenSettings(getOwn(b, 'transient'), 'transient');
  if (persistent.size === 0 && transient.size === 0) throw actionRequestValidation(['no settings to update']);
  validateUpdate('transient', transient);
  validateUpdate('persistent', persistent);
  return { persistent, transient };
}

/** Nested settings as Elasticsearch prints them (`{"action":{"destructive_requires_name":"true"}}`), or flat. */
export function renderSettings(flat: ReadonlyMap<string, string | null>, asFlat: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of [...flat.keys()].sort()) {
    const value = flat.get(key) ?? null;
    if (asFlat) {
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      continue;
    }
    const parts = key.split('.');
    let cur = out;
    for (let i = 0; i < parts.length - 1; i++) {
      let next = getOwn(cur, parts[i]);
      if (next === null || typeof next !== 'object') {
        next = {};
        Object.defineProperty(cur, parts[i], { value: next, enumerable: true, writable: true, configurable: true });
      }
      cur = next as Record<string, unknown>;
    }
    Object.defineProperty(cur, parts[parts.length - 1], { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Where a node reads a dynamic setting: transient, persistent, its configuration, the default. */
export interface ClusterSettingsSource {
  readonly persistent: ReadonlyMap<string, string>;
  readonly transient: ReadonlyMap<string, string>;
}

export class EffectiveSettings {
  constructor(
    private readonly cluster: () => ClusterSettingsSource,
    /** The node's configured values of dynamic settings (config file, environment, flags). */
    private readonly configured: ReadonlyMap<string, string>,
  ) {}

  get<T>(def: SettingDef<T>): T {
    // Stored values were validated when they were set; a node configuration value is checked at start-up.
    return def.parse(this.text(def.key));
  }

  /** The value in force as text (the default's text for a setting nobody set). */
  text(key: string): string {
    const c = this.cluster();
    return c.transient.get(key) ?? c.persistent.get(key) ?? this.configured.get(key) ?? DEFS.get(key)?.dflt ?? '';
  }
}
