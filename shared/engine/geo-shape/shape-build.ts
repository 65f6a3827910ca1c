/**
 * Turns parsed coordinates into the planar parts of shape-model.ts as
 * Elasticsearch 6.8's ShapeBuilders do: coordinates checked against the
 * globe (spatial4j's `Bad X value ...`), polygons read with the field's
 * `orientation` (a shell given the other way round and wider than 180
 * degrees crosses the dateline, PolygonBuilder's rule), shapes past the
 * dateline split there, envelopes across it split in two, circles turned
 * into a polygon of geodesic points.
 */
import { invalidShape, illegalArgument } from '../../errors/es-errors.ts';
import { EARTH_MEAN_RADIUS } from '../mapping/geo-point.ts';
import { checkRings } from './ring-validity.ts';
import { javaDouble, quantizeLat, quantizeLon, type ShapeParts } from './shape-model.ts';

const BOUNDARY = 'Rect(minX=-180.0,maxX=180.0,minY=-90.0,maxY=90.0)';

function checkX(x: number): void {
  if (!(x >= -180 && x <= 180)) throw invalidShape(`Bad X value ${javaDouble(x)} is not in boundary ${BOUNDARY}`);
}

function checkY(y: number): void {
  if (!(y >= -90 && y <= 90)) throw invalidShape(`Bad Y value ${javaDouble(y)} is not in boundary ${BOUNDARY}`);
}

/** Longitudes of lines and polygons may run past the dateline (up to one more turn) to cross it. */
function checkWideX(x: number): void {
  if (!(x >= -540 && x <= 540)) throw invalidShape(`Bad X value ${javaDouble(x)} is not in boundary ${BOUNDARY}`);
}

export function addPoint(parts: ShapeParts, x: number, y: number): void {
  checkX(x);
  checkY(y);
  parts.points.push(quantizeLon(x), quantizeLat(y));
}

function quantized(xy: ArrayLike<number>): Float64Array {
  const out = new Float64Array(xy.length);
  for (let i = 0; i + 1 < xy.length; i += 2) {
    out[i] = quantizeLon(xy[i]!);
    out[i + 1] = quantizeLat(xy[i + 1]!);
  }
  return out;
}

function shifted(xy: ArrayLike<number>, dx: number): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < xy.length; i += 2) out.push(xy[i]! + dx, xy[i + 1]!);
  return out;
}

/** The longitude strips a shape past the dateline is cut into, with the shift that brings each back. */
const STRIPS: readonly [number, number, number][] = [
  [-540, -180, 360],
  [-180, 180, 0],
  [180, 540, -360],
];

function xRange(xy: ArrayLike<number>): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i + 1 < xy.length; i += 2) {
    const x = xy[i]!;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  return [lo, hi];
}

/** A polyline's pieces within x in [lo, hi]. */
function clipLine(xy: ArrayLike<number>, lo: number, hi: number): number[][] {
  const pieces: number[][] = [];
  let cur: number[] = [];
  const flush = () => {
    if (cur.length >= 4) pieces.push(cur);
    cur = [];
  };
  for (let i = 0; i + 3 < xy.length; i += 2) {
    const x1 = xy[i]!;
    const y1 = xy[i + 1]!;
    const x2 = xy[i + 2]!;
    const y2 = xy[i + 3]!;
    // the part of segment (x1,y1)-(x2,y2) with x in [lo, hi], by the parameter t
    let t0 = 0;
    let t1 = 1;
    const dx = x2 - x1;
    if (dx === 0) {
      if (x1 < lo || x1 > hi) {
        flush();
        continue;
      }
    } else {
      const ta = (lo - x1) / dx;
      const tb = (hi - x1) / dx;
      t0 = Math.max(t0, Math.min(ta, tb));
      t1 = Math.min(t1, Math.max(ta, tb));
      if (t0 > t1) {
        flush();
        continue;
      }
    }
    const ax = t0 === 0 ? x1 : x1 + dx * t0;
    const ay = t0 === 0 ? y1 : y1 + (y2 - y1) * t0;
    const bx = t1 === 1 ? x2 : x1 + dx * t1;
    const by = t1 === 1 ? y2 : y1 + (y2 - y1) * t1;
    if (cur.length === 0 || cur[cur.length - 2] !== ax || cur[cur.length - 1] !== ay) {
      flush();
      cur.push(ax, ay);
    }
    cur.push(bx, by);
    if (t1 < 1) flush();
  }
  flush();
  return pieces;
}

export function addLine(parts: ShapeParts, xy: number[]): void {
  for (let i = 0; i + 1 < xy.length; i += 2) {
    checkWideX(xy[i]!);
    checkY(xy[i + 1]!);
  }
  const [lo, hi] = xRange(xy);
  if (lo >= -180 && hi <= 180) {
    parts.lines.push(quantized(xy));
    return;
  }
  for (const [a, b, dx] of STRIPS) {
    if (hi < a || lo > b) continue;
    for (const piece of clipLine(xy, a, b)) parts.lines.push(quantized(shifted(piece, dx)));
  }
}

/** Twice the signed area of a closed ring (positive: counterclockwise). */
function signedArea2(ring: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i + 3 < ring.length; i += 2) s += ring[i]! * ring[i + 3]! - ring[i + 2]! * ring[i + 1]!;
  return s;
}

/** Sutherland–Hodgman against x >= lo (keepAbove) or x <= hi: one closed ring in, one closed ring out (maybe empty). */
function clipRing(ring: number[], edge: number, keepAbove: boolean): number[] {
  const inside = (x: number) => (keepAbove ? x >= edge : x <= edge);
  const out: number[] = [];
  const n = ring.length / 2 - 1; // closed: the last vertex repeats the first
  for (let i = 0; i < n; i++) {
    const x1 = ring[2 * i]!;
    const y1 = ring[2 * i + 1]!;
    const x2 = ring[2 * i + 2]!;
    const y2 = ring[2 * i + 3]!;
    const in1 = inside(x1);
    const in2 = inside(x2);
    if (in1) out.push(x1, y1);
    if (in1 !== in2) {
      const t = (edge - x1) / (x2 - x1);
      out.push(edge, y1 + (y2 - y1) * t);
    }
  }
  if (out.length < 6) return [];
  out.push(out[0]!, out[1]!);
  return out;
}

function clipRingToStrip(ring: number[], lo: number, hi: number): number[] {
  const a = clipRing(ring, lo, true);
  return a.length === 0 ? a : clipRing(a, hi, false);
}

function pointInRing(x: number, y: number, ring: ArrayLike<number>): boolean {
  let inside = false;
  for (let i = 0; i + 3 < ring.length; i += 2) {
    const x1 = ring[i]!;
    const y1 = ring[i + 1]!;
    const x2 = ring[i + 2]!;
    const y2 = ring[i + 3]!;
    if (y1 > y !== y2 > y && x < ((x2 - x1) * (y - y1)) / (y2 - y1) + x1) inside = !inside;
  }
  return inside;
}

/**
 * A polygon's closed rings (ring 0 the shell). `right` is the right-hand
 * rule (counterclockwise shells, Elasticsearch's default orientation).
 */
export function addPolygon(parts: ShapeParts, rings: number[][], right: boolean): void {
  for (const ring of rings) {
    for (let i = 0; i + 1 < ring.length; i += 2) {
      checkWideX(ring[i]!);
      checkY(ring[i + 1]!);
    }
  }
  const shell = rings[0]!;
  const [lo, hi] = xRange(shell);
  const range = hi - lo;
  const ccw = signedArea2(shell) > 0;
  // PolygonBuilder: a shell the other way round than the orientation says, wider than a hemisphere, crosses the dateline
  const translate = ccw !== right && range > 180 && range !== 360;
  const all = translate ? rings.map((r) => r.map((v, i) => (i % 2 === 0 && v < 0 ? v + 360 : v))) : rings;
  checkRings(all);
  for (let h = 1; h < all.length; h++) {
    const hole = all[h]!;
    const sh = all[0]!;
    if (!pointInRing(hole[0]!, hole[1]!, sh) && !onRing(hole[0]!, hole[1]!, sh)) {
      throw invalidShape(`Hole lies outside shell at or near point (${javaDouble(hole[0]!)}, ${javaDouble(hole[1]!)}, NaN)`);
    }
  }
  const [alo, ahi] = xRange(all[0]!);
  if (alo >= -180 && ahi <= 180) {
    parts.polygons.push(all.map(quantized));
    return;
  }
  for (const [a, b, dx] of STRIPS) {
    if (ahi <= a || alo >= b) continue;
    const clipped: Float64Array[] = [];
    for (let r = 0; r < all.length; r++) {
      const c = clipRingToStrip(all[r]!, a, b);
      if (c.length === 0) {
        if (r === 0) break;
        continue;
      }
      clipped.push(quantized(shifted(c, dx)));
    }
    if (clipped.length > 0) parts.polygons.push(clipped);
  }
}

function onRing(x: number, y: number, ring: ArrayLike<number>): boolean {
  for (let i = 0; i + 3 < ring.length; i += 2) {
    const x1 = ring[i]!;
    const y1 = ring[i + 1]!;
    const x2 = ring[i + 2]!;
    const y2 = ring[i + 3]!;
    if ((x2 - x1) * (y - y1) - (y2 - y1) * (x - x1) === 0 && x >= Math.min(x1, x2) && x <= Math.max(x1, x2) && y >= Math.min(y1, y2) && y <= Math.max(y1, y2)) return true;
  }
  return false;
}

/** EnvelopeBuilder: upper left and lower right corners; across the dateline when left > right. */
export function addEnvelope(parts: ShapeParts, left: number, top: number, right: number, bottom: number): void {
  checkX(left);
  checkX(right);
  checkY(top);
  checkY(bottom);
  if (top < bottom) throw invalidShape(`maxY must be >= minY: ${javaDouble(bottom)} to ${javaDouble(top)}`);
  const box = (x0: number, x1: number) => quantized([x0, bottom, x1, bottom, x1, top, x0, top, x0, bottom]);
  if (left <= right) parts.polygons.push([box(left, right)]);
  else {
    parts.polygons.push([box(left, 180)]);
    parts.polygons.push([box(-180, right)]);
  }
}

/** Sides of the polygon a circle becomes (its edges stay within 0.13% of the radius of the circle). */
const CIRCLE_SIDES = 64;

/** A circle as the polygon through CIRCLE_SIDES points at `meters` from its centre (geodesic destinations). */
export function addCircle(parts: ShapeParts, x: number, y: number, meters: number): void {
  checkX(x);
  checkY(y);
  if (!(meters >= 0) || !Number.isFinite(meters)) throw illegalArgument(`radius must be a positive finite distance, found [${meters}]`);
  const d = meters / EARTH_MEAN_RADIUS;
  if (d >= Math.PI) throw invalidShape('a circle may not cover the whole globe');
  const lat1 = (y * Math.PI) / 180;
  const lon1 = (x * Math.PI) / 180;
  // a circle holding a pole has no polygon in longitude/latitude: refused (documented)
  if (Math.PI / 2 - Math.abs(lat1) <= d) throw invalidShape(`a circle of radius ${meters}m around (${javaDouble(x)}, ${javaDouble(y)}) covers a pole, which is not supported`);
  const ring: number[] = [];
  for (let i = 0; i < CIRCLE_SIDES; i++) {
    const brg = (2 * Math.PI * i) / CIRCLE_SIDES;
    const lat2 = Math.asin(Math.sin(lat1) * Math.cos(d) + Math.cos(lat1) * Math.sin(d) * Math.cos(brg));
    const lon2 = lon1 + Math.atan2(Math.sin(brg) * Math.sin(d) * Math.cos(lat1), Math.cos(d) - Math.sin(lat1) * Math.sin(lat2));
    // bearings run clockwise from north; listed in reverse they make a counterclockwise shell
    ring.unshift((lon2 * 180) / Math.PI, (lat2 * 180) / Math.PI);
  }
  ring.push(ring[0]!, ring[1]!);
  // the points stay next to the centre's longitude (they may pass ±180: then the polygon is split there)
  addPolygon(parts, [ring], true);
}
