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
      out.set(name, Math.fround((out.get(name) ?? 1) * boost));
    }
  }
  return { fields: [...out], allFields };
}
