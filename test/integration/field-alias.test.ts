/**
 * Field aliases (`type: alias`) over HTTP on two shards: queries,
 * aggregations, sorts, `docvalue_fields`, `exists`, highlighting,
 * `_field_caps` and the field mapping APIs resolve through the alias;
 * writing to an alias and the invalid alias mappings answer
 * Elasticsearch 6.8's errors; the alias still works after a flush and a
 * restart. Expected results are worked out by hand from the documents.
 * Also: `join` fields and the parent-child queries are refused as a node
 * without the parent-join module refuses them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startServer, http, tempDir, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let dir: string;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are JSON of many shapes
type Body = any;

const search = async (body: Record<string, unknown>): Promise<Body> => {
  const r = await req('POST', '/trips/_search', body);
  assert.equal(r.status, 200, r.text);
  return r.body as Body;
};
const ids = async (query: unknown): Promise<string[]> =>
  (await search({ query, size: 20 })).hits.hits.map((h: { _id: string }) => h._id).sort();

const MAPPINGS = {
  _doc: {
    properties: {
      distance: { type: 'long' },
      route_length_miles: { type: 'alias', path: 'distance' },
      transit_mode: { type: 'keyword' },
      mode: { type: 'alias', path: 'transit_mode' },
      notes: { type: 'text' },
      remarks: { type: 'alias', path: 'notes' },
      stops: { type: 'nested', properties: { name: { type: 'keyword' }, stop_name: { type: 'alias', path: 'stops.name' } } },
      city: { type: 'completion' },
      destination: { type: 'alias', path: 'city' },
    },
  },
};

before(async () => {
  dir = await tempDir();
  server = await startServer([], dir);
  const created = await req('PUT', '/trips', { settings: { number_of_shards: 2 }, mappings: MAPPINGS });
  assert.equal(created.status, 200, created.text);
  const docs: Record<string, Record<string, unknown>> = {
    1: { distance: 100, transit_mode: 'train', notes: 'a quiet evening train', city: 'Amsterdam' },
    2: { distance: 50, transit_mode: 'bus', notes: 'crowded bus at noon' },
    3: { distance: 75, transit_mode: 'train', stops: [{ name: 'Delft' }] },
    4: { transit_mode: 'bike' },
  };
  for (const [id, doc] of Object.entries(docs)) assert.equal((await req('PUT', `/trips/_doc/${id}`, doc)).status, 201);
  await req('POST', '/trips/_refresh');
});
after(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('field aliases', () => {
  test('GET _mapping prints the alias as type and path', async () => {
    const r = await req('GET', '/trips/_mapping');
    const props = (r.body as Body).trips.mappings._doc.properties;
    assert.deepEqual(props.route_length_miles, { type: 'alias', path: 'distance' });
    assert.deepEqual(props.stops.properties.stop_name, { type: 'alias', path: 'stops.name' });
  });

  test('term, terms, range, match, query_string, exists and nested queries resolve the alias', async () => {
    assert.deepEqual(await ids({ range: { route_length_miles: { gte: 60 } } }), ['1', '3']);
    assert.deepEqual(await ids({ term: { mode: 'train' } }), ['1', '3']);
    assert.deepEqual(await ids({ terms: { mode: ['bus', 'bike'] } }), ['2', '4']);
    assert.deepEqual(await ids({ match: { remarks: 'train' } }), ['1']);
    assert.deepEqual(await ids({ query_string: { query: 'remarks:crowded OR route_length_miles:75' } }), ['2', '3']);
    assert.deepEqual(await ids({ multi_match: { query: 'noon', fields: ['rem*'] } }), ['2']);
    assert.deepEqual(await ids({ exists: { field: 'route_length_miles' } }), ['1', '2', '3']);
    assert.deepEqual(await ids({ bool: { must_not: { exists: { field: 'remarks' } } } }), ['3', '4']);
    assert.deepEqual(await ids({ nested: { path: 'stops', query: { term: { 'stops.stop_name': 'Delft' } } } }), ['3']);
    assert.deepEqual(await ids({ prefix: { mode: 'b' } }), ['2', '4']);
  });

  test('aggregations, sorts and docvalue_fields read the target under the alias name', async () => {
    const body = await search({
      size: 4,
      sort: [{ route_length_miles: { order: 'desc' } }],
      docvalue_fields: ['mode'],
      aggs: { modes: { terms: { field: 'mode' } }, total: { sum: { field: 'route_length_miles' } } },
    });
    assert.deepEqual(
      body.hits.hits.map((h: { _id: string; sort: number[] }) => [h._id, h.sort[0]]),
      [['1', 100], ['3', 75], ['2', 50], ['4', -9223372036854775808]],
    );
    assert.deepEqual(body.hits.hits[0].fields, { mode: ['train'] });
    assert.deepEqual(
      body.aggregations.modes.buckets.map((b: { key: string; doc_count: number }) => [b.key, b.doc_count]),
      [['train', 2], ['bike', 1], ['bus', 1]],
    );
    assert.equal(body.aggregations.total.value, 225);
  });

  test('collapse on an alias groups by the target and shows the value under the alias name', async () => {
    const body = await search({ collapse: { field: 'mode' }, sort: [{ distance: { order: 'desc' } }] });
    assert.deepEqual(
      body.hits.hits.map((h: { _id: string; fields: unknown }) => [h._id, h.fields]),
      [['1', { mode: ['train'] }], ['2', { mode: ['bus'] }], ['4', { mode: ['bike'] }]],
    );
  });

  test('term and completion suggesters read the target of an alias', async () => {
    const body = await search({
      size: 0,
      suggest: { t: { text: 'quite', term: { field: 'remarks' } }, c: { prefix: 'ams', completion: { field: 'destination' } } },
    });
    assert.deepEqual(body.suggest.t[0].options.map((o: { text: string }) => o.text), ['quiet']);
    assert.deepEqual(body.suggest.c[0].options.map((o: { text: string; _id: string }) => [o.text, o._id]), [['Amsterdam', '1']]);
  });

  test('highlighting a query on the alias is reported under the alias name', async () => {
    const body = await search({ query: { match: { remarks: 'quiet' } }, highlight: { fields: { remarks: {} } } });
    assert.equal(body.hits.total, 1);
    assert.deepEqual(body.hits.hits[0].highlight, { remarks: ['a <em>quiet</em> evening train'] });
  });

  test('_field_caps gives the target type; get field mapping gives the alias mapping', async () => {
    const caps = await req('GET', '/trips/_field_caps?fields=route_length_miles,mode');
    assert.equal(caps.status, 200, caps.text);
    assert.deepEqual((caps.body as Body).fields, {
      route_length_miles: { long: { type: 'long', searchable: true, aggregatable: true } },
      mode: { keyword: { type: 'keyword', searchable: true, aggregatable: true } },
    });
    const fm = await req('GET', '/trips/_mapping/field/route_length_miles');
    assert.equal(fm.status, 200, fm.text);
    assert.deepEqual((fm.body as Body).trips.mappings._doc.route_length_miles, {
      full_name: 'route_length_miles',
      mapping: { route_length_miles: { type: 'alias', path: 'distance' } },
    });
  });

  test('writing to an alias is a mapper_parsing_exception caused by the alias', async () => {
    for (const doc of [{ route_length_miles: 5 }, { mode: null }, { mode: ['a'] }, { 'stops.stop_name': 'x' }]) {
      const r = await req('PUT', '/trips/_doc/w', doc);
      assert.equal(r.status, 400, JSON.stringify(doc));
      const err = (r.body as Body).error;
      assert.equal(err.type, 'mapper_parsing_exception');
      assert.equal(err.reason, 'failed to parse');
      assert.equal(err.caused_by.type, 'illegal_argument_exception');
      assert.match(err.caused_by.reason, /^Cannot write to a field alias \[(route_length_miles|mode|stops\.stop_name)\]\.$/);
    }
    assert.equal((await req('GET', '/trips/_doc/w')).status, 404);
  });

  test("invalid alias mappings answer Elasticsearch's errors", async () => {
    const create = async (name: string, properties: Record<string, unknown>) => {
      const r = await req('PUT', `/${name}`, { mappings: { _doc: { properties } } });
      assert.equal(r.status, 400, r.text);
      return (r.body as Body).error;
    };
    const reason = (e: Body) => (e.type === 'mapper_parsing_exception' ? e.caused_by.reason : e.reason);
    const prefix = (p: string, a: string) => `Invalid [path] value [${p}] for field alias [${a}]: `;
    assert.equal(reason(await create('a1', { o: { properties: { x: { type: 'long' } } }, al: { type: 'alias', path: 'o' } })), prefix('o', 'al') + 'an alias must refer to an existing field in the mappings.');
    assert.equal(reason(await create('a2', { al: { type: 'alias', path: 'missing' } })), prefix('missing', 'al') + 'an alias must refer to an existing field in the mappings.');
    assert.equal(
      reason(await create('a3', { x: { type: 'long' }, a: { type: 'alias', path: 'x' }, b: { type: 'alias', path: 'a' } })),
      prefix('a', 'b') + 'an alias cannot refer to another alias.',
    );
    assert.equal(reason(await create('a4', { al: { type: 'alias', path: 'al' } })), prefix('al', 'al') + 'an alias cannot refer to itself.');
    assert.equal(
      reason(await create('a5', { x: { type: 'long' }, n: { type: 'nested', properties: { al: { type: 'alias', path: 'x' } } } })),
      prefix('x', 'n.al') + 'an alias must have the same nested scope as its target. The alias\'s nested scope is [n], but the target is not nested.',
    );
    const noPath = await create('a6', { al: { type: 'alias' } });
    assert.equal(noPath.type, 'mapper_parsing_exception');
    assert.equal(noPath.caused_by.reason, 'The [path] property must be specified for field [al].');
    const extra = await create('a7', { x: { type: 'long' }, al: { type: 'alias', path: 'x', index: false } });
    assert.equal(extra.caused_by.reason, 'Mapping definition for [al] has unsupported parameters:  [index : false]');
    assert.equal((await req('HEAD', '/a1')).status, 404);
  });

  test('put mapping may move an alias to another field but not turn it into another type', async () => {
    const toField = await req('PUT', '/trips/_mapping/_doc', { properties: { mode: { type: 'keyword' } } });
    assert.equal(toField.status, 400);
    assert.equal((toField.body as Body).error.reason, 'Cannot merge a field alias mapping [mode] with a mapping that is not for a field alias.');
    const fieldToAlias = await req('PUT', '/trips/_mapping/_doc', { properties: { distance: { type: 'alias', path: 'transit_mode' } } });
    assert.equal(fieldToAlias.status, 400);
    assert.equal((fieldToAlias.body as Body).error.reason, 'mapper [distance] of different type, current_type [long], merged_type [FieldAliasMapper]');
    const missing = await req('PUT', '/trips/_mapping/_doc', { properties: { mode: { type: 'alias', path: 'nope' } } });
    assert.equal(missing.status, 400);
    assert.equal((missing.body as Body).error.reason, 'Invalid [path] value [nope] for field alias [mode]: an alias must refer to an existing field in the mappings.');
    const moved = await req('PUT', '/trips/_mapping/_doc', { properties: { remarks: { type: 'alias', path: 'transit_mode' } } });
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual(await ids({ term: { remarks: 'bike' } }), ['4']);
  });

  test('aliases resolve after a flush and a restart', async () => {
    assert.equal((await req('POST', '/trips/_flush')).status, 200);
    await server.stop();
    server = await startServer([], dir);
    await req('GET', '/_cluster/health?wait_for_status=yellow&timeout=30s');
    assert.deepEqual(await ids({ range: { route_length_miles: { lt: 80 } } }), ['2', '3']);
    assert.deepEqual(await ids({ term: { remarks: 'bus' } }), ['2']);
  });
});

describe('join (not built)', () => {
  test('a join field is refused at index creation; parent-child queries are unknown', async () => {
    const r = await req('PUT', '/qa', { mappings: { _doc: { properties: { my_join: { type: 'join', relations: { question: 'answer' } } } } } });
    assert.equal(r.status, 400);
    const err = (r.body as Body).error;
    assert.equal(err.type, 'mapper_parsing_exception');
    assert.equal(err.caused_by.reason, 'No handler for type [join] declared on field [my_join]');
    assert.equal((await req('HEAD', '/qa')).status, 404);
    for (const query of [{ has_child: { type: 'answer', query: { match_all: {} } } }, { parent_id: { type: 'answer', id: '1' } }]) {
      const q = await req('POST', '/trips/_search', { query });
      assert.equal(q.status, 400);
      assert.match((q.body as Body).error.reason, /^no \[query\] registered for \[(has_child|parent_id)\]$/);
    }
  });
});
