/**
 * The geo queries of Elasticsearch 6.8 on geo_point fields: `geo_distance`,
 * `geo_bounding_box` and `geo_polygon` (GeoDistanceQueryBuilder,
 * GeoBoundingBoxQueryBuilder, GeoPolygonQueryBuilder): parsed from the DSL
 * with their errors, and built into the engine's geo filter per shard.
 */
import { illegalArgument, illegalArgumentCause, queryShardException, type EsError } from '../../errors/es-errors.ts';
import { normalizePoint, parseOneGeoPoint } from '../../engine/mapping/geo-point.ts';
import { MATCH_NONE, type GeoFilter, type Query } from '../../engine/search/query.ts';
import type { ShardSearchContext } from '../../engine/search/types.ts';
import type { DslReader } from './dsl-reader.ts';
import type { Json, JsonMap } from './json-source.ts';
import { parseDistance, parseDistanceUnit, type DistanceUnit } from './distance-units.ts';

export type GeoValidationMethod = 'STRICT' | 'IGNORE_MALFORMED' | 'COERCE';

export interface GeoQueryBuilder {
  readonly type: 'geo_distance' | 'geo_bounding_box' | 'geo_polygon';
  readonly field: string;
  /** In degrees as given (checked or normalised when the query is built). */
  readonly filter: GeoFilter;
  readonly validation: GeoValidationMethod;
  readonly ignoreUnmapped: boolean;
  readonly boost: number;
  readonly name: string | null;
}

/** JSON as the mapping parser reads it: long integers come as bigints from the located parser. */
export function plain(v: Json | undefined): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) Object.defineProperty(out, k, { value: plain((v as JsonMap)[k]), enumerable: true, writable: true });
    return out;
  }
  return v;
}

function pointAt(r: DslReader, container: object, key: string | number): [number, number] {
  const v = (container as Record<string | number, Json>)[key];
  try {
    return parseOneGeoPoint(plain(v), true);
  } catch (e) {
    if ((e as EsError).type === 'parse_exception') throw r.errorAt(container, key, (e as EsError).reason);
    throw e;
  }
}

function validationMethod(r: DslReader, body: JsonMap, key: string): GeoValidationMethod {
  const s = r.text(body, key).toUpperCase();
  if (s === 'STRICT' || s === 'IGNORE_MALFORMED' || s === 'COERCE') return s;
  throw illegalArgument(`No enum constant org.elasticsearch.index.query.GeoValidationMethod.${r.text(body, key)}`);
}

/** The options every geo query shares; false when `key` is none of them. */
interface Shared {
  validation: GeoValidationMethod;
  ignoreUnmapped: boolean;
  boost: number;
  name: string | null;
}

function sharedOption(r: DslReader, body: JsonMap, key: string, o: Shared): boolean {
  switch (key) {
    case 'validation_method':
      o.validation = validationMethod(r, body, key);
      return true;
    case 'ignore_malformed':
      if (r.bool(body, key) && o.validation !== 'COERCE') o.validation = 'IGNORE_MALFORMED';
      return true;
    case 'coerce':
      if (r.bool(body, key)) o.validation = 'COERCE';
      return true;
    case 'ignore_unmapped':
      o.ignoreUnmapped = r.bool(body, key);
      return true;
    case 'boost':
      o.boost = r.float(body, key);
      return true;
    case '_name':
      o.name = r.text(body, key);
      return true;
    default:
      return false;
  }
}

function newShared(): Shared {
  return { validation: 'STRICT', ignoreUnmapped: false, boost: 1, name: null };
}

export function parseGeoDistance(r: DslReader, body: JsonMap): GeoQueryBuilder {
  const o = newShared();
  let field: string | null = null;
  let point: [number, number] | null = null;
  let distance: Json | null = null;
  let unit: DistanceUnit | null = null;
  let plane = false;
  for (const key of Object.keys(body)) {
    const v = body[key];
    if (v !== null && typeof v === 'object') {
      if (field !== null && field !== key) throw r.errorAt(body, key, `[geo_distance] query doesn't support multiple fields, found [${field}] and [${key}]`);
      field = key;
      point = pointAt(r, body, key);
      continue;
    }
    switch (key) {
      case 'distance':
        distance = v;
        break;
      case 'unit':
        unit = parseDistanceUnit(r.text(body, key));
        break;
      case 'distance_type': {
        const t = r.text(body, key).toLowerCase();
        if (t === 'plane') plane = true;
        else if (t === 'arc' || t === 'sloppy_arc') plane = false;
        else throw illegalArgument(`No geo distance for [${r.text(body, key)}]`);
        break;
      }
      default:
        if (sharedOption(r, body, key, o)) break;
        if (field === null && typeof v === 'string') {
          field = key;
          point = pointAt(r, body, key);
          break;
        }
        throw r.errorAt(body, key, `failed to parse [geo_distance] query. unexpected field [${key}]`);
    }
  }
  if (distance === null || distance === undefined) throw r.errorOf(body, "geo_distance requires 'distance' to be specified");
  if (field === null || point === null) throw illegalArgument('fieldName must not be null or empty');
  const meters = parseDistance(distance, unit);
  if (!(meters > 0)) throw illegalArgument('distance must be greater than zero');
  return { type: 'geo_distance', field, filter: { type: 'distance', lat: point[0], lon: point[1], meters, plane }, ...o };
}

export function parseGeoBoundingBox(r: DslReader, body: JsonMap): GeoQueryBuilder {
  const o = newShared();
  let field: string | null = null;
  let top = NaN;
  let bottom = NaN;
  let left = NaN;
  let right = NaN;
  for (const key of Object.keys(body)) {
    const v = body[key];
    if (!r.isMap(v)) {
      if (key === 'type') continue; // `memory` or `indexed`: both are the same search here
      if (sharedOption(r, body, key, o)) continue;
      throw r.errorAt(body, key, `failed to parse [geo_bounding_box] query. unexpected field [${key}]`);
    }
    field = key;
    for (const corner of Object.keys(v)) {
      const num = (): number => {
        const c = v[corner];
        const n = typeof c === 'bigint' ? Number(c) : typeof c === 'number' ? c : typeof c === 'string' ? Number(c) : NaN;
        if (Number.isNaN(n)) throw r.errorAt(v, corner, `[${corner}] must be a number`);
        return n;
      };
      switch (corner) {
        case 'top':
          top = num();
          break;
        case 'bottom':
          bottom = num();
          break;
        case 'left':
          left = num();
          break;
        case 'right':
          right = num();
          break;
        case 'top_left':
        case 'topLeft':
          [top, left] = pointAt(r, v, corner);
          break;
        case 'bottom_right':
        case 'bottomRight':
          [bottom, right] = pointAt(r, v, corner);
          break;
        case 'top_right':
        case 'topRight':
          [top, right] = pointAt(r, v, corner);
          break;
        case 'bottom_left':
        case 'bottomLeft':
          [bottom, left] = pointAt(r, v, corner);
          break;
        default:
          throw r.errorAt(v, corner, `failed to parse [geo_bounding_box] query. unexpected field [${corner}]`);
      }
    }
  }
  if (field === null) throw illegalArgument('Field name must not be empty.');
  for (const [n, c] of [['top', top], ['bottom', bottom], ['left', left], ['right', right]] as const) {
    if (Number.isNaN(c)) throw r.errorOf(body, `failed to parse bounding box. Missing ${n === 'top' || n === 'bottom' ? n : n} value.`.replace(' value.', ' value'));
  }
  if (o.validation !== 'IGNORE_MALFORMED' && o.validation !== 'COERCE') {
    if (top < bottom) throw illegalArgument(`top is below bottom corner: ${top} vs. ${bottom}`);
  }
  return { type: 'geo_bounding_box', field, filter: { type: 'box', minLat: bottom, maxLat: top, minLon: left, maxLon: right }, ...o };
}

export function parseGeoPolygon(r: DslReader, body: JsonMap): GeoQueryBuilder {
  const o = newShared();
  let field: string | null = null;
  const lats: number[] = [];
  const lons: number[] = [];
  for (const key of Object.keys(body)) {
    const v = body[key];
    if (!r.isMap(v)) {
      if (sharedOption(r, body, key, o)) continue;
      throw r.errorAt(body, key, `[geo_polygon] query does not support [${key}]`);
    }
    field = key;
    for (const k of Object.keys(v)) {
      const list = v[k];
      if (k !== 'points') throw r.errorAt(v, k, `[geo_polygon] query does not support [${k}]`);
      if (!Array.isArray(list)) throw r.errorAt(v, k, `[geo_polygon] query does not support token type [${typeof list}] under [${k}]`);
      for (let i = 0; i < list.length; i++) {
        const [la, lo] = pointAt(r, list, i);
        lats.push(la);
        lons.push(lo);
      }
    }
  }
  if (field === null) throw illegalArgument('fieldName must not be null');
  // GeoPolygonQueryBuilder closes the shell itself
  if (lats.length > 0 && (lats[0] !== lats[lats.length - 1] || lons[0] !== lons[lons.length - 1])) {
    lats.push(lats[0]!);
    lons.push(lons[0]!);
  }
  if (lats.length < 4) throw illegalArgument('too few points defined for geo_polygon query');
  lats.pop();
  lons.pop();
  return { type: 'geo_polygon', field, filter: { type: 'polygon', lats, lons }, ...o };
}

function checkLat(lat: number, name: string): void {
  if (!(lat >= -90 && lat <= 90)) throw queryShardException(`illegal latitude value [${javaDouble(lat)}] for [${name}]`);
}

function checkLon(lon: number, name: string): void {
  if (!(lon >= -180 && lon <= 180)) throw queryShardException(`illegal longitude value [${javaDouble(lon)}] for [${name}]`);
}

function javaDouble(v: number): string {
  return Number.isInteger(v) && Math.abs(v) < 1e7 ? `${v}.0` : String(v);
}

/** The filter with its coordinates checked (STRICT) or brought into range (COERCE, IGNORE_MALFORMED). */
function validated(q: GeoQueryBuilder): GeoFilter {
  const f = q.filter;
  const strict = q.validation === 'STRICT';
  const fix = (lat: number, lon: number): [number, number] => {
    if (strict) {
      checkLat(lat, q.type);
      checkLon(lon, q.type);
      return [lat, lon];
    }
    return normalizePoint(lat, lon);
  };
  switch (f.type) {
    case 'distance': {
      const [lat, lon] = fix(f.lat, f.lon);
      return { ...f, lat, lon };
    }
    case 'box': {
      if (strict) {
        checkLat(f.maxLat, q.type);
        checkLat(f.minLat, q.type);
        checkLon(f.minLon, q.type);
        checkLon(f.maxLon, q.type);
        return f;
      }
      const [maxLat, minLon] = normalizePoint(f.maxLat, f.minLon);
      const [minLat, maxLon] = normalizePoint(f.minLat, f.maxLon);
      return { type: 'box', minLat, maxLat, minLon, maxLon };
    }
    case 'polygon': {
      const lats: number[] = [];
      const lons: number[] = [];
      f.lats.forEach((la, i) => {
        const [a, b] = fix(la, f.lons[i]!);
        lats.push(a);
        lons.push(b);
      });
      return { type: 'polygon', lats, lons };
    }
  }
}

/** The engine query of a geo query on this shard's mapping. */
export function buildGeoQuery(q: GeoQueryBuilder, ctx: ShardSearchContext): Query {
  const fm = ctx.mapping.field(q.field);
  if (fm === undefined) {
    if (q.ignoreUnmapped) return MATCH_NONE;
    throw queryShardException(`failed to find geo_point field [${q.field}]`);
  }
  if (fm.type !== 'geo_point') throw queryShardException(`field [${q.field}] is not a geo_point field`);
  if (!fm.index && !fm.docValues) throw illegalArgumentCause(`Cannot search on field [${fm.path}] since it is not indexed.`);
  return { kind: 'geo', field: fm.path, filter: validated(q), boost: q.boost };
}

/** How GeoDistanceQueryBuilder and its siblings print themselves (as `failed to create query` shows them). */
export function geoQueryToJson(q: GeoQueryBuilder): [string, Map<string, unknown>] {
  const f = q.filter;
  const m = new Map<string, unknown>();
  if (f.type === 'distance') {
    m.set(q.field, [f.lon, f.lat]);
    m.set('distance', f.meters);
    m.set('distance_type', f.plane ? 'plane' : 'arc');
  } else if (f.type === 'box') {
    m.set(q.field, new Map<string, unknown>([['top_left', [f.minLon, f.maxLat]], ['bottom_right', [f.maxLon, f.minLat]]]));
  } else {
    const pts = f.lats.map((la, i) => [f.lons[i], la]);
    pts.push([f.lons[0], f.lats[0]]);
    m.set(q.field, new Map<string, unknown>([['points', pts]]));
  }
  m.set('validation_method', q.validation);
  if (q.type === 'geo_bounding_box') m.set('type', 'MEMORY');
  m.set('ignore_unmapped', q.ignoreUnmapped);
  return [q.type, m];
}
