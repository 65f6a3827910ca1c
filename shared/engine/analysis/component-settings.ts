/**
 * The settings of one analysis component (an analyzer, tokenizer, filter or
 * char filter definition), read the way Elasticsearch's Settings reads them:
 * every value is a string underneath, so `"min_gram": "3"` is an int, and a
 * list may be a JSON array or a comma-separated string.
 */

import { illegalArgument, settingsException } from '../../errors/es-errors.ts';
import { getOwn, setOwn } from '../../json/own-keys.ts';

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Expands dotted keys (`"analyzer.my.tokenizer": "x"`) into nested objects,
 * as Elasticsearch's Settings treats both forms alike.
 */
export function expandDottedKeys(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    const parts = key.split('.');
    let target = out;
    for (let i = 0; i < parts.length - 1; i++) {
      const existing = getOwn(target, parts[i]!);
      const next: Record<string, unknown> = isPlainObject(existing) ? existing : {};
      if (next !== existing) setOwn(target, parts[i]!, next);
      target = next;
    }
    const last = parts[parts.length - 1]!;
    const v = isPlainObject(value) ? expandDottedKeys(value) : value;
    const existing = getOwn(target, last);
    setOwn(target, last, isPlainObject(existing) && isPlainObject(v) ? { ...existing, ...v } : v);
  }
  return out;
}

function scalarString(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

export class ComponentSettings {
  private readonly values: Readonly<Record<string, unknown>>;

  constructor(values: Readonly<Record<string, unknown>>) {
    this.values = values;
  }

  has(key: string): boolean {
    const v = this.values[key];
    return v !== undefined && v !== null;
  }

  /** A scalar setting as a string (Settings.get), or undefined. */
  getString(key: string): string | undefined {
    const v = this.values[key];
    if (v === undefined || v === null) return undefined;
    if (Array.isArray(v)) return v.length === 0 ? undefined : (scalarString(v[0]) ?? undefined);
    return scalarString(v) ?? undefined;
  }

  /** Settings.getAsInt. */
  getInt(key: string, defaultValue: number): number {
    const s = this.getString(key);
    if (s === undefined) return defaultValue;
    if (!/^[+-]?\d+$/.test(s)) throw settingsException(`Failed to parse int setting [${key}] with value [${s}]`);
    const n = Number(s);
    if (n > 2147483647 || n < -2147483648) throw settingsException(`Failed to parse int setting [${key}] with value [${s}]`);
    return n;
  }

  /** Settings.getAsBoolean (strict, as for indices created on 6.x). */
  getBoolean(key: string, defaultValue: boolean): boolean {
    const s = this.getString(key);
    if (s === undefined) return defaultValue;
    if (s === 'true') return true;
    if (s === 'false') return false;
    throw illegalArgument(`Failed to parse value [${s}] as only [true] or [false] are allowed.`);
  }

  /** Settings.getAsList: a JSON array, or a comma-separated string; empty when absent. */
  getList(key: string): string[] {
    const v = this.values[key];
    if (v === undefined || v === null) return [];
    if (Array.isArray(v)) {
      const out: string[] = [];
      for (const item of v) {
        const s = scalarString(item);
        if (s !== null) out.push(s);
      }
      return out;
    }
    const s = scalarString(v);
    if (s === null) return [];
    return s
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p.length > 0);
  }

  /** A list whose entries may contain commas (synonym and mapping rules): an array, or one string as one entry. */
  getEntries(key: string): string[] {
    const v = this.values[key];
    if (Array.isArray(v)) return this.getList(key);
    const s = scalarString(v);
    return s === null ? [] : [s];
  }

  /** The raw definition, for error messages that print it. */
  raw(): Readonly<Record<string, unknown>> {
    return this.values;
  }
}

/**
 * An anonymous definition as Elasticsearch prints its Settings in messages:
 * flat keys in sorted order, every value a string (`{"max_gram":"3","type":"ngram"}`).
 */
export function printSettings(def: Readonly<Record<string, unknown>>): string {
  const flat = new Map<string, string | string[]>();
  const walk = (prefix: string, v: unknown): void => {
    if (isPlainObject(v)) {
      for (const [k, child] of Object.entries(v)) walk(prefix === '' ? k : `${prefix}.${k}`, child);
    } else if (Array.isArray(v)) {
      flat.set(prefix, v.map((x) => scalarString(x) ?? JSON.stringify(x as Json)));
    } else if (v !== undefined) {
      flat.set(prefix, scalarString(v) ?? 'null');
    }
  };
  walk('', def);
  const sorted: Record<string, string | string[]> = {};
  for (const key of [...flat.keys()].sort()) setOwn(sorted, key, flat.get(key)!);
  return JSON.stringify(sorted);
}
