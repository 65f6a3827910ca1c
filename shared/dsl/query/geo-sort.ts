/**
 * `_geo_distance` sort (GeoDistanceSortBuilder.fromXContent): the field's
 * origin point or points in any geo_point form, `unit`, `distance_type`,
 * `order`, `mode` (not `sum`), `validation_method`, `ignore_unmapped`.
 */
import { illegalArgument } from '../../errors/es-errors.ts';
import { checkGeoPoint, normalizePoint, parseOneGeoPoint } from '../../engine/mapping/geo-point.ts';
import type { SortOrder, SortSpec } from '../../engine/search/types.ts';
import { METERS, parseDistanceUnit } from './distance-units.ts';
import type { DslReader } from './dsl-reader.ts';
import type { Json, JsonMap } from './json-source.ts';

function plainPoint(v: Json): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'bigint' ? Number(x) : x));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) {
      const x = (v as JsonMap)[k];
      Object.defineProperty(out, k, { value: typeof x === 'bigint' ? Number(x) : x, enumerable: true });
    }
    return out;
  }
  return v;
}

function origins(v: Json): [number, number][] {
  if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number' || typeof x === 'bigint')) {
    return [parseOneGeoPoint(plainPoint(v), true)];
  }
  if (Array.isArray(v)) return v.map((x) => parseOneGeoPoint(plainPoint(x), true));
  return [parseOneGeoPoint(plainPoint(v), true)];
}

export function parseGeoDistanceSort(r: DslReader, body: JsonMap): SortSpec {
  let field: string | null = null;
  let points: [number, number][] = [];
  let order: SortOrder = 'asc';
  let unitMeters = METERS.meters;
  let plane = false;
  let mode: 'min' | 'max' | 'avg' | 'median' | null = null;
  let validation = 'STRICT';
  let ignoreUnmapped = false;
  for (const key of Object.keys(body)) {
    const v = body[key];
    switch (key) {
      case 'order': {
        const o = r.text(body, key).toLowerCase();
        if (o !== 'asc' && o !== 'desc') throw illegalArgument(`Unknown SortOrder [${r.text(body, key)}]`);
        order = o;
        break;
      }
      case 'unit':
        unitMeters = parseDistanceUnit(r.text(body, key)).meters;
        break;
      case 'distance_type': {
        const t = r.text(body, key).toLowerCase();
        if (t !== 'arc' && t !== 'plane') throw illegalArgument(`No geo distance for [${r.text(body, key)}]`);
        plane = t === 'plane';
        break;
      }
      case 'mode':
      case 'sort_mode': {
        const m = r.text(body, key).toLowerCase();
        if (m === 'sum') throw illegalArgument('sort_mode [sum] isn\'t supported for sorting by geo distance');
        if (m !== 'min' && m !== 'max' && m !== 'avg' && m !== 'median') throw illegalArgument(`Unknown SortMode [${r.text(body, key)}]`);
        mode = m;
        break;
      }
      case 'validation_method':
        validation = r.text(body, key).toUpperCase();
        break;
      case 'ignore_unmapped':
        ignoreUnmapped = r.bool(body, key);
        break;
      case 'nested_path':
      case 'nested_filter':
      case 'nested':
        throw illegalArgument(`[_geo_distance] [${key}] is not supported by this engine`);
      default:
        if (field !== null) throw r.errorAt(body, key, `[_geo_distance] unknown field [${key}]`);
        field = key;
        points = origins(v as Json);
    }
  }
  if (field === null) throw illegalArgument('[_geo_distance] requires a field with the origin point');
  const checked = points.map(([lat, lon]): [number, number] => {
    if (validation === 'STRICT') {
      checkGeoPoint(lat, lon, '_geo_distance');
      return [lat, lon];
    }
    return normalizePoint(lat, lon);
  });
  return { kind: 'geo_distance', field, points: checked, order, unitMeters, plane, mode, ignoreUnmapped };
}
