/**
 * The planar form every geo_shape takes once parsed: points, polylines and
 * polygons in degrees (x = longitude, y = latitude), longitudes within
 * [-180, 180] (shapes across the dateline are split there), each coordinate
 * quantised as Lucene's LatLonShape does (32 bits, about a centimetre), so a
 * document's stored shape and a query's shape compare on the same grid and
 * edges that touch in the input still touch.
 */
import { decodeLatitude, decodeLongitude, encodeLatitude, encodeLongitude } from '../mapping/geo-point.ts';

/** A polygon: closed rings (last vertex = first) as x,y pairs; ring 0 the shell, the others holes. */
export type PolygonRings = Float64Array[];

export interface ShapeParts {
  /** Points as x,y pairs. */
  readonly points: number[];
  /** Polylines as x,y pairs (two vertices at least). */
  readonly lines: Float64Array[];
  readonly polygons: PolygonRings[];
}

/** The GeoJSON / WKT type a shape was given as (points_only and error texts need it). */
export type ShapeKind = 'point' | 'multipoint' | 'linestring' | 'multilinestring' | 'polygon' | 'multipolygon' | 'envelope' | 'circle' | 'geometrycollection';

export interface ParsedShape {
  readonly kind: ShapeKind;
  readonly parts: ShapeParts;
  /** Vertices the input held (the limit applies to it). */
  readonly vertices: number;
}

export function emptyParts(): ShapeParts {
  return { points: [], lines: [], polygons: [] };
}

/** Vertices a shape may have: predicates compare every edge of a document with every edge of a query. */
export const MAX_SHAPE_VERTICES = 10_000;

export function quantizeLon(x: number): number {
  return decodeLongitude(encodeLongitude(x));
}

export function quantizeLat(y: number): number {
  return decodeLatitude(encodeLatitude(y));
}

/** Java's Double.toString for the values error texts print (`200.0`, `1.5`, `1.0E-5`). */
export function javaDouble(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  if (Number.isInteger(v) && Math.abs(v) < 1e7) return `${v}.0`;
  const a = Math.abs(v);
  if (a >= 1e-3 && a < 1e7) return String(v);
  const [m, e] = v.toExponential().split('e') as [string, string];
  return `${m.includes('.') ? m : `${m}.0`}E${e.startsWith('+') ? e.slice(1) : e}`;
}

export interface Box {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

export function emptyBox(): Box {
  return { minX: Infinity, maxX: -Infinity, minY: Infinity, maxY: -Infinity };
}

export function extendBox(b: Box, xy: ArrayLike<number>): void {
  for (let i = 0; i + 1 < xy.length; i += 2) {
    const x = xy[i]!;
    const y = xy[i + 1]!;
    if (x < b.minX) b.minX = x;
    if (x > b.maxX) b.maxX = x;
    if (y < b.minY) b.minY = y;
    if (y > b.maxY) b.maxY = y;
  }
}

export function partsBox(p: ShapeParts): Box {
  const b = emptyBox();
  extendBox(b, p.points);
  for (const l of p.lines) extendBox(b, l);
  for (const poly of p.polygons) extendBox(b, poly[0]!);
  return b;
}

export function boxesOverlap(a: Box, b: Box): boolean {
  return a.minX <= b.maxX && b.minX <= a.maxX && a.minY <= b.maxY && b.minY <= a.maxY;
}
