/**
 * `significant_text` over HTTP on two shards: terms re-analysed from
 * `_source`, scored against the text field's document frequencies, under a
 * terms parent; `source_fields`, `filter_duplicate_text`, and the refusals.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);
type Sig = { doc_count: number; buckets: { key: string; doc_count: number; bg_count: number }[] };

before(async () => {
  server = await startServer();
  const mappings = { _doc: { properties: { text: { type: 'text' }, note: { type: 'text' }, class: { type: 'keyword' }, n: { type: 'long' } } } };
  assert.equal((await req('PUT', '/goodbad', { settings: { number_of_shards: 2 }, mappings })).status, 200);
  const docs = [
    ['good', 'good'],
    ['good', 'good'],
    ['bad', 'bad'],
    ['bad', 'bad'],
    ['good bad', 'good'],
    ['good bad', 'bad'],
    ['bad', 'bad'],
  ];
  for (const [i, [text, cls]] of docs.entries()) await req('PUT', `/goodbad/_doc/${i}?routing=r${i % 2}`, { text, class: cls, note: { good: 'x', bad: 'y' }[cls!], n: i });
  await req('POST', '/goodbad/_refresh');
});
after(async () => {
  await server.stop();
});

describe('significant_text', () => {
  test('the most significant term of each class, with bg_count from the text field (typed sigsterms)', async () => {
    const r = await req('POST', '/goodbad/_search?typed_keys=true', { size: 0, aggs: { class: { terms: { field: 'class' }, aggs: { sig: { significant_text: { field: 'text' } } } } } });
    assert.equal(r.status, 200, r.text);
    const buckets = (r.body as { aggregations: { 'sterms#class': { buckets: ({ key: string } & Record<string, Sig>)[] } } }).aggregations['sterms#class'].buckets;
    assert.deepEqual(buckets.map((b) => [b.key, b['sigsterms#sig']!.buckets[0]!.key]), [['bad', 'bad'], ['good', 'good']]);
    const bad = buckets[0]!['sigsterms#sig']!;
    assert.equal(bad.doc_count, 4);
    const top = bad.buckets[0]!;
    assert.deepEqual([top.key, top.doc_count, top.bg_count], ['bad', 4, 5], '"bad" is in all 4 docs of the class and 5 of the index');
  });

  test('source_fields: terms read from another field of _source, analysed as the field', async () => {
    const r = await req('POST', '/goodbad/_search', { size: 0, query: { term: { class: 'good' } }, aggs: { sig: { significant_text: { field: 'text', source_fields: ['text', 'note'], min_doc_count: 1 } } } });
    assert.equal(r.status, 200, r.text);
    const keys = (r.body as { aggregations: { sig: Sig } }).aggregations.sig.buckets.map((b) => b.key);
    assert.ok(keys.includes('good'));
  });

  test('refusals: a numeric field, an unknown parameter', async () => {
    const num = await req('POST', '/goodbad/_search', { size: 0, aggs: { sig: { significant_text: { field: 'n' } } } });
    assert.equal(num.status, 400);
    assert.match(num.text, /requires an analyzed field/);
    const unknown = await req('POST', '/goodbad/_search', { size: 0, aggs: { sig: { significant_text: { field: 'text', format: 'x' } } } });
    assert.equal(unknown.status, 400);
    assert.match(unknown.text, /\[significant_text\] unknown field \[format\]/);
  });
});
