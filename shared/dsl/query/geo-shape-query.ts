/**
 * The `geo_shape` query of Elasticsearch 6.8 (GeoShapeQueryBuilder): one
 * field with an inline `shape` (GeoJSON or WKT, read with the default
 * orientation, as 6.8 reads query shapes) or an `indexed_shape` (`id`,
 * `type`, `index` default `shapes`, `path` default `shape`, `routing`; the coordinator
 * replaces it by the shape it names before the shards see the query, see
 * services/node/coordinator/request-rewrite.ts), a `relation` (intersects,
 * disjoint, within, contains), a `strategy` (recursive, term: term answers
 * intersects only), `ignore_unmapped`, `boost`, `_name`.
 */
import { illegalArgument, queryShardException } from '../../errors/es-errors.ts';
import { prepareShape, type PreparedShape } from '../../engine/geo-shape/prepared-shape.ts';
import { DEFAULT_SHAPE_OPTIONS, parseShape } from '../../engine/geo-shape/shape-parser.ts';
import { MATCH_NONE, type GeoShapeQuery, type Query } from '../../engine/search/query.ts';
import type { ShardSearchContext } from '../../engine/search/types.ts';
import { tokenName, type DslReader } from './dsl-reader.ts';
import type { JsonMap } from './json-source.ts';
import { plain } from './geo-queries.ts';

export type ShapeRelation = GeoShapeQuery['relation'];

export interface IndexedShape {
  readonly id: string;
  readonly type: string | null;
  readonly index: string;
  readonly path: string;
}

export interface GeoShapeQueryBuilder {
  readonly type: 'geo_shape';
  readonly field: string;
  /** The inline shape as given (for printing) and ready to test; null with an indexed shape not yet fetched. */
  readonly shapeJson: unknown;
  readonly shape: PreparedShape | null;
  readonly indexed: IndexedShape | null;
  readonly relation: ShapeRelation;
  readonly strategy: 'recursive' | 'term' | null;
  readonly ignoreUnmapped: boolean;
  readonly boost: number;
  readonly name: string | null;
}

export const DEFAULT_SHAPE_INDEX = 'shapes';
export const DEFAULT_SHAPE_PATH = 'shape';


/** ShapeRelation.getRelationByName. */
function relationOf(name: string): ShapeRelation | null {
  const n = name.toLowerCase();
  return n === 'intersects' || n === 'disjoint' || n === 'within' || n === 'contains' ? n : null;
}

export function parseGeoShape(r: DslReader, body: JsonMap): GeoShapeQueryBuilder {
  let field: string | null = null;
  let shapeJson: unknown = null;
  let shape: PreparedShape | null = null;
  let hasShape = false;
  let relation: ShapeRelation | null = null;
  let strategy: 'recursive' | 'term' | null = null;
  let id: string | null = null;
  let type: string | null = null;
  let index: string | null = null;
  let path: string | null = null;
  let boost = 1;
  let name: string | null = null;
  let ignoreUnmapped = false;
  for (const key of Object.keys(body)) {
    const v = body[key];
    if (r.isMap(v)) {
      if (field !== null) throw r.errorAt(body, key, `[geo_shape] point specified twice. [${key}]`);
      field = key;
      for (const k of Object.keys(v)) {
        const x = v[k];
        switch (k) {
          case 'shape': {
            shapeJson = plain(x);
            const parsed = parseShape(shapeJson, DEFAULT_SHAPE_OPTIONS);
            hasShape = parsed !== null;
            if (parsed !== null) shape = prepareShape(parsed);
            break;
          }
          case 'strategy': {
            const s = r.text(v, k);
            if (s !== 'recursive' && s !== 'term') throw r.errorAt(v, k, `Unknown strategy [${s} ]`);
            strategy = s;
            break;
          }
          case 'relation': {
            const rel = relationOf(r.text(v, k));
            if (rel === null) throw r.errorAt(v, k, `Unknown shape operation [${r.text(v, k)} ]`);
            relation = rel;
            break;
          }
          case 'indexed_shape': {
            if (!r.isMap(x)) throw r.errorAt(v, k, `[geo_shape] query does not support [${k}]`);
            for (const f of Object.keys(x)) {
              const fv = x[f];
              if (fv !== null && typeof fv === 'object') throw r.errorAt(x, f, `[geo_shape] unknown token [${tokenName(fv)}] after [${f}]`);
              const text = fv === null ? null : r.text(x, f);
              if (f === 'id') id = text;
              else if (f === 'type') type = text;
              else if (f === 'index') index = text;
              else if (f === 'path') path = text;
            }
            break;
          }
          default:
            throw r.errorAt(v, k, `[geo_shape] query does not support [${k}]`);
        }
      }
      continue;
    }
    switch (key) {
      case 'boost':
        boost = r.float(body, key);
        break;
      case '_name':
        name = r.text(body, key);
        break;
      case 'ignore_unmapped':
        ignoreUnmapped = r.bool(body, key);
        break;
      default:
        throw r.errorAt(body, key, `[geo_shape] query does not support [${key}]`);
    }
  }
  if (field === null) throw illegalArgument('fieldName is required');
  if (!hasShape && id === null) throw illegalArgument('either shapeBytes or indexedShapeId and indexedShapeType are required');
  const rel = relation ?? 'intersects';
  if (strategy === 'term' && rel !== 'intersects') {
    throw illegalArgument(`strategy [term] only supports relation [intersects] found relation [${rel}]`);
  }
  const indexed = hasShape ? null : { id: id!, type, index: index ?? DEFAULT_SHAPE_INDEX, path: path ?? DEFAULT_SHAPE_PATH };
  return { type: 'geo_shape', field, shapeJson, shape, indexed, relation: rel, strategy, ignoreUnmapped, boost, name };
}

/** The engine query on this shard's mapping. */
export function buildGeoShapeQuery(q: GeoShapeQueryBuilder, ctx: ShardSearchContext): Query {
  if (q.shape === null) throw illegalArgument(`[geo_shape] indexed shape [${q.indexed?.index}/${q.indexed?.id}] was not resolved`);
  const fm = ctx.mapping.field(q.field);
  if (fm === undefined) {
    if (q.ignoreUnmapped) return MATCH_NONE;
    throw queryShardException(`failed to find geo_shape field [${q.field}]`);
  }
  if (fm.type !== 'geo_shape') throw queryShardException(`Field [${q.field}] is not a geo_shape`);
  const strategy = q.strategy ?? fm.geoShape?.strategy ?? 'recursive';
  if (strategy === 'term' && q.relation !== 'intersects') {
    throw queryShardException(`failed to create query: strategy [term] only supports relation [intersects] found relation [${q.relation}]`);
  }
  return { kind: 'geo_shape', field: q.field, relation: q.relation, shape: q.shape, boost: q.boost };
}

/** The shape of an indexed-shape document's source at `path` (parsed as a query shape), or an error naming what is missing. */
export function shapeFromSource(source: Record<string, unknown>, spec: IndexedShape): unknown {
  let v: unknown = source;
  for (const part of spec.path.split('.')) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, part)) {
      throw illegalArgument(`Shape with name [${spec.id}] found but missing ${spec.path} field`);
    }
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/** How GeoShapeQueryBuilder prints itself. */
export function geoShapeQueryToJson(q: GeoShapeQueryBuilder): Map<string, unknown> {
  const inner = new Map<string, unknown>();
  if (q.strategy !== null) inner.set('strategy', q.strategy);
  if (q.indexed === null) inner.set('shape', q.shapeJson);
  else {
    const spec = new Map<string, unknown>([['id', q.indexed.id]]);
    if (q.indexed.type !== null) spec.set('type', q.indexed.type);
    spec.set('index', q.indexed.index);
    spec.set('path', q.indexed.path);
    inner.set('indexed_shape', spec);
  }
  inner.set('relation', q.relation);
  return new Map<string, unknown>([
    [q.field, inner],
    ['ignore_unmapped', q.ignoreUnmapped],
  ]);
}
