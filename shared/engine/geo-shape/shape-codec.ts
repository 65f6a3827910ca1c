/**
 * A shape as the 32-bit integers the segment files keep of it (a geo_shape
 * field's column in the segment `points`, one value per integer): per shape
 * a record of its length, its bounding box (for the prefilter, read without
 * decoding the rest), then its points, lines and polygons with their counts,
 * every coordinate on Lucene's LatLonShape grid. A document with several
 * shapes has several records, back to back.
 *
 *   [len, minX, maxX, minY, maxY, nPoints, x y..., nLines, (n, x y...)..., nPolygons, (nRings, (n, x y...)...)...]
 */
import { decodeLatitude, decodeLongitude } from '../mapping/geo-point.ts';
import { partsBox, type ShapeParts } from './shape-model.ts';

/** Header integers before a record's body. */
export const HEADER = 5;

const LAT_SCALE = 0x100000000 / 180;
const LON_SCALE = 0x100000000 / 360;

/** The grid integer of a longitude already on the grid (quantizeLon). */
export function encodeX(x: number): number {
  return Math.round(x * LON_SCALE) | 0;
}

export function encodeY(y: number): number {
  return Math.round(y * LAT_SCALE) | 0;
}

// the decoding quantizeLon/quantizeLat use, so decoded values equal the query's quantised ones bit for bit
const decodeX = decodeLongitude;
const decodeY = decodeLatitude;

function pushXY(out: number[], xy: ArrayLike<number>): void {
  for (let i = 0; i + 1 < xy.length; i += 2) out.push(encodeX(xy[i]!), encodeY(xy[i + 1]!));
}

/** Appends the record of one shape to `out`. */
export function encodeShape(parts: ShapeParts, out: number[]): void {
  const start = out.length;
  const box = partsBox(parts);
  out.push(0, encodeX(box.minX), encodeX(box.maxX), encodeY(box.minY), encodeY(box.maxY));
  out.push(parts.points.length / 2);
  pushXY(out, parts.points);
  out.push(parts.lines.length);
  for (const l of parts.lines) {
    out.push(l.length / 2);
    pushXY(out, l);
  }
  out.push(parts.polygons.length);
  for (const rings of parts.polygons) {
    out.push(rings.length);
    for (const r of rings) {
      out.push(r.length / 2);
      pushXY(out, r);
    }
  }
  out[start] = out.length - start;
}

function readXY(v: Int32Array, at: number, n: number): Float64Array {
  const xy = new Float64Array(n * 2);
  for (let i = 0; i < n; i++) {
    xy[2 * i] = decodeX(v[at + 2 * i]!);
    xy[2 * i + 1] = decodeY(v[at + 2 * i + 1]!);
  }
  return xy;
}

/** The shape of the record at `at`. */
export function decodeShape(v: Int32Array, at: number): ShapeParts {
  let p = at + HEADER;
  const np = v[p++]!;
  const points = Array.from(readXY(v, p, np));
  p += np * 2;
  const lines: Float64Array[] = [];
  const nl = v[p++]!;
  for (let i = 0; i < nl; i++) {
    const n = v[p++]!;
    lines.push(readXY(v, p, n));
    p += n * 2;
  }
  const polygons: Float64Array[][] = [];
  const npoly = v[p++]!;
  for (let i = 0; i < npoly; i++) {
    const nr = v[p++]!;
    const rings: Float64Array[] = [];
    for (let r = 0; r < nr; r++) {
      const n = v[p++]!;
      rings.push(readXY(v, p, n));
      p += n * 2;
    }
    polygons.push(rings);
  }
  return { points, lines, polygons };
}
