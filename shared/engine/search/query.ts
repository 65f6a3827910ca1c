/**
 * The engine's query tree: plain data, already resolved against the mapping
 * (field types known, text analyzed, numbers and dates parsed). The DSL layer
 * (shared/dsl/query) builds it per shard; `query-eval.ts` executes it over a
 * segment view.
 *
 * Scoring follows Lucene 7.7 (Elasticsearch 6.8): `term`, `synonym` and `phrase`
 * score with BM25; the multi-term and doc-values queries are constant score
 * (`boost`); `bool` sums its scoring clauses.
 */
import type { PreparedShape } from '../geo-shape/prepared-shape.ts';

import { createHash } from 'node:crypto';

/** Matches every live doc, score `boost`. */
export interface MatchAllQuery {
  readonly kind: 'match_all';
  readonly boost: number;
}

/** Matches nothing (unmapped fields, zero terms, impossible ranges). */
export interface MatchNoneQuery {
  readonly kind: 'match_none';
}

/** One term of an inverted field, scored with BM25. */
export interface TermQuery {
  readonly kind: 'term';
  readonly field: string;
  readonly term: string;
  readonly boost: number;
}

/**
 * Terms at the same position (Lucene's SynonymQuery): one pseudo-term whose
 * docFreq is the largest of its terms and whose per-doc freq is the sum.
 */
export interface SynonymQuery {
  readonly kind: 'synonym';
  readonly field: string;
  readonly terms: readonly string[];
  readonly boost: number;
}

/** Constant-score set of terms of an inverted field (Lucene's TermInSetQuery). */
export interface TermSetQuery {
  readonly kind: 'term_set';
  readonly field: string;
  readonly terms: readonly string[];
  readonly boost: number;
}

/** Constant-score range over the sorted terms of an inverted field (TermRangeQuery). */
export interface TermRangeQuery {
  readonly kind: 'term_range';
  readonly field: string;
  readonly lower: string | null;
  readonly upper: string | null;
  readonly includeLower: boolean;
  readonly includeUpper: boolean;
  readonly boost: number;
}

/** Constant-score terms starting with `prefix`. */
export interface PrefixQuery {
  readonly kind: 'prefix';
  readonly field: string;
  readonly prefix: string;
  readonly boost: number;
}

/** Constant-score terms matching a `*`/`?` pattern. */
export interface WildcardQuery {
  readonly kind: 'wildcard';
  readonly field: string;
  readonly pattern: string;
  readonly boost: number;
}

/** Constant-score terms a Lucene regular expression matches as a whole (run in linear time: shared/engine/regex). */
export interface RegexpQuery {
  readonly kind: 'regexp';
  readonly field: string;
  readonly pattern: string;
  readonly boost: number;
}

/**
 * Terms within `maxEdits` edits of `term` (Lucene's FuzzyQuery with the
 * top_terms_blended_freqs rewrite): the top `maxExpansions` terms, each
 * scored with BM25 as a term of the largest docFreq among them and boosted
 * by its similarity, summed.
 */
export interface FuzzyQuery {
  readonly kind: 'fuzzy';
  readonly field: string;
  readonly term: string;
  readonly maxEdits: number;
  readonly prefixLength: number;
  readonly maxExpansions: number;
  readonly transpositions: boolean;
  readonly boost: number;
}

/** Constant-score numeric range on doc values; bounds are inclusive (the DSL resolves exclusivity). */
export interface NumericRangeQuery {
  readonly kind: 'numeric_range';
  readonly field: string;
  readonly min: number;
  readonly max: number;
  readonly boost: number;
  /** Bounds computed from `now`: they change every request, so caching them only churns the cache. */
  readonly usesNow?: boolean;
}

/** Constant-score exact numeric values on doc values (term/terms on numeric, date and boolean fields). */
export interface NumericSetQuery {
  readonly kind: 'numeric_set';
  readonly field: string;
  readonly values: readonly number[];
  readonly boost: number;
}

/** Terms at consecutive query positions within `slop`, BM25 with the summed idf. */
export interface PhraseQuery {
  readonly kind: 'phrase';
  readonly field: string;
  readonly terms: readonly string[];
  /** Query position of each term (gaps from removed stop words are kept). */
  readonly positions: readonly number[];
  readonly slop: number;
  readonly boost: number;
}

/** Addresses of an `ip` field from `lower` to `upper` inclusive, as 32 hex digits (ip-address.ts), constant score. */
export interface IpRangeQuery {
  readonly kind: 'ip_range';
  readonly field: string;
  readonly lower: string;
  readonly upper: string;
  readonly boost: number;
}

/** Docs of a range field whose range is in `relation` to [lower, upper] (ends as range-values.ts keeps them), constant score. */
export interface RangeFieldQuery {
  readonly kind: 'range_field';
  readonly field: string;
  readonly lower: readonly number[];
  readonly upper: readonly number[];
  readonly relation: 'intersects' | 'within' | 'contains';
  readonly boost: number;
}

/** A region of the globe, in degrees (Lucene's LatLonPoint box, distance and polygon queries). */
export type GeoFilter =
  | { readonly type: 'box'; readonly minLat: number; readonly maxLat: number; readonly minLon: number; readonly maxLon: number }
  | { readonly type: 'distance'; readonly lat: number; readonly lon: number; readonly meters: number; readonly plane: boolean }
  /** Vertices without the closing repeat of the first. */
  | { readonly type: 'polygon'; readonly lats: readonly number[]; readonly lons: readonly number[] };

/** Docs with a point of a geo_point field in the region, constant score. */
export interface GeoQuery {
  readonly kind: 'geo';
  readonly field: string;
  readonly filter: GeoFilter;
  readonly boost: number;
}

/** Docs of a geo_shape field whose shapes stand in `relation` to the query's shape (geo-shape-leaves.ts), constant score. */
export interface GeoShapeQuery {
  readonly kind: 'geo_shape';
  readonly field: string;
  readonly relation: 'intersects' | 'disjoint' | 'within' | 'contains';
  readonly shape: PreparedShape;
  readonly boost: number;
}

/** Docs with any value in any of these fields, constant score. */
export interface ExistsQuery {
  readonly kind: 'exists';
  readonly fields: readonly string[];
  readonly boost: number;
}

/** Docs by `_id`, constant score. */
export interface IdsQuery {
  readonly kind: 'ids';
  readonly ids: readonly string[];
  readonly boost: number;
}

export interface BoolQuery {
  readonly kind: 'bool';
  readonly must: readonly Query[];
  readonly filter: readonly Query[];
  readonly should: readonly Query[];
  readonly mustNot: readonly Query[];
  /** Resolved count (0 = Lucene's default: one should clause when nothing is required). */
  readonly minimumShouldMatch: number;
  readonly boost: number;
}

/** Best clause plus `tieBreaker` times the others (multi_match best_fields). */
export interface DisMaxQuery {
  readonly kind: 'dis_max';
  readonly queries: readonly Query[];
  readonly tieBreaker: number;
  readonly boost: number;
}

/** The filter's docs with score `boost`. */
export interface ConstantScoreQuery {
  readonly kind: 'constant_score';
  readonly filter: Query;
  readonly boost: number;
}

/** How a nested query scores a parent from its matching nested docs (Lucene's join ScoreMode). */
export type NestedScoreMode = 'avg' | 'sum' | 'max' | 'min' | 'none';

/**
 * Docs with a nested doc under `path` that matches `query` (Lucene's
 * ToParentBlockJoinQuery): the join goes to the docs of `parentPath` (the
 * enclosing nested object), or to root docs when it is null.
 */
export interface NestedQuery {
  readonly kind: 'nested';
  readonly path: string;
  readonly parentPath: string | null;
  readonly query: Query;
  readonly scoreMode: NestedScoreMode;
  readonly boost: number;
  /** `inner_hits`: the matching nested docs of each hit, rendered with it. */
  readonly innerHits: NestedInnerHits | null;
}

/** A nested query's `inner_hits` (the subset of InnerHitBuilder supported for nested docs). */
export interface NestedInnerHits {
  /** Key under the hit's `inner_hits` (default: the path). */
  readonly name: string;
  readonly from: number;
  readonly size: number;
  /** `_source`: false leaves the nested object's source out. */
  readonly source: boolean;
  readonly version: boolean;
}

export type Query =
  | MatchAllQuery
  | MatchNoneQuery
  | TermQuery
  | SynonymQuery
  | TermSetQuery
  | TermRangeQuery
  | PrefixQuery
  | WildcardQuery
  | RegexpQuery
  | FuzzyQuery
  | NumericRangeQuery
  | NumericSetQuery
  | PhraseQuery
  | ExistsQuery
  | GeoQuery
  | GeoShapeQuery
  | IpRangeQuery
  | RangeFieldQuery
  | IdsQuery
  | BoolQuery
  | DisMaxQuery
  | ConstantScoreQuery
  | NestedQuery;

export const MATCH_NONE: MatchNoneQuery = { kind: 'match_none' };

/**
 * Whether a query's per-segment result may be cached as a bitset (Elasticsearch
 * caches term-level filters; scoring queries and cheap ones are not cached).
 */
export function isCacheableFilter(q: Query): boolean {
  switch (q.kind) {
    case 'numeric_range':
      return q.usesNow !== true;
    case 'term':
    case 'term_set':
    case 'term_range':
    case 'numeric_set':
    case 'prefix':
    case 'wildcard':
    case 'regexp':
    case 'fuzzy':
    case 'geo':
    case 'ip_range':
    case 'range_field':
    case 'geo_shape':
      return true;
    default:
      return false;
  }
}

/** Keys longer than this are kept as a digest (a `terms` filter of thousands of plates would be hashed again at every lookup). */
const MAX_PLAIN_KEY = 256;
const keysOf = new WeakMap<Query, string>();

/**
 * A stable key for a filter (boost excluded: a filter's bits do not depend
 * on it), computed once per query object: the shard's query tree is built
 * once per request and looked up in the filter cache for every segment. A
 * long key becomes its SHA-256, short enough to hash per lookup.
 */
export function filterKey(q: Query): string {
  let key = keysOf.get(q);
  if (key === undefined) {
    key = plainFilterKey(q);
    if (key.length > MAX_PLAIN_KEY) key = `#${createHash('sha256').update(key).digest('base64')}`;
    keysOf.set(q, key);
  }
  return key;
}

function plainFilterKey(q: Query): string {
  switch (q.kind) {
    case 'term':
      return `t|${q.field}|${q.term}`;
    case 'term_set':
      return `ts|${q.field}|${JSON.stringify(q.terms)}`;
    case 'term_range':
      return `tr|${q.field}|${JSON.stringify([q.lower, q.upper, q.includeLower, q.includeUpper])}`;
    case 'numeric_range':
      return `nr|${q.field}|${q.min}|${q.max}`;
    case 'numeric_set':
      return `ns|${q.field}|${q.values.join(',')}`;
    case 'prefix':
      return `p|${q.field}|${q.prefix}`;
    case 'wildcard':
      return `w|${q.field}|${q.pattern}`;
    case 'regexp':
      return `r|${q.field}|${q.pattern}`;
    case 'geo_shape':
      return `gs|${q.field}|${q.relation}|${q.shape.key}`;
    default:
      return JSON.stringify(q);
  }
}
