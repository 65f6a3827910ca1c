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
  const parsed = parseLosslessJson(text);
  if (!(parsed instanceof Map)) return text;
  const include = includes.length === 0 ? MATCH_ALL : new PathPatterns(includes);
  const exclude = new PathPatterns(excludes);
  return stringifyLosslessJson(filterObject(parsed, include, '', exclude, excludes.length === 0 ? null : ''));
}
