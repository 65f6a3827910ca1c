/**
 * Merging a partial document into a stored source, as Elasticsearch's
 * XContentHelper.update does: objects merge key by key, recursively; any other
 * value (arrays included) replaces the old one. Keys are data: `__proto__`
 * and `constructor` merge like any other field (shared/json/own-keys.ts).
 */
import { getOwn, setOwn } from '../../../shared/json/own-keys.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isObject(v: Json | undefined): v is { [k: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  const ao = a as { [k: string]: Json };
  const bo = b as { [k: string]: Json };
  const keys = Object.keys(ao);
  return keys.length === Object.keys(bo).length && keys.every((k) => Object.hasOwn(bo, k) && deepEqual(ao[k], bo[k]));
}

/** Merges `changes` into `target` in place; returns whether anything changed. */
function mergeInto(target: { [k: string]: Json }, changes: { [k: string]: Json }): boolean {
  let changed = false;
  for (const [k, v] of Object.entries(changes)) {
    const old = getOwn(target, k);
    if (isObject(old) && isObject(v)) {
      if (mergeInto(old, v)) changed = true;
    } else if (!Object.hasOwn(target, k) || !deepEqual(old, v)) {
      setOwn(target, k, v);
      changed = true;
    }
  }
  return changed;
}

/** The merged source, or null when the partial document changes nothing (a noop). */
export function mergePartialDoc(source: Buffer, doc: Buffer): Buffer | null {
  const target = JSON.parse(source.toString('utf8')) as Json;
  const changes = JSON.parse(doc.toString('utf8')) as Json;
  if (!isObject(target) || !isObject(changes)) return doc;
  return mergeInto(target, changes) ? Buffer.from(JSON.stringify(target), 'utf8') : null;
}
