/**
 * What a hit carries beyond `_source` for the types of issue 20, over HTTP:
 * a search's `stored_fields` (stored fields, an alias under its own name),
 * `docvalue_fields` refused where Elasticsearch 6.8 has no field data
 * (geo_shape, ranges, text), scripts' `doc` of a geo_point, and what the
 * mapping's `boost` does to a numeric term query.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are JSON of many shapes
type Body = any;

const MAPPING = {
  properties: {
    plate: { type: 'keyword', store: true },
    plate_alias: { type: 'alias', path: 'plate' },
    lane: { type: 'half_float', store: true, boost: 3 },
    speed: { type: 'scaled_float', scaling_factor: 10 },
    note: { type: 'text', fielddata: true },
    body: { type: 'text' },
    area: { type: 'geo_shape' },
    window: { type: 'integer_range' },
    at: { type: 'geo_point' },
    meta: { properties: { camera: { type: 'keyword', store: true } } },
    unstored: { type: 'keyword' },
    grade: { type: 'keyword', boost: 2 },
    grade_plain: { type: 'keyword' },
  },
};

before(async () => {
  server = await startServer();
  assert.equal((await req('PUT', '/f', { settings: { number_of_shards: 2 }, mappings: { _doc: MAPPING } })).status, 200);
  const docs = [
    { plate: 'AB-1', lane: 2, speed: 51.2, note: 'red car fast', body: 'x', area: { type: 'point', coordinates: [1, 2] }, window: { gte: 1, lte: 5 }, at: { lat: 41.12, lon: -71.34 }, meta: { camera: 'c1' }, unstored: 'u' },
    { plate: ['CD-2', 'CD-3'], lane: 1, note: 'red car slow', 'meta.camera': 'c2' },
    { plate: 'EF-4', lane: 2, note: 'blue van', grade: 'A', grade_plain: 'A' },
  ];
  for (const [i, d] of docs.entries()) assert.equal((await req('PUT', `/f/_doc/${i + 1}`, d)).status, 201);
  await req('POST', '/f/_refresh');
});
after(async () => {
  await server.stop();
});

const search = async (body: unknown): Promise<Body> => {
  const r = await req('POST', '/f/_search', body);
  assert.equal(r.status, 200, r.text);
  return r.body as Body;
};

describe('stored_fields of a search', () => {
  test('stored fields print under the names asked, an alias with its target values; no _source unless asked', async () => {
    const r = await search({ query: { ids: { values: ['1', '2'] } }, sort: ['_id'], stored_fields: ['plate', 'plate_alias', 'lane', 'meta.camera', 'unstored', 'missing'] });
    assert.deepEqual(
      r.hits.hits.map((h: Body) => [h._id, h.fields, h._source]),
      [
        ['1', { plate: ['AB-1'], plate_alias: ['AB-1'], lane: [2], 'meta.camera': ['c1'] }, undefined],
        ['2', { plate: ['CD-2', 'CD-3'], plate_alias: ['CD-2', 'CD-3'], lane: [1], 'meta.camera': ['c2'] }, undefined],
      ],
    );
    const withSource = await search({ query: { ids: { values: ['3'] } }, stored_fields: ['pl*', '_source'] });
    assert.deepEqual(withSource.hits.hits[0].fields, { plate: ['EF-4'], plate_alias: ['EF-4'] });
    assert.equal(withSource.hits.hits[0]._source.plate, 'EF-4');
  });
});

describe('docvalue_fields without field data', () => {
  test('geo_shape, a range type and a text field without fielddata fail the search as 6.8 does', async () => {
    const cases: [string, string][] = [
      ['area', 'Fielddata is not supported on field [area] of type [geo_shape]'],
      ['window', 'Fielddata is not supported on field [window] of type [integer_range]'],
      ['body', 'Fielddata is disabled on text fields by default. Set fielddata=true on [body]'],
    ];
    for (const [field, reason] of cases) {
      const r = await req('POST', '/f/_search', { docvalue_fields: [field] });
      assert.equal(r.status, 400, r.text);
      const b = r.body as Body;
      assert.equal(b.error.type, 'search_phase_execution_exception');
      assert.equal(b.error.root_cause[0].type, 'illegal_argument_exception');
      assert.ok(b.error.root_cause[0].reason.startsWith(reason), b.error.root_cause[0].reason);
    }
    // no hit is fetched: nothing to fail
    assert.equal((await req('POST', '/f/_search', { size: 0, docvalue_fields: ['area'] })).status, 200);
  });
});

describe('issue 20 types elsewhere in a search', () => {
  test("a script's doc['geo_point'] is the point as lat and lon", async () => {
    const r = await search({ query: { ids: { values: ['1'] } }, script_fields: { p: { script: { source: "doc['at'].value" } } } });
    const p = r.hits.hits[0].fields.p[0];
    assert.ok(Math.abs(p.lat - 41.12) < 1e-6 && Math.abs(p.lon + 71.34) < 1e-6, JSON.stringify(p));
  });

  test("a term query is multiplied by the mapping's boost (NumberFieldType, TermBasedFieldType), a numeric terms query too", async () => {
    const term = await search({ query: { term: { lane: 2 } } });
    assert.deepEqual(
      term.hits.hits.map((h: Body) => h._score),
      [3, 3],
    );
    // a keyword's term query too (TermBasedFieldType), not its terms query (TermInSetQuery)
    const boosted = (await search({ query: { term: { grade: 'A' } } })).hits.hits[0]._score;
    const plain = (await search({ query: { term: { grade_plain: 'A' } } })).hits.hits[0]._score;
    assert.ok(plain > 0 && Math.abs(boosted - 2 * plain) < 1e-5, `${boosted} vs ${plain}`);
    assert.equal((await search({ query: { terms: { grade: ['A'] } } })).hits.hits[0]._score, 1);
    const terms = await search({ query: { terms: { lane: [1], boost: 2 } } });
    assert.deepEqual(
      terms.hits.hits.map((h: Body) => [h._id, h._score]),
      [['2', 6]],
    );
  });

  test('significant_terms on a text field with fielddata reads its analysed terms', async () => {
    const r = await search({
      size: 0,
      query: { term: { note: 'red' } },
      aggs: { sig: { significant_terms: { field: 'note', min_doc_count: 1, exclude: ['red', 'car'] } } },
    });
    assert.deepEqual(r.aggregations.sig.buckets.map((b: Body) => b.key).sort(), ['fast', 'slow']);
    const refused = await req('POST', '/f/_search', { size: 0, aggs: { sig: { significant_terms: { field: 'body' } } } });
    assert.equal(refused.status, 400, refused.text);
  });
});

describe('_ignored (IgnoredFieldMapper, 6.4+)', () => {
  test('fields whose values ignore_malformed dropped are named in _ignored: printed in the hit, searchable with term, terms and exists, also after a flush', async () => {
    const mapping = { properties: { ip: { type: 'ip', ignore_malformed: true }, n: { type: 'half_float', ignore_malformed: true }, at: { type: 'geo_point', ignore_malformed: true }, area: { type: 'geo_shape', ignore_malformed: true }, k: { type: 'keyword', ignore_above: 2 } } };
    assert.equal((await req('PUT', '/ign', { mappings: { _doc: mapping } })).status, 200);
    const docs: Record<string, unknown> = {
      a: { ip: 'nope', n: 'x', at: 'not a point', area: { type: 'polygon' }, k: 'long' },
      b: { ip: '10.0.0.1', n: 'y' },
      c: { ip: '10.0.0.2', n: 1, k: 'long' },
    };
    for (const [id, d] of Object.entries(docs)) assert.equal((await req('PUT', `/ign/_doc/${id}`, d)).status, 201);
    for (const step of ['refresh', 'flush']) {
      await req('POST', `/ign/_${step}`);
      const all = await req('POST', '/ign/_search', { sort: ['_id'] });
      // ignore_above drops a value without naming it (6.8's KeywordFieldMapper)
      assert.deepEqual(
        (all.body as Body).hits.hits.map((h: Body) => [h._id, h._ignored]),
        [['a', ['area', 'at', 'ip', 'n']], ['b', ['n']], ['c', undefined]],
        step,
      );
      const ids = async (query: unknown): Promise<string[]> => ((await req('POST', '/ign/_search', { query })).body as Body).hits.hits.map((h: Body) => h._id).sort();
      assert.deepEqual(await ids({ term: { _ignored: 'ip' } }), ['a']);
      assert.deepEqual(await ids({ terms: { _ignored: ['ip', 'n'] } }), ['a', 'b']);
      assert.deepEqual(await ids({ exists: { field: '_ignored' } }), ['a', 'b']);
    }
  });
});
