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
import { parseByteSizeValue } from '../../../shared/engine/mapping/byte-size-value.ts';
import { ALLOCATION_ENABLE_VALUES, type AllocationEnable } from './allocation.ts';

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

/**
 * `cluster.routing.allocation.enable` (EnableAllocationDecider.Allocation.parse):
 * any case, `Illegal allocation.enable value [X]` (upper-cased) otherwise.
 */
function allocationEnableSetting(key: string): SettingDef<AllocationEnable> {
  return {
    key,
    dflt: 'all',
    parse: (v) => {
      const lower = v.toLowerCase();
      const found = ALLOCATION_ENABLE_VALUES.find((a) => a === lower);
      if (found === undefined) throw javaCause('illegal_argument_exception', `Illegal allocation.enable value [${v.toUpperCase()}]`);
      return found;
    },
  };
}

/** A disk watermark: used space as a percentage, or free space as a byte size (DiskThresholdSettings). */
export type Watermark = { readonly percent: number } | { readonly freeBytes: number };

/**
 * RatioValue.parseRatioValue: `85%`, or a ratio `0.85`, as a percentage;
 * null for anything else, out-of-range values included (Elasticsearch then
 * reads the text as a byte size, whose error is the one the user sees).
 */
function parseRatio(v: string): number | null {
  const isNumber = (t: string) => /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t.trim());
  const percentText = v.endsWith('%') ? v.slice(0, -1) : null;
  const text = percentText ?? v;
  if (!isNumber(text)) return null;
  const percent = percentText !== null ? Number(text) : 100 * Number(text);
  return percent >= 0 && percent <= 100 ? percent : null;
}

/** A watermark's value: a percentage (or ratio) first, else a byte size, as DiskThresholdSettings.validWatermarkSetting. */
export function parseWatermark(v: string, key: string): Watermark {
  const percent = parseRatio(v);
  if (percent !== null) return { percent };
  return { freeBytes: parseByteSizeValue(v, key) };
}

function watermarkSetting(key: string, dflt: string): SettingDef<Watermark> {
  return { key, dflt, parse: (v) => parseWatermark(v, key) };
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

/**
 * `cluster.routing.allocation.enable` (6.8 default `all`): which copies that
 * are not yet assigned may be (cluster/allocation.ts, `enableDecision`).
 */
export const ALLOCATION_ENABLE = allocationEnableSetting('cluster.routing.allocation.enable');

/**
 * The disk-based allocation settings (6.8 defaults): validated and stored as
 * Elasticsearch does, not acted on (docs/compat.md says so).
 */
export const DISK_THRESHOLD_ENABLED = booleanSetting('cluster.routing.allocation.disk.threshold_enabled', true);
export const DISK_WATERMARK_LOW = watermarkSetting('cluster.routing.allocation.disk.watermark.low', '85%');
export const DISK_WATERMARK_HIGH = watermarkSetting('cluster.routing.allocation.disk.watermark.high', '90%');
export const DISK_WATERMARK_FLOOD_STAGE = watermarkSetting('cluster.routing.allocation.disk.watermark.flood_stage', '95%');

const DEFS: ReadonlyMap<string, SettingDef<unknown>> = new Map(
  [
    DESTRUCTIVE_REQUIRES_NAME,
    MAX_BUCKETS,
    MAX_KEEP_ALIVE,
    MAX_OPEN_SCROLL_CONTEXT,
    ALLOCATION_ENABLE,
    DISK_THRESHOLD_ENABLED,
    DISK_WATERMARK_LOW,
    DISK_WATERMARK_HIGH,
    DISK_WATERMARK_FLOOD_STAGE,
  ].map((d) => [d.key, d as SettingDef<unknown>]),
);

/**
 * The three watermarks together (DiskThresholdSettings.doValidate): all
 * percentages with low <= high <= flood_stage, or all byte sizes of free
 * space with low >= high >= flood_stage; a mix is refused.
 */
export function validateWatermarks(low: string, high: string, flood: string): void {
  const [l, h, f] = [
    parseWatermark(low, DISK_WATERMARK_LOW.key),
    parseWatermark(high, DISK_WATERMARK_HIGH.key),
    parseWatermark(flood, DISK_WATERMARK_FLOOD_STAGE.key),
  ];
  if ('percent' in l && 'percent' in h && 'percent' in f) {
    if (l.percent > h.percent) throw javaCause('illegal_argument_exception', `low disk watermark [${low}] more than high disk watermark [${high}]`);
    if (h.percent > f.percent) throw javaCause('illegal_argument_exception', `high disk watermark [${high}] more than flood stage disk watermark [${flood}]`);
    return;
  }
  if ('freeBytes' in l && 'freeBytes' in h && 'freeBytes' in f) {
    if (l.freeBytes < h.freeBytes) throw javaCause('illegal_argument_exception', `low disk watermark [${low}] less than high disk watermark [${high}]`);
    if (h.freeBytes < f.freeBytes) throw javaCause('illegal_argument_exception', `high disk watermark [${high}] less than flood stage disk watermark [${flood}]`);
    return;
  }
  throw javaCause(
    'illegal_argument_exception',
    `unable to consistently parse [${DISK_WATERMARK_LOW.key}=${low}], [${DISK_WATERMARK_HIGH.key}=${high}], and [${DISK_WATERMARK_FLOOD_STAGE.key}=${flood}] as percentage or bytes`,
  );
}

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
    return this.textOf(this.cluster(), key);
  }

  private textOf(c: ClusterSettingsSource, key: string): string {
    return c.transient.get(key) ?? c.persistent.get(key) ?? this.configured.get(key) ?? DEFS.get(key)?.dflt ?? '';
  }

  /**
   * Checks what an update would leave in force where settings depend on each
   * other (the disk watermarks), as Elasticsearch validates the settings it
   * would apply.
   */
  validateCombined(update: { persistent: ReadonlyMap<string, string | null>; transient: ReadonlyMap<string, string | null> }): void {
    const c = this.cluster();
    const next = { persistent: applyUpdate(c.persistent, update.persistent), transient: applyUpdate(c.transient, update.transient) };
    validateWatermarks(
      this.textOf(next, DISK_WATERMARK_LOW.key),
      this.textOf(next, DISK_WATERMARK_HIGH.key),
      this.textOf(next, DISK_WATERMARK_FLOOD_STAGE.key),
    );
  }
}
