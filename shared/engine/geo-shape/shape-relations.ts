/**
 * Exact planar relations between two shapes (x = longitude, y = latitude,
 * as Lucene's LatLonShape decides them): `intersects` (any common point,
 * touching boundaries included), `within` (every point of the first lies in
 * the second, boundary included) and its mirror `contains`. Polygons are
 * even-odd over their rings, so a point in a hole is outside and a point on a
 * hole's edge is on the polygon. Every component pair is first rejected by
 * its bounding box.
 */
import { boxesOverlap, emptyBox, extendBox, type Box, type ShapeParts } from './shape-model.ts';

export const POINT = 0;
export const LINE = 1;
export const POLYGON = 2;
export type CompKind = typeof POINT | typeof LINE | typeof POLYGON;

export interface Component {
  readonly kind: CompKind;
  readonly box: Box;
  /** Point: [x, y]; line: its vertices; polygon: the shell (rings[0]). */
  readonly xy: Float64Array;
  /** Polygon rings (closed), the shell first. */
  readonly rings: readonly Float64Array[];
}

export function components(p: ShapeParts): Component[] {
  const out: Component[] = [];
  for (let i = 0; i + 1 < p.points.length; i += 2) {
    const xy = new Float64Array([p.points[i]!, p.points[i + 1]!]);
    out.push({ kind: POINT, box: { minX: xy[0]!, maxX: xy[0]!, minY: xy[1]!, maxY: xy[1]! }, xy, rings: [] });
  }
  for (const l of p.lines) {
    const box = emptyBox();
    extendBox(box, l);
    out.push({ kind: LINE, box, xy: l, rings: [] });
  }
  for (const rings of p.polygons) {
    const box = emptyBox();
    extendBox(box, rings[0]!);
    out.push({ kind: POLYGON, box, xy: rings[0]!, rings });
  }
  return out;
}

/**
 * Which side of a-b point c is on (1 left, -1 right, 0 on the line). A point
 * within about a grid step (1e-7 degrees, a centimetre) of the line is on it:
 * quantising longitude and latitude on grids of different steps moves a point
 * that lies on a slanted line off it by that much.
 */
function orient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  const v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
  const tolerance = ON_LINE * (Math.abs(bx - ax) + Math.abs(by - ay));
  return v > tolerance ? 1 : v < -tolerance ? -1 : 0;
}

const ON_LINE = 1e-7;

/** (px, py) on the closed segment a-b. */
function onSegment(px: number, py: number, ax: number, ay: number, bx: number, by: number): boolean {
  return orient(ax, ay, bx, by, px, py) === 0 && px >= Math.min(ax, bx) && px <= Math.max(ax, bx) && py >= Math.min(ay, by) && py <= Math.max(ay, by);
}

/** Closed segments a-b and c-d share a point. */
export function segmentsIntersect(ax: number, ay: number, bx: number, by: number, cx: number, cy: number, dx: number, dy: number): boolean {
  if (Math.max(ax, bx) < Math.min(cx, dx) || Math.max(cx, dx) < Math.min(ax, bx)) return false;
  if (Math.max(ay, by) < Math.min(cy, dy) || Math.max(cy, dy) < Math.min(ay, by)) return false;
  const o1 = orient(ax, ay, bx, by, cx, cy);
  const o2 = orient(ax, ay, bx, by, dx, dy);
  const o3 = orient(cx, cy, dx, dy, ax, ay);
  const o4 = orient(cx, cy, dx, dy, bx, by);
  if (o1 !== o2 && o3 !== o4) return true;
  return (
    (o1 === 0 && onSegment(cx, cy, ax, ay, bx, by)) ||
    (o2 === 0 && onSegment(dx, dy, ax, ay, bx, by)) ||
    (o3 === 0 && onSegment(ax, ay, cx, cy, dx, dy)) ||
    (o4 === 0 && onSegment(bx, by, cx, cy, dx, dy))
  );
}

function onPolyline(x: number, y: number, xy: Float64Array): boolean {
  if (xy.length === 2) return xy[0] === x && xy[1] === y;
  for (let i = 0; i + 3 < xy.length; i += 2) if (onSegment(x, y, xy[i]!, xy[i + 1]!, xy[i + 2]!, xy[i + 3]!)) return true;
  return false;
}

/** 1 inside, 0 on the boundary (any ring), -1 outside. */
export function pointInPolygon(x: number, y: number, rings: readonly Float64Array[]): number {
  let inside = false;
  for (const ring of rings) {
    for (let i = 0; i + 3 < ring.length; i += 2) {
      const x1 = ring[i]!;
      const y1 = ring[i + 1]!;
      const x2 = ring[i + 2]!;
      const y2 = ring[i + 3]!;
      if (onSegment(x, y, x1, y1, x2, y2)) return 0;
      if (y1 > y !== y2 > y && x < ((x2 - x1) * (y - y1)) / (y2 - y1) + x1) inside = !inside;
    }
  }
  return inside ? 1 : -1;
}

/** Any edge of polyline a crosses or touches any edge of polyline b (rings are closed polylines). */
function edgesIntersect(a: Float64Array, b: Float64Array): boolean {
  for (let i = 0; i + 3 < a.length; i += 2) {
    const ax = a[i]!;
    const ay = a[i + 1]!;
    const bx = a[i + 2]!;
    const by = a[i + 3]!;
    for (let j = 0; j + 3 < b.length; j += 2) {
      if (segmentsIntersect(ax, ay, bx, by, b[j]!, b[j + 1]!, b[j + 2]!, b[j + 3]!)) return true;
    }
  }
  return false;
}

function ringsIntersect(line: Float64Array, rings: readonly Float64Array[]): boolean {
  for (const r of rings) if (edgesIntersect(line, r)) return true;
  return false;
}

function intersects(a: Component, b: Component): boolean {
  if (!boxesOverlap(a.box, b.box)) return false;
  if (a.kind > b.kind) return intersects(b, a);
  const ax = a.xy[0]!;
  const ay = a.xy[1]!;
  if (a.kind === POINT) {
    if (b.kind === POINT) return ax === b.xy[0] && ay === b.xy[1];
    if (b.kind === LINE) return onPolyline(ax, ay, b.xy);
    return pointInPolygon(ax, ay, b.rings) >= 0;
  }
  if (a.kind === LINE) {
    if (b.kind === LINE) return edgesIntersect(a.xy, b.xy);
    return pointInPolygon(ax, ay, b.rings) >= 0 || ringsIntersect(a.xy, b.rings);
  }
  // two polygons: a boundary crossing, or one inside the other
  for (const r of a.rings) if (ringsIntersect(r, b.rings)) return true;
  return pointInPolygon(ax, ay, b.rings) >= 0 || pointInPolygon(b.xy[0]!, b.xy[1]!, a.rings) >= 0;
}

/** Polyline xy lies in the polygon: its vertices, and each piece between the polygon's edges, inside or on it. */
function polylineWithinPolygon(xy: Float64Array, rings: readonly Float64Array[]): boolean {
  for (let i = 0; i + 1 < xy.length; i += 2) if (pointInPolygon(xy[i]!, xy[i + 1]!, rings) < 0) return false;
  const ts: number[] = [];
  for (let i = 0; i + 3 < xy.length; i += 2) {
    const ax = xy[i]!;
    const ay = xy[i + 1]!;
    const dx = xy[i + 2]! - ax;
    const dy = xy[i + 3]! - ay;
    ts.length = 0;
    for (const r of rings) {
      for (let j = 0; j + 3 < r.length; j += 2) {
        const cx = r[j]!;
        const cy = r[j + 1]!;
        const ex = r[j + 2]! - cx;
        const ey = r[j + 3]! - cy;
        const den = dx * ey - dy * ex;
        if (den === 0) continue; // parallel: collinear overlaps run along the boundary, which counts as inside
        const t = ((cx - ax) * ey - (cy - ay) * ex) / den;
        const u = ((cx - ax) * dy - (cy - ay) * dx) / den;
        if (t > 0 && t < 1 && u >= 0 && u <= 1) ts.push(t);
      }
    }
    if (ts.length === 0) continue;
    ts.sort((p, q) => p - q);
    let prev = 0;
    for (let k = 0; k <= ts.length; k++) {
      const t = k < ts.length ? ts[k]! : 1;
      if (t > prev) {
        const m = (prev + t) / 2;
        if (pointInPolygon(ax + dx * m, ay + dy * m, rings) < 0) return false;
      }
      prev = t;
    }
  }
  return true;
}

function within(a: Component, b: Component): boolean {
  if (a.box.minX < b.box.minX || a.box.maxX > b.box.maxX || a.box.minY < b.box.minY || a.box.maxY > b.box.maxY) return false;
  if (b.kind === POINT) return a.kind === POINT && a.xy[0] === b.xy[0] && a.xy[1] === b.xy[1];
  if (b.kind === LINE) {
    // only points lie within a line here; lines along lines are not compared (documented)
    return a.kind === POINT && onPolyline(a.xy[0]!, a.xy[1]!, b.xy);
  }
  if (a.kind === POINT) return pointInPolygon(a.xy[0]!, a.xy[1]!, b.rings) >= 0;
  if (a.kind === LINE) return polylineWithinPolygon(a.xy, b.rings);
  if (!polylineWithinPolygon(a.xy, b.rings)) return false;
  // a hole of b with a vertex inside a's area takes part of a away
  for (let h = 1; h < b.rings.length; h++) {
    const hole = b.rings[h]!;
    for (let i = 0; i + 1 < hole.length; i += 2) if (pointInPolygon(hole[i]!, hole[i + 1]!, a.rings) > 0) return false;
  }
  return true;
}

/** Any component of `a` intersects any component of `b`. */
export function shapesIntersect(a: readonly Component[], b: readonly Component[]): boolean {
  for (const x of a) for (const y of b) if (intersects(x, y)) return true;
  return false;
}

/** Every component of `a` lies within one component of `b` (a component split at the dateline counts piece by piece). */
export function shapeWithin(a: readonly Component[], b: readonly Component[]): boolean {
  if (a.length === 0) return false;
  outer: for (const x of a) {
    for (const y of b) if (within(x, y)) continue outer;
    return false;
  }
  return true;
}
