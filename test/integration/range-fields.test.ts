/**
 * The range field types over HTTP: ranges in every documented form, the
 * range query's relations, term queries on ranges, and the errors
 * Elasticsearch 6.8 gives. Expected ids are worked out by hand from the
 * ranges written in each test.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are JSON of many shapes
type Body = any;
const ids = async (query: unknown): Promise<string[]> => {
  const r = await req('POST', '/ranges/_search', { query, size: 20 });
  assert.equal(r.status, 200, r.text);
  return (r.body as Body).hits.hits.map((h: { _id: string }) => h._id).sort();
};

before(async () => {
  server = await startServer();
  const mappings = {
    _doc: {
      properties: {
        seats: { type: 'integer_range' },
        big: { type: 'long_range' },
        temp: { type: 'float_range' },
        ratio: { type: 'double_range', coerce: false },
        valid: { type: 'date_range', format: 'yyyy-MM-dd' },
        net: { type: 'ip_range' },
      },
    },
  };
  const r = await req('PUT', '/ranges', { settings: { number_of_shards: 2 }, mappings });
  assert.equal(r.status, 200, r.text);
  const docs: Record<string, unknown> = {
    // seats [10, 20], valid in January, a /8 network, temperatures strictly between 1.5 and 2.5
    a: { seats: { gte: 10, lte: 20 }, valid: { gte: '2026-01-01', lt: '2026-02-01' }, net: '10.0.0.0/8', temp: { gt: 1.5, lt: 2.5 }, big: { gte: 2 ** 40 } },
    // two seat ranges: [30, 39] and [1, 5]
    b: { seats: [{ gte: 30, lt: 40 }, { gt: 0, lte: 5 }], net: { gte: '192.168.0.0', lte: '192.168.0.255' }, ratio: { gte: 0.25, lte: 0.75 } },
    // open-ended: 15 and up
    c: { seats: { gte: 15 } },
  };
  for (const [id, doc] of Object.entries(docs)) assert.equal((await req('PUT', `/ranges/_doc/${id}`, doc)).status, 201);
  await req('POST', '/ranges/_refresh');
});
after(async () => {
  await server.stop();
});

describe('range fields', () => {
  test('the mapping prints the range types and their parameters', async () => {
    const m = await req('GET', '/ranges/_mapping');
    const props = (m.body as Body).ranges.mappings._doc.properties;
    assert.deepEqual(props.valid, { type: 'date_range', format: 'yyyy-MM-dd' });
    assert.deepEqual(props.ratio, { type: 'double_range', coerce: false });
    assert.deepEqual(props.net, { type: 'ip_range' });
    const bad = await req('PUT', '/ranges_bad', { mappings: { _doc: { properties: { r: { type: 'integer_range', null_value: 1 } } } } });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /Property \[null_value\] is not supported for \[integer_range\] field types\./);
  });

  test('term finds the ranges that hold the value; gt/lt ends are exclusive', async () => {
    assert.deepEqual(await ids({ term: { seats: 12 } }), ['a']);
    assert.deepEqual(await ids({ term: { seats: 5 } }), ['b']);
    assert.deepEqual(await ids({ term: { seats: 40 } }), ['c'], 'b stops before 40, c goes on');
    assert.deepEqual(await ids({ term: { temp: 1.5 } }), []);
    assert.deepEqual(await ids({ term: { temp: 2 } }), ['a']);
    assert.deepEqual(await ids({ terms: { seats: [3, 12] } }), ['a', 'b']);
    assert.deepEqual(await ids({ term: { big: 2 ** 50 } }), ['a']);
  });

  test('range with relation intersects (default), within and contains', async () => {
    assert.deepEqual(await ids({ range: { seats: { gte: 18, lte: 35 } } }), ['a', 'b', 'c']);
    assert.deepEqual(await ids({ range: { seats: { gte: 0, lte: 25, relation: 'within' } } }), ['a', 'b']);
    assert.deepEqual(await ids({ range: { seats: { gte: 11, lte: 19, relation: 'contains' } } }), ['a']);
    assert.deepEqual(await ids({ range: { seats: { gt: 20, lt: 30 } } }), ['c'], 'exclusive query ends');
    assert.deepEqual(await ids({ range: { ratio: { gte: 0.5, lte: 0.6, relation: 'CONTAINS' } } }), ['b']);
  });

  test('date_range and ip_range', async () => {
    assert.deepEqual(await ids({ range: { valid: { gte: '2026-01-15', lte: '2026-01-20', relation: 'contains' } } }), ['a']);
    assert.deepEqual(await ids({ term: { valid: '2026-02-01' } }), [], 'lt excludes the first of February');
    assert.deepEqual(await ids({ term: { net: '10.1.2.3' } }), ['a']);
    assert.deepEqual(await ids({ range: { net: { gte: '192.168.0.10', lte: '192.168.0.20', relation: 'contains' } } }), ['b']);
  });

  test('bad ranges and bad relations answer as Elasticsearch does', async () => {
    const inverted = await req('PUT', '/ranges/_doc/bad', { seats: { gte: 20, lte: 10 } });
    assert.equal(inverted.status, 400);
    assert.equal((inverted.body as Body).error.reason, 'failed to parse field [seats] of type [integer_range]');
    const unknown = await req('PUT', '/ranges/_doc/bad', { seats: { from: 20 } });
    assert.equal((unknown.body as Body).error.reason, 'error parsing field [seats], with unknown parameter [from]');
    const relation = await req('POST', '/ranges/_search', { query: { range: { seats: { gte: 1, relation: 'nope' } } } });
    assert.equal(relation.status, 400);
    const sort = await req('POST', '/ranges/_search', { sort: ['seats'] });
    assert.equal(sort.status, 400);
  });

  test('ranges survive a flush and a merge', async () => {
    await req('POST', '/ranges/_flush');
    await req('POST', '/ranges/_forcemerge?max_num_segments=1');
    assert.deepEqual(await ids({ range: { seats: { gte: 0, lte: 25, relation: 'within' } } }), ['a', 'b']);
  });
});
