/**
 * The geo_shape parsers (GeoJSON and WKT) against Elasticsearch 6.8's
 * texts, the planar parts they build (dateline splits, orientation,
 * circles), the vertex limit, and the codec's round trip.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SHAPE_OPTIONS, parseShape, type ShapeOptions } from '../../../shared/engine/geo-shape/shape-parser.ts';
import { decodeShape, encodeShape } from '../../../shared/engine/geo-shape/shape-codec.ts';
import type { EsError } from '../../../shared/errors/es-errors.ts';

function reason(raw: unknown, opts: ShapeOptions = DEFAULT_SHAPE_OPTIONS): string {
  try {
    parseShape(raw, opts);
  } catch (e) {
    return `${(e as EsError).type}: ${(e as EsError).message}`;
  }
  return 'parsed';
}

const parts = (raw: unknown, opts: ShapeOptions = DEFAULT_SHAPE_OPTIONS) => parseShape(raw, opts)!.parts;
const near = (a: ArrayLike<number>, b: readonly number[]) => {
  assert.equal(a.length, b.length);
  for (let i = 0; i < b.length; i++) assert.ok(Math.abs(a[i]! - b[i]!) < 1e-6, `${i}: ${a[i]} vs ${b[i]}`);
};

describe('GeoJSON', () => {
  test('every type parses, the type name in any case', () => {
    assert.equal(parseShape({ type: 'Point', coordinates: [1, 2] }, DEFAULT_SHAPE_OPTIONS)!.kind, 'point');
    assert.equal(parts({ type: 'MULTIPOINT', coordinates: [[1, 2], [3, 4]] }).points.length, 4);
    assert.equal(parts({ type: 'linestring', coordinates: [[1, 2], [3, 4]] }).lines.length, 1);
    assert.equal(parts({ type: 'multilinestring', coordinates: [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] }).lines.length, 2);
    assert.equal(parts({ type: 'multipolygon', coordinates: [[[[0, 0], [1, 0], [1, 1], [0, 0]]], [[[5, 5], [6, 5], [6, 6], [5, 5]]]] }).polygons.length, 2);
    const env = parts({ type: 'envelope', coordinates: [[-10, 10], [10, -10]] }).polygons;
    assert.equal(env.length, 1);
    const coll = parts({ type: 'geometrycollection', geometries: [{ type: 'point', coordinates: [1, 1] }, { type: 'linestring', coordinates: [[0, 0], [1, 1]] }] });
    assert.equal(coll.points.length, 2);
    assert.equal(coll.lines.length, 1);
  });

  test('malformed objects get 6.8 texts', () => {
    assert.equal(reason({ coordinates: [1, 2] }), 'parse_exception: shape type not included');
    assert.equal(reason({ type: 'point' }), 'parse_exception: coordinates not included');
    assert.equal(reason({ type: 'geometrycollection' }), 'parse_exception: geometries not included');
    assert.equal(reason({ type: 'nope', coordinates: [1, 2] }), 'illegal_argument_exception: unknown geo_shape [nope]');
    assert.equal(reason({ type: 'point', coordinates: { lat: 1 } }), 'parse_exception: coordinates cannot be specified as objects');
    assert.equal(reason({ type: 'point', coordinates: [1, 2, 3, 4] }), 'parse_exception: geo coordinates greater than 3 dimensions are not supported');
    assert.equal(reason({ type: 'point', coordinates: [[1, 2]] }), 'parse_exception: multipoint data provided when single point data expected.');
    assert.equal(reason({ type: 'multipoint', coordinates: [1, 2] }), 'parse_exception: single coordinate found when expecting an array of coordinates. change type to point or change data to an array of >0 coordinates');
    assert.equal(reason({ type: 'linestring', coordinates: [[1, 2]] }), 'parse_exception: invalid number of points in LineString (found [1] - must be >= 2)');
    assert.equal(reason({ type: 'polygon', coordinates: [[[0, 0], [1, 0], [0, 0]]] }), 'parse_exception: invalid number of points in LinearRing (found [3] - must be >= [4])');
    assert.equal(reason({ type: 'polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1]]] }), 'parse_exception: invalid LinearRing found (coordinates are not closed)');
    assert.equal(reason({ type: 'envelope', coordinates: [[0, 0]] }), 'parse_exception: invalid number of points [1] provided for geo_shape [envelope] when expecting an array of 2 coordinates');
    assert.equal(reason({ type: 'point', coordinates: [1, 2], radius: '1km' }), 'parse_exception: cannot have [radius] with type set to [point]');
    assert.equal(reason({ type: 'point', coordinates: [1, 2], orientation: 'cw' }), 'parse_exception: cannot have [orientation] with type set to [point]');
    assert.equal(reason({ type: 'point', coordinates: [1, 2, 3] }, { ...DEFAULT_SHAPE_OPTIONS, ignoreZValue: false }), 'parse_exception: Exception parsing coordinates: found Z value [3.0] but [ignore_z_value] parameter is [false]');
    assert.equal(reason({ type: 'multipoint', coordinates: [[1, 2], [1, 2, 3]] }), 'parse_exception: Exception parsing coordinates: number of dimensions do not match');
    assert.equal(reason({ type: 'point', coordinates: [181, 0] }), 'invalid_shape_exception: Bad X value 181.0 is not in boundary Rect(minX=-180.0,maxX=180.0,minY=-90.0,maxY=90.0)');
    assert.equal(reason({ type: 'point', coordinates: [0, -91.5] }), 'invalid_shape_exception: Bad Y value -91.5 is not in boundary Rect(minX=-180.0,maxX=180.0,minY=-90.0,maxY=90.0)');
    assert.equal(reason(true), 'parse_exception: shape must be an object consisting of type and coordinates');
  });

  test('coerce closes an open ring of three points', () => {
    const p = parts({ type: 'polygon', coordinates: [[[0, 0], [1, 0], [1, 1]]] }, { ...DEFAULT_SHAPE_OPTIONS, coerce: true });
    near(p.polygons[0]![0]!, [0, 0, 1, 0, 1, 1, 0, 0]);
  });

  test('a hole outside its shell is refused', () => {
    const shell = [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]];
    const hole = [[20, 20], [21, 20], [21, 21], [20, 20]];
    assert.equal(reason({ type: 'polygon', coordinates: [shell, hole] }), 'invalid_shape_exception: Hole lies outside shell at or near point (20.0, 20.0, NaN)');
  });

  test('polygons are checked as JTS checks them: a ring crossing itself or another ring is refused; a hole touching its shell at a point is not', () => {
    assert.equal(reason('POLYGON ((0 0, 10 10, 10 0, 0 10, 0 0))'), 'invalid_shape_exception: Self-intersection at or near point (5.0, 5.0, NaN)');
    assert.equal(reason('POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (5 5, 15 5, 15 6, 5 6, 5 5))'), 'invalid_shape_exception: Self-intersection at or near point (10.0, 5.0, NaN)');
    // a ring touching itself at a vertex
    assert.equal(reason('POLYGON ((0 0, 10 0, 5 5, 10 10, 0 10, 5 5, 0 0))'), 'invalid_shape_exception: Self-intersection at or near point (5.0, 5.0, NaN)');
    assert.equal(reason('POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (0 0, 2 1, 1 2, 0 0))'), 'parsed');
    assert.equal(reason('POLYGON ((0 0, 10 0, 10 10, 6 10, 6 2, 4 2, 4 10, 0 10, 0 0))'), 'parsed');
    // repeated vertices are not crossings
    assert.equal(reason('POLYGON ((0 0, 10 0, 10 0, 10 10, 0 10, 0 0))'), 'parsed');
    // 10,000 vertices are checked quickly
    const ring: number[][] = [];
    for (let i = 0; i < 9_999; i++) ring.push([10 * Math.cos((2 * Math.PI * i) / 9_999), 10 * Math.sin((2 * Math.PI * i) / 9_999)]);
    ring.push(ring[0]!);
    const t0 = performance.now();
    assert.equal(reason({ type: 'polygon', coordinates: [ring] }), 'parsed');
    assert.ok(performance.now() - t0 < 2_000);
  });

  test('the vertex limit is a 400 with the limit named', () => {
    const coordinates = Array.from({ length: 10_001 }, (_, i) => [i / 1000, 0]);
    assert.match(reason({ type: 'multipoint', coordinates }), /^illegal_argument_exception: a geo_shape may have at most \[10000\] vertices/);
  });

  test('a circle becomes a polygon whose vertices lie at the radius', () => {
    const p = parts({ type: 'circle', coordinates: [10, 45], radius: '10km' });
    const ring = p.polygons[0]![0]!;
    assert.equal(ring.length, 65 * 2);
    const toRad = Math.PI / 180;
    for (let i = 0; i < ring.length; i += 2) {
      const dLat = (ring[i + 1]! - 45) * toRad;
      const dLon = (ring[i]! - 10) * toRad;
      const a = Math.sin(dLat / 2) ** 2 + Math.cos(45 * toRad) * Math.cos(ring[i + 1]! * toRad) * Math.sin(dLon / 2) ** 2;
      const m = 2 * 6371008.7714 * Math.asin(Math.sqrt(a));
      assert.ok(Math.abs(m - 10_000) < 1, `vertex at ${m} m`);
    }
    assert.match(reason({ type: 'circle', coordinates: [0, 89], radius: '500km' }), /covers a pole/);
  });
});

describe('dateline and orientation', () => {
  test('a polygon past 180 is split into two polygons on either side', () => {
    const p = parts({ type: 'polygon', coordinates: [[[170, 0], [190, 0], [190, 10], [170, 10], [170, 0]]] });
    assert.equal(p.polygons.length, 2);
    const xs = p.polygons.flatMap((poly) => Array.from(poly[0]!).filter((_, i) => i % 2 === 0));
    assert.ok(Math.min(...xs) >= -180 && Math.max(...xs) <= 180);
  });

  test('a clockwise shell wider than 180 degrees crosses the dateline (right-hand rule); counterclockwise it does not', () => {
    // from 170 east to -170: given clockwise (in plain x/y), it is the 20-degree band across the dateline
    const cw = [[170, 0], [-170, 0], [-170, 10], [170, 10], [170, 0]];
    const crossing = parts({ type: 'polygon', coordinates: [cw] });
    assert.equal(crossing.polygons.length, 2);
    // the same ring counterclockwise is the 340-degree band
    const wide = parts({ type: 'polygon', coordinates: [[...cw].reverse()] });
    assert.equal(wide.polygons.length, 1);
    // with `orientation: left` a clockwise shell is the normal reading
    const left = parts({ type: 'polygon', coordinates: [cw], orientation: 'left' });
    assert.equal(left.polygons.length, 1);
  });

  test('an envelope whose left is east of its right crosses the dateline', () => {
    assert.equal(parts({ type: 'envelope', coordinates: [[170, 10], [-170, 0]] }).polygons.length, 2);
  });

  test('a line past 180 is split where it crosses', () => {
    const p = parts({ type: 'linestring', coordinates: [[170, 0], [190, 10]] });
    assert.equal(p.lines.length, 2);
    near(p.lines[0]!, [170, 0, 180, 5]);
    near(p.lines[1]!, [-180, 5, -170, 10]);
  });
});

describe('WKT', () => {
  test('every type parses, with comments and any case', () => {
    assert.equal(parts('point (1 2) # a comment').points.length, 2);
    assert.equal(parts('MULTIPOINT ((1 2), (3 4))').points.length, 4);
    assert.equal(parts('MULTIPOINT (1 2, 3 4)').points.length, 4);
    assert.equal(parts('LINESTRING (1 2, 3 4, 5 6)').lines[0]!.length, 6);
    assert.equal(parts('MULTILINESTRING ((1 2, 3 4), (5 6, 7 8))').lines.length, 2);
    assert.equal(parts('POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 3, 3 3, 2 2))').polygons[0]!.length, 2);
    assert.equal(parts('MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))').polygons.length, 2);
    near(parts('BBOX (-10, 10, 20, -20)').polygons[0]![0]!, [-10, -20, 10, -20, 10, 20, -10, 20, -10, -20]);
    assert.equal(parts('GEOMETRYCOLLECTION (POINT (1 2), LINESTRING (0 0, 1 1))').lines.length, 1);
    assert.equal(parseShape('POINT EMPTY', DEFAULT_SHAPE_OPTIONS), null);
  });

  test('malformed text gets 6.8 texts', () => {
    assert.equal(reason('POINT (1 2'), 'parse_exception: expected word but found: END-OF-STREAM');
    assert.equal(reason('POINT (1 2) x'), 'parse_exception: expected end of WKT string but found additional text: x');
    assert.equal(reason('POINT (1 a)'), 'parse_exception: invalid number found: a');
    assert.equal(reason('POINT (1 *)'), "parse_exception: expected number but found: '*'");
    assert.equal(reason('POINT 1 2'), 'parse_exception: expected EMPTY or ( but found: 1');
    assert.equal(reason('CIRCLE (1 2)'), 'illegal_argument_exception: Unknown geometry type: circle');
    assert.equal(reason('TRIANGLE (1 2)'), 'illegal_argument_exception: unknown geo_shape [TRIANGLE]');
    assert.equal(reason('POLYGON ((0 0, 1 0, 1 1, 0 1))'), 'parse_exception: invalid LinearRing found (coordinates are not closed)');
    assert.equal(reason('POINT (1 2 3)', { ...DEFAULT_SHAPE_OPTIONS, ignoreZValue: false }), 'parse_exception: Exception parsing coordinates: found Z value [3.0] but [ignore_z_value] parameter is [false]');
  });
});

describe('codec', () => {
  test('a shape survives encoding on the grid bit for bit', () => {
    const p = parts({ type: 'geometrycollection', geometries: [{ type: 'polygon', coordinates: [[[0.1, 0.2], [10.3, 0.2], [10.3, 9.7], [0.1, 0.2]]] }, { type: 'point', coordinates: [-33.3, 44.4] }, { type: 'linestring', coordinates: [[1, 1], [2, 3]] }] });
    const out: number[] = [];
    encodeShape(p, out);
    assert.equal(out[0], out.length);
    const back = decodeShape(Int32Array.from(out), 0);
    assert.deepEqual(back.points, p.points);
    assert.deepEqual(Array.from(back.lines[0]!), Array.from(p.lines[0]!));
    assert.deepEqual(Array.from(back.polygons[0]![0]!), Array.from(p.polygons[0]![0]!));
  });
});
