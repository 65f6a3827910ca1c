/**
 * Dynamic templates (`dynamic_templates` of a root mapping) as Elasticsearch
 * 6.8's DynamicTemplate applies them to a new field: `match`/`unmatch` on the
 * field name, `path_match`/`path_unmatch` on its full path (simple `*`
 * wildcards, or regexes with `match_pattern: regex`), `match_mapping_type` on
 * the JSON type detected, and `{name}` / `{dynamic_type}` substituted in the
 * template's mapping. The first matching template wins.
 */
import type { DynamicTemplateDef } from './mapping-nodes.ts';
import { setOwn } from '../../json/own-keys.ts';
import { simpleMatch } from './simple-match.ts';
import { LinearRegex } from '../regex/linear-regex.ts';

/** Elasticsearch's XContentFieldType names. */
export type DetectedType = 'object' | 'string' | 'long' | 'double' | 'boolean' | 'date' | 'binary';

/** XContentFieldType.defaultMappingType: the field type a template without `type` gives. */
const DEFAULT_MAPPING_TYPE: Readonly<Record<DetectedType, string>> = {
  object: 'object',
  string: 'text',
  long: 'long',
  double: 'float',
  boolean: 'boolean',
  date: 'date',
  binary: 'binary',
};

/** Regex.simpleMatch: `*` matches any run of characters. */
export { simpleMatch };

/** Compiled `match_pattern: regex` patterns; bounded, since every mapping update may bring new ones. */
const regexes = new Map<string, LinearRegex>();
const MAX_CACHED_REGEXES = 256;

/**
 * String.matches (a whole-name match), on the linear-time engine: the pattern
 * comes from a mapping and runs on every new field name. A pattern the engine
 * refuses fails the document that reaches it with a 400; it is not checked
 * when the mapping is put, so a meta log that already holds one replays.
 */
function patternMatch(template: DynamicTemplateDef, pattern: string, text: string): boolean {
  if (!template.regex) return simpleMatch(pattern, text);
  let re = regexes.get(pattern);
  if (re === undefined) {
    re = new LinearRegex(pattern, 0);
    if (regexes.size >= MAX_CACHED_REGEXES) regexes.clear();
    regexes.set(pattern, re);
  }
  return re.matches(text);
}

function matches(t: DynamicTemplateDef, path: string, name: string, type: DetectedType): boolean {
  if (t.pathMatch !== null && !patternMatch(t, t.pathMatch, path)) return false;
  if (t.match !== null && !patternMatch(t, t.match, name)) return false;
  if (t.pathUnmatch !== null && patternMatch(t, t.pathUnmatch, path)) return false;
  if (t.unmatch !== null && patternMatch(t, t.unmatch, name)) return false;
  if (t.matchMappingType !== null && t.matchMappingType !== type) return false;
  return true;
}

function substitute(value: unknown, name: string, dynamicType: string): unknown {
  if (typeof value === 'string') return value.replaceAll('{name}', name).replaceAll('{dynamic_type}', dynamicType).replaceAll('{dynamicType}', dynamicType);
  if (Array.isArray(value)) return value.map((v) => substitute(v, name, dynamicType));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, substitute(k, name, dynamicType) as string, substitute(v, name, dynamicType));
    return out;
  }
  return value;
}

/**
 * The mapping definition the first matching template gives a new field, with
 * its `type` resolved, or null when no template matches.
 */
export function templateMapping(
  templates: readonly DynamicTemplateDef[] | null,
  path: string,
  name: string,
  type: DetectedType,
): Record<string, unknown> | null {
  if (templates === null) return null;
  for (const t of templates) {
    if (!matches(t, path, name, type)) continue;
    const dynamicType = DEFAULT_MAPPING_TYPE[type];
    const def = substitute(t.mapping, name, dynamicType) as Record<string, unknown>;
    if (def.type === undefined) def.type = dynamicType;
    return def;
  }
  return null;
}
