/**
 * Engine queries for one field, decided by the field's mapped type the way
 * Elasticsearch 6.8's MappedFieldType methods decide them: term, terms, range,
 * prefix and wildcard queries on text/keyword (the inverted index), numbers,
 * dates and booleans (doc values); and the analyzed queries of `match` and
 * `match_phrase` (MatchQuery + Lucene's QueryBuilder).
 */
import { EsError, illegalArgumentCause, queryShardException } from '../../errors/es-errors.ts';
import { IGNORED_FIELD, type FieldMapping, type NumericFieldType } from '../../engine/mapping/types.ts';
import { MATCH_NONE } from '../../engine/search/query.ts';
import { ROUTING_FIELD } from '../../engine/segment/types.ts';
import type { Query } from '../../engine/search/query.ts';
import type { ShardSearchContext } from '../../engine/search/types.ts';
import { isIntegerType, javaParseDouble, parseBooleanValue, parseDateBound, parseNumeric } from './field-values.ts';
import { calculateMinShouldMatch } from './minimum-should-match.ts';
import { ipRangeQuery, ipTermQuery, ipTermsQuery } from './ip-queries.ts';
import { rangeFieldRangeQuery, rangeFieldTermQuery, rangeFieldTermsQuery } from './range-field-queries.ts';
import { RANGE_TYPES } from '../../engine/mapping/range-values.ts';
import type { DslValue, FuzzyOptions, Operator, ZeroTermsQuery } from './query-builders.ts';

const f = Math.fround;

/** BytesRefs.toBytesRef(value).utf8ToString(): how a term value reads as text. */
export function valueText(v: DslValue): string {
  return typeof v === 'bigint' ? v.toString() : String(v);
}

/** Multiplies a query's boost (Lucene's nested BoostQuery). */
export function withBoost(q: Query, boost: number): Query {
  if (boost === 1 || q.kind === 'match_none') return q;
  return { ...q, boost: f(q.boost * boost) };
}

function failIfNotIndexed(fm: FieldMapping): void {
  if (!fm.index) throw illegalArgumentCause(`Cannot search on field [${fm.path}] since it is not indexed.`);
}

/** BinaryFieldType and GeoPointFieldType refuse term-level queries (term, terms, match on them). */
function refuseTermQuery(fm: FieldMapping): void {
  if (fm.type === 'binary') throw queryShardException('Binary fields do not support searching');
  if (fm.type === 'geo_point') {
    throw queryShardException(`Geo fields do not support exact searching, use dedicated geo queries instead: [${fm.path}]`);
  }
  // GeoShapeFieldType.termQuery names no field
  if (fm.type === 'geo_shape') throw queryShardException('Geo fields do not support exact searching, use dedicated geo queries instead');
}

function isNumericType(type: string): type is NumericFieldType {
  return ['long', 'integer', 'short', 'byte', 'double', 'float', 'half_float', 'scaled_float'].includes(type);
}

function hasDecimalPart(v: DslValue): boolean {
  const d = javaParseDouble(v);
  return d % 1 !== 0;
}

/** Metadata fields that term-level queries accept; null when `field` is not one. */
function metadataTermQuery(ctx: ShardSearchContext, field: string, values: readonly DslValue[], boost: number): Query | null {
  switch (field) {
    case '_id':
      return { kind: 'ids', ids: values.map(valueText), boost };
    case '_type':
      return values.some((v) => valueText(v) === ctx.typeName) ? { kind: 'match_all', boost } : MATCH_NONE;
    case '_index':
      return ctx.index !== undefined && values.some((v) => valueText(v) === ctx.index) ? { kind: 'match_all', boost } : MATCH_NONE;
    case '_source':
      throw queryShardException('The _source field is not searchable');
    case '_routing':
    case '_uid':
      return MATCH_NONE;
    case IGNORED_FIELD:
      // the names of fields whose values a document had dropped (ignore_malformed)
      return values.length === 1 ? { kind: 'term', field: IGNORED_FIELD, term: valueText(values[0]!), boost } : { kind: 'term_set', field: IGNORED_FIELD, terms: values.map(valueText), boost };
    default:
      return null;
  }
}

/**
 * `exists` on a metadata field, as each of 6.8's metadata field types answers
 * it; null when `field` is not one. Every document has an id, a type, an
 * index, a sequence number and a version; only some have a routing.
 */
export function metadataExistsQuery(field: string, boost: number): Query | null {
  switch (field) {
    case '_id':
    case '_uid':
    case '_index':
    case '_type':
    case '_seq_no':
    case '_version':
      return { kind: 'match_all', boost };
    case '_routing':
      return { kind: 'exists', fields: [ROUTING_FIELD], boost };
    case IGNORED_FIELD:
      return { kind: 'exists', fields: [IGNORED_FIELD], boost };
    case '_source':
      throw queryShardException('The _source field is not searchable');
    default:
      return null;
  }
}

/**
 * Edits a fuzziness allows for a term (Fuzziness.asDistance): `AUTO` is
 * `AUTO:3,6` (no edit below 3 characters, one below 6, two from 6);
 * numbers are capped at 2, the most Lucene's automata allow.
 */
export function maxEditsFor(fuzziness: string, term: string): number {
  const length = [...term].length;
  const upper = fuzziness.toUpperCase();
  if (upper === 'AUTO' || upper.startsWith('AUTO:')) {
    let low = 3;
    let high = 6;
    if (upper.startsWith('AUTO:')) {
      const parts = upper.slice(5).split(',');
      low = Number(parts[0]);
      high = Number(parts[1]);
      if (parts.length !== 2 || !Number.isInteger(low) || !Number.isInteger(high) || low < 0 || high < low) {
        throw illegalArgumentCause(`failed to find low and high distance values in fuzziness [${fuzziness}]`);
      }
    }
    return length < low ? 0 : length < high ? 1 : 2;
  }
  const n = Number(fuzziness);
  if (fuzziness.trim() === '' || !Number.isFinite(n) || n < 0) throw illegalArgumentCause(`failed to parse [fuzziness] value [${fuzziness}]`);
  return Math.min(2, Math.trunc(n));
}

function fuzzyTermQuery(field: string, term: string, o: FuzzyOptions, boost: number): Query {
  return { kind: 'fuzzy', field, term, maxEdits: maxEditsFor(o.fuzziness, term), prefixLength: o.prefixLength, maxExpansions: o.maxExpansions, transpositions: o.transpositions, boost };
}

/** A `fuzzy` query: keyword and text fields only (MappedFieldType.fuzzyQuery), the value as one term. */
export function fuzzyQueryFor(ctx: ShardSearchContext, field: string, value: string, o: FuzzyOptions, boost: number): Query {
  const fm = ctx.mapping.field(field);
  if (fm === undefined || fm.type === 'object') return MATCH_NONE;
  field = fm.path; // a field alias queries its target, as Elasticsearch resolves it to the target's field type
  if (fm.type !== 'text' && fm.type !== 'keyword') {
    throw illegalArgumentCause(`Can only use fuzzy queries on keyword and text fields - not on [${field}] which is of type [${fm.mappedType ?? fm.type}]`);
  }
  failIfNotIndexed(fm);
  return fuzzyTermQuery(field, value, o, boost);
}

/** A `term` query (also what `match` does on non-text fields). */
export function termQueryFor(ctx: ShardSearchContext, field: string, value: DslValue, boost: number): Query {
  const meta = metadataTermQuery(ctx, field, [value], boost);
  if (meta !== null) return meta;
  const fm = ctx.mapping.field(field);
  if (fm === undefined || fm.type === 'object') return MATCH_NONE;
  field = fm.path; // a field alias queries its target, as Elasticsearch resolves it to the target's field type
  refuseTermQuery(fm);
  failIfNotIndexed(fm);
  if (fm.mappedType === 'ip') return ipTermQuery(field, value, boost);
  if (RANGE_TYPES.has(fm.type)) return rangeFieldTermQuery(ctx, fm, value, boost);
  // TermBasedFieldType, DateFieldType and NumberFieldType wrap a term query in the mapping's `boost` (IpFieldType does not)
  const termBoost = boost * fm.boost;
  switch (fm.type) {
    case 'text':
    case 'keyword':
      return { kind: 'term', field, term: valueText(value), boost: termBoost };
    case 'boolean':
      return { kind: 'numeric_set', field, values: [parseBooleanValue(value)], boost: termBoost };
    case 'date': {
      const opts = { nowMillis: ctx.nowMillis, timeZone: null, format: null };
      const lo = parseDateBound(fm, value, { ...opts, roundUp: false });
      const hi = parseDateBound(fm, value, { ...opts, roundUp: true });
      return { kind: 'numeric_range', field, min: lo, max: hi, boost: termBoost };
    }
    default: {
      if (!isNumericType(fm.type)) return MATCH_NONE;
      if (isIntegerType(fm.type) && hasDecimalPart(value)) return MATCH_NONE;
      return { kind: 'numeric_set', field, values: [parseNumeric(fm.type, value)], boost: termBoost };
    }
  }
}

/** A `terms` query: constant score over the values. */
export function termsQueryFor(ctx: ShardSearchContext, field: string, values: readonly DslValue[], boost: number): Query {
  const meta = metadataTermQuery(ctx, field, values, boost);
  if (meta !== null) return meta;
  const fm = ctx.mapping.field(field);
  if (fm === undefined || fm.type === 'object' || values.length === 0) return MATCH_NONE;
  field = fm.path;
  refuseTermQuery(fm);
  failIfNotIndexed(fm);
  if (fm.mappedType === 'ip') return ipTermsQuery(field, values, boost);
  if (RANGE_TYPES.has(fm.type)) return rangeFieldTermsQuery(ctx, fm, values, boost);
  if (fm.type === 'text' || fm.type === 'keyword') return { kind: 'term_set', field, terms: values.map(valueText), boost };
  if (fm.type === 'boolean') return { kind: 'numeric_set', field, values: values.map(parseBooleanValue), boost };
  if (fm.type === 'date') {
    const clauses = values.map((v) => termQueryFor(ctx, field, v, 1));
    return { kind: 'constant_score', filter: { kind: 'bool', must: [], filter: [], should: clauses, mustNot: [], minimumShouldMatch: 1, boost: 1 }, boost };
  }
  if (!isNumericType(fm.type)) return MATCH_NONE;
  const type = fm.type;
  const parsed = values.filter((v) => !(isIntegerType(type) && hasDecimalPart(v))).map((v) => parseNumeric(type, v));
  return { kind: 'numeric_set', field, values: parsed, boost: boost * fm.boost };
}

function nextUp(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x === 0) return Number.MIN_VALUE;
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const bits = buf.getBigInt64(0);
  buf.setBigInt64(0, x > 0 ? bits + 1n : bits - 1n);
  return buf.getFloat64(0);
}

function nextDown(x: number): number {
  return -nextUp(-x);
}

export interface RangeSpec {
  readonly from: DslValue | null;
  readonly to: DslValue | null;
  readonly includeLower: boolean;
  readonly includeUpper: boolean;
  readonly timeZone: string | null;
  readonly format: string | null;
  /** Range fields: `intersects` (default), `within`, `contains`. */
  readonly relation?: string | null;
}

/** A `range` query (DateFieldMapper / NumberFieldMapper / TermRangeQuery semantics). */
export function rangeQueryFor(ctx: ShardSearchContext, field: string, r: RangeSpec, boost: number): Query {
  const fm = ctx.mapping.field(field);
  if (fm === undefined || fm.type === 'object') return MATCH_NONE;
  field = fm.path; // a field alias queries its target, as Elasticsearch resolves it to the target's field type
  if (fm.type === 'binary' || fm.type === 'geo_point' || fm.type === 'geo_shape') {
    throw illegalArgumentCause(`Field [${field}] of type [${fm.type}] does not support range queries`);
  }
  failIfNotIndexed(fm);
  if (fm.mappedType === 'ip') return ipRangeQuery(field, r, boost);
  if (RANGE_TYPES.has(fm.type)) return rangeFieldRangeQuery(ctx, fm, r, boost);
  if (fm.type === 'text' || fm.type === 'keyword') {
    return {
      kind: 'term_range',
      field,
      lower: r.from === null ? null : valueText(r.from),
      upper: r.to === null ? null : valueText(r.to),
      includeLower: r.includeLower,
      includeUpper: r.includeUpper,
      boost,
    };
  }
  let min: number;
  let max: number;
  if (fm.type === 'date') {
    const opts = { nowMillis: ctx.nowMillis, timeZone: r.timeZone, format: r.format };
    // gt rounds up then excludes; lte rounds up; lt rounds down then excludes (DateFieldMapper.rangeQuery).
    min = r.from === null ? -Infinity : parseDateBound(fm, r.from, { ...opts, roundUp: !r.includeLower }) + (r.includeLower ? 0 : 1);
    max = r.to === null ? Infinity : parseDateBound(fm, r.to, { ...opts, roundUp: r.includeUpper }) - (r.includeUpper ? 0 : 1);
  } else if (fm.type === 'boolean') {
    min = r.from === null ? -Infinity : parseBooleanValue(r.from) + (r.includeLower ? 0 : 1);
    max = r.to === null ? Infinity : parseBooleanValue(r.to) - (r.includeUpper ? 0 : 1);
  } else if (isNumericType(fm.type)) {
    const lo = r.from === null ? -Infinity : parseNumeric(fm.type, r.from);
    const hi = r.to === null ? Infinity : parseNumeric(fm.type, r.to);
    if (isIntegerType(fm.type)) {
      min = r.from === null ? -Infinity : r.includeLower ? Math.ceil(lo) : Math.floor(lo) + 1;
      max = r.to === null ? Infinity : r.includeUpper ? Math.floor(hi) : Math.ceil(hi) - 1;
    } else {
      min = r.includeLower ? lo : nextUp(lo);
      max = r.includeUpper ? hi : nextDown(hi);
    }
  } else {
    return MATCH_NONE;
  }
  if (min > max) return MATCH_NONE;
  const usesNow = fm.type === 'date' && [r.from, r.to].some((v) => typeof v === 'string' && v.includes('now'));
  return usesNow ? { kind: 'numeric_range', field, min, max, boost, usesNow } : { kind: 'numeric_range', field, min, max, boost };
}

/** `prefix`, `wildcard` and `regexp` are for keyword and text fields (StringFieldType). */
function requireStringField(fm: FieldMapping, kind: 'prefix' | 'wildcard' | 'regexp'): void {
  if ((fm.type !== 'text' && fm.type !== 'keyword') || fm.mappedType === 'ip') {
    const what = `${kind} queries`;
    throw queryShardException(`Can only use ${what} on keyword and text fields - not on [${fm.path}] which is of type [${fm.mappedType ?? fm.type}]`);
  }
}

export function prefixQueryFor(ctx: ShardSearchContext, field: string, prefix: string, boost: number): Query {
  if (field === '_id') return MATCH_NONE;
  const fm = ctx.mapping.field(field);
  if (fm === undefined || fm.type === 'object') return MATCH_NONE;
  field = fm.path; // a field alias queries its target, as Elasticsearch resolves it to the target's field type
  requireStringField(fm, 'prefix');
  failIfNotIndexed(fm);
  return { kind: 'prefix', field, prefix, boost };
}

export function wildcardQueryFor(ctx: ShardSearchContext, field: string, pattern: string, boost: number): Query {
  const fm = ctx.mapping.field(field);
  if (fm === undefined || fm.type === 'object') return MATCH_NONE;
  field = fm.path; // a field alias queries its target, as Elasticsearch resolves it to the target's field type
  requireStringField(fm, 'wildcard');
  failIfNotIndexed(fm);
  // A lone trailing `*` is a prefix query (as Lucene's query parser builds it).
  if (/^[^*?\\]*\*$/.test(pattern)) return { kind: 'prefix', field, prefix: pattern.slice(0, -1), boost };
  if (pattern === '*') return { kind: 'prefix', field, prefix: '', boost };
  return { kind: 'wildcard', field, pattern, boost };
}

/** `regexp` on keyword and text fields: the terms the whole pattern matches. */
export function regexpQueryFor(ctx: ShardSearchContext, field: string, pattern: string, boost: number): Query {
  const fm = ctx.mapping.field(field);
  if (fm === undefined || fm.type === 'object') return MATCH_NONE;
  field = fm.path; // a field alias queries its target, as Elasticsearch resolves it to the target's field type
  requireStringField(fm, 'regexp');
  failIfNotIndexed(fm);
  return { kind: 'regexp', field, pattern, boost };
}

export interface AnalyzedQueryOptions {
  readonly operator: Operator;
  readonly analyzer: string | null;
  readonly minimumShouldMatch: string | null;
  readonly lenient: boolean;
  readonly zeroTermsQuery: ZeroTermsQuery;
  /** Build a phrase (match_phrase, quoted query_string text). */
  readonly phrase: boolean;
  readonly slop: number;
  /** `fuzziness` and its options: each term becomes a fuzzy query. */
  readonly fuzzy?: FuzzyOptions | null;
}

function analyzerFor(ctx: ShardSearchContext, fm: FieldMapping, name: string | null) {
  const analyzerName = name ?? fm.searchAnalyzer ?? fm.analyzer ?? 'standard';
  const analyzer = ctx.analyzers.get(analyzerName);
  if (analyzer === undefined) throw illegalArgumentCause(`No analyzer found for [${analyzerName}]`);
  return analyzer;
}

/**
 * `match`/`match_phrase` on one field: text fields are analyzed with the
 * search analyzer (terms at one position become a synonym query), other
 * fields take the value as one term; lenient turns value errors into no match.
 */
export function analyzedQueryFor(ctx: ShardSearchContext, field: string, value: DslValue, opts: AnalyzedQueryOptions, boost: number): Query {
  // Metadata fields are not analyzed: `match` and query_string (`q=_id:1`) make their term query, as MatchQuery does.
  const meta = metadataTermQuery(ctx, field, [value], boost);
  if (meta !== null) return meta;
  const fm = ctx.mapping.field(field);
  if (fm === undefined || fm.type === 'object') return MATCH_NONE;
  field = fm.path; // a field alias queries its target, as Elasticsearch resolves it to the target's field type
  if (fm.type !== 'text') {
    try {
      if (opts.fuzzy) return fuzzyQueryFor(ctx, field, valueText(value), opts.fuzzy, boost);
      return termQueryFor(ctx, field, value, boost);
    } catch (e) {
      if (opts.lenient && e instanceof EsError) return MATCH_NONE;
      throw e;
    }
  }
  failIfNotIndexed(fm);
  const analyzer = analyzerFor(ctx, fm, opts.analyzer);
  const groups = new Map<number, string[]>();
  analyzer.analyzeInto(valueText(value), (term, position) => {
    const g = groups.get(position);
    if (g === undefined) groups.set(position, [term]);
    else g.push(term);
  });
  if (groups.size === 0) return opts.zeroTermsQuery === 'ALL' ? { kind: 'match_all', boost } : MATCH_NONE;
  const positions = [...groups.keys()].sort((a, b) => a - b);
  const fuzzy = opts.fuzzy ?? null;
  const clauseFor = (terms: readonly string[], b: number): Query =>
    terms.length === 1
      ? fuzzy !== null
        ? fuzzyTermQuery(field, terms[0]!, fuzzy, b)
        : { kind: 'term', field, term: terms[0]!, boost: b }
      : { kind: 'synonym', field, terms, boost: b };
  if (positions.length === 1) return clauseFor(groups.get(positions[0]!)!, boost);
  if (opts.phrase) {
    const base = positions[0]!;
    return {
      kind: 'phrase',
      field,
      terms: positions.map((p) => groups.get(p)![0]!),
      positions: positions.map((p) => p - base),
      slop: opts.slop,
      boost,
    };
  }
  const clauses = positions.map((p) => clauseFor(groups.get(p)!, 1));
  const required = opts.operator === 'AND';
  const msm =
    opts.minimumShouldMatch === null ? 0 : calculateMinShouldMatch(required ? 0 : clauses.length, opts.minimumShouldMatch);
  return {
    kind: 'bool',
    must: required ? clauses : [],
    filter: [],
    should: required ? [] : clauses,
    mustNot: [],
    minimumShouldMatch: msm,
    boost,
  };
}

