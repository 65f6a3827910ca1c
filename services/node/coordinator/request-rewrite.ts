/**
 * What a search body needs from the cluster before it goes to the shards
 * (Elasticsearch's query rewrite on the coordinating node): a `terms`
 * query's lookup (`{"index", "type", "id", "path", "routing"}`) is replaced
 * by the values at `path` of that document, read with a realtime get, a
 * `geo_shape` query's `indexed_shape` by the shape at its path (geo-shape-query.ts), and a
 * script field naming a stored script (`{"id": ...}`) gets its source. The
 * shards then receive a body that depends on nothing but itself.
 */
import { illegalArgument, storedScriptMissing } from '../../../shared/errors/es-errors.ts';
import { DEFAULT_SHAPE_INDEX, DEFAULT_SHAPE_PATH, shapeFromSource } from '../../../shared/dsl/query/geo-shape-query.ts';
import { valuesAtPath } from '../../../shared/json/source-values.ts';

export interface RewriteDeps {
  /** The `_source` of a document (realtime), or null when it does not exist. */
  getSource(index: string, type: string | null, id: string, routing: string | null): Promise<Record<string, unknown> | null>;
  storedScript(id: string): { lang: string; source: string } | undefined;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isLookup(v: unknown): v is { index?: string; type?: string; id: string | number; path: string; routing?: string } {
  return isObject(v) && Object.hasOwn(v, 'id') && Object.hasOwn(v, 'path');
}

/** Whether the body holds anything to rewrite (most do not: then it is left as it is, bytes included). */
function needsRewrite(v: unknown, key: string | null): boolean {
  if (Array.isArray(v)) return v.some((x) => needsRewrite(x, null));
  if (!isObject(v)) return false;
  if (key === 'terms' && Object.values(v).some(isLookup)) return true;
  if (key === 'geo_shape' && Object.values(v).some((x) => isObject(x) && isObject(x.indexed_shape))) return true;
  if (key === 'script' && Object.hasOwn(v, 'id')) return true;
  return Object.entries(v).some(([k, x]) => needsRewrite(x, k));
}

async function rewrite(v: Json, key: string | null, deps: RewriteDeps): Promise<Json> {
  if (Array.isArray(v)) return Promise.all(v.map((x) => rewrite(x, null, deps)));
  if (!isObject(v)) return v;
  if (key === 'script' && typeof v.id === 'string') {
    const stored = deps.storedScript(v.id);
    if (stored === undefined) throw storedScriptMissing(v.id);
    const out: Record<string, Json> = { source: stored.source, lang: stored.lang };
    if (v.params !== undefined) out.params = v.params;
    return out;
  }
  const out: Record<string, Json> = {};
  for (const [k, x] of Object.entries(v)) {
    if (key === 'geo_shape' && isObject(x) && isObject(x.indexed_shape)) {
      Object.defineProperty(out, k, { value: await withIndexedShape(x, x.indexed_shape, deps), enumerable: true, writable: true, configurable: true });
      continue;
    }
    if (key === 'terms' && isLookup(x)) {
      const source = await deps.getSource(String(x.index), x.type ?? null, String(x.id), x.routing ?? null);
      Object.defineProperty(out, k, { value: source === null ? [] : valuesAtPath(source, x.path), enumerable: true, writable: true, configurable: true });
      continue;
    }
    Object.defineProperty(out, k, { value: await rewrite(x, k, deps), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** A geo_shape query's field body with `indexed_shape` replaced by the `shape` it names (GeoShapeQueryBuilder.fetch). */
async function withIndexedShape(field: Record<string, Json>, spec: Record<string, Json>, deps: RewriteDeps): Promise<Json> {
  const text = (k: string): string | null => (spec[k] === undefined || spec[k] === null || typeof spec[k] === 'object' ? null : String(spec[k]));
  const id = text('id');
  // without an id the query parser gives Elasticsearch's error on the body as it is
  if (id === null) return field;
  const type = text('type');
  const shape = { id, type, index: text('index') ?? DEFAULT_SHAPE_INDEX, path: text('path') ?? DEFAULT_SHAPE_PATH };
  const source = await deps.getSource(shape.index, type, id, text('routing'));
  if (source === null) throw illegalArgument(type === null ? `Shape with ID [${id}] not found` : `Shape with ID [${id}] in type [${type}] not found`);
  const out: Record<string, Json> = {};
  for (const [k, x] of Object.entries(field)) {
    const key = k === 'indexed_shape' ? 'shape' : k;
    const value = k === 'indexed_shape' ? (shapeFromSource(source, shape) as Json) : x;
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The body with lookups and stored scripts resolved, or null when there was nothing to resolve. */
export async function rewriteSearchBody(body: unknown, deps: RewriteDeps): Promise<unknown | null> {
  if (!needsRewrite(body, null)) return null;
  return rewrite(body as Json, null, deps);
}
