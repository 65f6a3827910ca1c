/**
 * GeoJSON shapes as Elasticsearch 6.8 reads them (GeoJsonParser and
 * GeoShapeType's validation): `type` (any case; `envelope`/`bbox` and
 * `circle` beside GeoJSON's own), `coordinates` as [lon, lat(, z)],
 * `geometries` of a collection, `radius` of a circle, `orientation` of a
 * polygon; every check with Elasticsearch's own text.
 */
import { elasticsearchParseException, illegalArgument, type EsError } from '../../errors/es-errors.ts';
import { parseDistance } from '../../dsl/query/distance-units.ts';
import { addCircle, addEnvelope, addLine, addPoint, addPolygon } from './shape-build.ts';
import type { ShapeKind, ShapeParts } from './shape-model.ts';

export interface ShapeOptions {
  /** Right-hand rule: counterclockwise shells (Elasticsearch's default `orientation`). */
  readonly right: boolean;
  /** Close open rings instead of refusing them. */
  readonly coerce: boolean;
  readonly ignoreZValue: boolean;
}

export const DEFAULT_SHAPE_OPTIONS: ShapeOptions = { right: true, coerce: false, ignoreZValue: true };

const KINDS: ReadonlyMap<string, ShapeKind> = new Map<string, ShapeKind>([
  ['point', 'point'],
  ['multipoint', 'multipoint'],
  ['linestring', 'linestring'],
  ['multilinestring', 'multilinestring'],
  ['polygon', 'polygon'],
  ['multipolygon', 'multipolygon'],
  ['envelope', 'envelope'],
  ['bbox', 'envelope'],
  ['circle', 'circle'],
  ['geometrycollection', 'geometrycollection'],
]);

/** GeoShapeType.forName. */
export function shapeKind(name: string): ShapeKind {
  const k = KINDS.get(name.toLowerCase());
  if (k === undefined) throw illegalArgument(`unknown geo_shape [${name}]`);
  return k;
}

function parseError(reason: string): EsError {
  return elasticsearchParseException(reason);
}

/** A coordinate tree (CoordinateNode): a coordinate, or children. */
interface CoordNode {
  readonly coord: number[] | null;
  readonly children: CoordNode[] | null;
}

/** Vertices counted while parsing, against the limit (shape-model.ts). */
export interface VertexBudget {
  count: number;
  readonly max: number;
}

export function spend(budget: VertexBudget, n: number): void {
  budget.count += n;
  if (budget.count > budget.max) {
    throw illegalArgument(`a geo_shape may have at most [${budget.max}] vertices here, found more`);
  }
}

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function numDimensions(n: CoordNode): number {
  if (n.coord !== null) return n.coord.length;
  if (n.children === null || n.children.length === 0) throw parseError('attempting to get number of dimensions on an empty coordinate node');
  return numDimensions(n.children[0]!);
}

function parseCoordinates(v: unknown, opts: ShapeOptions, budget: VertexBudget, depth: number): CoordNode {
  if (isMap(v)) throw parseError('coordinates cannot be specified as objects');
  if (v === null) throw illegalArgument('coordinates cannot contain NULL values)');
  if (!Array.isArray(v)) throw parseError('geo coordinates must be numbers');
  if (depth > 4) throw parseError('coordinates nest deeper than any geo_shape needs');
  if (v.length > 0 && !Array.isArray(v[0])) {
    if (v[0] === null) throw illegalArgument('coordinates cannot contain NULL values)');
    return { coord: parseCoordinate(v, opts), children: null };
  }
  const nodes: CoordNode[] = [];
  for (const x of v) {
    const node = parseCoordinates(x, opts, budget, depth + 1);
    if (node.coord !== null) spend(budget, 1);
    if (nodes.length > 0 && numDimensions(nodes[0]!) !== numDimensions(node)) {
      throw parseError('Exception parsing coordinates: number of dimensions do not match');
    }
    nodes.push(node);
  }
  return { coord: null, children: nodes };
}

function parseCoordinate(v: unknown[], opts: ShapeOptions): number[] {
  const num = (x: unknown): number => {
    if (typeof x === 'number') return x;
    if (typeof x === 'bigint') return Number(x);
    throw parseError('geo coordinates must be numbers');
  };
  const lon = num(v[0]);
  if (v.length < 2) throw parseError('geo coordinates must be numbers');
  const lat = num(v[1]);
  if (v.length === 2) return [lon, lat];
  const z = num(v[2]);
  assertZValue(opts.ignoreZValue, z);
  if (v.length > 3) {
    if (typeof v[3] === 'number' || typeof v[3] === 'bigint') throw parseError('geo coordinates greater than 3 dimensions are not supported');
    throw parseError('geo coordinates must be numbers');
  }
  return [lon, lat, z];
}

/** GeoPoint.assertZValue. */
export function assertZValue(ignoreZValue: boolean, z: number): void {
  if (!ignoreZValue) {
    throw parseError(`Exception parsing coordinates: found Z value [${javaNumber(z)}] but [ignore_z_value] parameter is [false]`);
  }
}

function javaNumber(v: number): string {
  return Number.isInteger(v) && Math.abs(v) < 1e7 ? `${v}.0` : String(v);
}

/** A GeoJSON object's shape into `parts`; returns its kind. */
export function parseGeoJson(obj: Record<string, unknown>, opts: ShapeOptions, parts: ShapeParts, budget: VertexBudget, depth: number): ShapeKind {
  if (depth > 16) throw parseError('geometry collections nest deeper than this server accepts (16)');
  let kind: ShapeKind | null = null;
  let coords: CoordNode | null = null;
  let geometries: unknown[] | null = null;
  let radius: number | null = null;
  let right = opts.right;
  let malformed: string | null = null;
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    switch (key) {
      case 'type': {
        const k = shapeKind(String(v));
        if (kind !== null && kind !== k) malformed = `type already parsed as [${kind}] cannot redefine as [${k}]`;
        else kind = k;
        break;
      }
      case 'coordinates': {
        const node = parseCoordinates(v, opts, budget, 0);
        if (node.coord !== null) spend(budget, 1);
        if (coords !== null && numDimensions(node) !== numDimensions(coords)) throw parseError('Exception parsing coordinates: number of dimensions do not match');
        coords = node;
        break;
      }
      case 'geometries':
        if (kind === null) kind = 'geometrycollection';
        else if (kind !== 'geometrycollection') malformed = `cannot have [geometries] with type set to [${kind}]`;
        if (!Array.isArray(v)) throw parseError('geometries must be an array of geojson objects');
        geometries = v;
        break;
      case 'radius':
        if (kind === null) kind = 'circle';
        else if (kind !== 'circle') malformed = `cannot have [radius] with type set to [${kind}]`;
        radius = parseDistance(typeof v === 'number' || typeof v === 'bigint' ? String(v) : (v as string), null);
        break;
      case 'orientation':
        if (kind !== null && kind !== 'polygon' && kind !== 'multipolygon') malformed = `cannot have [orientation] with type set to [${kind}]`;
        right = orientationIsRight(String(v));
        break;
      default:
        break;
    }
  }
  if (malformed !== null) throw parseError(malformed);
  if (kind === null) throw parseError('shape type not included');
  if (coords === null && kind !== 'geometrycollection') throw parseError('coordinates not included');
  if (geometries === null && kind === 'geometrycollection') throw parseError('geometries not included');
  if (radius !== null && kind !== 'circle') throw parseError('field [radius] is supported for [circle] only');
  if (kind === 'geometrycollection') {
    // GeoJsonParser.parseGeometries reads members without the field's options (ShapeParser.parse(parser))
    for (const g of geometries!) {
      if (g === null) continue;
      if (!isMap(g)) throw parseError('shape must be an object consisting of type and coordinates');
      parseGeoJson(g, DEFAULT_SHAPE_OPTIONS, parts, budget, depth + 1);
    }
    return kind;
  }
  build(kind, coords!, radius, right, opts.coerce, parts);
  return kind;
}

/** ShapeBuilder.Orientation.fromString. */
export function orientationIsRight(s: string): boolean {
  switch (s.toLowerCase()) {
    case 'right':
    case 'counterclockwise':
    case 'ccw':
      return true;
    case 'left':
    case 'clockwise':
    case 'cw':
      return false;
    default:
      throw illegalArgument(`Unknown orientation [${s}]`);
  }
}

function isEmpty(n: CoordNode): boolean {
  return n.coord === null && (n.children === null || n.children.length === 0);
}

function pointOf(n: CoordNode): [number, number] {
  if (isEmpty(n)) throw parseError('invalid number of points (0) provided when expecting a single coordinate ([lat, lng])');
  if (n.coord === null) throw parseError('multipoint data provided when single point data expected.');
  return [n.coord[0]!, n.coord[1]!];
}

function lineCoords(n: CoordNode): number[] {
  const size = n.children?.length ?? (n.coord === null ? 0 : 1);
  if (n.children === null || size < 2) throw parseError(`invalid number of points in LineString (found [${size}] - must be >= 2)`);
  const out: number[] = [];
  for (const c of n.children) {
    const [x, y] = pointOf(c);
    out.push(x, y);
  }
  return out;
}

function ringCoords(n: CoordNode, coerce: boolean): number[] {
  if (n.children === null || n.children.length === 0) {
    throw parseError(`Invalid LinearRing found.${n.coord === null ? ' No coordinate array provided' : ' Found a single coordinate when expecting a coordinate array'}`);
  }
  const need = coerce ? 3 : 4;
  if (n.children.length < need) throw parseError(`invalid number of points in LinearRing (found [${n.children.length}] - must be >= [${need}])`);
  const xy = lineCoords(n);
  const last = xy.length - 2;
  // Coordinate.equals compares x and y only
  if (xy[0] !== xy[last] || xy[1] !== xy[last + 1]) {
    if (!coerce) throw parseError('invalid LinearRing found (coordinates are not closed)');
    xy.push(xy[0]!, xy[1]!);
  }
  return xy;
}

function polygonRings(n: CoordNode, coerce: boolean): number[][] {
  if (n.children === null || n.children.length === 0) {
    throw parseError('invalid LinearRing provided for type polygon. Linear ring must be an array of coordinates');
  }
  return n.children.map((r) => ringCoords(r, coerce));
}

/** GeoShapeType.getBuilder and the builder's shape. */
function build(kind: ShapeKind, n: CoordNode, radius: number | null, right: boolean, coerce: boolean, parts: ShapeParts): void {
  switch (kind) {
    case 'point': {
      const [x, y] = pointOf(n);
      addPoint(parts, x, y);
      return;
    }
    case 'multipoint': {
      if (n.children === null || n.children.length === 0) {
        if (n.coord !== null) {
          throw parseError('single coordinate found when expecting an array of coordinates. change type to point or change data to an array of >0 coordinates');
        }
        throw parseError('no data provided for multipoint object when expecting >0 points (e.g., [[lat, lng]] or [[lat, lng], ...])');
      }
      for (const c of n.children) {
        const [x, y] = pointOf(c);
        addPoint(parts, x, y);
      }
      return;
    }
    case 'linestring':
      addLine(parts, lineCoords(n));
      return;
    case 'multilinestring': {
      const lines = n.children ?? [];
      if (lines.length < 1) throw parseError(`invalid number of lines in MultiLineString (found [${lines.length}] - must be >= 1)`);
      for (const l of lines) addLine(parts, lineCoords(l));
      return;
    }
    case 'polygon':
      addPolygon(parts, polygonRings(n, coerce), right);
      return;
    case 'multipolygon':
      for (const p of n.children ?? []) addPolygon(parts, polygonRings(p, coerce), right);
      return;
    case 'envelope': {
      const size = n.children?.length ?? 0;
      if (size !== 2) throw parseError(`invalid number of points [${size}] provided for geo_shape [envelope] when expecting an array of 2 coordinates`);
      const [left, top] = pointOf(n.children![0]!);
      const [rightX, bottom] = pointOf(n.children![1]!);
      addEnvelope(parts, left, top, rightX, bottom);
      return;
    }
    case 'circle': {
      if (radius === null) throw parseError('field [radius] is required for [circle]');
      if (n.coord === null) throw parseError('multipoint data provided when single point data expected.');
      addCircle(parts, n.coord[0]!, n.coord[1]!, radius);
      return;
    }
    case 'geometrycollection':
      return;
  }
}
