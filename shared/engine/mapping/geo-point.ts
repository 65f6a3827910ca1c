/**
 * geo_point values as Elasticsearch 6.8 reads them (GeoUtils.parseGeoPoint,
 * GeoPointFieldMapper.parse): an object `{lat, lon}` or `{geohash}`, a string
 * `"lat,lon"` or a geohash, an array `[lon, lat]` (GeoJSON order), each with
 * an optional z value that `ignore_z_value` allows; an array of any of these
 * is several points. Errors are ElasticsearchParseException's texts.
 *
 * Points are kept as Lucene's LatLonPoint keeps them: each coordinate
 * quantised to a 32-bit integer (GeoEncodingUtils), so what queries, sorts
 * and aggregations see is what Elasticsearch would decode from its doc values.
 */
import { elasticsearchParseException, illegalArgumentCause, type EsError } from '../../errors/es-errors.ts';

/** GeoEncodingUtils: 2^32 steps over 180 degrees of latitude and 360 of longitude. */
const LAT_SCALE = 0x100000000 / 180;
const LAT_DECODE = 1 / LAT_SCALE;
const LON_SCALE = 0x100000000 / 360;
const LON_DECODE = 1 / LON_SCALE;

/** Lucene's GeoEncodingUtils.encodeLatitude (90 itself goes one step down so it fits). */
export function encodeLatitude(lat: number): number {
  const l = lat === 90 ? 90 - Number.EPSILON * 64 : lat;
  return Math.floor(l / LAT_DECODE) | 0;
}

export function encodeLongitude(lon: number): number {
  const l = lon === 180 ? 180 - Number.EPSILON * 128 : lon;
  return Math.floor(l / LON_DECODE) | 0;
}

/** encodeLatitudeCeil: the smallest encoded value whose decoded latitude is >= lat (box queries' lower bounds). */
export function encodeLatitudeCeil(lat: number): number {
  const l = lat === 90 ? 90 - Number.EPSILON * 64 : lat;
  return Math.ceil(l / LAT_DECODE) | 0;
}

export function encodeLongitudeCeil(lon: number): number {
  const l = lon === 180 ? 180 - Number.EPSILON * 128 : lon;
  return Math.ceil(l / LON_DECODE) | 0;
}

export function decodeLatitude(encoded: number): number {
  return encoded * LAT_DECODE;
}

export function decodeLongitude(encoded: number): number {
  return encoded * LON_DECODE;
}

/** GeoUtils.EARTH_MEAN_RADIUS (meters), the radius Lucene's haversin uses. */
export const EARTH_MEAN_RADIUS = 6371008.7714;

const TO_RAD = Math.PI / 180;

/** Great-circle distance in meters (SloppyMath.haversinMeters, computed exactly). */
export function haversinMeters(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = (lat2 - lat1) * TO_RAD;
  const dLon = (lon2 - lon1) * TO_RAD;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * TO_RAD) * Math.cos(lat2 * TO_RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_MEAN_RADIUS * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** GeoDistance.PLANE: the equirectangular approximation Elasticsearch offers as `distance_type: plane`. */
export function planeMeters(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const x = (lon2 - lon1) * TO_RAD * Math.cos(((lat1 + lat2) / 2) * TO_RAD);
  const y = (lat2 - lat1) * TO_RAD;
  return Math.sqrt(x * x + y * y) * EARTH_MEAN_RADIUS;
}

// ---- geohash ---------------------------------------------------------------------------

const BASE32 = '0123456789bcdefghjkmnpqrstuvwxyz';
const BASE32_INDEX: ReadonlyMap<string, number> = new Map([...BASE32].map((c, i) => [c, i]));
/** GeoHashUtils.PRECISION: the longest geohash. */
export const GEOHASH_MAX_PRECISION = 12;

/** The cell of a geohash: [minLat, maxLat, minLon, maxLon]; throws on a character outside the alphabet. */
export function geohashCell(hash: string): [number, number, number, number] {
  let minLat = -90;
  let maxLat = 90;
  let minLon = -180;
  let maxLon = 180;
  let even = true;
  for (const ch of hash.toLowerCase()) {
    const v = BASE32_INDEX.get(ch);
    if (v === undefined) throw elasticsearchParseException(`unsupported symbol [${ch}] in geohash [${hash}]`);
    for (let bit = 4; bit >= 0; bit--) {
      const on = ((v >> bit) & 1) === 1;
      if (even) {
        const mid = (minLon + maxLon) / 2;
        if (on) minLon = mid;
        else maxLon = mid;
      } else {
        const mid = (minLat + maxLat) / 2;
        if (on) minLat = mid;
        else maxLat = mid;
      }
      even = !even;
    }
  }
  return [minLat, maxLat, minLon, maxLon];
}

/** The geohash of `precision` characters holding a point. */
export function geohashOf(lat: number, lon: number, precision: number): string {
  let minLat = -90;
  let maxLat = 90;
  let minLon = -180;
  let maxLon = 180;
  let even = true;
  let out = '';
  let bits = 0;
  let value = 0;
  while (out.length < precision) {
    if (even) {
      const mid = (minLon + maxLon) / 2;
      if (lon >= mid) {
        value = (value << 1) | 1;
        minLon = mid;
      } else {
        value <<= 1;
        maxLon = mid;
      }
    } else {
      const mid = (minLat + maxLat) / 2;
      if (lat >= mid) {
        value = (value << 1) | 1;
        minLat = mid;
      } else {
        value <<= 1;
        maxLat = mid;
      }
    }
    even = !even;
    if (++bits === 5) {
      out += BASE32[value];
      bits = 0;
      value = 0;
    }
  }
  return out;
}

// ---- parsing ------------------------------------------------------------------------------

function parseError(reason: string): EsError {
  return elasticsearchParseException(reason);
}

function assertZValue(ignoreZValue: boolean, z: number): void {
  if (!ignoreZValue) {
    throw parseError(`Exception parsing coordinates: found Z value [${javaDouble(z)}] but [ignore_z_value] parameter is [${ignoreZValue}]`);
  }
}

/** Java's Double.toString for the values error messages print. */
function javaDouble(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e7) return `${v}.0`;
  return String(v);
}

/** Double.parseDouble of a coordinate's text; NaN when it is not a number. */
function parseCoordinate(text: string): number {
  const t = text.trim();
  // each quantifier follows a different character class or a literal: no backtracking on long digit runs
  if (t === '' || !/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?[dDfF]?$/.test(t)) return NaN;
  return Number(t.replace(/[dDfF]$/, ''));
}

/** GeoPoint.resetFromString: `lat,lon[,z]` or a geohash. */
export function parseGeoPointString(text: string, ignoreZValue: boolean): [number, number] {
  if (!text.includes(',')) {
    const [minLat, , minLon] = geohashCell(text);
    return [minLat, minLon];
  }
  const vals = text.split(',');
  if (vals.length > 3) {
    throw parseError(`failed to parse [${text}], expected 2 or 3 coordinates but found: [${vals.length}]`);
  }
  const lat = parseCoordinate(vals[0]!);
  if (Number.isNaN(lat)) throw parseError('latitude must be a number');
  const lon = parseCoordinate(vals[1]!);
  if (Number.isNaN(lon)) throw parseError('longitude must be a number');
  if (vals.length > 2) assertZValue(ignoreZValue, parseCoordinate(vals[2]!));
  return [lat, lon];
}

function numberOf(v: unknown, name: 'lat' | 'lon'): number | 'bad' {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const n = parseCoordinate(v);
    return Number.isNaN(n) ? 'bad' : n;
  }
  throw parseError(name === 'lat' ? 'latitude must be a number' : 'longitude must be a number');
}

/** One point given as an object, a string or a `[lon, lat]` array. */
export function parseOneGeoPoint(raw: unknown, ignoreZValue: boolean): [number, number] {
  if (typeof raw === 'string') return parseGeoPointString(raw, ignoreZValue);
  if (Array.isArray(raw)) {
    let lon = NaN;
    let lat = NaN;
    for (let i = 0; i < raw.length; i++) {
      const v = raw[i];
      if (typeof v !== 'number') throw parseError('numeric value expected');
      if (i === 0) lon = v;
      else if (i === 1) lat = v;
      else if (i === 2) assertZValue(ignoreZValue, v);
      else throw parseError('[geo_point] field type does not accept > 3 dimensions');
    }
    return [lat, lon];
  }
  if (raw !== null && typeof raw === 'object') {
    let lat = NaN;
    let lon = NaN;
    let geohash: string | null = null;
    let badNumber = false;
    for (const key of Object.keys(raw)) {
      const v = (raw as Record<string, unknown>)[key];
      if (key === 'lat') {
        const n = numberOf(v, 'lat');
        if (n === 'bad') badNumber = true;
        else lat = n;
      } else if (key === 'lon') {
        const n = numberOf(v, 'lon');
        if (n === 'bad') badNumber = true;
        else lon = n;
      } else if (key === 'geohash') {
        if (typeof v !== 'string') throw parseError('geohash must be a string');
        geohash = v;
      } else {
        throw parseError('field must be either [lat], [lon] or [geohash]');
      }
    }
    if (geohash !== null) {
      if (!Number.isNaN(lat) || !Number.isNaN(lon)) throw parseError('field must be either lat/lon or geohash');
      const [minLat, , minLon] = geohashCell(geohash);
      return [minLat, minLon];
    }
    if (badNumber) throw parseError('[lat] and [lon] must be valid double values');
    if (Number.isNaN(lat)) throw parseError('field [lat] missing');
    if (Number.isNaN(lon)) throw parseError('field [lon] missing');
    return [lat, lon];
  }
  if (typeof raw === 'number') throw parseError('geo_point expected');
  throw parseError('geo_point expected');
}

/**
 * The points of a document's value, flattened as [lat, lon, lat, lon, ...]
 * (GeoPointFieldMapper.parse): an array of numbers is one point, any other
 * array is a list of points.
 */
export function parseGeoPoints(raw: unknown, ignoreZValue: boolean): number[] {
  if (Array.isArray(raw)) {
    if (raw.length > 0 && typeof raw[0] === 'number') return parseOneGeoPoint(raw, ignoreZValue);
    const out: number[] = [];
    for (const item of raw) {
      if (item === null) continue;
      const [lat, lon] = parseOneGeoPoint(item, ignoreZValue);
      out.push(lat, lon);
    }
    return out;
  }
  return parseOneGeoPoint(raw, ignoreZValue);
}

/** GeoUtils.normalizeLat/normalizeLon: wraps coordinates outside the valid ranges (ignore_malformed, coerce). */
export function normalizePoint(lat: number, lon: number): [number, number] {
  let la = lat;
  let lo = lon;
  let shift = false;
  if (la > 90 || la < -90) {
    la = ((la % 360) + 540) % 360 - 180;
    if (la > 90) {
      la = 180 - la;
      shift = true;
    } else if (la < -90) {
      la = -180 - la;
      shift = true;
    }
  }
  if (shift) lo += 180;
  if (lo > 180 || lo < -180) lo = ((lo % 360) + 540) % 360 - 180;
  return [la, lo];
}

/** The value check GeoPointFieldMapper makes unless `ignore_malformed` (then the point is normalised instead). */
export function checkGeoPoint(lat: number, lon: number, field: string): void {
  if (!(lat <= 90 && lat >= -90)) throw illegalArgumentCause(`illegal latitude value [${javaDouble(lat)}] for ${field}`);
  if (!(lon <= 180 && lon >= -180)) throw illegalArgumentCause(`illegal longitude value [${javaDouble(lon)}] for ${field}`);
}
