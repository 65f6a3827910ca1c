/**
 * The mapping parameters of a `geo_shape` field as Elasticsearch 6.8's
 * GeoShapeFieldMapper.TypeParser reads them, and how GET _mapping prints
 * them. Elasticsearch indexes shapes into a prefix tree (`tree`,
 * `tree_levels`, `precision`, `distance_error_pct` tune its cells); this
 * server keeps each shape exactly (geo-shape/shape-codec.ts), so those four
 * are checked and printed back but do not change answers, which are exact.
 * `strategy: term` implies `points_only`, as in Elasticsearch. Any other
 * parameter (`index`, `store`, `copy_to`, `fields`, ...) is refused, as the
 * 6.8 type parser leaves it to the "unsupported parameters" check.
 */
import { illegalArgument, numberFormatException } from '../../errors/es-errors.ts';
import { parseDistance } from '../../dsl/query/distance-units.ts';
import { orientationIsRight } from '../geo-shape/shape-parser.ts';
import { nodeBooleanValue as bool, nodeFloatValue } from './node-values.ts';

export interface GeoShapeParams {
  tree: string;
  treeLevels: number;
  /** Meters; -1 when not given. */
  precision: number;
  strategy: string;
  distanceErrorPct: number | null;
  /** true: right-hand rule (counterclockwise shells), Elasticsearch's default. */
  right: boolean;
  /** As given; `strategy: term` implies true (pointsOnly()). */
  pointsOnly: boolean | null;
}

/** What a geo_shape's parameters read and set of a leaf field's options (GeoShapeOptions, mapping-nodes.ts). */
export interface GeoShapeOptions {
  geoShape: GeoShapeParams | null;
  coerce: boolean | null;
  ignoreMalformed: boolean | null;
  ignoreZValue: boolean | null;
}

/** Whether only points (and multipoints) are accepted. */
export function pointsOnly(g: GeoShapeParams): boolean {
  return g.strategy === 'term' || g.pointsOnly === true;
}

export function defaultGeoShapeParams(): GeoShapeParams {
  return { tree: 'geohash', treeLevels: 0, precision: -1, strategy: 'recursive', distanceErrorPct: null, right: true, pointsOnly: null };
}

/** Integer.parseInt(value.toString()). */
function parseInt32(value: unknown): number {
  const s = String(value);
  let i = s.startsWith('-') || s.startsWith('+') ? 1 : 0;
  if (i === s.length) throw numberFormatException(`For input string: "${s}"`);
  for (; i < s.length; i++) if (s.charCodeAt(i) < 48 || s.charCodeAt(i) > 57) throw numberFormatException(`For input string: "${s}"`);
  const n = Number(s);
  if (n > 2147483647 || n < -2147483648) throw numberFormatException(`For input string: "${s}"`);
  return n;
}

/** One parameter of a geo_shape field into `o`; false when it is not one of its parameters. */
export function parseGeoShapeParam(key: string, value: unknown, o: GeoShapeOptions, name: string): boolean {
  const g = (o.geoShape ??= defaultGeoShapeParams());
  switch (key) {
    case 'tree':
      g.tree = String(value);
      return true;
    case 'tree_levels':
      g.treeLevels = parseInt32(value);
      return true;
    case 'precision':
      g.precision = parseDistance(String(value), null);
      return true;
    case 'distance_error_pct':
      g.distanceErrorPct = nodeFloatValue(value);
      return true;
    case 'orientation':
      g.right = orientationIsRight(String(value));
      return true;
    case 'strategy':
      g.strategy = String(value);
      return true;
    case 'points_only':
      g.pointsOnly = bool(value, `${name}.points_only`);
      return true;
    case 'ignore_malformed':
      o.ignoreMalformed = bool(value, `${name}.ignore_malformed`);
      return true;
    case 'coerce':
      o.coerce = bool(value, `${name}.coerce`);
      return true;
    case 'ignore_z_value':
      o.ignoreZValue = bool(value, `${name}.ignore_z_value`);
      return true;
    default:
      return false;
  }
}

/** The checks GeoShapeFieldType makes once every parameter is read. */
export function checkGeoShapeParams(o: GeoShapeOptions): void {
  const g = (o.geoShape ??= defaultGeoShapeParams());
  if (g.tree !== 'geohash' && g.tree !== 'quadtree' && g.tree !== 'legacyquadtree') throw illegalArgument(`Unknown prefix tree type [${g.tree}]`);
  if (g.strategy !== 'recursive' && g.strategy !== 'term') throw illegalArgument(`Unknown prefix tree strategy [${g.strategy}]`);
  if (g.strategy === 'term' && g.pointsOnly === false) throw illegalArgument('points_only cannot be set to false for term strategy');
  const pct = g.distanceErrorPct;
  // spatial4j refuses it when a query runs; refused here at once
  if (pct !== null && !(pct >= 0 && pct <= 0.5)) throw illegalArgument(`distErrPct ${pct} must be between [0 to 0.5]`);
}

/** Java's Double.toString of a meters value with its unit, as DistanceUnit.METERS.toString prints it. */
function meters(v: number): string {
  return `${Number.isInteger(v) ? `${v}.0` : String(v)}m`;
}

/** GeoShapeFieldMapper.doXContentBody: the parameters that differ from the defaults. */
export function renderGeoShape(o: GeoShapeOptions): Record<string, unknown> {
  const g = o.geoShape ?? defaultGeoShapeParams();
  const out: Record<string, unknown> = { type: 'geo_shape' };
  if (g.tree !== 'geohash') out.tree = g.tree;
  if (g.treeLevels !== 0) out.tree_levels = g.treeLevels;
  if (g.precision !== -1) out.precision = meters(g.precision);
  if (g.strategy !== 'recursive') out.strategy = g.strategy;
  if (g.distanceErrorPct !== null) out.distance_error_pct = g.distanceErrorPct;
  if (!g.right) out.orientation = 'LEFT';
  if (pointsOnly(g)) out.points_only = true;
  if (o.coerce !== null) out.coerce = o.coerce;
  if (o.ignoreMalformed !== null) out.ignore_malformed = o.ignoreMalformed;
  if (o.ignoreZValue !== null) out.ignore_z_value = o.ignoreZValue;
  return out;
}

/** GeoShapeFieldType.checkCompatibility: what a mapping update may not change (it would change the encoding in Elasticsearch). */
export function geoShapeConflicts(path: string, a: GeoShapeOptions, b: GeoShapeOptions): string[] {
  const x = a.geoShape ?? defaultGeoShapeParams();
  const y = b.geoShape ?? defaultGeoShapeParams();
  const out: string[] = [];
  if (x.strategy !== y.strategy) out.push(`mapper [${path}] has different [strategy]`);
  if (x.tree !== y.tree) out.push(`mapper [${path}] has different [tree]`);
  if (pointsOnly(x) !== pointsOnly(y)) out.push(`mapper [${path}] has different points_only`);
  if (x.treeLevels !== y.treeLevels) out.push(`mapper [${path}] has different [tree_levels]`);
  if (x.precision !== y.precision) out.push(`mapper [${path}] has different [precision]`);
  return out;
}
