/**
 * The parsed query DSL: one plain record per query type with the options
 * Elasticsearch 6.8's query builders hold (defaults filled in), before the
 * mapping is known. `build-query.ts` turns them into engine queries per shard;
 * `render-query.ts` prints them as Elasticsearch's builders print themselves.
 */
import type { NestedScoreMode } from '../../engine/search/query.ts';
import type { DslValue } from './dsl-reader.ts';

export type { DslValue } from './dsl-reader.ts';

export const DEFAULT_BOOST = 1;

export type Operator = 'OR' | 'AND';
export type ZeroTermsQuery = 'NONE' | 'ALL';

interface Common {
  readonly boost: number;
  readonly name: string | null;
}

export interface MatchAllBuilder extends Common {
  readonly type: 'match_all';
}
export interface MatchNoneBuilder extends Common {
  readonly type: 'match_none';
}
/** `fuzziness` and its companions (match, multi_match, fuzzy). */
export interface FuzzyOptions {
  /** As given: `AUTO`, `AUTO:3,6`, `0`, `1`, `2` (numbers accepted too). */
  readonly fuzziness: string;
  readonly prefixLength: number;
  readonly maxExpansions: number;
  readonly transpositions: boolean;
  readonly rewrite: string | null;
}

export interface MatchBuilder extends Common {
  readonly type: 'match';
  readonly field: string;
  readonly query: DslValue;
  readonly operator: Operator;
  readonly analyzer: string | null;
  readonly minimumShouldMatch: string | null;
  readonly lenient: boolean;
  readonly zeroTermsQuery: ZeroTermsQuery;
  readonly fuzzy: FuzzyOptions | null;
}
export interface MatchPhraseBuilder extends Common {
  readonly type: 'match_phrase';
  readonly field: string;
  readonly query: DslValue;
  readonly analyzer: string | null;
  readonly slop: number;
  readonly zeroTermsQuery: ZeroTermsQuery;
}
export type MultiMatchType = 'best_fields' | 'most_fields' | 'phrase' | 'cross_fields' | 'phrase_prefix';
export interface MultiMatchBuilder extends Common {
  readonly type: 'multi_match';
  readonly query: DslValue;
  /** Field pattern → boost, in the order given. */
  readonly fields: readonly (readonly [string, number])[];
  readonly matchType: MultiMatchType;
  readonly operator: Operator;
  readonly analyzer: string | null;
  readonly slop: number;
  readonly minimumShouldMatch: string | null;
  readonly tieBreaker: number | null;
  readonly lenient: boolean | null;
  readonly zeroTermsQuery: ZeroTermsQuery;
  readonly fuzzy: FuzzyOptions | null;
}
export interface TermBuilder extends Common {
  readonly type: 'term';
  readonly field: string;
  readonly value: DslValue;
}
/** A terms lookup: the values are those at `path` of another document (resolved by the coordinator). */
export interface TermsLookup {
  readonly index: string;
  readonly type: string | null;
  readonly id: string;
  readonly path: string;
  readonly routing: string | null;
}
export interface TermsBuilder extends Common {
  readonly type: 'terms';
  readonly field: string;
  readonly values: readonly DslValue[];
  readonly lookup: TermsLookup | null;
}
export interface RangeBuilder extends Common {
  readonly type: 'range';
  readonly field: string;
  readonly from: DslValue | null;
  readonly to: DslValue | null;
  readonly includeLower: boolean;
  readonly includeUpper: boolean;
  readonly timeZone: string | null;
  readonly format: string | null;
  readonly relation: string | null;
}
export interface BoolBuilder extends Common {
  readonly type: 'bool';
  readonly must: readonly QueryBuilder[];
  readonly filter: readonly QueryBuilder[];
  readonly should: readonly QueryBuilder[];
  readonly mustNot: readonly QueryBuilder[];
  readonly minimumShouldMatch: string | null;
  readonly adjustPureNegative: boolean;
}
export interface IdsBuilder extends Common {
  readonly type: 'ids';
  readonly types: readonly string[];
  readonly values: readonly string[];
}
export interface ExistsBuilder extends Common {
  readonly type: 'exists';
  readonly field: string;
}
export interface PrefixBuilder extends Common {
  readonly type: 'prefix';
  readonly field: string;
  readonly value: string;
  readonly rewrite: string | null;
}
export interface WildcardBuilder extends Common {
  readonly type: 'wildcard';
  readonly field: string;
  readonly value: string;
  readonly rewrite: string | null;
}
export interface RegexpBuilder extends Common {
  readonly type: 'regexp';
  readonly field: string;
  readonly value: string;
  /** RegexpFlag values (`flags` names or `flags_value`), 65535 (ALL) by default. */
  readonly flagsValue: number;
  readonly maxDeterminizedStates: number;
  readonly rewrite: string | null;
}
export interface FuzzyBuilder extends Common {
  readonly type: 'fuzzy';
  readonly field: string;
  readonly value: DslValue;
  readonly options: FuzzyOptions;
}
export interface ConstantScoreBuilder extends Common {
  readonly type: 'constant_score';
  readonly filter: QueryBuilder;
}
export interface DisMaxBuilder extends Common {
  readonly type: 'dis_max';
  readonly queries: readonly QueryBuilder[];
  readonly tieBreaker: number;
}
export interface QueryStringBuilder extends Common {
  readonly type: 'query_string';
  readonly query: string;
  readonly defaultField: string | null;
  readonly fields: readonly (readonly [string, number])[];
  readonly defaultOperator: Operator;
  readonly analyzer: string | null;
  readonly lenient: boolean | null;
  readonly phraseSlop: number;
  readonly analyzeWildcard: boolean;
  readonly minimumShouldMatch: string | null;
  readonly tieBreaker: number;
  readonly allowLeadingWildcard: boolean;
}

export type { GeoQueryBuilder } from './geo-queries.ts';
import type { GeoQueryBuilder } from './geo-queries.ts';
export type { GeoShapeQueryBuilder } from './geo-shape-query.ts';
import type { GeoShapeQueryBuilder } from './geo-shape-query.ts';

/** `nested` (NestedQueryBuilder). */
export interface NestedBuilder extends Common {
  readonly type: 'nested';
  readonly path: string;
  readonly query: QueryBuilder;
  readonly scoreMode: NestedScoreMode;
  readonly ignoreUnmapped: boolean;
  readonly innerHits: NestedInnerHitsSpec | null;
}

/** `inner_hits` of a nested query as given (name null: the path). */
export interface NestedInnerHitsSpec {
  readonly name: string | null;
  readonly from: number;
  readonly size: number;
  readonly source: boolean;
  readonly version: boolean;
}

export type QueryBuilder =
  | MatchAllBuilder
  | MatchNoneBuilder
  | MatchBuilder
  | MatchPhraseBuilder
  | MultiMatchBuilder
  | TermBuilder
  | TermsBuilder
  | RangeBuilder
  | BoolBuilder
  | IdsBuilder
  | ExistsBuilder
  | PrefixBuilder
  | WildcardBuilder
  | RegexpBuilder
  | FuzzyBuilder
  | ConstantScoreBuilder
  | DisMaxBuilder
  | GeoQueryBuilder
  | GeoShapeQueryBuilder
  | QueryStringBuilder
  | NestedBuilder;
