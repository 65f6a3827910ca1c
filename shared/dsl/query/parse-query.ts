/**
 * The query DSL entry point (AbstractQueryBuilder.parseInnerQueryBuilder) and
 * the compound and field-less queries: `bool`, `constant_score`, `dis_max`,
 * `match_all`, `match_none`, `ids`, `exists`.
 */
import { EsError, illegalArgument } from '../../errors/es-errors.ts';
import { DslReader, tokenName } from './dsl-reader.ts';
import type { Json, JsonMap, JsonSource } from './json-source.ts';
import {
  parseMatch,
  parseMatchPhrase,
  parseMultiMatch,
  parsePrefix,
  parseFuzzy,
  parseQueryString,
  parseRange,
  parseTerm,
  parseTerms,
  parseWildcard,
  parseRegexp,
} from './parse-field-queries.ts';
import type { BoolBuilder, ConstantScoreBuilder, DisMaxBuilder, IdsBuilder, NestedBuilder, NestedInnerHitsSpec, QueryBuilder } from './query-builders.ts';
import type { NestedScoreMode } from '../../engine/search/query.ts';
import { DEFAULT_BOOST } from './query-builders.ts';
import { getOwn } from '../../json/own-keys.ts';
import { parseGeoBoundingBox, parseGeoDistance, parseGeoPolygon } from './geo-queries.ts';
import { parseGeoShape } from './geo-shape-query.ts';

type QueryParser = (r: DslReader, body: JsonMap) => QueryBuilder;

const PARSERS: Readonly<Record<string, QueryParser>> = {
  match_all: (r, b) => parseMatchAllOrNone(r, b, 'match_all'),
  match_none: (r, b) => parseMatchAllOrNone(r, b, 'match_none'),
  match: parseMatch,
  match_phrase: parseMatchPhrase,
  multi_match: parseMultiMatch,
  term: parseTerm,
  terms: parseTerms,
  range: parseRange,
  prefix: parsePrefix,
  fuzzy: parseFuzzy,
  wildcard: parseWildcard,
  regexp: parseRegexp,
  bool: parseBool,
  ids: parseIds,
  exists: parseExists,
  constant_score: parseConstantScore,
  dis_max: parseDisMax,
  query_string: parseQueryString,
  geo_distance: parseGeoDistance,
  geo_bounding_box: parseGeoBoundingBox,
  geo_bbox: parseGeoBoundingBox,
  geo_polygon: parseGeoPolygon,
  geo_shape: parseGeoShape,
  nested: parseNested,
};

/**
 * How deep queries may nest in one another: Elasticsearch 8's default of
 * `indices.query.bool.max_nested_depth` (6.8 has no limit and overflows its
 * stack). Fixed here: shard workers parse bodies again and must agree.
 */
export const MAX_NESTED_QUERY_DEPTH = 30;

/**
 * Parses one query clause: `container[key]` must be `{"<type>": {...}}`.
 * Errors are Elasticsearch's, located in the body.
 */
export function parseInnerQuery(r: DslReader, container: object, key: string | number): QueryBuilder {
  if (r.queryDepth >= MAX_NESTED_QUERY_DEPTH) {
    throw illegalArgument('The nested depth of the query exceeds the maximum nested depth for queries set in [indices.query.bool.max_nested_depth]');
  }
  r.queryDepth++;
  try {
    return parseClause(r, container, key);
  } finally {
    r.queryDepth--;
  }
}

function parseClause(r: DslReader, container: object, key: string | number): QueryBuilder {
  const value = (container as Record<string | number, Json>)[key];
  if (!r.isMap(value)) throw r.errorAt(container, key, '[_na] query malformed, must start with start_object');
  const names = Object.keys(value);
  if (names.length === 0) {
    const l = r.loc(container, key);
    // The location of the closing brace of `{}`.
    throw illegalArgument(`query malformed, empty clause found at [${l.line}:${l.col + 1}]`);
  }
  const name = names[0]!;
  const body = value[name];
  if (!r.isMap(body)) throw r.errorAt(value, name, `[${name}] query malformed, no start_object after query name`);
  const parser = getOwn(PARSERS, name);
  if (parser === undefined) throw r.errorAt(value, name, `no [query] registered for [${name}]`);
  const q = parser(r, body);
  if (names.length > 1) {
    throw r.errorAtKey(value, names[1]!, `[${name}] malformed query, expected [END_OBJECT] but found [FIELD_NAME]`);
  }
  return q;
}

/** Parses a standalone query object (`{"match": {...}}`) from a located source. */
export function parseQuery(src: JsonSource): QueryBuilder {
  return parseInnerQuery(new DslReader(src), { query: src.root }, 'query');
}

function parseMatchAllOrNone(r: DslReader, body: JsonMap, type: 'match_all' | 'match_none'): QueryBuilder {
  let boost = DEFAULT_BOOST;
  let name: string | null = null;
  for (const key of Object.keys(body)) {
    if (key === 'boost') boost = r.float(body, key);
    else if (key === '_name') name = r.text(body, key);
    else throw r.errorAt(body, key, `[${type}] query does not support [${key}]`);
  }
  return { type, boost, name };
}

function parseBool(r: DslReader, body: JsonMap): BoolBuilder {
  const must: QueryBuilder[] = [];
  const filter: QueryBuilder[] = [];
  const should: QueryBuilder[] = [];
  const mustNot: QueryBuilder[] = [];
  let msm: string | null = null;
  let boost = DEFAULT_BOOST;
  let adjustPureNegative = true;
  let name: string | null = null;
  const listFor = (key: string): QueryBuilder[] | null => {
    switch (key) {
      case 'must':
        return must;
      case 'should':
        return should;
      case 'filter':
        return filter;
      case 'must_not':
      case 'mustNot':
        return mustNot;
      default:
        return null;
    }
  };
  for (const key of Object.keys(body)) {
    const v = body[key];
    if (r.isMap(v)) {
      const list = listFor(key);
      if (list === null) throw r.errorAt(body, key, `[bool] query does not support [${key}]`);
      list.push(parseInnerQuery(r, body, key));
    } else if (Array.isArray(v)) {
      const list = listFor(key);
      for (let i = 0; i < v.length; i++) {
        if (list === null) throw r.errorAt(v, i, `bool query does not support [${key}]`);
        list.push(parseInnerQuery(r, v, i));
      }
    } else {
      switch (key) {
        case 'disable_coord':
          break;
        case 'minimum_should_match':
        case 'minimum_number_should_match':
          msm = r.textOrNull(body, key);
          break;
        case 'boost':
          boost = r.float(body, key);
          break;
        case 'adjust_pure_negative':
          adjustPureNegative = r.bool(body, key);
          break;
        case '_name':
          name = r.text(body, key);
          break;
        default:
          throw r.errorAt(body, key, `[bool] query does not support [${key}]`);
      }
    }
  }
  return { type: 'bool', must, filter, should, mustNot, minimumShouldMatch: msm, adjustPureNegative, boost, name };
}

function stringList(r: DslReader, body: JsonMap, key: string, queryName: string): string[] {
  const v = body[key];
  const items = Array.isArray(v) ? v : [v];
  return items.map((item) => {
    if (typeof item === 'string') return item;
    if (typeof item === 'number' || typeof item === 'bigint') return String(item);
    throw r.errorAt(body, key, `[${queryName}] failed to parse field [${key}]`);
  });
}

/** ObjectParser's error for an unknown key (XContentParseException, rendered with its location). */
function unknownField(r: DslReader, body: JsonMap, key: string, queryName: string): EsError {
  const l = r.src.keyAt(body, key);
  return new EsError('x_content_parse_exception', `[${l.line}:${l.col}] [${queryName}] unknown field [${key}], parser not found`, 400);
}

function parseIds(r: DslReader, body: JsonMap): IdsBuilder {
  const types: string[] = [];
  const values: string[] = [];
  let boost = DEFAULT_BOOST;
  let name: string | null = null;
  for (const key of Object.keys(body)) {
    switch (key) {
      case 'type':
      case 'types':
      case '_type':
        types.push(...stringList(r, body, key, 'ids'));
        break;
      case 'values':
        if (!Array.isArray(body[key])) throw r.errorAt(body, key, `[ids] failed to parse field [values]`);
        values.push(...stringList(r, body, key, 'ids'));
        break;
      case 'boost':
        boost = r.float(body, key);
        break;
      case '_name':
        name = r.text(body, key);
        break;
      default:
        throw unknownField(r, body, key, 'ids');
    }
  }
  return { type: 'ids', types, values, boost, name };
}

function parseExists(r: DslReader, body: JsonMap): QueryBuilder {
  let field: string | null = null;
  let boost = DEFAULT_BOOST;
  let name: string | null = null;
  for (const key of Object.keys(body)) {
    const v = body[key];
    if (v !== null && typeof v === 'object') throw r.errorAt(body, key, `[exists] unknown token [${tokenName(v)}] after [${key}]`);
    if (key === 'field') field = r.text(body, key);
    else if (key === 'boost') boost = r.float(body, key);
    else if (key === '_name') name = r.text(body, key);
    else throw r.errorAt(body, key, `[exists] query does not support [${key}]`);
  }
  if (field === null) throw r.errorOf(body, '[exists] must be provided with a [field]');
  return { type: 'exists', field, boost, name };
}

function parseConstantScore(r: DslReader, body: JsonMap): ConstantScoreBuilder {
  let filter: QueryBuilder | null = null;
  let boost = DEFAULT_BOOST;
  let name: string | null = null;
  for (const key of Object.keys(body)) {
    const v = body[key];
    if (r.isMap(v)) {
      if (key !== 'filter') throw r.errorAt(body, key, `[constant_score] query does not support [${key}]`);
      filter = parseInnerQuery(r, body, key);
    } else if (Array.isArray(v)) {
      throw r.errorAt(body, key, `unexpected token [START_ARRAY]`);
    } else if (key === 'boost') boost = r.float(body, key);
    else if (key === '_name') name = r.text(body, key);
    else throw r.errorAt(body, key, `[constant_score] query does not support [${key}]`);
  }
  if (filter === null) throw r.errorOf(body, "[constant_score] requires a 'filter' element");
  return { type: 'constant_score', filter, boost, name };
}

function parseDisMax(r: DslReader, body: JsonMap): DisMaxBuilder {
  const queries: QueryBuilder[] = [];
  let tieBreaker = 0;
  let boost = DEFAULT_BOOST;
  let name: string | null = null;
  let found = false;
  for (const key of Object.keys(body)) {
    const v = body[key];
    if (key === 'queries') {
      found = true;
      if (r.isMap(v)) queries.push(parseInnerQuery(r, body, key));
      else if (Array.isArray(v)) for (let i = 0; i < v.length; i++) queries.push(parseInnerQuery(r, v, i));
      else throw r.errorAt(body, key, `[dis_max] query does not support [${key}]`);
    } else if (key === 'tie_breaker') tieBreaker = r.float(body, key);
    else if (key === 'boost') boost = r.float(body, key);
    else if (key === '_name') name = r.text(body, key);
    else throw r.errorAt(body, key, `[dis_max] query does not support [${key}]`);
  }
  if (!found) throw r.errorOf(body, '[dis_max] requires \'queries\' field with at least one clause');
  return { type: 'dis_max', queries, tieBreaker, boost, name };
}

const SCORE_MODES: ReadonlySet<string> = new Set(['avg', 'sum', 'max', 'min', 'none']);

/** NestedQueryBuilder.fromXContent: `path`, `query`, `score_mode`, `ignore_unmapped`, `inner_hits`, `boost`, `_name`. */
function parseNested(r: DslReader, body: JsonMap): NestedBuilder {
  let path: string | null = null;
  let query: QueryBuilder | null = null;
  let scoreMode: NestedScoreMode = 'avg';
  let ignoreUnmapped = false;
  let innerHits: NestedInnerHitsSpec | null = null;
  let boost = DEFAULT_BOOST;
  let name: string | null = null;
  for (const key of Object.keys(body)) {
    const v = body[key];
    if (key === 'query') query = parseInnerQuery(r, body, key);
    else if (key === 'inner_hits') innerHits = parseNestedInnerHits(r, body, key);
    else if (r.isMap(v) || Array.isArray(v)) throw r.errorAt(body, key, `[nested] query does not support [${key}]`);
    else if (key === 'path') path = r.text(body, key);
    else if (key === 'score_mode') {
      const mode = r.text(body, key);
      // ScoreMode "total" is Lucene's name for sum.
      const m = mode === 'total' ? 'sum' : mode;
      if (!SCORE_MODES.has(m)) throw illegalArgument(`No score mode for child query [${mode}] found`);
      scoreMode = m as NestedScoreMode;
    } else if (key === 'ignore_unmapped') ignoreUnmapped = r.bool(body, key);
    else if (key === 'boost') boost = r.float(body, key);
    else if (key === '_name') name = r.text(body, key);
    else throw r.errorAt(body, key, `[nested] query does not support [${key}]`);
  }
  if (query === null) throw r.errorOf(body, "[nested] requires 'query' field");
  if (path === null) throw r.errorOf(body, "[nested] requires 'path' field");
  return { type: 'nested', path, query, scoreMode, ignoreUnmapped, innerHits, boost, name };
}

/**
 * A nested query's `inner_hits`: `name`, `from`, `size` (3), `_source`
 * (true or false), `version`, `ignore_unmapped`; InnerHitBuilder's other
 * options are refused rather than ignored.
 */
function parseNestedInnerHits(r: DslReader, body: JsonMap, key: string): NestedInnerHitsSpec {
  const v = body[key];
  if (!r.isMap(v)) throw r.errorAt(body, key, '[inner_hits] must be an object');
  let name: string | null = null;
  let from = 0;
  let size = 3;
  let source = true;
  let version = false;
  for (const k of Object.keys(v)) {
    switch (k) {
      case 'name':
        name = r.text(v, k);
        break;
      case 'from':
        from = r.int(v, k);
        break;
      case 'size':
        size = r.int(v, k);
        break;
      case '_source':
        if (typeof v[k] !== 'boolean') throw illegalArgument('[inner_hits] of a nested query supports [_source] as true or false only');
        source = r.bool(v, k);
        break;
      case 'version':
        version = r.bool(v, k);
        break;
      case 'ignore_unmapped':
        r.bool(v, k);
        break;
      default:
        throw illegalArgument(`[inner_hits] option [${k}] is not supported on a nested query (supported: name, from, size, _source, version)`);
    }
  }
  if (from < 0) throw illegalArgument('illegal from value, at least 0 or higher');
  if (size < 0) throw illegalArgument('illegal size value, at least 0 or higher');
  // InnerHitBuilder: from + size may not pass index.max_inner_result_window (100).
  if (from + size > 100) {
    throw illegalArgument(
      `Inner result window is too large, the inner hit definition's [${name ?? ''}]'s from + size must be less than or equal to: [100] but was [${from + size}]. This limit can be set by changing the [index.max_inner_result_window] index level setting.`,
    );
  }
  return { name, from, size, source, version };
}
