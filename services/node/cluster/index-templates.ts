/**
 * Index templates (`PUT /_template/{name}`): settings, mappings and aliases
 * that indices created later inherit when their name matches one of the
 * template's `index_patterns`. Templates are cluster metadata: a PutTemplate
 * or DeleteTemplate MetaEvent changes them, and an index creation (explicit
 * or automatic) applies the templates in force when its CreateIndex event is
 * applied, so every node builds the same index from the same log.
 *
 * As Elasticsearch 6.8's MetaDataCreateIndexService: the matching templates
 * are applied lowest `order` first, so a higher order overrides a lower one,
 * and the request itself overrides them all; mappings are deep-merged
 * (XContentHelper.mergeDefaults), settings merged by key, aliases added
 * unless the request or a higher-order template already names them
 * (`{index}` in an alias name stands for the new index's name).
 */
import { EsError, actionRequestValidation, isEsError, parsingException } from '../../../shared/errors/es-errors.ts';
import {
  flattenSettingsBody,
  parseIndexSettings,
  settingText,
  structuredSettings,
  type SettingValue,
} from '../../../shared/engine/mapping/index-settings.ts';
import { Mapping } from '../../../shared/engine/mapping/mapping.ts';
import { AnalysisRegistry } from '../../../shared/engine/analysis/registry.ts';
import type { CreateIndexEvent } from '../../../shared/records/meta-event.ts';
import { getOwn, setOwn } from '../../../shared/json/own-keys.ts';
import { simpleMatch } from '../../../shared/engine/mapping/simple-match.ts';

type Json = Record<string, unknown>;

export interface IndexTemplate {
  readonly name: string;
  readonly order: number;
  readonly version: number | null;
  readonly indexPatterns: readonly string[];
  /** Flat `index.*` keys to the JSON values given (types kept for analysis settings). */
  readonly settings: Readonly<Json>;
  /** `{type: mapping}`, as given. */
  readonly mappings: Readonly<Json>;
  /** `{alias: {filter, routing, ...}}`, as given. */
  readonly aliases: Readonly<Json>;
}

export function indexTemplateMissing(name: string): EsError {
  return new EsError('index_template_missing_exception', `index_template [${name}] missing`, 404);
}

function invalidTemplate(name: string, problems: readonly string[]): EsError {
  const lines = problems.map((p, i) => `${i + 1}: ${p};`).join('');
  return new EsError('invalid_index_template_exception', `index_template [${name}] invalid, cause [Validation Failed: ${lines}]`, 400);
}

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function intField(v: unknown, what: string): number {
  const n = typeof v === 'string' && /^[+-]?\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < -2147483648 || n > 2147483647) {
    throw parsingException(`Failed to parse [${what}] of the template: expected an integer, got [${String(v)}]`);
  }
  return n;
}

/** Strings.INVALID_FILENAME_CHARS without `*`, in the order Elasticsearch prints the set. */
const INVALID_PATTERN_CHARS = ['\\', '/', '?', '"', '<', '>', '|', ' ', ','];
const INVALID_CHARS_TEXT = '[ , ", *, \\, <, |, ,, >, /, ?]';

/**
 * A `PUT /_template/{name}` body as PutIndexTemplateRequest.source reads
 * it, validated as MetaDataIndexTemplateService.validate does (the name,
 * the patterns, the settings) and with its mappings checked against its
 * own analysis settings. `order` (a URL parameter) applies unless the body
 * has one. Throws the error the request answers with.
 */
export function parseTemplateRequest(name: string, body: unknown, opts: { readonly order?: number; readonly typeless?: boolean } = {}): IndexTemplate {
  if (!isObject(body)) throw parsingException('request body is required');
  let order = opts.order ?? 0;
  let version: number | null = null;
  let patterns: string[] | null = null;
  let settings = new Map<string, unknown>();
  let mappings: Json = {};
  let aliases: Json = {};
  for (const key of Object.keys(body)) {
    const v = getOwn(body, key);
    switch (key) {
      case 'template':
      case 'index_patterns':
        if (typeof v === 'string') patterns = [v];
        else if (Array.isArray(v) && v.every((p) => typeof p === 'string')) patterns = v as string[];
        else throw new EsError('illegal_argument_exception', 'Malformed [index_patterns] value, should be a string or a list of strings', 400);
        break;
      case 'order':
        order = intField(v, 'order');
        break;
      case 'version':
        version = v === null ? null : intField(v, 'version');
        break;
      case 'settings':
        if (v !== null && !isObject(v)) throw parsingException('Failed to parse [settings] of the template: expected an object');
        settings = flattenSettingsBody(v ?? {});
        break;
      case 'mappings':
        if (v !== null && !isObject(v)) throw parsingException('Failed to parse [mappings] of the template: expected an object');
        mappings = (v ?? {}) as Json;
        if (opts.typeless && Object.keys(mappings).length > 0) mappings = { _doc: mappings };
        break;
      case 'aliases':
        if (v !== null && !isObject(v)) throw parsingException('Failed to parse [aliases] of the template: expected an object');
        aliases = (v ?? {}) as Json;
        break;
      default:
        throw new EsError('parse_exception', `unknown key [${key}] in the template `, 400);
    }
  }
  if (patterns === null || patterns.length === 0) throw actionRequestValidation(['index patterns are missing']);
  for (const [k, v] of [...settings]) if (v === null) settings.delete(k);

  const problems: string[] = [];
  if (name.includes(' ')) problems.push('name must not contain a space');
  if (name.includes(',')) problems.push("name must not contain a ','");
  if (name.includes('#')) problems.push("name must not contain a '#'");
  if (name.startsWith('_')) problems.push("name must not start with '_'");
  if (name.toLowerCase() !== name) problems.push('name must be lower cased');
  for (const p of patterns) {
    if (p.includes(' ')) problems.push('template must not contain a space');
    if (p.includes(',')) problems.push("template must not contain a ','");
    if (p.includes('#')) problems.push("template must not contain a '#'");
    if (p.startsWith('_')) problems.push("template must not start with '_'");
    if (INVALID_PATTERN_CHARS.some((c) => p.includes(c))) problems.push(`template must not contain the following characters ${INVALID_CHARS_TEXT}`);
  }
  const settingsObj: Json = {};
  for (const [k, v] of settings) setOwn(settingsObj, k, v);
  let analyzers = AnalysisRegistry.builtins;
  try {
    const parsed = parseIndexSettings(settingsObj);
    analyzers = AnalysisRegistry.fromIndexSettings(parsed.analysis, { maxNgramDiff: parsed.maxNgramDiff });
  } catch (err) {
    if (!isEsError(err)) throw err;
    problems.push(err.reason);
  }
  if (problems.length > 0) throw invalidTemplate(name, problems);

  for (const type of Object.keys(mappings)) {
    const m = getOwn(mappings, type);
    if (!isObject(m)) throw new EsError('mapper_parsing_exception', `Failed to parse mapping [${type}]: Expected map for property [${type}]`, 400);
    // Throws the mapper_parsing_exception an index created from the template would get.
    Mapping.fromJSON(type, m, { analyzerExists: (n: string) => analyzers.get(n) !== undefined });
  }
  for (const alias of Object.keys(aliases)) {
    const spec = getOwn(aliases, alias);
    if (spec !== null && !isObject(spec)) throw parsingException(`Failed to parse alias [${alias}] of the template: expected an object`);
  }
  return { name, order, version, indexPatterns: patterns, settings: settingsObj, mappings, aliases };
}

/** The template as the PutTemplate event carries it. */
export function templateToJson(t: IndexTemplate): string {
  return JSON.stringify({
    order: t.order,
    version: t.version,
    index_patterns: t.indexPatterns,
    settings: t.settings,
    mappings: t.mappings,
    aliases: t.aliases,
  });
}

export function templateFromJson(name: string, json: string): IndexTemplate {
  const o = JSON.parse(json) as Json;
  return {
    name,
    order: o.order as number,
    version: (o.version as number | null) ?? null,
    indexPatterns: o.index_patterns as string[],
    settings: o.settings as Json,
    mappings: o.mappings as Json,
    aliases: o.aliases as Json,
  };
}

/** The templates whose patterns match an index name, highest order first (Elasticsearch's findTemplates). */
export function matchingTemplates(templates: Iterable<IndexTemplate>, index: string): IndexTemplate[] {
  const out: IndexTemplate[] = [];
  for (const t of templates) if (t.indexPatterns.some((p) => simpleMatch(p, index))) out.push(t);
  // A stable sort keeps templates of equal order in name order, so every node picks the same.
  return out.sort((a, b) => b.order - a.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * XContentHelper.mergeDefaults: `defaults` fills in what `content` lacks,
 * objects merge recursively, lists of single-key objects (dynamic
 * templates) merge by key with content's entries first.
 */
export function mergeDefaults(content: Json, defaults: Json): void {
  for (const key of Object.keys(defaults)) {
    const d = getOwn(defaults, key);
    const c = getOwn(content, key);
    if (c === undefined) {
      setOwn(content, key, structuredClone(d));
    } else if (isObject(c) && isObject(d)) {
      mergeDefaults(c, d);
    } else if (Array.isArray(c) && Array.isArray(d)) {
      setOwn(content, key, mergeLists(c, d));
    }
  }
}

function singleKeyObjects(list: readonly unknown[]): list is Json[] {
  return list.every((o) => isObject(o) && Object.keys(o).length === 1);
}

function mergeLists(content: unknown[], defaults: unknown[]): unknown[] {
  if (singleKeyObjects(content) && singleKeyObjects(defaults)) {
    const byKey = new Map<string, Json>();
    for (const o of content) byKey.set(Object.keys(o)[0]!, o);
    for (const o of defaults) {
      const key = Object.keys(o)[0]!;
      const existing = byKey.get(key);
      if (existing) mergeDefaults(existing, o);
      else byKey.set(key, structuredClone(o));
    }
    return [...byKey.values()];
  }
  const merged: unknown[] = structuredClone(defaults);
  const seen = new Set(merged.map((v) => JSON.stringify(v)));
  for (const v of content) if (!seen.has(JSON.stringify(v))) merged.push(v);
  return merged;
}

/**
 * The creation request with the matching templates applied (`templates`
 * highest order first, as matchingTemplates gives them).
 */
export function applyTemplates(c: CreateIndexEvent, templates: readonly IndexTemplate[]): CreateIndexEvent {
  if (templates.length === 0) return c;
  const settings: Json = {};
  for (let i = templates.length - 1; i >= 0; i--) {
    for (const key of Object.keys(templates[i]!.settings)) setOwn(settings, key, getOwn(templates[i]!.settings, key));
  }
  for (const [key, value] of flattenSettingsBody(JSON.parse(c.settings_json))) setOwn(settings, key, value);
  for (const key of Object.keys(settings)) if (getOwn(settings, key) === null) delete settings[key];

  const mappings = JSON.parse(c.mappings_json) as Json;
  for (const t of templates) {
    for (const type of Object.keys(t.mappings)) {
      const mine = getOwn(mappings, type);
      const theirs = getOwn(t.mappings, type) as Json;
      if (isObject(mine)) mergeDefaults(mine, theirs);
      else setOwn(mappings, type, structuredClone(theirs));
    }
  }

  const aliases = JSON.parse(c.aliases_json) as Json;
  for (const t of templates) {
    for (const name of Object.keys(t.aliases)) {
      const alias = name.replaceAll('{index}', c.index);
      if (getOwn(aliases, alias) === undefined) setOwn(aliases, alias, structuredClone(getOwn(t.aliases, name) ?? {}));
    }
  }
  return { ...c, settings_json: JSON.stringify(settings), mappings_json: JSON.stringify(mappings), aliases_json: JSON.stringify(aliases) };
}

/** A template as `GET /_template` prints it (IndexTemplateMetaData.Builder.toXContent). */
export function renderTemplate(t: IndexTemplate, opts: { readonly flatSettings: boolean; readonly includeTypeName: boolean }): Json {
  const texts: Record<string, SettingValue> = {};
  for (const key of Object.keys(t.settings)) {
    const text = settingText(getOwn(t.settings, key));
    if (text !== null) setOwn(texts, key, text);
  }
  const out: Json = { order: t.order };
  if (t.version !== null) out.version = t.version;
  out.index_patterns = t.indexPatterns;
  out.settings = opts.flatSettings ? sortedKeys(texts) : structuredSettings(texts);
  const types = Object.keys(t.mappings);
  if (!opts.includeTypeName) out.mappings = types.length === 1 ? getOwn(t.mappings, types[0]!) : {};
  else out.mappings = t.mappings;
  out.aliases = t.aliases;
  return out;
}

function sortedKeys(o: Record<string, SettingValue>): Record<string, SettingValue> {
  const out: Record<string, SettingValue> = {};
  for (const k of Object.keys(o).sort()) setOwn(out, k, o[k]!);
  return out;
}

/** Names of templates that `pattern` (a name or a wildcard pattern) selects. */
export function templatesMatching(names: Iterable<string>, pattern: string): string[] {
  const p = pattern === '_all' ? '*' : pattern;
  return [...names].filter((n) => simpleMatch(p, n)).sort();
}
