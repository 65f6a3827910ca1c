/**
 * Field patterns with boosts (`title^2`, `plate*`, `*`) resolved against the
 * mapping, as QueryParserHelper.resolveMappingFields does for multi_match and
 * query_string.
 */
import type { ShardSearchContext } from '../../engine/search/types.ts';

/**
 * Fields a pattern list resolves to (QueryParserHelper.resolveMappingFields):
 * `*` (or none given) is every leaf field and makes the query lenient.
 */
export function resolveFields(
  ctx: ShardSearchContext,
  specs: readonly (readonly [string, number])[],
): { fields: [string, number][]; allFields: boolean } {
  const effective = specs.length === 0 ? ([['*', 1]] as const) : specs;
  const allFields = effective.some(([p]) => p === '*' || p === '_all');
  const out = new Map<string, number>();
  for (const [pattern, boost] of effective) {
    const p = pattern === '_all' ? '*' : pattern;
    const names = p.includes('*') ? ctx.mapping.matchingFields(p) : [p];
    for (const name of names) {
      const fm = ctx.mapping.field(name);
      if (fm === undefined || fm.type === 'object') continue;
      if (name.startsWith('_')) continue;
      // a field alias stands for its target (a pattern matching both gives the target once)
      out.set(fm.path, Math.fround((out.get(fm.path) ?? 1) * boost));
    }
  }
  return { fields: [...out], allFields };
}

/**
 * The fields an `exists` query on `field` looks at (ExistsQueryBuilder):
 * the fields the name or pattern matches and every field under it, field
 * aliases replaced by their targets.
 */
export function existsFields(ctx: ShardSearchContext, field: string): string[] {
  const names = [...ctx.mapping.matchingFields(field), ...ctx.mapping.matchingFields(`${field}.*`)];
  return [...new Set(names.map((n) => ctx.mapping.field(n)?.path ?? n))];
}
