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
  /** Polygons of many edges: their edges by horizontal band, so a point is tested against one band's edges. */
  readonly bands: Bands | null;
}

/**
 * A polygon's edges sorted into `count` horizontal bands of equal height
 * from minY: band k lists (ring, offset) of every edge whose y-range meets
 * it, in `edges[starts[k]..starts[k+1])` pairs. A point's crossing count and
 * boundary test need only the edges of its own band.
 */
export interface Bands {
  readonly minY: number;
  readonly maxY: number;
  readonly height: number;
  readonly count: number;
  readonly starts: Int32Array;
  readonly edges: Int32Array;
}

/** Edges from which a polygon gets bands (below it the plain scan is as fast). */
const BANDED_EDGES = 64;

function bandOf(b: { minY: number; height: number; count: number }, y: number): number {
  const k = Math.floor((y - b.minY) / b.height);
  return k < 0 ? 0 : k >= b.count ? b.count - 1 : k;
}

export function buildBands(rings: readonly Float64Array[], box: Box): Bands | null {
  let m = 0;
  for (const r of rings) m += r.length / 2 - 1;
  if (m < BANDED_EDGES || !(box.maxY > box.minY)) return null;
  const count = Math.min(1024, Math.ceil(Math.sqrt(m)));
  const shape = { minY: box.minY, height: (box.maxY - box.minY) / count, count };
  const starts = new Int32Array(count + 1);
  const each = (visit: (k: number, ring: number, j: number) => void): void => {
    rings.forEach((r, ring) => {
      for (let j = 0; j + 3 < r.length; j += 2) {
        const lo = bandOf(shape, Math.min(r[j + 1]!, r[j + 3]!));
        const hi = bandOf(shape, Math.max(r[j + 1]!, r[j + 3]!));
        for (let k = lo; k <= hi; k++) visit(k, ring, j);
      }
    });
  };
  each((k) => starts[k + 1]!++);
  for (let k = 0; k < count; k++) starts[k + 1]! += starts[k]!;
  const edges = new Int32Array(starts[count]! * 2);
  const fill = starts.slice(0, count);
  each((k, ring, j) => {
    const at = fill[k]!++ * 2;
    edges[at] = ring;
    edges[at + 1] = j;
  });
  return { ...shape, maxY: box.maxY, starts, edges };
}

/** The components of a shape; `banded` false skips the bands (a shape tested once or twice: building them costs a scan). */
export function components(p: ShapeParts, banded = true): Component[] {
  const out: Component[] = [];
  for (let i = 0; i + 1 < p.points.length; i += 2) {
    const xy = new Float64Array([p.points[i]!, p.points[i + 1]!]);
    out.push({ kind: POINT, box: { minX: xy[0]!, maxX: xy[0]!, minY: xy[1]!, maxY: xy[1]! }, xy, rings: [], bands: null });
  }
  for (const l of p.lines) {
    const box = emptyBox();
    extendBox(box, l);
    out.push({ kind: LINE, box, xy: l, rings: [], bands: null });
  }
  for (const rings of p.polygons) {
    const box = emptyBox();
    extendBox(box, rings[0]!);
    out.push({ kind: POLYGON, box, xy: rings[0]!, rings, bands: banded ? buildBands(rings, box) : null });
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
  if (px < Math.min(ax, bx) || px > Math.max(ax, bx) || py < Math.min(ay, by) || py > Math.max(ay, by)) return false;
  return orient(ax, ay, bx, by, px, py) === 0;
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

/** Crossing test of one edge for point (x, y): 0 on it, 1 crossed by the ray to the east, -1 neither. */
function edgeTest(x: number, y: number, x1: number, y1: number, x2: number, y2: number): number {
  if (onSegment(x, y, x1, y1, x2, y2)) return 0;
  return y1 > y !== y2 > y && x < ((x2 - x1) * (y - y1)) / (y2 - y1) + x1 ? 1 : -1;
}

/** Point (x, y) against polygon p (even-odd over all its rings): 1 inside, 0 on the boundary, -1 outside. */
export function pointInPolygon(x: number, y: number, p: Component): number {
  const bands = p.bands;
  let inside = false;
  if (bands !== null) {
    if (y < bands.minY || y > bands.maxY) return -1;
    const k = bandOf(bands, y);
    const e = bands.edges;
    for (let i = bands.starts[k]!, end = bands.starts[k + 1]!; i < end; i++) {
      const r = p.rings[e[2 * i]!]!;
      const j = e[2 * i + 1]!;
      const t = edgeTest(x, y, r[j]!, r[j + 1]!, r[j + 2]!, r[j + 3]!);
      if (t === 0) return 0;
      if (t === 1) inside = !inside;
    }
    return inside ? 1 : -1;
  }
  for (const ring of p.rings) {
    for (let i = 0; i + 3 < ring.length; i += 2) {
      const t = edgeTest(x, y, ring[i]!, ring[i + 1]!, ring[i + 2]!, ring[i + 3]!);
      if (t === 0) return 0;
      if (t === 1) inside = !inside;
    }
  }
  return inside ? 1 : -1;
}

/** Edge start offsets (into the x,y pairs) of b's polylines whose bounding box meets `box`: the only edges worth testing. */
let nearEdges = new Int32Array(1024);
let nearRing = new Int32Array(1024);

function edgesNear(box: Box, rings: readonly Float64Array[]): number {
  let n = 0;
  for (let r = 0; r < rings.length; r++) {
    const b = rings[r]!;
    for (let j = 0; j + 3 < b.length; j += 2) {
      const x1 = b[j]!;
      const y1 = b[j + 1]!;
      const x2 = b[j + 2]!;
      const y2 = b[j + 3]!;
      if (Math.max(x1, x2) < box.minX || Math.min(x1, x2) > box.maxX || Math.max(y1, y2) < box.minY || Math.min(y1, y2) > box.maxY) continue;
      if (n === nearEdges.length) {
        nearEdges = growInt32(nearEdges);
        nearRing = growInt32(nearRing);
      }
      nearEdges[n] = j;
      nearRing[n] = r;
      n++;
    }
  }
  return n;
}

function growInt32(a: Int32Array) {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/**
 * Any edge of polyline a crosses or touches any edge of the polylines b (a
 * polygon's rings are closed polylines). Only b's edges near a's box are
 * compared: a small document shape against a large query shape tests a few
 * edges, not all of them.
 */
function edgesIntersect(a: Float64Array, aBox: Box, b: readonly Float64Array[]): boolean {
  const n = edgesNear(aBox, b);
  if (n === 0) return false;
  for (let i = 0; i + 3 < a.length; i += 2) {
    const ax = a[i]!;
    const ay = a[i + 1]!;
    const bx = a[i + 2]!;
    const by = a[i + 3]!;
    for (let k = 0; k < n; k++) {
      const r = b[nearRing[k]!]!;
      const j = nearEdges[k]!;
      if (segmentsIntersect(ax, ay, bx, by, r[j]!, r[j + 1]!, r[j + 2]!, r[j + 3]!)) return true;
    }
  }
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
    return pointInPolygon(ax, ay, b) >= 0;
  }
  if (a.kind === LINE) {
    if (b.kind === LINE) return edgesIntersect(a.xy, a.box, [b.xy]);
    return pointInPolygon(ax, ay, b) >= 0 || edgesIntersect(a.xy, a.box, b.rings);
  }
  // two polygons: a boundary crossing, or one inside the other
  if (pointInPolygon(ax, ay, b) >= 0 || pointInPolygon(b.xy[0]!, b.xy[1]!, a) >= 0) return true;
  // the smaller polygon's rings against the larger's edges near them
  const [small, large] = area(a.box) <= area(b.box) ? [a, b] : [b, a];
  for (const r of small.rings) if (edgesIntersect(r, small.box, large.rings)) return true;
  return false;
}

function area(b: Box): number {
  return (b.maxX - b.minX) * (b.maxY - b.minY);
}

/** Polyline xy lies in the polygon: its vertices, and each piece between the polygon's edges, inside or on it. */
function polylineWithinPolygon(xy: Float64Array, box: Box, p: Component): boolean {
  const rings = p.rings;
  if (pointInPolygon(xy[0]!, xy[1]!, p) < 0) return false;
  const near = edgesNear(box, rings);
  // no edge of the polygon near the line: it cannot leave the polygon, and its first vertex is in it
  if (near === 0) return true;
  for (let i = 2; i + 1 < xy.length; i += 2) if (pointInPolygon(xy[i]!, xy[i + 1]!, p) < 0) return false;
  const ts: number[] = [];
  for (let i = 0; i + 3 < xy.length; i += 2) {
    const ax = xy[i]!;
    const ay = xy[i + 1]!;
    const dx = xy[i + 2]! - ax;
    const dy = xy[i + 3]! - ay;
    ts.length = 0;
    for (let k = 0; k < near; k++) {
      const r = rings[nearRing[k]!]!;
      const j = nearEdges[k]!;
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
    if (ts.length === 0) continue;
    ts.sort((p, q) => p - q);
    let prev = 0;
    for (let k = 0; k <= ts.length; k++) {
      const t = k < ts.length ? ts[k]! : 1;
      if (t > prev) {
        const m = (prev + t) / 2;
        if (pointInPolygon(ax + dx * m, ay + dy * m, p) < 0) return false;
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
  if (a.kind === POINT) return pointInPolygon(a.xy[0]!, a.xy[1]!, b) >= 0;
  if (a.kind === LINE) return polylineWithinPolygon(a.xy, a.box, b);
  if (!polylineWithinPolygon(a.xy, a.box, b)) return false;
  // a hole of b with a vertex inside a's area takes part of a away
  for (let h = 1; h < b.rings.length; h++) {
    const hole = b.rings[h]!;
    for (let i = 0; i + 1 < hole.length; i += 2) if (pointInPolygon(hole[i]!, hole[i + 1]!, a) > 0) return false;
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
