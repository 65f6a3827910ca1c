/**
 * A BKD-like index of a geo_point field's points (Lucene's BKD tree, kept
 * simple): the points of a segment, copied in tree order, are cut into
 * 2^k leaves of at most LEAF_POINTS points; each inner node halves its
 * points on the wider of its two quantised dimensions, and every node keeps
 * the bounding box of its points. A query walks the tree: a node whose box
 * lies inside the query's shape takes its points' docs wholesale, one whose
 * box lies outside is skipped, and only the leaves it crosses are tested
 * point by point. The heap segment builds it at refresh, the segment writer
 * writes the same arrays to `.dvd` (commit and merge), and the mapped
 * segment views them in place; the walk reads only typed arrays, so both
 * answer through the same code.
 */

/** Most points in one leaf (Lucene's BKD default is 512 too). */
export const LEAF_POINTS = 512;

export interface PointTree {
  /**
   * A power of two. Node 1 is the root, node i's children are 2i and 2i+1,
   * and leaf j is node leafCount + j; leaf j holds the points
   * [leafStart(tree, j), leafStart(tree, j + 1)).
   */
  readonly leafCount: number;
  /** Per node index (0 unused): minLat, maxLat, minLon, maxLon of its points; an empty node has minLat > maxLat. */
  readonly boxes: Int32Array;
  /** The doc of each point, in tree order. */
  readonly docs: Int32Array;
  /** Encoded lat, lon of each point, in tree order. */
  readonly coords: Int32Array;
}

export function leafStart(tree: PointTree, leaf: number): number {
  return Math.floor((leaf * tree.docs.length) / tree.leafCount);
}

/** How a node's box stands to a query's shape. */
export const OUTSIDE = 0;
export const INSIDE = 1;
export const CROSSES = 2;
export type Relation = typeof OUTSIDE | typeof INSIDE | typeof CROSSES;

/**
 * Builds the tree of the points `coords` (lat, lon pairs) of docs `docs`.
 * The arrays are taken over and reordered in place.
 */
export function buildPointTree(docs: Int32Array, coords: Int32Array): PointTree {
  const n = docs.length;
  let leafCount = 1;
  while (leafCount * LEAF_POINTS < n) leafCount *= 2;
  const boxes = new Int32Array(8 * leafCount);
  const tree: PointTree = { leafCount, boxes, docs, coords };
  // Iterative, so a degenerate input cannot exhaust the stack: [node, firstLeaf, endLeaf].
  const stack: number[] = [1, 0, leafCount];
  while (stack.length > 0) {
    const end = stack.pop()!;
    const first = stack.pop()!;
    const node = stack.pop()!;
    const from = leafStart(tree, first);
    const to = leafStart(tree, end);
    let minLat = 0x7fffffff;
    let maxLat = -0x80000000;
    let minLon = 0x7fffffff;
    let maxLon = -0x80000000;
    for (let i = from; i < to; i++) {
      const la = coords[2 * i]!;
      const lo = coords[2 * i + 1]!;
      if (la < minLat) minLat = la;
      if (la > maxLat) maxLat = la;
      if (lo < minLon) minLon = lo;
      if (lo > maxLon) maxLon = lo;
    }
    boxes[4 * node] = minLat;
    boxes[4 * node + 1] = maxLat;
    boxes[4 * node + 2] = minLon;
    boxes[4 * node + 3] = maxLon;
    if (end - first === 1) continue;
    const mid = (first + end) >>> 1;
    if (to > from) {
      const dim = maxLat - minLat >= maxLon - minLon ? 0 : 1;
      select(docs, coords, dim, from, to, leafStart(tree, mid));
    }
    stack.push(2 * node, first, mid, 2 * node + 1, mid, end);
  }
  return tree;
}

function swap(docs: Int32Array, coords: Int32Array, a: number, b: number): void {
  const d = docs[a]!;
  docs[a] = docs[b]!;
  docs[b] = d;
  const la = coords[2 * a]!;
  const lo = coords[2 * a + 1]!;
  coords[2 * a] = coords[2 * b]!;
  coords[2 * a + 1] = coords[2 * b + 1]!;
  coords[2 * b] = la;
  coords[2 * b + 1] = lo;
}

/**
 * Reorders points [from, to) so that those before `k` are <= those from
 * `k` on in dimension `dim` (0 lat, 1 lon). Three-way partitions: points
 * often share coordinates (every pass at one checkpoint has its location).
 */
function select(docs: Int32Array, coords: Int32Array, dim: number, from: number, to: number, k: number): void {
  let lo = from;
  let hi = to;
  while (hi - lo > 1) {
    const a = coords[2 * lo + dim]!;
    const b = coords[2 * ((lo + hi) >>> 1) + dim]!;
    const c = coords[2 * (hi - 1) + dim]!;
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    // [lo, lt) < pivot, [lt, i) == pivot, [gt, hi) > pivot
    let lt = lo;
    let i = lo;
    let gt = hi;
    while (i < gt) {
      const v = coords[2 * i + dim]!;
      if (v < pivot) swap(docs, coords, lt++, i++);
      else if (v > pivot) swap(docs, coords, i, --gt);
      else i++;
    }
    if (k < lt) hi = lt;
    else if (k >= gt) lo = gt;
    else return;
  }
}

/**
 * Walks the tree: `relate` judges a node's box (encoded minLat, maxLat,
 * minLon, maxLon), `inside` takes the points [from, to) wholesale and
 * `crossing` tests the points [from, to) of a leaf the shape crosses.
 */
export function visitPointTree(
  tree: PointTree,
  relate: (minLat: number, maxLat: number, minLon: number, maxLon: number) => Relation,
  inside: (from: number, to: number) => void,
  crossing: (from: number, to: number) => void,
): void {
  const { boxes, leafCount } = tree;
  const stack: number[] = [1, 0, leafCount];
  while (stack.length > 0) {
    const end = stack.pop()!;
    const first = stack.pop()!;
    const node = stack.pop()!;
    const minLat = boxes[4 * node]!;
    const maxLat = boxes[4 * node + 1]!;
    if (minLat > maxLat) continue;
    const r = relate(minLat, maxLat, boxes[4 * node + 2]!, boxes[4 * node + 3]!);
    if (r === OUTSIDE) continue;
    if (r === INSIDE) {
      inside(leafStart(tree, first), leafStart(tree, end));
    } else if (end - first === 1) {
      crossing(leafStart(tree, first), leafStart(tree, end));
    } else {
      const mid = (first + end) >>> 1;
      stack.push(2 * node + 1, mid, end, 2 * node, first, mid);
    }
  }
}

export function pointTreeBytes(tree: PointTree): number {
  return tree.boxes.byteLength + tree.docs.byteLength + tree.coords.byteLength;
}
