/**
 * Parsed DSL → engine query on one shard (QueryBuilder.toQuery): the mapping
 * decides what each clause becomes. Failures that are not already query-level
 * errors are wrapped as Elasticsearch wraps them:
 * query_shard_exception `failed to create query: <the query as ES prints it>`.
 */
import { EsError, illegalArgument, javaCause, queryShardException } from '../../errors/es-errors.ts';
import { MATCH_NONE } from '../../engine/search/query.ts';
import type { Query } from '../../engine/search/query.ts';
import type { QuerySource, ShardSearchContext } from '../../engine/search/types.ts';
import {
  analyzedQueryFor,
  prefixQueryFor,
  rangeQueryFor,
  termQueryFor,
  fuzzyQueryFor,
  valueText,
  termsQueryFor,
  wildcardQueryFor,
  regexpQueryFor,
  withBoost,
  metadataExistsQuery,
} from './field-queries.ts';
import { calculateMinShouldMatch } from './minimum-should-match.ts';
import type { MultiMatchBuilder, QueryBuilder } from './query-builders.ts';
import { buildQueryString } from './query-string.ts';
import { existsFields, resolveFields } from './resolve-fields.ts';
import { renderQuery } from './render-query.ts';
import { buildGeoQuery } from './geo-queries.ts';
import { buildGeoShapeQuery } from './geo-shape-query.ts';

function multiMatch(q: MultiMatchBuilder, ctx: ShardSearchContext): Query {
  const { fields, allFields } = resolveFields(ctx, q.fields);
  const lenient = q.lenient ?? allFields;
  const phrase = q.matchType === 'phrase' || q.matchType === 'phrase_prefix';
  const perField: Query[] = [];
  for (const [field, boost] of fields) {
    const fq = analyzedQueryFor(
      ctx,
      field,
      q.query,
      {
        operator: q.operator,
        analyzer: q.analyzer,
        minimumShouldMatch: q.minimumShouldMatch,
        lenient,
        zeroTermsQuery: q.zeroTermsQuery,
        phrase,
        slop: q.slop,
        fuzzy: phrase ? null : q.fuzzy,
      },
      boost,
    );
    if (fq.kind !== 'match_none') perField.push(fq);
  }
  if (perField.length === 0) return MATCH_NONE;
  const combined: Query =
    perField.length === 1
      ? perField[0]!
      : {
          kind: 'dis_max',
          queries: perField,
          tieBreaker: q.tieBreaker ?? (q.matchType === 'most_fields' ? 1 : 0),
          boost: 1,
        };
  return withBoost(combined, q.boost);
}

/** One clause to an engine query; `isFilter` is Elasticsearch's QueryShardContext.isFilter(). */
export function buildQuery(q: QueryBuilder, ctx: ShardSearchContext, isFilter = false): Query {
  switch (q.type) {
    case 'match_all':
      return { kind: 'match_all', boost: q.boost };
    case 'match_none':
      return MATCH_NONE;
    case 'term':
      return termQueryFor(ctx, q.field, q.value, q.boost);
    case 'terms':
      // The coordinator replaces a lookup by its values before the search reaches a shard (terms-lookup.ts).
      if (q.lookup !== null) throw illegalArgument(`[terms] lookup of [${q.lookup.index}/${q.lookup.id}] was not resolved`);
      return termsQueryFor(ctx, q.field, q.values, q.boost);
    case 'range':
      return rangeQueryFor(ctx, q.field, q, q.boost);
    case 'prefix':
      return prefixQueryFor(ctx, q.field, q.value, q.boost);
    case 'wildcard':
      return wildcardQueryFor(ctx, q.field, q.value, q.boost);
    case 'regexp':
      return regexpQueryFor(ctx, q.field, q.value, q.boost);
    case 'fuzzy':
      return fuzzyQueryFor(ctx, q.field, valueText(q.value), q.options, q.boost);
    case 'geo_distance':
    case 'geo_bounding_box':
    case 'geo_polygon':
      return buildGeoQuery(q, ctx);
    case 'geo_shape':
      return buildGeoShapeQuery(q, ctx);
    case 'exists': {
      const meta = metadataExistsQuery(q.field, q.boost);
      if (meta !== null) return meta;
      const fields = existsFields(ctx, q.field);
      if (fields.length === 0) return MATCH_NONE;
      return { kind: 'exists', fields, boost: q.boost };
    }
    case 'ids': {
      const types = q.types;
      if (types.length > 0 && !types.includes(ctx.typeName) && !(types.length === 1 && types[0] === '_all')) return MATCH_NONE;
      if (q.values.length === 0) return MATCH_NONE;
      return { kind: 'ids', ids: q.values, boost: q.boost };
    }
    case 'constant_score':
      return { kind: 'constant_score', filter: buildQuery(q.filter, ctx, true), boost: q.boost };
    case 'dis_max':
      if (q.queries.length === 0) return MATCH_NONE;
      return { kind: 'dis_max', queries: q.queries.map((c) => buildQuery(c, ctx, isFilter)), tieBreaker: q.tieBreaker, boost: q.boost };
    case 'bool': {
      const must = q.must.map((c) => buildQuery(c, ctx, isFilter));
      const should = q.should.map((c) => buildQuery(c, ctx, isFilter));
      const filter = q.filter.map((c) => buildQuery(c, ctx, true));
      const mustNot = q.mustNot.map((c) => buildQuery(c, ctx, true));
      if (must.length + should.length + filter.length + mustNot.length === 0) return { kind: 'match_all', boost: q.boost };
      // In filter context a bool with should clauses needs one of them unless told otherwise.
      const spec = isFilter && q.minimumShouldMatch === null && should.length > 0 ? '1' : q.minimumShouldMatch;
      const msm = spec === null ? 0 : Math.max(0, calculateMinShouldMatch(should.length, spec));
      const pureNegative = must.length + should.length + filter.length === 0;
      if (pureNegative && !q.adjustPureNegative) return MATCH_NONE;
      return { kind: 'bool', must, filter, should, mustNot, minimumShouldMatch: msm, boost: q.boost };
    }
    case 'match':
      return analyzedQueryFor(
        ctx,
        q.field,
        q.query,
        {
          operator: q.operator,
          analyzer: q.analyzer,
          minimumShouldMatch: q.minimumShouldMatch,
          lenient: q.lenient,
          zeroTermsQuery: q.zeroTermsQuery,
          phrase: false,
          slop: 0,
          fuzzy: q.fuzzy,
        },
        q.boost,
      );
    case 'match_phrase':
      return analyzedQueryFor(
        ctx,
        q.field,
        q.query,
        {
          operator: 'OR',
          analyzer: q.analyzer,
          minimumShouldMatch: null,
          lenient: false,
          zeroTermsQuery: q.zeroTermsQuery,
          phrase: true,
          slop: q.slop,
        },
        q.boost,
      );
    case 'multi_match':
      return multiMatch(q, ctx);
    case 'query_string':
      return buildQueryString(q, ctx);
    case 'nested': {
      // NestedQueryBuilder.doToQuery
      const nested = ctx.mapping.nestedObject?.(q.path);
      if (nested === undefined) {
        if (q.ignoreUnmapped) return MATCH_NONE;
        if (ctx.mapping.isObject?.(q.path) === true) throw javaCause('illegal_state_exception', `[nested] nested object under path [${q.path}] is not of nested type`);
        throw javaCause('illegal_state_exception', `[nested] failed to find nested object under path [${q.path}]`);
      }
      const ih = q.innerHits;
      return {
        kind: 'nested',
        path: q.path,
        parentPath: nested.parent,
        query: buildQuery(q.query, ctx, isFilter),
        scoreMode: q.scoreMode,
        boost: q.boost,
        innerHits: ih === null ? null : { name: ih.name ?? q.path, from: ih.from, size: ih.size, source: ih.source, version: ih.version },
      };
    }
  }
}

/** The request's query as the engine's QuerySource: built per shard, with ES's error wrapping. */
export class DslQuery implements QuerySource {
  readonly builder: QueryBuilder;

  constructor(builder: QueryBuilder) {
    this.builder = builder;
  }

  toQuery(ctx: ShardSearchContext): Query {
    try {
      return buildQuery(this.builder, ctx);
    } catch (e) {
      if (e instanceof EsError && (e.type === 'query_shard_exception' || e.type === 'parsing_exception')) throw e;
      if (e instanceof EsError) {
        throw queryShardException(`failed to create query: ${this.toString()}`, e, ctx.index, ctx.indexUuid);
      }
      throw e;
    }
  }

  toString(): string {
    return renderQuery(this.builder);
  }

  hasInnerHits(): boolean {
    return hasNestedInnerHits(this.builder);
  }
}

function hasNestedInnerHits(q: QueryBuilder): boolean {
  switch (q.type) {
    case 'nested':
      return q.innerHits !== null || hasNestedInnerHits(q.query);
    case 'bool':
      return [...q.must, ...q.filter, ...q.should, ...q.mustNot].some(hasNestedInnerHits);
    case 'dis_max':
      return q.queries.some(hasNestedInnerHits);
    case 'constant_score':
      return hasNestedInnerHits(q.filter);
    default:
      return false;
  }
}
