/**
 * Queries on range fields (RangeFieldMapper.RangeFieldType): `range` with
 * `relation` (`intersects` by default, `within`, `contains`), and `term` /
 * `terms`, which match the ranges holding the value. Date bounds take date
 * math, `format` and `time_zone` as on date fields.
 */
import { illegalArgument } from '../../errors/es-errors.ts';
import type { FieldMapping } from '../../engine/mapping/types.ts';
import { rangeEnd, rangeLimit, type RangeFieldType } from '../../engine/mapping/range-values.ts';
import type { JodaDateFormatter } from '../../engine/mapping/date-format.ts';
import { MATCH_NONE, type Query } from '../../engine/search/query.ts';
import type { ShardSearchContext } from '../../engine/search/types.ts';
import { compareEnds } from '../../engine/mapping/range-values.ts';
import { parseDateBound } from './field-values.ts';
import type { DslValue } from './query-builders.ts';

export interface RangeFieldSpec {
  readonly from: DslValue | null;
  readonly to: DslValue | null;
  readonly includeLower: boolean;
  readonly includeUpper: boolean;
  readonly timeZone: string | null;
  readonly format: string | null;
  readonly relation?: string | null;
}

function relationOf(name: string | null | undefined): 'intersects' | 'within' | 'contains' {
  const r = (name ?? 'intersects').toLowerCase();
  if (r === 'intersects' || r === 'within' || r === 'contains') return r;
  throw illegalArgument(`[range] query does not support relation [${name}]`);
}

function end(ctx: ShardSearchContext, fm: FieldMapping, value: DslValue, lower: boolean, inclusive: boolean, r: RangeFieldSpec): number[] {
  const type = fm.type as RangeFieldType;
  if (type === 'date_range') {
    const opts = { nowMillis: ctx.nowMillis, timeZone: r.timeZone, format: r.format };
    // as on date fields: gt rounds up then excludes, lte rounds up, lt rounds down then excludes
    const v = parseDateBound(fm, value, { ...opts, roundUp: lower ? !inclusive : inclusive });
    return [inclusive ? v : lower ? v + 1 : v - 1];
  }
  return rangeEnd(type, typeof value === 'bigint' ? value.toString() : value, lower, inclusive, { coerce: true, formatter: fm.dateFormat as JodaDateFormatter | null });
}

export function rangeFieldRangeQuery(ctx: ShardSearchContext, fm: FieldMapping, r: RangeFieldSpec, boost: number): Query {
  const type = fm.type as RangeFieldType;
  const relation = relationOf(r.relation);
  const lower = r.from === null ? rangeLimit(type, true) : end(ctx, fm, r.from, true, r.includeLower, r);
  const upper = r.to === null ? rangeLimit(type, false) : end(ctx, fm, r.to, false, r.includeUpper, r);
  if (compareEnds(lower, 0, upper, 0, lower.length) > 0) return MATCH_NONE;
  return { kind: 'range_field', field: fm.path, lower, upper, relation, boost };
}

/** `term`: the ranges that hold the value. */
export function rangeFieldTermQuery(ctx: ShardSearchContext, fm: FieldMapping, value: DslValue, boost: number): Query {
  return rangeFieldRangeQuery(ctx, fm, { from: value, to: value, includeLower: true, includeUpper: true, timeZone: null, format: null }, boost);
}

export function rangeFieldTermsQuery(ctx: ShardSearchContext, fm: FieldMapping, values: readonly DslValue[], boost: number): Query {
  const should = values.map((v) => rangeFieldTermQuery(ctx, fm, v, 1));
  return { kind: 'constant_score', filter: { kind: 'bool', must: [], filter: [], should, mustNot: [], minimumShouldMatch: 1, boost: 1 }, boost };
}
