/**
 * The validity check JTS makes of every polygon Elasticsearch 6.8 builds
 * (spatial4j's JtsGeometry.validate): a ring may not cross or touch itself
 * (edges that are not neighbours share no point), and rings may not cross
 * one another (a hole may touch its shell at a point). A failure is JTS's
 * text, `Self-intersection at or near point (x, y, NaN)`. Edges are swept in
 * order of their west end, so only edges whose longitudes overlap are
 * compared; a shape whose edges overlap so much that the sweep would pass
 * MAX_COMPARISONS pairs is accepted unchecked past that point (documents are
 * parsed on the thread that serves HTTP: the check must stay short).
 */
import { invalidShape } from '../../errors/es-errors.ts';
import { javaDouble } from './shape-model.ts';

interface Edge {
  readonly ring: number;
  /** Index of the edge within its ring. */
  readonly index: number;
  readonly ringEdges: number;
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
  readonly minX: number;
  readonly maxX: number;
}

function side(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  const v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}

function within(p: number, a: number, b: number): boolean {
  return p >= Math.min(a, b) && p <= Math.max(a, b);
}

/** A point the two closed segments share, or null. */
function common(a: Edge, b: Edge, touchCounts: boolean): [number, number] | null {
  if (Math.max(a.y1, a.y2) < Math.min(b.y1, b.y2) || Math.max(b.y1, b.y2) < Math.min(a.y1, a.y2)) return null;
  const o1 = side(a.x1, a.y1, a.x2, a.y2, b.x1, b.y1);
  const o2 = side(a.x1, a.y1, a.x2, a.y2, b.x2, b.y2);
  const o3 = side(b.x1, b.y1, b.x2, b.y2, a.x1, a.y1);
  const o4 = side(b.x1, b.y1, b.x2, b.y2, a.x2, a.y2);
  if (o1 * o2 < 0 && o3 * o4 < 0) {
    const dx = a.x2 - a.x1;
    const dy = a.y2 - a.y1;
    const t = ((b.x1 - a.x1) * (b.y2 - b.y1) - (b.y1 - a.y1) * (b.x2 - b.x1)) / (dx * (b.y2 - b.y1) - dy * (b.x2 - b.x1));
    return [a.x1 + dx * t, a.y1 + dy * t];
  }
  if (!touchCounts) return null;
  if (o1 === 0 && within(b.x1, a.x1, a.x2) && within(b.y1, a.y1, a.y2)) return [b.x1, b.y1];
  if (o2 === 0 && within(b.x2, a.x1, a.x2) && within(b.y2, a.y1, a.y2)) return [b.x2, b.y2];
  if (o3 === 0 && within(a.x1, b.x1, b.x2) && within(a.y1, b.y1, b.y2)) return [a.x1, a.y1];
  if (o4 === 0 && within(a.x2, b.x1, b.x2) && within(a.y2, b.y1, b.y2)) return [a.x2, a.y2];
  return null;
}

/** Edge pairs one check compares at most (about 50 ms). */
const MAX_COMPARISONS = 2_000_000;

/** Edges next to each other on one ring share their common vertex by construction. */
function neighbours(a: Edge, b: Edge): boolean {
  if (a.ring !== b.ring) return false;
  const d = Math.abs(a.index - b.index);
  return d === 1 || d === a.ringEdges - 1;
}

/** Throws JTS's error when the closed rings (x,y pairs, ring 0 the shell) do not make a valid polygon. */
export function checkRings(rings: readonly (readonly number[])[]): void {
  const edges: Edge[] = [];
  rings.forEach((ring, r) => {
    // repeated vertices make edges of no length, which JTS drops
    const xy: number[] = [];
    for (let i = 0; i + 1 < ring.length; i += 2) {
      if (xy.length >= 2 && xy[xy.length - 2] === ring[i] && xy[xy.length - 1] === ring[i + 1]) continue;
      xy.push(ring[i]!, ring[i + 1]!);
    }
    const n = xy.length / 2 - 1;
    for (let i = 0; i < n; i++) {
      const x1 = xy[2 * i]!;
      const y1 = xy[2 * i + 1]!;
      const x2 = xy[2 * i + 2]!;
      const y2 = xy[2 * i + 3]!;
      edges.push({ ring: r, index: i, ringEdges: n, x1, y1, x2, y2, minX: Math.min(x1, x2), maxX: Math.max(x1, x2) });
    }
  });
  edges.sort((a, b) => a.minX - b.minX);
  let budget = MAX_COMPARISONS;
  for (let i = 0; i < edges.length; i++) {
    const a = edges[i]!;
    for (let j = i + 1; j < edges.length && edges[j]!.minX <= a.maxX; j++) {
      if (--budget < 0) return;
      const b = edges[j]!;
      if (neighbours(a, b)) continue;
      const p = common(a, b, a.ring === b.ring);
      if (p !== null) throw invalidShape(`Self-intersection at or near point (${javaDouble(p[0])}, ${javaDouble(p[1])}, NaN)`);
    }
  }
}
