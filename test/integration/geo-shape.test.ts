/**
 * geo_shape fields over HTTP on an index of two shards: GeoJSON and WKT
 * input, the mapping parameters and their errors, malformed shapes and
 * `ignore_malformed`, the geo_shape query's relations on inline and indexed
 * shapes, and the same answers read from the segment files after a flush,
 * a merge and a restart.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, tempDir, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let dir: string;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are JSON of many shapes
type Body = any;

const square = (x0: number, y0: number, x1: number, y1: number) => [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]];

/** Shapes of the `regions` index by id. */
const DOCS: Record<string, unknown> = {
  // a 10x10 square with a 4x4 hole in the middle
  holed: { type: 'polygon', coordinates: [square(0, 0, 10, 10)[0], [[3, 3], [3, 7], [7, 7], [7, 3], [3, 3]]] },
  east: 'POLYGON ((20 0, 30 0, 30 10, 20 10, 20 0))',
  pt: { type: 'point', coordinates: [5, 5] },
  road: 'LINESTRING (-10 -10, -10 20)',
  env: { type: 'envelope', coordinates: [[40, 10], [50, 0]] },
  multi: { type: 'multipoint', coordinates: [[100, 1], [101, 2]] },
  across: { type: 'envelope', coordinates: [[170, 10], [-170, 0]] },
  ring: { type: 'circle', coordinates: [60, 5], radius: '100km' },
  coll: 'GEOMETRYCOLLECTION (POINT (80 5), LINESTRING (80 0, 85 0))',
};

async function ids(query: unknown, index = 'regions'): Promise<string[]> {
  const r = await req('POST', `/${index}/_search`, { query, size: 50 });
  assert.equal(r.status, 200, r.text);
  return (r.body as Body).hits.hits.map((h: { _id: string }) => h._id).sort();
}

const shapeQuery = (shape: unknown, relation = 'intersects') => ({ geo_shape: { area: { shape, relation } } });

before(async () => {
  dir = await tempDir();
  server = await startServer([], dir);
  const created = await req('PUT', '/regions', { settings: { number_of_shards: 2 }, mappings: { _doc: { properties: { area: { type: 'geo_shape' }, name: { type: 'keyword' } } } } });
  assert.equal(created.status, 200, created.text);
  for (const [id, area] of Object.entries(DOCS)) {
    const r = await req('PUT', `/regions/_doc/${id}`, { area, name: id });
    assert.equal(r.status, 201, `${id}: ${r.text}`);
  }
  assert.equal((await req('PUT', '/shapes/_doc/box', { shape: { type: 'envelope', coordinates: [[-1, 11], [11, -1]] } })).status, 201);
  assert.equal((await req('PUT', '/shapes/_doc/routed?routing=r7', { zone: { outline: 'POINT (25 5)' } })).status, 201);
  await req('POST', '/regions,shapes/_refresh');
});
after(async () => {
  await server.stop();
});

async function relationsAnswers(): Promise<void> {
  // a box over the hole only: the holed polygon does not intersect it, the point inside the hole does
  assert.deepEqual(await ids(shapeQuery({ type: 'envelope', coordinates: [[4, 6], [6, 4]] })), ['pt']);
  // a box that touches the east polygon's west edge at x=20 intersects it
  assert.deepEqual(await ids(shapeQuery({ type: 'envelope', coordinates: [[15, 5], [20, 1]] })), ['east']);
  // the road at x=-10 crosses a thin box
  assert.deepEqual(await ids(shapeQuery('BBOX (-11, -9, 1, -1)')), ['road']);
  assert.deepEqual(await ids(shapeQuery({ type: 'envelope', coordinates: [[-1, 11], [11, -1]] }, 'within')), ['holed', 'pt']);
  assert.deepEqual(await ids(shapeQuery({ type: 'point', coordinates: [25, 5] }, 'contains')), ['east']);
  // disjoint: every doc with a shape but those that intersect the box
  assert.deepEqual(await ids(shapeQuery({ type: 'envelope', coordinates: [[-1, 11], [11, -1]] }, 'disjoint')), ['across', 'coll', 'east', 'env', 'multi', 'ring', 'road']);
  // across the dateline: the envelope from 170 to -170 holds points at 175 and -175
  assert.deepEqual(await ids(shapeQuery({ type: 'point', coordinates: [-175, 5] })), ['across']);
  assert.deepEqual(await ids(shapeQuery({ type: 'point', coordinates: [175, 5] })), ['across']);
  // the circle of 100 km around (60, 5) holds a point 0.5 degrees east, not one 1.5 degrees east
  assert.deepEqual(await ids(shapeQuery({ type: 'point', coordinates: [60.5, 5] })), ['ring']);
  assert.deepEqual(await ids(shapeQuery({ type: 'point', coordinates: [61.5, 5] })), []);
  assert.deepEqual(await ids(shapeQuery('POINT (82 0)')), ['coll']);
  assert.deepEqual(await ids({ geo_shape: { area: { indexed_shape: { index: 'shapes', type: '_doc', id: 'box', path: 'shape' }, relation: 'within' } } }), ['holed', 'pt']);
  // a routed shape document, the shape at a dotted path
  assert.deepEqual(await ids({ geo_shape: { area: { indexed_shape: { index: 'shapes', id: 'routed', path: 'zone.outline', routing: 'r7' } } } }), ['east']);
}

describe('geo_shape', () => {
  test('GET _mapping prints the parameters that differ from the defaults', async () => {
    const mappings = {
      _doc: {
        properties: {
          a: { type: 'geo_shape', tree: 'quadtree', precision: '1km', orientation: 'cw', ignore_malformed: true, coerce: true, ignore_z_value: false },
          b: { type: 'geo_shape', strategy: 'term' },
        },
      },
    };
    assert.equal((await req('PUT', '/params', { mappings })).status, 200);
    const m = (await req('GET', '/params/_mapping')).body as Body;
    assert.deepEqual(m.params.mappings._doc.properties.a, { type: 'geo_shape', tree: 'quadtree', precision: '1000.0m', orientation: 'LEFT', coerce: true, ignore_malformed: true, ignore_z_value: false });
    assert.deepEqual(m.params.mappings._doc.properties.b, { type: 'geo_shape', strategy: 'term', points_only: true });
  });

  test('bad mapping parameters are refused with Elasticsearch errors', async () => {
    const put = async (params: Record<string, unknown>) => {
      const r = await req('PUT', '/bad', { mappings: { _doc: { properties: { a: { type: 'geo_shape', ...params } } } } });
      assert.equal(r.status, 400, r.text);
      return r.text;
    };
    assert.match(await put({ tree: 'octree' }), /Unknown prefix tree type \[octree\]/);
    assert.match(await put({ strategy: 'vector' }), /Unknown prefix tree strategy \[vector\]/);
    assert.match(await put({ orientation: 'up' }), /Unknown orientation \[up\]/);
    assert.match(await put({ tree_levels: 'x' }), /For input string: \\"x\\"/);
    assert.match(await put({ strategy: 'term', points_only: false }), /points_only cannot be set to false for term strategy/);
    assert.match(await put({ copy_to: 'x' }), /Mapping definition for \[a\] has unsupported parameters: {2}\[copy_to : x\]/);
    // a mapping update may not change how shapes are indexed, but may change their orientation
    const update = (params: Record<string, unknown>) => req('PUT', '/params/_mapping/_doc', { properties: { a: { type: 'geo_shape', tree: 'quadtree', precision: '1km', ...params } } });
    const changed = await update({ strategy: 'term' });
    assert.equal(changed.status, 400);
    assert.equal((changed.body as Body).error.reason, 'Mapper for [a] conflicts with existing mapping:\n[mapper [a] has different [strategy], mapper [a] has different points_only]');
    assert.equal((await update({ orientation: 'ccw' })).status, 200);
  });

  test('documents index GeoJSON and WKT; malformed shapes fail with the parser reason', async () => {
    const bad = async (area: unknown, reason: RegExp) => {
      const r = await req('PUT', '/regions/_doc/bad', { area });
      assert.equal(r.status, 400, r.text);
      const e = (r.body as Body).error;
      assert.equal(e.type, 'mapper_parsing_exception');
      assert.equal(e.reason, 'failed to parse field [area] of type [geo_shape]');
      assert.match(e.caused_by.reason, reason);
    };
    await bad({ type: 'polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1]]] }, /invalid LinearRing found \(coordinates are not closed\)/);
    await bad({ type: 'linestring', coordinates: [[0, 0]] }, /invalid number of points in LineString \(found \[1\] - must be >= 2\)/);
    await bad({ type: 'point', coordinates: [200, 0] }, /Bad X value 200.0 is not in boundary/);
    await bad({ type: 'blob', coordinates: [0, 0] }, /unknown geo_shape \[blob\]/);
    await bad({ coordinates: [0, 0] }, /shape type not included/);
    await bad('POINT (1 2', /expected word but found: END-OF-STREAM/);
    await bad('CIRCLE (1 2)', /Unknown geometry type: circle/);
    await bad({ type: 'point', coordinates: ['1', 2] }, /geo coordinates must be numbers/);
    await bad(42, /shape must be an object consisting of type and coordinates/);
  });

  test('ignore_malformed skips a bad shape and keeps the document; coerce closes open rings', async () => {
    const mappings = { _doc: { properties: { a: { type: 'geo_shape', ignore_malformed: true }, c: { type: 'geo_shape', coerce: true } } } };
    assert.equal((await req('PUT', '/lenient', { mappings })).status, 200);
    assert.equal((await req('PUT', '/lenient/_doc/1', { a: { type: 'point', coordinates: [500, 0] } })).status, 201);
    assert.equal((await req('PUT', '/lenient/_doc/2', { c: { type: 'polygon', coordinates: [[[0, 0], [2, 0], [2, 2], [0, 2]]] } })).status, 201);
    await req('POST', '/lenient/_refresh');
    assert.equal(((await req('POST', '/lenient/_search', { query: { exists: { field: 'a' } } })).body as Body).hits.total, 0);
    assert.deepEqual(await ids({ geo_shape: { c: { shape: { type: 'point', coordinates: [1, 1] } } } }, 'lenient'), ['2']);
  });

  test('a points_only field refuses other shapes', async () => {
    assert.equal((await req('PUT', '/pts', { mappings: { _doc: { properties: { a: { type: 'geo_shape', points_only: true } } } } })).status, 200);
    const r = await req('PUT', '/pts/_doc/1', { a: 'LINESTRING (0 0, 1 1)' });
    assert.equal(r.status, 400);
    assert.match(r.text, /is configured for points only but a LineString was found/);
    // the term strategy implies points_only: a circle needs the recursive strategy, as in 6.8
    assert.equal((await req('PUT', '/pts/_mapping/_doc', { properties: { t: { type: 'geo_shape', strategy: 'term' } } })).status, 200);
    const circle = await req('PUT', '/pts/_doc/2', { t: { type: 'circle', coordinates: [0, 0], radius: '1km' } });
    assert.equal(circle.status, 400);
    assert.match(circle.text, /\[\{t\}\] is configured for points only but a class org.locationtech.spatial4j.shape.impl.GeoCircle was found/);
    assert.equal((await req('PUT', '/pts/_doc/3', { t: { type: 'multipoint', coordinates: [[0, 0], [1, 1]] } })).status, 201);
  });

  test('relations answer exactly on the refreshed segments', async () => {
    await relationsAnswers();
  });

  test('query errors: unmapped field, field of another type, term strategy, bad relation, missing indexed shape', async () => {
    const err = async (query: unknown, status: number, reason: RegExp) => {
      const r = await req('POST', '/regions/_search', { query });
      assert.equal(r.status, status, r.text);
      assert.match(r.text, reason);
    };
    const pt = { type: 'point', coordinates: [0, 0] };
    await err({ geo_shape: { nope: { shape: pt } } }, 400, /failed to find geo_shape field \[nope\]/);
    assert.deepEqual(await ids({ geo_shape: { nope: { shape: pt }, ignore_unmapped: true } }), []);
    await err({ geo_shape: { name: { shape: pt } } }, 400, /Field \[name\] is not a geo_shape/);
    await err({ geo_shape: { area: { shape: pt, relation: 'within', strategy: 'term' } } }, 400, /strategy \[term\] only supports relation \[intersects\] found relation \[within\]/);
    await err({ geo_shape: { area: { shape: pt, relation: 'touches' } } }, 400, /Unknown shape operation \[touches \]/);
    await err({ geo_shape: { area: { shape: pt, foo: 1 } } }, 400, /\[geo_shape\] query does not support \[foo\]/);
    await err({ geo_shape: { area: { indexed_shape: { index: 'shapes', type: '_doc', id: 'none' } } } }, 400, /Shape with ID \[none\] in type \[_doc\] not found/);
    await err({ geo_shape: { area: { relation: 'within' } } }, 400, /either shapeBytes or indexedShapeId and indexedShapeType are required/);
    // hostile shapes: bounded work, a 400 each
    const many = { type: 'multipoint', coordinates: Array.from({ length: 10_001 }, (_, i) => [i / 1000, 1]) };
    await err({ geo_shape: { area: { shape: many } } }, 400, /a geo_shape may have at most \[10000\] vertices here/);
    let nested: unknown = { type: 'point', coordinates: [1, 2] };
    for (let i = 0; i < 40; i++) nested = { type: 'geometrycollection', geometries: [nested] };
    await err({ geo_shape: { area: { shape: nested } } }, 400, /geometry collections nest deeper than this server accepts \(16\)/);
    await err({ geo_shape: { area: { shape: 'POINT (1 2' } } }, 400, /expected word but found: END-OF-STREAM/);
  });

  test('the answers are the same from segment files after a flush, a merge and a restart', async () => {
    assert.equal((await req('POST', '/regions/_flush')).status, 200);
    assert.equal((await req('POST', '/regions/_forcemerge?max_num_segments=1')).status, 200);
    await server.stop();
    server = await startServer([], dir);
    await req('GET', '/_cluster/health?wait_for_status=yellow&timeout=30s');
    await relationsAnswers();
  });
});
