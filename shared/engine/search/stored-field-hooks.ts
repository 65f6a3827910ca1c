/**
 * `stored_fields` of a search (FetchPhase): the values of the named fields
 * mapped with `store: true`, under the name asked (a field alias shows its
 * target's values under its own name, as 6.4+ resolves it), in the hit's
 * `fields`. Stored values are kept in `_source` here (docs/field-types.md),
 * so they are read from it at the target's path. `_source` and `_none_` are
 * not fields; a pattern names every matching field.
 */
import type { MappingLookup } from '../mapping/types.ts';
import { valuesAtPath } from '../../json/source-values.ts';
import type { HitHooks } from './render-hit.ts';

/** Requested name → the path its values are read at; null when no requested field is stored. */
function storedTargets(names: readonly string[], mapping: MappingLookup): [string, string][] {
  const out: [string, string][] = [];
  const seen = new Set<string>();
  for (const pattern of names) {
    if (pattern === '_source' || pattern === '_none_') continue;
    const resolved = pattern.includes('*') ? mapping.matchingFields(pattern) : [pattern];
    for (const name of resolved) {
      const fm = mapping.field(name);
      if (fm === undefined || !fm.store || seen.has(name)) continue;
      seen.add(name);
      out.push([name, fm.path]);
    }
  }
  return out;
}

export function storedFieldHooks(names: readonly string[] | null, mapping: MappingLookup): HitHooks | null {
  if (names === null) return null;
  const targets = storedTargets(names, mapping);
  if (targets.length === 0) return null;
  return {
    fields: (_view, _doc, source) => {
      if (source.length === 0) return '';
      const src = JSON.parse(Buffer.from(source.buffer, source.byteOffset, source.length).toString('utf8')) as unknown;
      const members: string[] = [];
      for (const [name, path] of targets) {
        const values = valuesAtPath(src, path);
        if (values.length > 0) members.push(`${JSON.stringify(name)}:${JSON.stringify(values)}`);
      }
      return members.join(',');
    },
  };
}
