/**
 * The `_search` request: body (SearchSourceBuilder.parseXContent) and URL
 * parameters (RestSearchAction.parseSearchSource) merged into one
 * ParsedSearch, with Elasticsearch 6.8's validation errors.
 *
 * The body may be given as JSON text or bytes (errors then carry the exact
 * line/col) or as an already parsed object (located as compact JSON).
 */
import { illegalArgument } from '../../errors/es-errors.ts';
import type { ParsedSearch, ScriptFieldSpec, SortSpec, SortValue, SourceSpec } from '../../engine/search/types.ts';
import { parseScriptSpec, type ScriptSpec } from '../../script/script-spec.ts';
import type { TermVectorsSpec } from '../../engine/search/term-vectors.ts';
import { parseHighlight } from './highlight-spec.ts';
import type { HighlightSpec } from '../../engine/search/highlight-options.ts';
import type { CollapseInnerHits, CollapseSpec } from '../../engine/search/collapse.ts';
import { DslQuery } from './build-query.ts';
import { DslReader, tokenName } from './dsl-reader.ts';
import type { Json, JsonMap } from './json-source.ts';
import { jsonSourceOf } from './json-source.ts';
import { parseOperator } from './parse-field-queries.ts';
import { parseInnerQuery } from './parse-query.ts';
import type { QueryBuilder } from './query-builders.ts';
import { parseSortSpecs, sortFromUrl } from './sort-spec.ts';
import { parseSuggest } from '../suggest/parse-suggest.ts';
import type { SuggestRequest } from '../../engine/suggest/types.ts';

/** Elasticsearch's default page size. */
export const DEFAULT_SIZE = 10;
/** RescorerBuilder.DEFAULT_WINDOW_SIZE. */
const DEFAULT_RESCORE_WINDOW = 10;

export interface SearchUrlParams {
  q?: string;
  df?: string;
  defaultOperator?: string;
  analyzer?: string;
  /** `lenient` for `q` (format errors on numeric/date fields match nothing). */
  lenient?: boolean;
  analyzeWildcard?: boolean;
  from?: number;
  size?: number;
  /** `"f:desc,g"`. */
  sort?: string;
  source?: string | boolean;
  sourceIncludes?: string[];
  sourceExcludes?: string[];
  trackScores?: boolean;
  terminateAfter?: number;
  version?: boolean;
  explain?: boolean;
  /**
   * Not a URL parameter: `_termvectors` asks the fetch phase for the hits'
   * term vectors through it (it travels to every copy with the parameters).
   */
  termVectors?: TermVectorsSpec;
}

const MATCH_ALL: QueryBuilder = { type: 'match_all', boost: 1, name: null };

function stringArray(r: DslReader, container: JsonMap, key: string): string[] {
  const v = container[key];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) {
    return v.map((item, i) => {
      if (typeof item !== 'string') throw r.errorAt(v, i, `Unknown key for a ${tokenName(item)} in [${key}].`);
      return item;
    });
  }
  throw r.errorAt(container, key, `Unknown key for a ${tokenName(v)} in [${key}].`);
}

/** FetchSourceContext.fromXContent. */
function parseSourceSpec(r: DslReader, body: JsonMap, key: string): SourceSpec {
  const v = body[key];
  if (typeof v === 'boolean') return { fetch: v, includes: [], excludes: [] };
  if (typeof v === 'string' || Array.isArray(v)) return { fetch: true, includes: stringArray(r, body, key), excludes: [] };
  if (r.isMap(v)) {
    let includes: string[] = [];
    let excludes: string[] = [];
    for (const k of Object.keys(v)) {
      if (k === 'includes' || k === 'include') includes = stringArray(r, v, k);
      else if (k === 'excludes' || k === 'exclude') excludes = stringArray(r, v, k);
      else throw r.errorAt(v, k, `Unknown key for a ${tokenName(v[k])} in [${k}].`);
    }
    return { fetch: true, includes, excludes };
  }
  throw r.errorAt(
    body,
    key,
    `Expected one of [VALUE_BOOLEAN, VALUE_STRING, START_ARRAY, START_OBJECT] but found [${tokenName(v)}]`,
  );
}

function parseIndicesBoost(r: DslReader, body: JsonMap, key: string): { index: string; boost: number }[] {
  const v = body[key];
  const out: { index: string; boost: number }[] = [];
  const addFrom = (m: JsonMap): void => {
    for (const k of Object.keys(m)) out.push({ index: k, boost: r.float(m, k) });
  };
  if (r.isMap(v)) addFrom(v);
  else if (Array.isArray(v)) {
    v.forEach((item, i) => {
      if (!r.isMap(item)) throw r.errorAt(v, i, `Expected [START_OBJECT] in [${key}] but found [${tokenName(item)}]`);
      addFrom(item);
    });
  } else throw r.errorAt(body, key, `Unknown key for a ${tokenName(v)} in [${key}].`);
  return out;
}

function sortValueOf(v: Json): SortValue {
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  throw illegalArgument(`Can't handle search_after field value of type [${Array.isArray(v) ? 'ArrayList' : 'HashMap'}]`);
}

function nonNegativeInt(r: DslReader, body: JsonMap, key: string): number {
  const v = body[key];
  if (typeof v !== 'number' && typeof v !== 'string') throw r.errorAt(body, key, `Unknown key for a ${tokenName(v)} in [${key}].`);
  return r.int(body, key);
}

export function parseSearchBody(body: unknown, params: SearchUrlParams = {}): ParsedSearch {
  let query: QueryBuilder | null = null;
  let postFilter: QueryBuilder | null = null;
  let from = -1;
  let size = -1;
  let sort: SortSpec[] | null = null;
  let trackScores = false;
  let searchAfter: SortValue[] | null = null;
  let terminateAfter = 0;
  let minScore: number | null = null;
  let version = false;
  let explain = false;
  let highlight: HighlightSpec | null = null;
  let collapse: CollapseSpec | null = null;
  let source: SourceSpec | null = null;
  let storedFields: string[] | null = null;
  let docvalueFields: string[] = [];
  let aggregations: Record<string, unknown> | null = null;
  let timeout: string | null = null;
  let indicesBoost: { index: string; boost: number }[] = [];
  let rescoreWindow: number | null = null;
  let scriptFields: string[] = [];
  let scriptFieldSpecs: ScriptFieldSpec[] = [];
  let suggest: SuggestRequest | null = null;

  const empty = body === undefined || body === null || (typeof body === 'string' && body.trim() === '') || (Buffer.isBuffer(body) && body.length === 0);
  if (!empty) {
    const src = jsonSourceOf(body);
    const r = new DslReader(src);
    const root = src.root;
    if (!r.isMap(root)) throw r.errorOf({}, `Expected [START_OBJECT] but found [${tokenName(root)}]`);
    for (const key of Object.keys(root)) {
      const v = root[key];
      switch (key) {
        case 'query':
          if (!r.isMap(v)) throw r.errorAt(root, key, `Unknown key for a ${tokenName(v)} in [${key}].`);
          query = parseInnerQuery(r, root, key);
          break;
        case 'post_filter':
          if (!r.isMap(v)) throw r.errorAt(root, key, `Unknown key for a ${tokenName(v)} in [${key}].`);
          postFilter = parseInnerQuery(r, root, key);
          break;
        case 'from':
          from = nonNegativeInt(r, root, key);
          break;
        case 'size':
          size = nonNegativeInt(r, root, key);
          if (size < 0) throw illegalArgument(`[size] parameter cannot be negative, found [${size}]`);
          break;
        case 'timeout':
          timeout = r.text(root, key);
          break;
        case 'terminate_after':
          terminateAfter = nonNegativeInt(r, root, key);
          if (terminateAfter <= 0) throw illegalArgument('terminateAfter must be > 0');
          break;
        case 'min_score':
          minScore = r.float(root, key);
          break;
        case 'version':
          version = r.bool(root, key);
          break;
        case 'explain':
          explain = r.bool(root, key);
          break;
        case 'profile':
        case 'seq_no_primary_term':
          r.bool(root, key);
          break;
        case 'track_scores':
          trackScores = r.bool(root, key);
          break;
        case 'track_total_hits':
          r.bool(root, key);
          break;
        case '_source':
          source = parseSourceSpec(r, root, key);
          break;
        case 'stored_fields':
        case 'fields':
          storedFields = stringArray(r, root, key);
          break;
        case 'docvalue_fields':
        case 'fielddata_fields': {
          if (!Array.isArray(v)) throw r.errorAt(root, key, `Expected [START_ARRAY] in [${key}] but found [${tokenName(v)}]`);
          docvalueFields = v.map((item, i) => {
            if (typeof item === 'string') return item;
            if (r.isMap(item) && typeof item.field === 'string') return item.field;
            throw r.errorAt(v, i, `Expected [VALUE_STRING] or [START_OBJECT] in [${key}] but found [${tokenName(item)}]`);
          });
          break;
        }
        case 'sort':
          sort = parseSortSpecs(r, root, key);
          break;
        case 'search_after':
          if (!Array.isArray(v)) throw r.errorAt(root, key, `Unknown key for a ${tokenName(v)} in [${key}].`);
          searchAfter = v.map(sortValueOf);
          break;
        case 'aggregations':
        case 'aggs':
          if (!r.isMap(v)) throw r.errorAt(root, key, `Unknown key for a ${tokenName(v)} in [${key}].`);
          aggregations = v;
          break;
        case 'indices_boost':
          indicesBoost = parseIndicesBoost(r, root, key);
          break;
        case 'rescore': {
          const list = Array.isArray(v) ? v : [v];
          for (let i = 0; i < list.length; i++) {
            const item = list[i];
            if (!r.isMap(item)) throw r.errorAt(Array.isArray(v) ? v : root, Array.isArray(v) ? i : key, `rescore doesn't support [${tokenName(item)}]`);
            const w = item.window_size === undefined ? DEFAULT_RESCORE_WINDOW : r.int(item, 'window_size');
            rescoreWindow = Math.max(rescoreWindow ?? 0, w);
          }
          break;
        }
        case 'script_fields':
          if (!r.isMap(v)) throw r.errorAt(root, key, `Expected [START_OBJECT] in [${key}] but found [${tokenName(v)}]`);
          scriptFields = Object.keys(v);
          scriptFieldSpecs = scriptFields.map((name) => parseScriptField(r, v, name));
          break;
        case 'highlight':
          highlight = parseHighlight(v, (container, k) => {
            if (!r.isMap(container[k] as Json)) throw r.errorAt(container as JsonMap, k, `Unknown key for a ${tokenName(container[k] as Json)} in [${k}].`);
            return new DslQuery(parseInnerQuery(r, container as JsonMap, k));
          });
          break;
        case 'suggest':
          suggest = parseSuggest(r, root, key);
          break;
        case 'collapse':
          collapse = parseCollapse(r, root, key);
          break;
        case 'stats':
        case 'ext':
        case 'slice':
          // Accepted and ignored: not implemented by this engine.
          break;
        default:
          throw r.errorAt(root, key, `Unknown key for a ${tokenName(v)} in [${key}].`);
      }
    }
  }

  // URL parameters (RestSearchAction.parseSearchSource): they override the body.
  if (params.q !== undefined) {
    query = {
      type: 'query_string',
      query: params.q,
      defaultField: params.df ?? null,
      fields: [],
      defaultOperator: params.defaultOperator === undefined ? 'OR' : parseOperator(params.defaultOperator),
      analyzer: params.analyzer ?? null,
      lenient: params.lenient ?? null,
      phraseSlop: 0,
      analyzeWildcard: params.analyzeWildcard ?? false,
      minimumShouldMatch: null,
      tieBreaker: 0,
      allowLeadingWildcard: true,
      boost: 1,
      name: null,
    };
  }
  if (params.from !== undefined) {
    if (params.from < 0) throw illegalArgument('[from] parameter cannot be negative');
    from = params.from;
  }
  if (params.size !== undefined) {
    if (params.size < 0) throw illegalArgument(`[size] parameter cannot be negative, found [${params.size}]`);
    size = params.size;
  }
  if (params.sort !== undefined && params.sort !== '') sort = [...(sort ?? []), ...sortFromUrl(params.sort)];
  if (params.trackScores !== undefined) trackScores = params.trackScores;
  if (params.version !== undefined) version = params.version;
  if (params.explain !== undefined) explain = params.explain;
  if (params.terminateAfter !== undefined) {
    if (params.terminateAfter < 0) throw illegalArgument('terminateAfter must be > 0');
    terminateAfter = params.terminateAfter;
  }
  const urlSource = sourceFromUrl(params);
  if (urlSource !== null) source = urlSource;
  if (source === null) {
    // stored_fields without `_source` turns source fetching off (StoredFieldsContext).
    const fetch = storedFields === null || storedFields.includes('_source');
    source = { fetch, includes: [], excludes: [] };
  }
  if (from < 0) from = 0;
  if (size < 0) size = DEFAULT_SIZE;

  return {
    query: new DslQuery(query ?? MATCH_ALL),
    postFilter: postFilter === null ? null : new DslQuery(postFilter),
    from,
    size,
    sort,
    trackScores,
    searchAfter,
    terminateAfter,
    minScore,
    version,
    explain,
    collapse,
    highlight,
    termVectors: params.termVectors ?? null,
    source,
    storedFields,
    docvalueFields,
    aggregations,
    timeout,
    indicesBoost,
    rescoreWindow,
    scriptFields,
    scriptFieldSpecs,
    suggest,
  };
}

/** `collapse` (CollapseBuilder): `field`, `inner_hits` (one or a list), `max_concurrent_group_searches`. */
function parseCollapse(r: DslReader, container: JsonMap, key: string): CollapseSpec {
  const v = container[key];
  if (!r.isMap(v)) throw r.errorAt(container, key, `[collapse] failed to parse field [${key}]`);
  let field: string | null = null;
  let innerHits: CollapseInnerHits[] = [];
  let maxConcurrent: number | null = null;
  for (const k of Object.keys(v)) {
    const x = v[k];
    if (k === 'field') field = r.text(v, k);
    else if (k === 'max_concurrent_group_searches') {
      maxConcurrent = r.int(v, k);
      if (maxConcurrent < 1) throw illegalArgument('maxConcurrentGroupSearches must be positive, was: ' + maxConcurrent);
    } else if (k === 'inner_hits') {
      const list = Array.isArray(x) ? x : [x];
      innerHits = list.map((h, i) => {
        if (!r.isMap(h)) throw r.errorAt(Array.isArray(x) ? x : v, Array.isArray(x) ? i : k, '[inner_hits] must be an object');
        const body: Record<string, unknown> = {};
        let name: string | null = null;
        for (const hk of Object.keys(h)) {
          if (hk === 'name') name = r.text(h, hk);
          else if (hk === 'collapse') throw illegalArgument('[inner_hits] of a collapse cannot collapse again');
          else if (INNER_HITS_KEYS.has(hk)) body[hk] = h[hk];
          else throw r.errorAt(h, hk, `[inner_hits] unknown field [${hk}], parser not found`);
        }
        body.size ??= 3;
        return { name: name ?? '', body };
      });
    } else throw r.errorAt(v, k, `[collapse] unknown field [${k}], parser not found`);
  }
  if (field === null) throw illegalArgument('[collapse] requires [field]');
  const f = field;
  return { field: f, innerHits: innerHits.map((h) => ({ ...h, name: h.name || f })), maxConcurrentGroupSearches: maxConcurrent };
}

/** What an inner_hits definition may hold (InnerHitBuilder). */
const INNER_HITS_KEYS = new Set(['from', 'size', 'sort', '_source', 'version', 'explain', 'docvalue_fields', 'highlight', 'script_fields', 'stored_fields', 'track_scores', 'ignore_unmapped']);

/** One entry of `script_fields` (SearchSourceBuilder.ScriptField): `script`, `ignore_failure`. */
function parseScriptField(r: DslReader, container: JsonMap, name: string): ScriptFieldSpec {
  const v = container[name];
  if (!r.isMap(v)) throw r.errorAt(container, name, `Expected [START_OBJECT] in [script_fields] but found [${tokenName(v)}]`);
  let spec: ScriptSpec | null = null;
  let ignoreFailure = false;
  for (const k of Object.keys(v)) {
    if (k === 'script') spec = parseScriptSpec(v[k]);
    else if (k === 'ignore_failure') ignoreFailure = r.bool(v, k);
    else throw r.errorAt(v, k, `Unknown key for a ${tokenName(v[k])} in [${k}].`);
  }
  if (spec === null) throw r.errorAt(container, name, `Expected [script] in [script_fields] [${name}]`);
  return {
    name,
    source: spec.kind === 'inline' ? spec.source : null,
    storedId: spec.kind === 'stored' ? spec.id : null,
    params: spec.params,
    ignoreFailure,
  };
}

/** FetchSourceContext.parseFromRestRequest; null when no source parameter was given. */
export function sourceFromUrl(params: Pick<SearchUrlParams, 'source' | 'sourceIncludes' | 'sourceExcludes'>): SourceSpec | null {
  let fetch: boolean | null = null;
  let includes: readonly string[] | null = null;
  let excludes: readonly string[] | null = null;
  const s = params.source;
  if (s !== undefined) {
    if (s === true || s === 'true') fetch = true;
    else if (s === false || s === 'false') fetch = false;
    else if (s !== '') includes = s.split(',').filter((x) => x !== '');
  }
  if (params.sourceIncludes !== undefined) includes = params.sourceIncludes;
  if (params.sourceExcludes !== undefined) excludes = params.sourceExcludes;
  if (fetch === null && includes === null && excludes === null) return null;
  return { fetch: fetch ?? true, includes: includes ?? [], excludes: excludes ?? [] };
}

