/**
 * XContentMapValues.extractRawValues: the leaf values (strings, numbers,
 * booleans) at a dotted path of a parsed `_source`, through arrays. A key may
 * itself hold dots (`"a.b"` as one field name); where both `a` and `a.b`
 * lead on, the shorter key's values come first, as there. The object's own
 * keys are matched against the path, so the work follows the source, never
 * the length of a path a request sent.
 */
import { getOwn } from './own-keys.ts';

export type SourceLeaf = string | number | boolean;

export function valuesAtPath(source: unknown, path: string): SourceLeaf[] {
  const out: SourceLeaf[] = [];
  walk(source, path, out);
  return out;
}

/** `rest`: what is left of the path below `node`; null once the path is consumed. */
function walk(node: unknown, rest: string | null, out: SourceLeaf[]): void {
  if (Array.isArray(node)) {
    for (const x of node) walk(x, rest, out);
    return;
  }
  if (rest === null) {
    if (typeof node === 'string' || typeof node === 'number' || typeof node === 'boolean') out.push(node);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const keys: string[] = [];
  for (const k of Object.keys(node)) {
    if (rest === k || (rest.startsWith(k) && rest.charCodeAt(k.length) === 46 /* . */)) keys.push(k);
  }
  if (keys.length > 1) keys.sort((a, b) => a.length - b.length);
  for (const k of keys) walk(getOwn(node as Record<string, unknown>, k), k.length === rest.length ? null : rest.slice(k.length + 1), out);
}
