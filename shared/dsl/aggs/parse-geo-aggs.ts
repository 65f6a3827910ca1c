/** Parsers of the geo aggregations: geo_bounds, geo_centroid, geohash_grid, geo_distance (Elasticsearch 6.8's parameters and errors). */
import { illegalArgument, parsingException } from '../../errors/es-errors.ts';
import { GEOHASH_MAX_PRECISION, parseOneGeoPoint } from '../../engine/mapping/geo-point.ts';
import type { MappingLookup } from '../../engine/mapping/types.ts';
import { geoField, MAX_GEOHASH_PRECISION_HERE } from '../../engine/aggs/geo-aggregators.ts';
import type { GeoBoundsSpec, GeoCentroidSpec, GeoDistanceAggSpec, GeoHashGridSpec, RangeSpecEntry } from '../../engine/aggs/spec.ts';
import { AggParams, isObject, mustBeAtLeast, tokenName, type Json } from './agg-params.ts';
import type { Common } from './parse-bucket-aggs.ts';
import { METERS, parseDistance, parseDistanceUnit } from '../query/distance-units.ts';

/** GeoPointValuesSource aggregations have no `format` and no `value_type` use here; scripts are refused. */
function readField(p: AggParams): string {
  if (p.has('script')) {
    p.raw('script');
    throw illegalArgument(`scripts are not supported in aggregations [${p.name}]`);
  }
  const field = p.string('field');
  if (field === null) throw parsingException('Required one of fields [field, script], but none were specified. ');
  if (p.has('missing')) {
    p.raw('missing');
    throw illegalArgument(`[missing] is not supported by this engine for geo aggregations [${p.name}]`);
  }
  p.ignore('value_type', 'valueType');
  return field;
}

export function parseGeoBounds(c: Common, body: Json, mapping: MappingLookup): GeoBoundsSpec {
  const p = new AggParams('geo_bounds', c.name, body);
  const field = readField(p);
  const wrapLongitude = p.boolean('wrap_longitude') ?? true;
  p.done();
  geoField(mapping, field);
  return { type: 'geo_bounds', ...c, field, wrapLongitude };
}

export function parseGeoCentroid(c: Common, body: Json, mapping: MappingLookup): GeoCentroidSpec {
  const p = new AggParams('geo_centroid', c.name, body);
  const field = readField(p);
  p.done();
  geoField(mapping, field);
  return { type: 'geo_centroid', ...c, field };
}

/** GeoUtils.parsePrecision: a number of characters, or a distance the cells should be about as wide as. */
function precisionOf(raw: unknown): number {
  if (raw === undefined || raw === null) return 5;
  let p: number;
  if (typeof raw === 'number' || typeof raw === 'bigint') p = Number(raw);
  else if (typeof raw === 'string' && /^\s*\d+\s*$/.test(raw)) p = Number(raw);
  else if (typeof raw === 'string') p = precisionForDistance(parseDistance(raw, null));
  else throw parsingException(`[geohash_grid] precision doesn't support values of type: ${tokenName(raw)}`);
  if (!Number.isInteger(p) || p < 1 || p > GEOHASH_MAX_PRECISION) {
    throw illegalArgument(`Invalid geohash aggregation precision of ${p}. Must be between 1 and ${GEOHASH_MAX_PRECISION}.`);
  }
  return p;
}

/** GeoUtils.geoHashLevelsForPrecision: the fewest characters whose cells are no wider than `meters`. */
function precisionForDistance(meters: number): number {
  const EARTH_EQUATOR = 40075016.69;
  for (let level = 1; level <= GEOHASH_MAX_PRECISION; level++) {
    const lonBits = Math.ceil((level * 5) / 2);
    const width = EARTH_EQUATOR / 2 ** lonBits;
    if (width <= meters) return level;
  }
  return GEOHASH_MAX_PRECISION;
}

export function parseGeoHashGrid(c: Common, body: Json, mapping: MappingLookup): GeoHashGridSpec {
  const p = new AggParams('geohash_grid', c.name, body);
  const field = readField(p);
  const precision = precisionOf(p.raw('precision'));
  const size = p.int('size') ?? 10000;
  const shardSize = p.int('shard_size');
  p.done();
  mustBeAtLeast('size', 0, size, c.name, true);
  if (shardSize !== null) mustBeAtLeast('shard_size', 0, shardSize, c.name, true);
  if (precision > MAX_GEOHASH_PRECISION_HERE) {
    throw illegalArgument(`geohash_grid precision above ${MAX_GEOHASH_PRECISION_HERE} is not supported by this engine [${c.name}]`);
  }
  geoField(mapping, field);
  return { type: 'geohash_grid', ...c, field, precision, size, shardSize: shardSize === null ? null : Math.max(shardSize, size) };
}

function plainPoint(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(plainPoint);
  return v;
}

export function parseGeoDistanceAgg(c: Common, body: Json, mapping: MappingLookup): GeoDistanceAggSpec {
  const p = new AggParams('geo_distance', c.name, body);
  const field = readField(p);
  const rawOrigin = p.raw('origin') ?? p.raw('point') ?? p.raw('center');
  const unitName = p.string('unit');
  const unitMeters = unitName === null ? METERS.meters : parseDistanceUnit(unitName).meters;
  const type = (p.string('distance_type') ?? 'arc').toLowerCase();
  if (type !== 'arc' && type !== 'plane') throw illegalArgument(`No geo distance for [${type}]`);
  const keyed = p.boolean('keyed') ?? false;
  const rawRanges = p.raw('ranges');
  p.done();
  if (rawOrigin === undefined || rawOrigin === null) throw illegalArgument(`[origin] must not be null: [${c.name}]`);
  const origin = parseOneGeoPoint(plainPoint(rawOrigin), true);
  if (rawRanges === undefined || rawRanges === null || (Array.isArray(rawRanges) && rawRanges.length === 0)) {
    throw illegalArgument(`No [ranges] specified for the [${c.name}] aggregation`);
  }
  if (!Array.isArray(rawRanges)) throw parsingException(`[ranges] must be an array in [${c.name}]`);
  const ranges: RangeSpecEntry[] = rawRanges.map((r) => {
    if (!isObject(r)) throw parsingException(`Unexpected token ${tokenName(r)} in [ranges]`);
    for (const k of Object.keys(r)) {
      if (k !== 'from' && k !== 'to' && k !== 'key') throw parsingException(`Unknown key [${k}] in [ranges] of [${c.name}]`);
    }
    const num = (k: string): number | null => {
      const v = r[k];
      if (v === undefined || v === null) return null;
      const n = typeof v === 'number' ? v : Number(v);
      if (Number.isNaN(n)) throw illegalArgument(`For input string: "${String(v)}"`);
      return n;
    };
    return { key: r.key === undefined || r.key === null ? null : String(r.key), from: num('from'), to: num('to') };
  });
  geoField(mapping, field);
  return { type: 'geo_distance', ...c, field, origin, unitMeters, plane: type === 'plane', ranges, keyed };
}
