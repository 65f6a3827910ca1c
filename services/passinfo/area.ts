/**
 * Where a query looks: a list of checkpoints, a polygon, or a circle around
 * a place, as the region collision and traffic queries accept them. Each
 * becomes one filter clause: `terms` on land_id, `geo_polygon` or
 * `geo_distance` on the passes' `location` (the point index of the segment
 * files answers the geo ones without visiting every pass). Polygons and
 * circles come as JSON (`[[lat, lon], ...]`, `{lat, lon, radius}`) or as text
 * for query strings and the CLI (`lat,lon;lat,lon;...`, `lat,lon,2km`).
 */
import { invalidParameter } from './errors.ts';
import type { GeoPoint } from './checkpoint-map.ts';
import { checkpointsParam } from './query-params.ts';

export interface Circle extends GeoPoint {
  /** Meters as a number, or text such as `2km`, `500m`, `1.5km`. */
  readonly radius: number | string;
}

export interface AreaParams {
  readonly land_id?: readonly string[];
  /** At least three vertices, [lat, lon] or {lat, lon} each; closed automatically. */
  readonly polygon?: readonly (readonly [number, number] | GeoPoint)[] | string;
  readonly circle?: Circle | string;
}

export const MAX_POLYGON_POINTS = 1000;
/** A circle wider than a country is not a region of a city's traffic. */
export const MAX_RADIUS_METERS = 1_000_000;

const NUMBER = /^-?\d+(?:\.\d+)?$/;
const RADIUS = /^(\d+(?:\.\d+)?)(m|km)?$/;

function coordinate(name: string, value: unknown, max: number, what: string): number {
  const n = typeof value === 'string' && NUMBER.test(value.trim()) ? Number(value.trim()) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < -max || n > max) throw invalidParameter(name, `[${String(value)}] is not a ${what} from -${max} to ${max}`);
  return n;
}

function point(name: string, value: unknown): GeoPoint {
  if (Array.isArray(value) && value.length === 2) return { lat: coordinate(name, value[0], 90, 'latitude'), lon: coordinate(name, value[1], 180, 'longitude') };
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const { lat, lon } = value as { lat?: unknown; lon?: unknown };
    return { lat: coordinate(name, lat, 90, 'latitude'), lon: coordinate(name, lon, 180, 'longitude') };
  }
  throw invalidParameter(name, `[${JSON.stringify(value) ?? String(value)}] must be [lat, lon] or {lat, lon}`);
}

export function parsePolygon(name: string, value: AreaParams['polygon']): GeoPoint[] {
  const raw: unknown[] = typeof value === 'string' ? value.split(';').map((p) => p.split(',')) : Array.isArray(value) ? value : [];
  if (!Array.isArray(value) && typeof value !== 'string') throw invalidParameter(name, 'must be a list of [lat, lon] points or text lat,lon;lat,lon;...');
  if (raw.length > MAX_POLYGON_POINTS + 1) throw invalidParameter(name, `has ${raw.length} points, at most ${MAX_POLYGON_POINTS} are allowed`);
  const points = raw.map((p, i) => point(`${name}[${i}]`, p));
  const first = points[0];
  const last = points[points.length - 1];
  // The closing repeat of the first point is optional.
  if (points.length > 1 && first!.lat === last!.lat && first!.lon === last!.lon) points.pop();
  if (points.length < 3) throw invalidParameter(name, `needs at least 3 distinct points, got ${points.length}`);
  return points;
}

export function parseRadius(name: string, value: unknown): number {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim().toLowerCase() : '';
  const m = text.length <= 32 ? RADIUS.exec(text) : null;
  if (m === null) throw invalidParameter(name, `[${String(value)}] must be a distance such as 2km or 500m`);
  const meters = Number(m[1]) * (m[2] === 'km' ? 1000 : 1);
  if (meters <= 0 || meters > MAX_RADIUS_METERS) throw invalidParameter(name, `[${String(value)}] must be more than 0 and at most ${MAX_RADIUS_METERS / 1000}km`);
  return meters;
}

export function parseCircle(name: string, value: AreaParams['circle']): { center: GeoPoint; meters: number } {
  if (typeof value === 'string') {
    const parts = value.split(',');
    if (parts.length !== 3) throw invalidParameter(name, `[${value}] must look like lat,lon,radius (39.9,116.4,2km)`);
    return { center: point(name, [parts[0], parts[1]]), meters: parseRadius(`${name}.radius`, parts[2]) };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidParameter(name, 'must be {lat, lon, radius} or text lat,lon,radius');
  return { center: point(name, value), meters: parseRadius(`${name}.radius`, value.radius) };
}

/**
 * The filter clause of an area; null when none is given and none is
 * required. More than one of land_id, polygon and circle is refused.
 */
export function areaClause(prefix: string, area: AreaParams, required: boolean): object | null {
  const name = (p: string) => (prefix === '' ? p : `${prefix}.${p}`);
  const lands = checkpointsParam(name('land_id'), area.land_id, false);
  const given = [lands.length > 0, area.polygon !== undefined && area.polygon !== '', area.circle !== undefined && area.circle !== ''];
  const count = given.filter(Boolean).length;
  if (count > 1) throw invalidParameter(prefix === '' ? 'land_id/polygon/circle' : prefix, 'give one of land_id, polygon or circle, not several');
  if (count === 0) {
    if (required) throw invalidParameter(prefix === '' ? 'land_id/polygon/circle' : prefix, 'needs checkpoints (land_id), a polygon or a circle');
    return null;
  }
  if (given[0]) return { terms: { land_id: lands } };
  if (given[1]) return { geo_polygon: { location: { points: parsePolygon(name('polygon'), area.polygon) } } };
  const { center, meters } = parseCircle(name('circle'), area.circle);
  return { geo_distance: { distance: `${meters}m`, location: center } };
}
