/**
 * `_msearch`: several searches in one NDJSON request, each answered in order
 * with its own status; answers are computed in the test from the records.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';
import { generatePassRecords, PASSINFO_INDEX_BODY, type PassRecord } from '../../bench/pass-records.ts';

let server: TestServer;
const records: PassRecord[] = [...generatePassRecords({ count: 500, seed: 11, plates: 60 })];
const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => http(server.url, method, path, body, headers);
const ndjson = (lines: unknown[]) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';

interface Item {
  status: number;
  hits?: { total: number; hits: { _id: string; _source: PassRecord }[] };
  aggregations?: Record<string, { buckets: { key: string; doc_count: number }[] }>;
  error?: { type: string; reason: string; root_cause: { type: string }[] };
}

before(async () => {
  server = await startServer();
  assert.equal((await req('PUT', '/passinfo', { ...PASSINFO_INDEX_BODY, settings: { ...PASSINFO_INDEX_BODY.settings, number_of_shards: 2 } })).status, 200);
  const lines: unknown[] = [];
  for (const r of records) lines.push({ index: { _type: 'passinfo', _id: r.event_id } }, r);
  const bulk = await req('POST', '/passinfo/_bulk?refresh=true', ndjson(lines), { 'content-type': 'application/x-ndjson' });
  assert.equal((bulk.body as { errors: boolean }).errors, false);
  assert.equal((await req('PUT', '/other/_doc/1?refresh=true', { n: 1 })).status, 201);
});
after(async () => {
  await server.stop();
});

describe('_msearch', () => {
  test('answers each search in request order with its own hits, totals and status 200', async () => {
    const plate = records[0]!.plate;
    const land = records[1]!.land_id;
    const r = await req(
      'POST',
      '/_msearch',
      ndjson([{ index: 'passinfo' }, { query: { term: { 'plate.keyword': plate } }, size: 3 }, { index: 'passinfo' }, { query: { term: { land_id: land } }, size: 0 }, { index: 'other' }, {}]),
      { 'content-type': 'application/x-ndjson' },
    );
    assert.equal(r.status, 200, r.text);
    const body = r.body as { took: number; responses: Item[] };
    assert.equal(typeof body.took, 'number');
    assert.equal(body.responses.length, 3);
    assert.deepEqual(body.responses.map((x) => x.status), [200, 200, 200]);
    assert.equal(body.responses[0]!.hits!.total, records.filter((x) => x.plate === plate).length);
    for (const h of body.responses[0]!.hits!.hits) assert.equal(h._source.plate, plate);
    assert.equal(body.responses[1]!.hits!.total, records.filter((x) => x.land_id === land).length);
    assert.equal(body.responses[1]!.hits!.hits.length, 0);
    assert.equal(body.responses[2]!.hits!.total, 1);
  });

  test('a missing index fails its own item with 404 and the others still answer', async () => {
    const r = await req('POST', '/_msearch', ndjson([{ index: 'nope' }, { query: { match_all: {} } }, { index: 'other' }, { query: { match_all: {} } }]), {
      'content-type': 'application/json',
    });
    assert.equal(r.status, 200);
    const items = (r.body as { responses: Item[] }).responses;
    assert.equal(items[0]!.status, 404);
    assert.equal(items[0]!.error!.type, 'index_not_found_exception');
    assert.equal(items[0]!.error!.root_cause[0]!.type, 'index_not_found_exception');
    assert.equal(items[1]!.status, 200);
    assert.equal(items[1]!.hits!.total, 1);
  });

  test('the URL index is the default for headers that name none; an empty header line is allowed', async () => {
    const r = await req('POST', '/passinfo/_msearch', ndjson(['{}', { size: 0 }, '', { size: 0, query: { term: { plate_color: 1 } } }]), {
      'content-type': 'application/x-ndjson',
    });
    assert.equal(r.status, 200, r.text);
    const items = (r.body as { responses: Item[] }).responses;
    assert.equal(items[0]!.hits!.total, records.length);
    assert.equal(items[1]!.hits!.total, records.filter((x) => x.plate_color === 1).length);
  });

  test('aggregations, typed_keys and max_concurrent_searches', async () => {
    const body = ndjson(
      Array.from({ length: 5 }, (_, i) => [{ index: 'passinfo' }, { size: 0, query: { term: { event_type: 1 + (i % 3) } }, aggs: { colors: { terms: { field: 'plate_color' } } } }]).flat(),
    );
    const r = await req('POST', '/_msearch?typed_keys=true&max_concurrent_searches=2', body, { 'content-type': 'application/x-ndjson' });
    assert.equal(r.status, 200, r.text);
    const items = (r.body as { responses: (Item & { aggregations: Record<string, { buckets: { doc_count: number }[] }> })[] }).responses;
    assert.equal(items.length, 5);
    items.forEach((item, i) => {
      const expected = records.filter((x) => x.event_type === 1 + (i % 3)).length;
      assert.equal(item.hits!.total, expected);
      const buckets = item.aggregations['lterms#colors']!.buckets;
      assert.equal(buckets.reduce((n, b) => n + b.doc_count, 0), expected);
    });
  });

  test('a malformed body fails the whole request with 400, as Elasticsearch parses every body first', async () => {
    const r = await req('POST', '/_msearch', ndjson([{ index: 'passinfo' }, { query: { match_all: {} } }, { index: 'passinfo' }, { query: { no_such_query: {} } }]));
    assert.equal(r.status, 400);
    assert.equal((r.body as { error: { type: string } }).error.type, 'parsing_exception');
  });

  test('an unknown header key, no searches and max_concurrent_searches 0 are 400s', async () => {
    const unknown = await req('POST', '/_msearch', ndjson([{ index: 'passinfo', colour: 'x' }, {}]));
    assert.equal(unknown.status, 400);
    assert.match((unknown.body as { error: { reason: string } }).error.reason, /key \[colour\] is not supported in the metadata section/);
    const empty = await req('POST', '/_msearch', '\n');
    assert.equal(empty.status, 400);
    assert.match((empty.body as { error: { reason: string } }).error.reason, /no requests added/);
    const zero = await req('POST', '/_msearch?max_concurrent_searches=0', ndjson([{}, {}]));
    assert.equal(zero.status, 400);
  });

  test('text/plain is refused with 406 (no cross-site msearch without a preflight)', async () => {
    const r = await req('POST', '/_msearch', ndjson([{}, {}]), { 'content-type': 'text/plain' });
    assert.equal(r.status, 406);
  });
});
