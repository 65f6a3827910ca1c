/**
 * `token_count` fields over HTTP (two shards): the count of a text's tokens
 * under the field's analyzer, as a multi-field (`name.length`) and on its
 * own, searched with term and range, sorted, aggregated, read with
 * `docvalue_fields`; `null_value` and `enable_position_increments`;
 * Elasticsearch's mapping errors; counts read back from segment files after
 * a flush and a restart. Expected counts are worked out by hand.
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

const ids = async (query: unknown, extra: Record<string, unknown> = {}): Promise<string[]> => {
  const r = await req('POST', '/people/_search', { query, size: 20, ...extra });
  assert.equal(r.status, 200, r.text);
  return (r.body as Body).hits.hits.map((h: { _id: string }) => h._id);
};
const sorted = async (query: unknown): Promise<string[]> => (await ids(query)).sort();

const MAPPINGS = {
  _doc: {
    properties: {
      name: { type: 'text', fields: { length: { type: 'token_count', analyzer: 'standard' } } },
      // stop words removed: with position increments a removed word still counts
      title: { type: 'token_count', analyzer: 'english', null_value: 0 },
      title_tokens: { type: 'token_count', analyzer: 'english', enable_position_increments: false },
    },
  },
};

before(async () => {
  dir = await tempDir();
  server = await startServer([], dir);
  const created = await req('PUT', '/people', { settings: { number_of_shards: 2 }, mappings: MAPPINGS });
  assert.equal(created.status, 200, created.text);
  const docs: Record<string, Record<string, unknown>> = {
    a: { name: 'John Smith', title: 'the king of the hill', title_tokens: 'the king of the hill' },
    b: { name: 'Rachel Alice Williams', title: null },
    c: { name: ['Ann', 'Mary Ann Lee'] },
    d: { name: 'Jean-Luc Picard of the Enterprise', title: 'captain', title_tokens: 'captain' },
  };
  for (const [id, doc] of Object.entries(docs)) assert.equal((await req('PUT', `/people/_doc/${id}`, doc)).status, 201);
  await req('POST', '/people/_refresh');
});
after(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('token_count fields', () => {
  test('GET _mapping prints the analyzer and the parameters given', async () => {
    const r = await req('GET', '/people/_mapping');
    assert.deepEqual((r.body as Body).people.mappings._doc.properties, {
      name: { type: 'text', fields: { length: { type: 'token_count', analyzer: 'standard' } } },
      title: { type: 'token_count', analyzer: 'english', null_value: 0 },
      title_tokens: { type: 'token_count', analyzer: 'english', enable_position_increments: false },
    });
  });

  test('term and range match the count of tokens (a multi-field counts each value)', async () => {
    assert.deepEqual(await sorted({ term: { 'name.length': 2 } }), ['a']);
    assert.deepEqual(await sorted({ term: { 'name.length': 3 } }), ['b', 'c']);
    assert.deepEqual(await sorted({ term: { 'name.length': 1 } }), ['c']);
    // standard: jean, luc, picard, of, the, enterprise
    assert.deepEqual(await sorted({ term: { 'name.length': 6 } }), ['d']);
    assert.deepEqual(await sorted({ range: { 'name.length': { gte: 3, lt: 6 } } }), ['b', 'c']);
    assert.deepEqual(await sorted({ match: { 'name.length': '2' } }), ['a']);
  });

  test('position increments: removed stop words count unless disabled; null_value for null', async () => {
    // english: king, hill at positions 1 and 4 (the, of, the removed) → 5 positions, 2 tokens
    assert.deepEqual(await sorted({ term: { title: 5 } }), ['a']);
    assert.deepEqual(await sorted({ term: { title_tokens: 2 } }), ['a']);
    assert.deepEqual(await sorted({ term: { title: 0 } }), ['b']);
    assert.deepEqual(await sorted({ term: { title: 1 } }), ['d']);
    assert.deepEqual(await sorted({ exists: { field: 'title_tokens' } }), ['a', 'd']);
  });

  test('sort, aggregations and docvalue_fields read the counts', async () => {
    assert.deepEqual(await ids({ match_all: {} }, { sort: [{ 'name.length': { order: 'desc', mode: 'max' } }, { _id: 'asc' }] }), ['d', 'b', 'c', 'a']);
    const r = await req('POST', '/people/_search', {
      size: 0,
      aggs: { lengths: { terms: { field: 'name.length' } }, total: { sum: { field: 'name.length' } } },
    });
    assert.equal(r.status, 200, r.text);
    const body = r.body as Body;
    assert.deepEqual(
      body.aggregations.lengths.buckets.map((b: { key: number; doc_count: number }) => [b.key, b.doc_count]),
      [[3, 2], [1, 1], [2, 1], [6, 1]],
    );
    assert.equal(body.aggregations.total.value, 2 + 3 + 1 + 3 + 6);
    const dv = await req('POST', '/people/_search', { query: { ids: { values: ['c'] } }, docvalue_fields: ['name.length'] });
    assert.deepEqual((dv.body as Body).hits.hits[0].fields, { 'name.length': [1, 3] });
  });

  test('_field_caps and errors name the field type integer, as Elasticsearch does', async () => {
    const caps = await req('GET', '/people/_field_caps?fields=name.length');
    assert.deepEqual((caps.body as Body).fields, { 'name.length': { integer: { type: 'integer', searchable: true, aggregatable: true } } });
    const prefix = await req('POST', '/people/_search', { query: { prefix: { 'name.length': '1' } } });
    assert.equal(prefix.status, 400);
    assert.equal((prefix.body as Body).error.root_cause[0].reason, 'Can only use prefix queries on keyword and text fields - not on [name.length] which is of type [integer]');
  });

  test("mapping errors are Elasticsearch's", async () => {
    const noAnalyzer = await req('PUT', '/bad1', { mappings: { _doc: { properties: { n: { type: 'token_count' } } } } });
    assert.equal(noAnalyzer.status, 400);
    assert.equal((noAnalyzer.body as Body).error.type, 'mapper_parsing_exception');
    assert.equal((noAnalyzer.body as Body).error.caused_by.reason, "Analyzer must be set for field [n] but wasn't.");
    const unknown = await req('PUT', '/bad2', { mappings: { _doc: { properties: { n: { type: 'token_count', analyzer: 'nope' } } } } });
    assert.equal(unknown.status, 400);
    assert.equal((unknown.body as Body).error.caused_by.reason, 'Analyzer [nope] not found for field [n]');
    const extra = await req('PUT', '/bad3', { mappings: { _doc: { properties: { n: { type: 'token_count', analyzer: 'standard', norms: true } } } } });
    assert.equal(extra.status, 400);
    assert.equal((extra.body as Body).error.caused_by.reason, 'Mapping definition for [n] has unsupported parameters:  [norms : true]');
    const badNull = await req('PUT', '/bad4', { mappings: { _doc: { properties: { n: { type: 'token_count', analyzer: 'standard', null_value: 'x' } } } } });
    assert.equal(badNull.status, 400);
    assert.match(badNull.text, /For input string: \\"x\\"/);
  });

  test('a value that is an object is a mapper_parsing_exception', async () => {
    const r = await req('PUT', '/people/_doc/x', { title: { a: 1 } });
    assert.equal(r.status, 400);
    assert.equal((r.body as Body).error.type, 'mapper_parsing_exception');
    assert.equal((r.body as Body).error.reason, 'failed to parse field [title] of type [integer]');
  });

  test('counts are read from the segment files after a flush and a restart', async () => {
    assert.equal((await req('POST', '/people/_flush')).status, 200);
    await server.stop();
    server = await startServer([], dir);
    await req('GET', '/_cluster/health?wait_for_status=yellow&timeout=30s');
    assert.deepEqual(await sorted({ term: { 'name.length': 3 } }), ['b', 'c']);
    assert.deepEqual(await sorted({ range: { title: { gte: 1 } } }), ['a', 'd']);
    assert.equal((await req('PUT', '/people/_doc/e?refresh=true', { name: 'One Two Three Four' })).status, 201);
    assert.deepEqual(await sorted({ term: { 'name.length': 4 } }), ['e']);
  });
});
