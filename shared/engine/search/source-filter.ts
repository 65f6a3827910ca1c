/**
 * `_source` filtering with includes/excludes path patterns, as Elasticsearch
 * 6.8's XContentMapValues.filter does it: a pattern (with `*` wildcards)
 * matches a full path or any path below it (`include` keeps `include.field1`);
 * an object is kept when something below it is; excludes win over includes.
 * Used by search hits and the document GET APIs.
 */
import { parseLosslessJson, stringifyLosslessJson } from './lossless-json.ts';
import type { JsonObject, JsonValue } from './lossless-json.ts';
import { simpleMatch } from '../mapping/simple-match.ts';

/**
 * Whether `path` can still grow into a match of `pattern`: it equals a leading
 * part of the pattern, and after the pattern's first `*` anything goes.
 */
function isPrefixOfMatch(pattern: string, path: string): boolean {
  for (let i = 0; i < path.length; i++) {
    if (i >= pattern.length) return false;
    const c = pattern.charCodeAt(i);
    if (c === 0x2a) return true;
    if (c !== path.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * The set of paths one list of patterns accepts (Regex.simpleMatchToAutomaton
 * + makeMatchDotsInFieldNames). Patterns come from requests and match with
 * simpleMatch's pattern × path walk, never a backtracking RegExp.
 */
class PathPatterns {
  private readonly patterns: readonly string[];
  readonly matchAll: boolean;

  constructor(patterns: readonly string[] | null) {
    this.matchAll = patterns === null;
    this.patterns = patterns ?? [];
  }

  private fullMatch(path: string): boolean {
    for (const p of this.patterns) if (simpleMatch(p, path)) return true;
    return false;
  }

  /** Whether `path` is accepted (a pattern matches it or one of its dotted prefixes). */
  accepts(path: string): boolean {
    if (this.matchAll || this.fullMatch(path)) return true;
    for (let i = path.indexOf('.'); i >= 0; i = path.indexOf('.', i + 1)) {
      if (this.fullMatch(path.slice(0, i))) return true;
    }
    return false;
  }

  /** Whether some extension of `path` is accepted (the automaton state is not dead). */
  viable(path: string): boolean {
    if (this.matchAll) return true;
    for (const p of this.patterns) if (isPrefixOfMatch(p, path)) return true;
    return this.accepts(path);
  }
}

const MATCH_ALL = new PathPatterns(null);

function filterObject(
  map: JsonObject,
  include: PathPatterns,
  includePath: string,
  exclude: PathPatterns,
  excludePath: string | null,
): JsonObject {
  const out: JsonObject = new Map();
  for (const [key, value] of map) {
    const inc = includePath + key;
    if (!include.viable(inc)) continue;
    let exc = excludePath === null ? null : excludePath + key;
    if (exc !== null && !exclude.viable(exc)) exc = null;
    if (exc !== null && exclude.accepts(exc)) continue;

    let subInclude = include;
    let subIncludePath = inc;
    const included = include.accepts(inc);
    if (included) {
      if (exc === null || !exclude.viable(exc + '.')) {
        out.set(key, value);
        continue;
      }
      // The object matched: only the excludes matter below it.
      subInclude = MATCH_ALL;
      subIncludePath = '';
    }
    if (value instanceof Map) {
      subIncludePath += '.';
      if (!subInclude.viable(subIncludePath)) continue;
      const excBelow = exc === null ? null : exc + '.';
      const filtered = filterObject(value, subInclude, subIncludePath, exclude, excBelow !== null && exclude.viable(excBelow) ? excBelow : null);
      if (included || filtered.size > 0) out.set(key, filtered);
    } else if (Array.isArray(value)) {
      const filtered = filterArray(value, subInclude, subIncludePath, exclude, exc);
      if (filtered.length > 0) out.set(key, filtered);
    } else if (included && (exc === null || !exclude.accepts(exc))) {
      out.set(key, value);
    }
  }
  return out;
}

function filterArray(
  values: readonly JsonValue[],
  include: PathPatterns,
  includePath: string,
  exclude: PathPatterns,
  excludePath: string | null,
): JsonValue[] {
  const out: JsonValue[] = [];
  const isInclude = include.accepts(includePath);
  for (const value of values) {
    if (value instanceof Map) {
      const inc = includePath + '.';
      if (!include.viable(inc)) continue;
      const exc = excludePath === null ? null : excludePath + '.';
      const filtered = filterObject(value, include, inc, exclude, exc !== null && exclude.viable(exc) ? exc : null);
      if (filtered.size > 0) out.push(filtered);
    } else if (Array.isArray(value)) {
      const filtered = filterArray(value, include, includePath, exclude, excludePath);
      if (filtered.length > 0) out.push(filtered);
    } else if (isInclude) {
      out.push(value);
    }
  }
  return out;
}

/**
 * The source filtered by includes/excludes, as JSON text. Empty includes mean
 * everything; numbers are copied as written (big integers stay exact).
 */
export function filterSource(source: Buffer | string, includes: readonly string[], excludes: readonly string[]): string {
  const text = typeof source === 'string' ? source : source.toString('utf8');
  if (includes.length === 0 && excludes.length === 0) return text;
  if (excludes.length === 0 && includes.every(isPlainName)) {
    let fast: string | null = null;
    try {
      fast = topLevelMembers(text, includes);
    } catch {
      // a string JSON.parse refuses: the general path says how
    }
    if (fast !== null) return fast;
  }
  const parsed = parseLosslessJson(text);
  if (!(parsed instanceof Map)) return text;
  const include = includes.length === 0 ? MATCH_ALL : new PathPatterns(includes);
  const exclude = new PathPatterns(excludes);
  return stringifyLosslessJson(filterObject(parsed, include, '', exclude, excludes.length === 0 ? null : ''));
}

/** An include that names one top-level field: no wildcard, no dot. */
function isPlainName(p: string): boolean {
  return p.length > 0 && !p.includes('*') && !p.includes('.');
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * `_source` filtered to top-level fields named exactly, without building
 * the document (the trajectory's `_source: ["land_id", "speed"]` over
 * thousands of hits): one scan of the top-level members, copying the kept
 * ones as filterObject + stringifyLosslessJson would write them. Null when
 * the source needs the general path: not an object, a dotted or repeated
 * key, an object or array under a key that may be kept, anything unexpected.
 */
function topLevelMembers(text: string, names: readonly string[]): string | null {
  const n = text.length;
  let i = skipWs(text, 0);
  if (text.charCodeAt(i) !== 0x7b) return null;
  i = skipWs(text, i + 1);
  const out: string[] = [];
  let seen: Set<string> | null = null;
  if (text.charCodeAt(i) === 0x7d) return skipWs(text, i + 1) === n ? '{}' : null;
  for (;;) {
    if (text.charCodeAt(i) !== 0x22) return null;
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return null;
    const rawKey = text.slice(i + 1, keyEnd - 1);
    const key = rawKey.includes('\\') ? (JSON.parse(text.slice(i, keyEnd)) as string) : rawKey;
    if (key.includes('.')) return null;
    seen ??= new Set();
    if (seen.has(key)) return null;
    seen.add(key);
    i = skipWs(text, keyEnd);
    if (text.charCodeAt(i) !== 0x3a) return null;
    i = skipWs(text, i + 1);
    const kept = names.includes(key);
    const c = text.charCodeAt(i);
    let valueEnd: number;
    let value: string;
    if (c === 0x7b || c === 0x5b) {
      // A kept object or array, or one that might hold a kept path (`land` before `land_id`): the general path.
      if (kept || names.some((name) => name.startsWith(key))) return null;
      valueEnd = compositeEnd(text, i);
      if (valueEnd < 0) return null;
      value = '';
    } else if (c === 0x22) {
      valueEnd = stringEnd(text, i);
      if (valueEnd < 0) return null;
      value = kept ? JSON.stringify(JSON.parse(text.slice(i, valueEnd)) as string) : '';
    } else if (text.startsWith('true', i) || text.startsWith('null', i)) {
      valueEnd = i + 4;
      value = text.slice(i, valueEnd);
    } else if (text.startsWith('false', i)) {
      valueEnd = i + 5;
      value = 'false';
    } else {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (m === null || m[0] === '') return null;
      valueEnd = i + m[0].length;
      value = m[0];
    }
    if (kept) out.push(`${JSON.stringify(key)}:${value}`);
    i = skipWs(text, valueEnd);
    const sep = text.charCodeAt(i);
    if (sep === 0x7d) return skipWs(text, i + 1) === n ? `{${out.join(',')}}` : null;
    if (sep !== 0x2c) return null;
    i = skipWs(text, i + 1);
  }
}

function skipWs(t: string, i: number): number {
  for (;;) {
    const c = t.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else return i;
  }
}

/** Past the closing quote of the string starting at `i`, or -1. */
function stringEnd(t: string, i: number): number {
  for (let j = i + 1; j < t.length; j++) {
    const c = t.charCodeAt(j);
    if (c === 0x22) return j + 1;
    if (c === 0x5c) j++;
  }
  return -1;
}

/** Past the object or array starting at `i` (strings inside skipped), or -1. */
function compositeEnd(t: string, i: number): number {
  let depth = 0;
  for (let j = i; j < t.length; j++) {
    const c = t.charCodeAt(j);
    if (c === 0x22) {
      j = stringEnd(t, j) - 1;
      if (j < 0) return -1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return -1;
}
