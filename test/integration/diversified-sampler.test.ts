/**
 * `diversified_sampler` over HTTP: each shard's best-scoring docs with at
 * most `max_docs_per_value` per value of a field, reported as a `sampler`
 * (typed_keys), and its refusals.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);

before(async () => {
  server = await startServer();
  assert.equal((await req('PUT', '/posts', { settings: { number_of_shards: 1 }, mappings: { _doc: { properties: { text: { type: 'text' }, author: { type: 'keyword' }, tag: { type: 'keyword' } } } } })).status, 200);
  // "fox fox jumps" scores best (two occurrences), then shorter texts; author a wrote the three best
  const docs = [
    { text: 'fox', author: 'a', tag: 't1' },
    { text: 'fox fox jumps', author: 'a', tag: 't2' },
    { text: 'fox and a long tail', author: 'a', tag: 't3' },
    { text: 'fox with some more words here', author: 'b', tag: 't4' },
    { text: 'fox in a much longer sentence about many other things', author: 'c', tag: 't5' },
  ];
  for (const [i, d] of docs.entries()) await req('PUT', `/posts/_doc/${i}`, d);
  await req('POST', '/posts/_refresh');
});
after(async () => {
  await server.stop();
});

describe('diversified_sampler', () => {
  test('at most max_docs_per_value docs per author reach the sub-aggregations', async () => {
    const body = (max: number) => ({
      size: 0,
      query: { match: { text: 'fox' } },
      aggs: { s: { diversified_sampler: { field: 'author', shard_size: 3, max_docs_per_value: max }, aggs: { tags: { terms: { field: 'tag' } } } } },
    });
    const one = await req('POST', '/posts/_search?typed_keys=true', body(1));
    assert.equal(one.status, 200, one.text);
    const s1 = (one.body as { aggregations: Record<string, { doc_count: number; 'sterms#tags': { buckets: { key: string }[] } }> }).aggregations['sampler#s']!;
    assert.equal(s1.doc_count, 3);
    assert.deepEqual(s1['sterms#tags'].buckets.map((b) => b.key).sort(), ['t2', 't4', 't5'], "a's best doc, then b's and c's");
    const two = await req('POST', '/posts/_search', body(2));
    const s2 = (two.body as { aggregations: { s: { doc_count: number; tags: { buckets: { key: string }[] } } } }).aggregations.s;
    assert.deepEqual(s2.tags.buckets.map((b) => b.key).sort(), ['t1', 't2', 't4'], "a's two best docs, then b's");
  });

  test('a plain sampler of the same size takes the three best regardless of author', async () => {
    const r = await req('POST', '/posts/_search', { size: 0, query: { match: { text: 'fox' } }, aggs: { s: { sampler: { shard_size: 3 }, aggs: { tags: { terms: { field: 'tag' } } } } } });
    const s = (r.body as { aggregations: { s: { tags: { buckets: { key: string }[] } } } }).aggregations.s;
    assert.deepEqual(s.tags.buckets.map((b) => b.key).sort(), ['t1', 't2', 't3']);
  });

  test('refusals: no field, an unknown execution_hint, a text field', async () => {
    const noField = await req('POST', '/posts/_search', { aggs: { s: { diversified_sampler: { shard_size: 3 } } } });
    assert.equal(noField.status, 400);
    const hint = await req('POST', '/posts/_search', { aggs: { s: { diversified_sampler: { field: 'author', execution_hint: 'fast' } } } });
    assert.equal(hint.status, 400);
    assert.match(hint.text, /Unknown `execution_hint`: \[fast\]/);
    const text = await req('POST', '/posts/_search', { aggs: { s: { diversified_sampler: { field: 'text' } } } });
    assert.equal(text.status, 400);
    assert.match(text.text, /Fielddata is disabled on text fields/);
  });
});
