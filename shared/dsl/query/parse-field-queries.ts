/**
 * Parsers of the single-field and full-text queries (`term`, `terms`,
 * `range`, `prefix`, `wildcard`, `match`, `match_phrase`, `multi_match`,
 * `query_string`), following Elasticsearch 6.8's `fromXContent` of each
 * builder: same accepted keys, same error texts and locations.
 */
import { EsError, illegalArgument } from '../../errors/es-errors.ts';
import type { DslReader } from './dsl-reader.ts';
import { isScalar, tokenName } from './dsl-reader.ts';
import type { JsonMap } from './json-source.ts';
import type {
  TermsLookup,
  FuzzyBuilder,
  FuzzyOptions,
  DslValue,
  MatchBuilder,
  MatchPhraseBuilder,
  MultiMatchBuilder,
  MultiMatchType,
  Operator,
  PrefixBuilder,
  QueryStringBuilder,
  RangeBuilder,
  TermBuilder,
  TermsBuilder,
  WildcardBuilder,
  RegexpBuilder,
  ZeroTermsQuery,
} from './query-builders.ts';
import { luceneRegex } from '../../engine/regex/lucene-regex.ts';
import { DEFAULT_BOOST } from './query-builders.ts';
import { getOwn } from '../../json/own-keys.ts';

function multipleFields(r: DslReader, body: JsonMap, key: string, name: string, first: string | null): void {
  if (first !== null) throw r.errorAt(body, key, `[${name}] query doesn't support multiple fields, found [${first}] and [${key}]`);
}

/** Operator.fromString. */
export function parseOperator(op: string): Operator {
  const up = op.toUpperCase();
  if (up === 'OR' || up === 'AND') return up;
  throw illegalArgument(`No enum constant org.elasticsearch.index.query.Operator.${up}`);
}

function parseZeroTerms(r: DslReader, body: JsonMap, key: string): ZeroTermsQuery {
  const v = r.text(body, key);
  if (v.toLowerCase() === 'none') return 'NONE';
  if (v.toLowerCase() === 'all') return 'ALL';
  throw r.errorAt(body, key, `Unsupported zero_terms_docs value [${v}]`);
}

function requireField(field: string | null): string {
  if (field === null || field === '') throw illegalArgument('field name is null or empty');
  return field;
}

/**
 * The shape shared by term/prefix/wildcard: `{"f": value}` or
 * `{"f": {"<valueKey>": value, "boost": .., "_name": ..}}`.
 */
function parseSingleValueQuery(
  r: DslReader,
  body: JsonMap,
  name: string,
  valueKeys: readonly string[],
  extra: (inner: JsonMap, key: string) => boolean,
): { field: string; value: DslValue | null; boost: number; queryName: string | null } {
  let field: string | null = null;
  let value: DslValue | null = null;
  let boost = DEFAULT_BOOST;
  let queryName: string | null = null;
  for (const key of Object.keys(body)) {
    const v = body[key];
    if (r.isMap(v)) {
      multipleFields(r, body, key, name, field);
      field = key;
      for (const ik of Object.keys(v)) {
        const iv = v[ik];
        if (valueKeys.includes(ik)) value = r.scalar(v, ik);
        else if (ik === '_name') queryName = r.text(v, ik);
        else if (ik === 'boost') boost = r.float(v, ik);
        else if (!extra(v, ik)) {
          if (iv !== null && typeof iv === 'object') throw r.errorAt(v, ik, `[${name}] unknown token [${tokenName(iv)}] after [${ik}]`);
          throw r.errorAt(v, ik, `[${name}] query does not support [${ik}]`);
        }
      }
    } else if (Array.isArray(v)) {
      throw r.errorAt(body, key, `[${name}] query does not support array of values`);
    } else {
      multipleFields(r, body, key, name, field);
      field = key;
      value = r.scalar(body, key);
    }
  }
  return { field: requireField(field), value, boost, queryName };
}

/** Collects `fuzziness`, `prefix_length`, `max_expansions`, `fuzzy_rewrite`/`rewrite` and `(fuzzy_)transpositions`. */
export class FuzzyReader {
  private fuzziness: string | null = null;
  private prefixLength = 0;
  private maxExpansions = 50;
  private transpositions: boolean;
  private rewrite: string | null = null;

  constructor(
    private readonly r: DslReader,
    defaults: { transpositions: boolean },
  ) {
    this.transpositions = defaults.transpositions;
  }

  /** Reads `container[key]`; false when the key is not a fuzzy option. */
  read(container: JsonMap, key: string): boolean {
    const r = this.r;
    switch (key) {
      case 'fuzziness': {
        const v = r.scalar(container, key);
        this.fuzziness = typeof v === 'bigint' ? v.toString() : String(v);
        return true;
      }
      case 'prefix_length':
        this.prefixLength = r.int(container, key);
        if (this.prefixLength < 0) throw illegalArgument('[prefix_length] cannot be negative');
        return true;
      case 'max_expansions':
        this.maxExpansions = r.int(container, key);
        if (this.maxExpansions <= 0) throw illegalArgument('[max_expansions] must be positive');
        return true;
      case 'fuzzy_rewrite':
      case 'rewrite':
        this.rewrite = r.textOrNull(container, key);
        return true;
      case 'fuzzy_transpositions':
      case 'transpositions':
        this.transpositions = r.bool(container, key);
        return true;
      default:
        return false;
    }
  }

  /** The options, or null when no `fuzziness` was given (the other options then change nothing). */
  options(dfltFuzziness: string | null = null): FuzzyOptions | null {
    const fuzziness = this.fuzziness ?? dfltFuzziness;
    if (fuzziness === null) return null;
    return { fuzziness, prefixLength: this.prefixLength, maxExpansions: this.maxExpansions, transpositions: this.transpositions, rewrite: this.rewrite };
  }
}

/** The `fuzzy` query (FuzzyQueryBuilder: fuzziness AUTO, prefix_length 0, max_expansions 50, transpositions false in 6.x). */
export function parseFuzzy(r: DslReader, body: JsonMap): FuzzyBuilder {
  const fuzzy = new FuzzyReader(r, { transpositions: false });
  const p = parseSingleValueQuery(r, body, 'fuzzy', ['value'], (inner, k) => fuzzy.read(inner, k));
  if (p.value === null) throw illegalArgument('query value cannot be null');
  return { type: 'fuzzy', field: p.field, value: p.value, options: fuzzy.options('AUTO')!, boost: p.boost, name: p.queryName };
}

export function parseTerm(r: DslReader, body: JsonMap): TermBuilder {
  const p = parseSingleValueQuery(r, body, 'term', ['term', 'value'], () => false);
  if (p.value === null) throw illegalArgument('value cannot be null');
  return { type: 'term', field: p.field, value: p.value, boost: p.boost, name: p.queryName };
}

export function parsePrefix(r: DslReader, body: JsonMap): PrefixBuilder {
  let rewrite: string | null = null;
  const p = parseSingleValueQuery(r, body, 'prefix', ['prefix', 'value'], (inner, k) => {
    if (k !== 'rewrite') return false;
    rewrite = r.textOrNull(inner, k);
    return true;
  });
  if (p.value === null) throw illegalArgument('value cannot be null');
  return { type: 'prefix', field: p.field, value: String(p.value), rewrite, boost: p.boost, name: p.queryName };
}

export function parseWildcard(r: DslReader, body: JsonMap): WildcardBuilder {
  let rewrite: string | null = null;
  const p = parseSingleValueQuery(r, body, 'wildcard', ['wildcard', 'value'], (inner, k) => {
    if (k !== 'rewrite') return false;
    rewrite = r.textOrNull(inner, k);
    return true;
  });
  if (p.value === null) throw illegalArgument('value cannot be null');
  return { type: 'wildcard', field: p.field, value: String(p.value), rewrite, boost: p.boost, name: p.queryName };
}

/** Lucene's RegExp flags (RegexpFlag): `flags` names, `|`-separated. */
const REGEXP_FLAGS: Readonly<Record<string, number>> = {
  INTERSECTION: 0x0001,
  COMPLEMENT: 0x0002,
  EMPTY: 0x0004,
  ANYSTRING: 0x0008,
  INTERVAL: 0x0020,
  NONE: 0,
  ALL: 0xffff,
};
/** RegexpFlag.ALL, the default. */
const REGEXP_FLAGS_ALL = 0xffff;
/** Operations.DEFAULT_MAX_DETERMINIZED_STATES. */
const DEFAULT_MAX_DETERMINIZED_STATES = 10_000;

function regexpFlags(names: string): number {
  let out = 0;
  for (const raw of names.split('|')) {
    const name = raw.trim().toUpperCase();
    if (name === '') continue;
    const v = REGEXP_FLAGS[name];
    if (v === undefined) throw illegalArgument(`Unknown regexp flag [${raw.trim()}]`);
    out |= v;
  }
  return out;
}

/**
 * `regexp` (RegexpQueryBuilder). The pattern is read with Lucene's syntax and
 * compiled here, so a pattern the linear-time engine cannot run (or one over
 * its 10,000 states) is a 400 before any shard sees it.
 */
export function parseRegexp(r: DslReader, body: JsonMap): RegexpBuilder {
  let rewrite: string | null = null;
  let flagsValue = REGEXP_FLAGS_ALL;
  let maxDeterminizedStates = DEFAULT_MAX_DETERMINIZED_STATES;
  const p = parseSingleValueQuery(r, body, 'regexp', ['value'], (inner, k) => {
    switch (k) {
      case 'rewrite':
        rewrite = r.textOrNull(inner, k);
        return true;
      case 'flags':
        flagsValue = regexpFlags(r.text(inner, k));
        return true;
      case 'flags_value':
        flagsValue = r.int(inner, k);
        return true;
      case 'max_determinized_states':
        maxDeterminizedStates = r.int(inner, k);
        return true;
      default:
        return false;
    }
  });
  if (p.value === null) throw illegalArgument('value cannot be null');
  const value = String(p.value);
  luceneRegex(value);
  return { type: 'regexp', field: p.field, value, flagsValue, maxDeterminizedStates, rewrite, boost: p.boost, name: p.queryName };
}

export function parseTerms(r: DslReader, body: JsonMap): TermsBuilder {
  let field: string | null = null;
  let values: DslValue[] | null = null;
  let boost = DEFAULT_BOOST;
  let queryName: string | null = null;
  let lookup: TermsLookup | null = null;
  for (const key of Object.keys(body)) {
    const v = body[key];
    if (Array.isArray(v)) {
      if (field !== null) throw r.errorAt(body, key, `[terms] query does not support multiple fields`);
      field = key;
      values = v.map((item, i) => {
        if (item === null) throw illegalArgument('No value specified for terms query');
        if (!isScalar(item)) throw r.errorAt(v, i, `[terms] query does not support [${key}]`);
        return item;
      });
    } else if (r.isMap(v)) {
      if (field !== null) throw r.errorAt(body, key, `[terms] query does not support multiple fields`);
      field = key;
      lookup = parseTermsLookup(r, v);
      values = [];
    } else if (key === 'boost') boost = r.float(body, key);
    else if (key === '_name') queryName = r.text(body, key);
    else throw r.errorAt(body, key, `[terms] query does not support [${key}]`);
  }
  if (field === null) throw r.errorOf(body, '[terms] query requires a field with values');
  return { type: 'terms', field, values: values ?? [], lookup, boost, name: queryName };
}

/** TermsLookup.parseTermsLookup: `index`, `type`, `id`, `path`, `routing`. */
function parseTermsLookup(r: DslReader, v: JsonMap): TermsLookup {
  let index: string | null = null;
  let type: string | null = null;
  let id: string | null = null;
  let path: string | null = null;
  let routing: string | null = null;
  for (const k of Object.keys(v)) {
    switch (k) {
      case 'index':
        index = r.text(v, k);
        break;
      case 'type':
        type = r.text(v, k);
        break;
      case 'id':
        id = String(r.scalar(v, k));
        break;
      case 'path':
        path = r.text(v, k);
        break;
      case 'routing':
        routing = r.textOrNull(v, k);
        break;
      default:
        throw r.errorAt(v, k, `[terms] query does not support [${k}] within lookup element`);
    }
  }
  if (id === null) throw illegalArgument('[terms] query lookup element requires specifying the id.');
  if (path === null) throw illegalArgument('[terms] query lookup element requires specifying the path.');
  if (index === null) throw illegalArgument('[terms] query lookup element requires specifying the index.');
  return { index, type, id, path, routing };
}

export function parseRange(r: DslReader, body: JsonMap): RangeBuilder {
  let field: string | null = null;
  let from: DslValue | null = null;
  let to: DslValue | null = null;
  let includeLower = true;
  let includeUpper = true;
  let timeZone: string | null = null;
  let format: string | null = null;
  let relation: string | null = null;
  let boost = DEFAULT_BOOST;
  let queryName: string | null = null;
  for (const key of Object.keys(body)) {
    const v = body[key];
    if (r.isMap(v)) {
      multipleFields(r, body, key, 'range', field);
      field = key;
      for (const ik of Object.keys(v)) {
        switch (ik) {
          case 'from':
            from = r.scalar(v, ik);
            break;
          case 'to':
            to = r.scalar(v, ik);
            break;
          case 'include_lower':
            includeLower = r.bool(v, ik);
            break;
          case 'include_upper':
            includeUpper = r.bool(v, ik);
            break;
          case 'gt':
            from = r.scalar(v, ik);
            includeLower = false;
            break;
          case 'gte':
            from = r.scalar(v, ik);
            includeLower = true;
            break;
          case 'lt':
            to = r.scalar(v, ik);
            includeUpper = false;
            break;
          case 'lte':
            to = r.scalar(v, ik);
            includeUpper = true;
            break;
          case 'time_zone':
            timeZone = r.text(v, ik);
            break;
          case 'format':
            format = r.text(v, ik);
            break;
          case 'relation':
            relation = r.text(v, ik);
            if (!['intersects', 'contains', 'within'].includes(relation.toLowerCase())) {
              throw illegalArgument(`${relation} is not a valid relation`);
            }
            break;
          case 'boost':
            boost = r.float(v, ik);
            break;
          case '_name':
            queryName = r.text(v, ik);
            break;
          default:
            throw r.errorAt(v, ik, `[range] query does not support [${ik}]`);
        }
      }
    } else if (key === '_name') queryName = r.text(body, key);
    else throw r.errorAt(body, key, `[range] query does not support [${key}]`);
  }
  return {
    type: 'range',
    field: requireField(field),
    from,
    to,
    includeLower,
    includeUpper,
    timeZone,
    format,
    relation,
    boost,
    name: queryName,
  };
}

export function parseMatch(r: DslReader, body: JsonMap): MatchBuilder {
  let field: string | null = null;
  let query: DslValue | null = null;
  let operator: Operator = 'OR';
  let analyzer: string | null = null;
  let msm: string | null = null;
  let lenient = false;
  let zeroTerms: ZeroTermsQuery = 'NONE';
  let boost = DEFAULT_BOOST;
  let queryName: string | null = null;
  const fuzzy = new FuzzyReader(r, { transpositions: true });
  for (const key of Object.keys(body)) {
    const v = body[key];
    if (r.isMap(v)) {
      multipleFields(r, body, key, 'match', field);
      field = key;
      for (const ik of Object.keys(v)) {
        const iv = v[ik];
        if (iv !== null && typeof iv === 'object') throw r.errorAt(v, ik, `[match] unknown token [${tokenName(iv)}] after [${ik}]`);
        switch (ik) {
          case 'query':
            query = r.scalar(v, ik);
            break;
          case 'analyzer':
            analyzer = r.text(v, ik);
            break;
          case 'boost':
            boost = r.float(v, ik);
            break;
          case 'operator':
            operator = parseOperator(r.text(v, ik));
            break;
          case 'minimum_should_match':
            msm = r.textOrNull(v, ik);
            break;
          case 'lenient':
            lenient = r.bool(v, ik);
            break;
          case 'zero_terms_query':
            zeroTerms = parseZeroTerms(r, v, ik);
            break;
          case '_name':
            queryName = r.text(v, ik);
            break;
          case 'fuzziness':
          case 'prefix_length':
          case 'max_expansions':
          case 'fuzzy_rewrite':
          case 'fuzzy_transpositions':
            fuzzy.read(v, ik);
            break;
          case 'cutoff_frequency':
          case 'auto_generate_synonyms_phrase_query':
            // Accepted as Elasticsearch accepts them; common terms (cutoff_frequency) are not implemented.
            break;
          default:
            throw r.errorAt(v, ik, `[match] query does not support [${ik}]`);
        }
      }
    } else {
      multipleFields(r, body, key, 'match', field);
      field = key;
      query = r.scalar(body, key);
    }
  }
  if (query === null) throw r.errorOf(body, 'No text specified for text query');
  return {
    type: 'match',
    field: requireField(field),
    query,
    operator,
    analyzer,
    minimumShouldMatch: msm,
    lenient,
    zeroTermsQuery: zeroTerms,
    fuzzy: fuzzy.options(),
    boost,
    name: queryName,
  };
}

export function parseMatchPhrase(r: DslReader, body: JsonMap): MatchPhraseBuilder {
  let field: string | null = null;
  let query: DslValue | null = null;
  let analyzer: string | null = null;
  let slop = 0;
  let zeroTerms: ZeroTermsQuery = 'NONE';
  let boost = DEFAULT_BOOST;
  let queryName: string | null = null;
  for (const key of Object.keys(body)) {
    const v = body[key];
    if (r.isMap(v)) {
      multipleFields(r, body, key, 'match_phrase', field);
      field = key;
      for (const ik of Object.keys(v)) {
        const iv = v[ik];
        if (iv !== null && typeof iv === 'object') throw r.errorAt(v, ik, `[match_phrase] unknown token [${tokenName(iv)}] after [${ik}]`);
        switch (ik) {
          case 'query':
            query = r.scalar(v, ik);
            break;
          case 'analyzer':
            analyzer = r.text(v, ik);
            break;
          case 'boost':
            boost = r.float(v, ik);
            break;
          case 'slop':
            slop = r.int(v, ik);
            break;
          case 'zero_terms_query':
            zeroTerms = parseZeroTerms(r, v, ik);
            break;
          case '_name':
            queryName = r.text(v, ik);
            break;
          default:
            throw r.errorAt(v, ik, `[match_phrase] query does not support [${ik}]`);
        }
      }
    } else {
      multipleFields(r, body, key, 'match_phrase', field);
      field = key;
      query = r.scalar(body, key);
    }
  }
  if (query === null) throw r.errorOf(body, 'No text specified for text query');
  return { type: 'match_phrase', field: requireField(field), query, analyzer, slop, zeroTermsQuery: zeroTerms, boost, name: queryName };
}

/** `"title^2"` → ["title", 2] (QueryParserHelper / MultiMatchQueryBuilder field parsing). */
export function parseFieldAndBoost(spec: string): readonly [string, number] {
  const caret = spec.lastIndexOf('^');
  if (caret < 0) return [spec, DEFAULT_BOOST];
  const boost = Number(spec.slice(caret + 1));
  if (Number.isNaN(boost)) throw illegalArgument(`For input string: "${spec.slice(caret + 1)}"`);
  return [spec.slice(0, caret), Math.fround(boost)];
}

const MULTI_MATCH_TYPES: Readonly<Record<string, MultiMatchType>> = {
  best_fields: 'best_fields',
  boolean: 'best_fields',
  most_fields: 'most_fields',
  phrase: 'phrase',
  match_phrase: 'phrase',
  cross_fields: 'cross_fields',
  phrase_prefix: 'phrase_prefix',
  match_phrase_prefix: 'phrase_prefix',
};

export function parseMultiMatch(r: DslReader, body: JsonMap): MultiMatchBuilder {
  let query: DslValue | null = null;
  const fields: (readonly [string, number])[] = [];
  let matchType: MultiMatchType = 'best_fields';
  let operator: Operator = 'OR';
  let analyzer: string | null = null;
  let slop = 0;
  let msm: string | null = null;
  let tieBreaker: number | null = null;
  let lenient: boolean | null = null;
  let zeroTerms: ZeroTermsQuery = 'NONE';
  let boost = DEFAULT_BOOST;
  let queryName: string | null = null;
  const mmFuzzy = new FuzzyReader(r, { transpositions: true });
  for (const key of Object.keys(body)) {
    const v = body[key];
    if (key === 'fields') {
      if (Array.isArray(v)) {
        v.forEach((item, i) => {
          if (typeof item !== 'string') throw r.errorAt(v, i, `[multi_match] query does not support [${key}]`);
          fields.push(parseFieldAndBoost(item));
        });
      } else if (typeof v === 'string') fields.push(parseFieldAndBoost(v));
      else throw r.errorAt(body, key, `[multi_match] query does not support [${key}]`);
      continue;
    }
    if (v !== null && typeof v === 'object') throw r.errorAt(body, key, `[multi_match] unknown token [${tokenName(v)}] after [${key}]`);
    switch (key) {
      case 'query':
        query = r.scalar(body, key);
        break;
      case 'type': {
        const t = getOwn(MULTI_MATCH_TYPES, r.text(body, key).toLowerCase());
        if (t === undefined) {
          throw new EsError('parse_exception', `failed to parse [multi_match] query type [${r.text(body, key)}]. unknown type.`, 400);
        }
        matchType = t;
        break;
      }
      case 'analyzer':
        analyzer = r.text(body, key);
        break;
      case 'boost':
        boost = r.float(body, key);
        break;
      case 'slop':
      case 'phrase_slop':
        slop = r.int(body, key);
        break;
      case 'operator':
        operator = parseOperator(r.text(body, key));
        break;
      case 'minimum_should_match':
        msm = r.textOrNull(body, key);
        break;
      case 'tie_breaker':
        tieBreaker = r.float(body, key);
        break;
      case 'use_dis_max':
        tieBreaker = r.bool(body, key) ? (tieBreaker ?? 0) : 1;
        break;
      case 'lenient':
        lenient = r.bool(body, key);
        break;
      case 'zero_terms_query':
        zeroTerms = parseZeroTerms(r, body, key);
        break;
      case '_name':
        queryName = r.text(body, key);
        break;
      case 'fuzziness':
      case 'prefix_length':
      case 'max_expansions':
      case 'fuzzy_rewrite':
      case 'fuzzy_transpositions':
        mmFuzzy.read(body, key);
        break;
      case 'cutoff_frequency':
      case 'auto_generate_synonyms_phrase_query':
        break;
      default:
        throw r.errorAt(body, key, `[multi_match] query does not support [${key}]`);
    }
  }
  if (query === null) throw r.errorOf(body, 'No text specified for multi_match query');
  return {
    type: 'multi_match',
    query,
    fields,
    matchType,
    operator,
    analyzer,
    slop,
    minimumShouldMatch: msm,
    tieBreaker,
    lenient,
    zeroTermsQuery: zeroTerms,
    fuzzy: mmFuzzy.options(),
    boost,
    name: queryName,
  };
}

export function parseQueryString(r: DslReader, body: JsonMap): QueryStringBuilder {
  let query: string | null = null;
  let defaultField: string | null = null;
  const fields: (readonly [string, number])[] = [];
  let defaultOperator: Operator = 'OR';
  let analyzer: string | null = null;
  let lenient: boolean | null = null;
  let phraseSlop = 0;
  let analyzeWildcard = false;
  let msm: string | null = null;
  let tieBreaker = 0;
  let allowLeadingWildcard = true;
  let boost = DEFAULT_BOOST;
  let queryName: string | null = null;
  for (const key of Object.keys(body)) {
    const v = body[key];
    if (key === 'fields') {
      if (!Array.isArray(v)) throw r.errorAt(body, key, `[query_string] query does not support [${key}]`);
      v.forEach((item, i) => {
        if (typeof item !== 'string') throw r.errorAt(v, i, `[query_string] query does not support [${key}]`);
        fields.push(parseFieldAndBoost(item));
      });
      continue;
    }
    if (v !== null && typeof v === 'object') throw r.errorAt(body, key, `[query_string] unknown token [${tokenName(v)}] after [${key}]`);
    switch (key) {
      case 'query':
        query = r.text(body, key);
        break;
      case 'default_field':
        defaultField = r.text(body, key);
        break;
      case 'default_operator':
        defaultOperator = parseOperator(r.text(body, key));
        break;
      case 'analyzer':
        analyzer = r.text(body, key);
        break;
      case 'lenient':
        lenient = r.bool(body, key);
        break;
      case 'phrase_slop':
        phraseSlop = r.int(body, key);
        break;
      case 'analyze_wildcard':
        analyzeWildcard = r.bool(body, key);
        break;
      case 'minimum_should_match':
        msm = r.textOrNull(body, key);
        break;
      case 'tie_breaker':
        tieBreaker = r.float(body, key);
        break;
      case 'allow_leading_wildcard':
        allowLeadingWildcard = r.bool(body, key);
        break;
      case 'boost':
        boost = r.float(body, key);
        break;
      case '_name':
        queryName = r.text(body, key);
        break;
      case 'quote_analyzer':
      case 'quote_field_suffix':
      case 'auto_generate_phrase_queries':
      case 'max_determinized_states':
      case 'enable_position_increments':
      case 'escape':
      case 'fuzzy_max_expansions':
      case 'fuzzy_prefix_length':
      case 'fuzzy_transpositions':
      case 'fuzziness':
      case 'fuzzy_rewrite':
      case 'rewrite':
      case 'time_zone':
      case 'auto_generate_synonyms_phrase_query':
      case 'type':
        break;
      default:
        throw r.errorAt(body, key, `[query_string] query does not support [${key}]`);
    }
  }
  if (query === null) throw r.errorOf(body, '[query_string] must be provided with a [query]');
  return {
    type: 'query_string',
    query,
    defaultField,
    fields,
    defaultOperator,
    analyzer,
    lenient,
    phraseSlop,
    analyzeWildcard,
    minimumShouldMatch: msm,
    tieBreaker,
    allowLeadingWildcard,
    boost,
    name: queryName,
  };
}
