/**
 * Prints a parsed query the way Elasticsearch 6.8's `QueryBuilder.toString()`
 * does (pretty JSON, every option with its default, Jackson's layout): the text
 * that appears in `failed to create query: {...}`.
 */
import { formatFloat } from '../../engine/search/render-hit.ts';
import type { DslValue, QueryBuilder } from './query-builders.ts';
import { geoQueryToJson } from './geo-queries.ts';
import { geoShapeQueryToJson } from './geo-shape-query.ts';

type XValue = string | number | bigint | boolean | null | XFloat | XObject | XValue[];
class XFloat {
  constructor(readonly value: number) {}
}
type XObject = Map<string, XValue>;

const fl = (v: number): XFloat => new XFloat(v);

function obj(entries: readonly (readonly [string, XValue | undefined])[]): XObject {
  const m: XObject = new Map();
  for (const [k, v] of entries) if (v !== undefined) m.set(k, v);
  return m;
}

function val(v: DslValue | null): XValue {
  return v;
}

function common(q: QueryBuilder): (readonly [string, XValue | undefined])[] {
  return [
    ['boost', fl(q.boost)],
    ['_name', q.name ?? undefined],
  ];
}

function fieldsList(fields: readonly (readonly [string, number])[]): XValue[] {
  return fields.map(([f, b]) => `${f}^${formatFloat(b)}`);
}

export function queryToX(q: QueryBuilder): XObject {
  switch (q.type) {
    case 'match_all':
    case 'match_none':
      return obj([[q.type, obj(common(q))]]);
    case 'match':
      return obj([
        [
          'match',
          obj([
            [
              q.field,
              obj([
                ['query', val(q.query)],
                ['operator', q.operator],
                ['analyzer', q.analyzer ?? undefined],
                ['fuzziness', q.fuzzy?.fuzziness],
                ['prefix_length', q.fuzzy?.prefixLength ?? 0],
                ['max_expansions', q.fuzzy?.maxExpansions ?? 50],
                ['minimum_should_match', q.minimumShouldMatch ?? undefined],
                ['fuzzy_rewrite', q.fuzzy?.rewrite ?? undefined],
                ['fuzzy_transpositions', q.fuzzy?.transpositions ?? true],
                ['lenient', q.lenient],
                ['zero_terms_query', q.zeroTermsQuery],
                ['auto_generate_synonyms_phrase_query', true],
                ...common(q),
              ]),
            ],
          ]),
        ],
      ]);
    case 'match_phrase':
      return obj([
        [
          'match_phrase',
          obj([
            [
              q.field,
              obj([
                ['query', val(q.query)],
                ['analyzer', q.analyzer ?? undefined],
                ['slop', q.slop],
                ['zero_terms_query', q.zeroTermsQuery],
                ...common(q),
              ]),
            ],
          ]),
        ],
      ]);
    case 'multi_match':
      return obj([
        [
          'multi_match',
          obj([
            ['query', val(q.query)],
            ['fields', fieldsList(q.fields)],
            ['type', q.matchType],
            ['operator', q.operator],
            ['analyzer', q.analyzer ?? undefined],
            ['slop', q.slop],
            ['fuzziness', q.fuzzy?.fuzziness],
            ['prefix_length', q.fuzzy?.prefixLength ?? 0],
            ['max_expansions', q.fuzzy?.maxExpansions ?? 50],
            ['minimum_should_match', q.minimumShouldMatch ?? undefined],
            ['tie_breaker', q.tieBreaker === null ? undefined : fl(q.tieBreaker)],
            ['lenient', q.lenient ?? undefined],
            ['zero_terms_query', q.zeroTermsQuery],
            ['auto_generate_synonyms_phrase_query', true],
            ['fuzzy_transpositions', q.fuzzy?.transpositions ?? true],
            ...common(q),
          ]),
        ],
      ]);
    case 'term':
      return obj([['term', obj([[q.field, obj([['value', val(q.value)], ...common(q)])]])]]);
    case 'terms':
      if (q.lookup !== null) {
        const l = q.lookup;
        const lookup = obj([['index', l.index], ['type', l.type ?? undefined], ['id', l.id], ['path', l.path], ['routing', l.routing ?? undefined]]);
        return obj([['terms', obj([[q.field, lookup], ...common(q)])]]);
      }
      return obj([['terms', obj([[q.field, q.values.map(val)], ...common(q)])]]);
    case 'range':
      return obj([
        [
          'range',
          obj([
            [
              q.field,
              obj([
                ['from', val(q.from)],
                ['to', val(q.to)],
                ['include_lower', q.includeLower],
                ['include_upper', q.includeUpper],
                ['time_zone', q.timeZone ?? undefined],
                ['format', q.format ?? undefined],
                ['relation', q.relation ?? undefined],
                ...common(q),
              ]),
            ],
          ]),
        ],
      ]);
    case 'bool':
      return obj([
        [
          'bool',
          obj([
            ['must', q.must.length > 0 ? q.must.map(queryToX) : undefined],
            ['filter', q.filter.length > 0 ? q.filter.map(queryToX) : undefined],
            ['must_not', q.mustNot.length > 0 ? q.mustNot.map(queryToX) : undefined],
            ['should', q.should.length > 0 ? q.should.map(queryToX) : undefined],
            ['adjust_pure_negative', q.adjustPureNegative],
            ['minimum_should_match', q.minimumShouldMatch ?? undefined],
            ...common(q),
          ]),
        ],
      ]);
    case 'ids':
      return obj([['ids', obj([['type', [...q.types]], ['values', [...q.values]], ...common(q)])]]);
    case 'geo_distance':
    case 'geo_bounding_box':
    case 'geo_polygon': {
      const [name, body] = geoQueryToJson(q);
      const toX = (v: unknown): XValue =>
        typeof v === 'number' ? fl(v) : Array.isArray(v) ? v.map(toX) : v instanceof Map ? obj([...v.entries()].map(([k, x]) => [k as string, toX(x)])) : (v as XValue);
      return obj([[name, obj([...[...body.entries()].map(([k, v]) => [k, toX(v)] as const), ...common(q)])]]);
    }
    case 'geo_shape': {
      const toX = (v: unknown): XValue =>
        typeof v === 'number'
          ? Number.isInteger(v) ? v : fl(v)
          : Array.isArray(v)
            ? v.map(toX)
            : v instanceof Map
              ? obj([...v.entries()].map(([k, x]) => [k as string, toX(x)]))
              : v !== null && typeof v === 'object'
                ? obj(Object.entries(v).map(([k, x]) => [k, toX(x)]))
                : (v as XValue);
      return obj([['geo_shape', obj([...[...geoShapeQueryToJson(q).entries()].map(([k, v]) => [k, toX(v)] as const), ...common(q)])]]);
    }
    case 'exists':
      return obj([['exists', obj([['field', q.field], ...common(q)])]]);
    case 'prefix':
      return obj([['prefix', obj([[q.field, obj([['value', q.value], ['rewrite', q.rewrite ?? undefined], ...common(q)])]])]]);
    case 'wildcard':
      return obj([['wildcard', obj([[q.field, obj([['wildcard', q.value], ['rewrite', q.rewrite ?? undefined], ...common(q)])]])]]);
    case 'regexp':
      return obj([
        [
          'regexp',
          obj([
            [
              q.field,
              obj([
                ['value', q.value],
                ['flags_value', q.flagsValue],
                ['max_determinized_states', q.maxDeterminizedStates],
                ['rewrite', q.rewrite ?? undefined],
                ...common(q),
              ]),
            ],
          ]),
        ],
      ]);
    case 'fuzzy':
      return obj([
        [
          'fuzzy',
          obj([
            [
              q.field,
              obj([
                ['value', val(q.value)],
                ['fuzziness', q.options.fuzziness],
                ['prefix_length', q.options.prefixLength],
                ['max_expansions', q.options.maxExpansions],
                ['transpositions', q.options.transpositions],
                ['rewrite', q.options.rewrite ?? undefined],
                ...common(q),
              ]),
            ],
          ]),
        ],
      ]);
    case 'constant_score':
      return obj([['constant_score', obj([['filter', queryToX(q.filter)], ...common(q)])]]);
    case 'dis_max':
      return obj([['dis_max', obj([['tie_breaker', fl(q.tieBreaker)], ['queries', q.queries.map(queryToX)], ...common(q)])]]);
    case 'nested':
      return obj([
        [
          'nested',
          obj([
            ['query', queryToX(q.query)],
            ['path', q.path],
            ['ignore_unmapped', q.ignoreUnmapped],
            ['score_mode', q.scoreMode],
            ...common(q),
          ]),
        ],
      ]);
    case 'query_string':
      return obj([
        [
          'query_string',
          obj([
            ['query', q.query],
            ['default_field', q.defaultField ?? undefined],
            ['fields', fieldsList(q.fields)],
            ['type', 'best_fields'],
            ['tie_breaker', fl(q.tieBreaker)],
            ['default_operator', q.defaultOperator.toLowerCase()],
            ['analyzer', q.analyzer ?? undefined],
            ['max_determinized_states', 10000],
            ['minimum_should_match', q.minimumShouldMatch ?? undefined],
            ['allow_leading_wildcard', q.allowLeadingWildcard],
            ['enable_position_increments', true],
            ['fuzziness', 'AUTO'],
            ['fuzzy_prefix_length', 0],
            ['fuzzy_max_expansions', 50],
            ['phrase_slop', q.phraseSlop],
            ['analyze_wildcard', q.analyzeWildcard],
            ['lenient', q.lenient ?? undefined],
            ['escape', false],
            ['auto_generate_synonyms_phrase_query', true],
            ['fuzzy_transpositions', true],
            ...common(q),
          ]),
        ],
      ]);
  }
}

function printValue(v: XValue, indent: string): string {
  if (v === null) return 'null';
  if (v instanceof XFloat) return formatFloat(v.value);
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  const inner = indent + '  ';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[ ]';
    return `[\n${v.map((x) => inner + printValue(x, inner)).join(',\n')}\n${indent}]`;
  }
  if (v.size === 0) return '{ }';
  const parts: string[] = [];
  for (const [k, x] of v) parts.push(`${inner}${JSON.stringify(k)} : ${printValue(x, inner)}`);
  return `{\n${parts.join(',\n')}\n${indent}}`;
}

/** Elasticsearch's `QueryBuilder.toString()` of `q`. */
export function renderQuery(q: QueryBuilder): string {
  return printValue(queryToX(q), '');
}
