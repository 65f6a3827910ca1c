/**
 * Exact relations between shapes: touching edges and corners, holes (inside
 * one, on its edge), collinear segments, concave polygons, lines through
 * polygons, shapes split at the antimeridian, and the segment leaf that
 * applies them per document with the bounding-box prefilter.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SHAPE_OPTIONS, parseShape } from '../../../shared/engine/geo-shape/shape-parser.ts';
import { components, pointInPolygon, shapesIntersect, shapeWithin } from '../../../shared/engine/geo-shape/shape-relations.ts';
import { encodeShape } from '../../../shared/engine/geo-shape/shape-codec.ts';
import { prepareShape } from '../../../shared/engine/geo-shape/prepared-shape.ts';
import { geoShapeBits } from '../../../shared/engine/search/geo-shape-leaves.ts';
import type { Segment } from '../../../shared/engine/segment/types.ts';

const c = (raw: unknown) => components(parseShape(raw, DEFAULT_SHAPE_OPTIONS)!.parts);
const intersects = (a: unknown, b: unknown) => shapesIntersect(c(a), c(b));
const within = (a: unknown, b: unknown) => shapeWithin(c(a), c(b));

const HOLED = 'POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (3 3, 3 7, 7 7, 7 3, 3 3))';
/** A U shape: its notch is x in (4, 6), y above 2. */
const U = 'POLYGON ((0 0, 10 0, 10 10, 6 10, 6 2, 4 2, 4 10, 0 10, 0 0))';

describe('intersects', () => {
  test('polygons sharing only an edge, or only a corner, intersect; a gap of one grid step does not', () => {
    assert.ok(intersects('BBOX (0, 10, 10, 0)', 'BBOX (10, 20, 10, 0)'));
    assert.ok(intersects('BBOX (0, 10, 10, 0)', 'BBOX (10, 20, 20, 10)'));
    assert.ok(!intersects('BBOX (0, 10, 10, 0)', 'BBOX (10.000001, 20, 10, 0)'));
  });

  test('a point in a hole is outside; on the hole edge it is on the polygon', () => {
    assert.ok(!intersects(HOLED, 'POINT (5 5)'));
    assert.ok(intersects(HOLED, 'POINT (3 5)'));
    assert.ok(intersects(HOLED, 'POINT (1 1)'));
    // a box inside the hole does not intersect; one that reaches the ring does
    assert.ok(!intersects(HOLED, 'BBOX (4, 6, 6, 4)'));
    assert.ok(intersects(HOLED, 'BBOX (4, 8, 6, 4)'));
  });

  test('collinear segments overlapping or touching end to end intersect; parallel ones do not', () => {
    assert.ok(intersects('LINESTRING (0 0, 4 4)', 'LINESTRING (2 2, 6 6)'));
    assert.ok(intersects('LINESTRING (0 0, 2 2)', 'LINESTRING (2 2, 6 6)'));
    assert.ok(!intersects('LINESTRING (0 0, 2 2)', 'LINESTRING (2.5 2.5, 6 6)'));
    assert.ok(!intersects('LINESTRING (0 0, 4 4)', 'LINESTRING (0 1, 4 5)'));
    assert.ok(intersects('LINESTRING (0 0, 4 4)', 'POINT (1 1)'));
  });

  test('a line crossing a polygon without a vertex inside it intersects; one in the U notch does not', () => {
    assert.ok(intersects(HOLED, 'LINESTRING (-5 1, 15 1)'));
    assert.ok(!intersects(U, 'LINESTRING (5 3, 5 9)'));
    assert.ok(intersects(U, 'LINESTRING (5 1, 5 9)'));
  });

  test('a polygon inside another (no edges crossing) intersects it', () => {
    assert.ok(intersects('BBOX (0, 10, 10, 0)', 'BBOX (2, 3, 3, 2)'));
    assert.ok(intersects('BBOX (2, 3, 3, 2)', 'BBOX (0, 10, 10, 0)'));
  });

  test('shapes split at the antimeridian meet shapes on either side', () => {
    const across = { type: 'polygon', coordinates: [[[170, -5], [190, -5], [190, 5], [170, 5], [170, -5]]] };
    assert.ok(intersects(across, 'POINT (-175 0)'));
    assert.ok(intersects(across, 'POINT (175 0)'));
    assert.ok(intersects(across, 'POINT (180 0)'));
    assert.ok(!intersects(across, 'POINT (-165 0)'));
    assert.ok(intersects({ type: 'linestring', coordinates: [[175, 0], [185, 0]] }, 'BBOX (-179, -178, 1, -1)'));
  });
});

describe('within and contains', () => {
  test('a polygon touching the outer boundary from inside is within; one over the hole is not', () => {
    assert.ok(within('BBOX (0, 2, 2, 0)', HOLED));
    assert.ok(!within('BBOX (2, 8, 8, 2)', HOLED));
    assert.ok(within('BBOX (0, 10, 3, 0)', HOLED));
  });

  test('a segment leaving a concave polygon between two inside vertices is not within it', () => {
    assert.ok(!within('LINESTRING (2 5, 8 5)', U));
    assert.ok(within('LINESTRING (2 1, 8 1)', U));
    // along the boundary counts as inside
    assert.ok(within('LINESTRING (0 0, 10 0)', U));
  });

  test('points lie within a line they are on; a polygon holds the points inside it', () => {
    assert.ok(within('POINT (1 1)', 'LINESTRING (0 0, 2 2)'));
    assert.ok(within('MULTIPOINT ((1 1), (9 9))', 'BBOX (0, 10, 10, 0)'));
    assert.ok(!within('MULTIPOINT ((1 1), (11 9))', 'BBOX (0, 10, 10, 0)'));
  });
});

describe('banded polygons', () => {
  test('a polygon of many edges answers point tests by band exactly as by scanning every edge', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const ring: number[][] = [];
    for (let i = 0; i < 300; i++) {
      const a = (2 * Math.PI * i) / 300;
      const r = 2 + 3 * rnd();
      ring.push([10 + r * Math.cos(a), 50 + r * Math.sin(a)]);
    }
    ring.push(ring[0]!);
    const hole = [[10, 49.5], [10.5, 49.5], [10.5, 50.5], [10, 50.5], [10, 49.5]].reverse();
    const [banded] = c({ type: 'polygon', coordinates: [ring, hole] });
    assert.ok(banded!.bands !== null);
    const plain = { ...banded!, bands: null };
    const probes: [number, number][] = [];
    for (let i = 0; i < 5000; i++) probes.push([4 + 12 * rnd(), 44 + 12 * rnd()]);
    // vertices and edge midpoints: on the boundary
    const shell = banded!.rings[0]!;
    for (let i = 0; i + 3 < shell.length; i += 2) probes.push([shell[i]!, shell[i + 1]!], [(shell[i]! + shell[i + 2]!) / 2, (shell[i + 1]! + shell[i + 3]!) / 2]);
    let inside = 0;
    let on = 0;
    for (const [x, y] of probes) {
      const r = pointInPolygon(x, y, banded!);
      assert.equal(r, pointInPolygon(x, y, plain), `(${x}, ${y})`);
      if (r > 0) inside++;
      if (r === 0) on++;
    }
    assert.ok(inside > 500 && on >= 600, `inside ${inside}, on ${on}`);
  });
});

/** A segment with one geo_shape field of these documents' shapes (the column the segment files keep). */
function segmentOf(docs: unknown[][]): Segment {
  const values: number[] = [];
  const starts = new Uint32Array(docs.length + 1);
  docs.forEach((shapes, d) => {
    for (const s of shapes) encodeShape(parseShape(s, DEFAULT_SHAPE_OPTIONS)!.parts, values);
    starts[d + 1] = values.length;
  });
  return { maxDoc: docs.length, points: new Map([['area', { dims: 1, values: Int32Array.from(values), starts }]]) } as unknown as Segment;
}

function matches(seg: Segment, relation: 'intersects' | 'disjoint' | 'within' | 'contains', shape: string): number[] {
  const bits = geoShapeBits({ kind: 'geo_shape', field: 'area', relation, shape: prepareShape(parseShape(shape, DEFAULT_SHAPE_OPTIONS)!), boost: 1 }, seg);
  const out: number[] = [];
  for (let d = 0; d < seg.maxDoc; d++) if ((bits[d >>> 5]! >>> (d & 31)) & 1) out.push(d);
  return out;
}

describe('segment leaf', () => {
  const seg = segmentOf([['POINT (1 1)'], ['POINT (1 1)', 'POINT (50 50)'], [], ['BBOX (0, 4, 4, 0)'], ['LINESTRING (20 20, 30 30)']]);

  test('a doc with several shapes intersects when one does, is within only when all are', () => {
    assert.deepEqual(matches(seg, 'intersects', 'BBOX (0, 2, 2, 0)'), [0, 1, 3]);
    assert.deepEqual(matches(seg, 'within', 'BBOX (0, 5, 5, 0)'), [0, 3]);
  });

  test('disjoint takes docs with a shape and none intersecting; contains needs one shape holding the query', () => {
    assert.deepEqual(matches(seg, 'disjoint', 'BBOX (0, 2, 2, 0)'), [4]);
    assert.deepEqual(matches(seg, 'contains', 'POINT (2 2)'), [3]);
    assert.deepEqual(matches(seg, 'contains', 'POINT (1 1)'), [0, 1, 3]);
  });
});
