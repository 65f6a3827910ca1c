/**
 * `adjacency_matrix` and `filters` with `other_bucket` over HTTP on two
 * shards: bucket keys, order and counts, separator, sub-aggregations,
 * typed_keys, and index.max_adjacency_matrix_filters with its error.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);
type Bucket = { key?: string; doc_count: number } & Record<string, unknown>;

before(async () => {
  server = await startServer();
  const settings = { number_of_shards: 2, 'index.max_adjacency_matrix_filters': 3 };
  assert.equal((await req('PUT', '/passes', { settings, mappings: { _doc: { properties: { cp: { type: 'keyword' }, kmh: { type: 'long' } } } } })).status, 200);
  // plates seen at checkpoints: [a,b], [b,c], [c,d], [a], [x]
  const docs = [{ cp: ['a', 'b'], kmh: 10 }, { cp: ['b', 'c'], kmh: 20 }, { cp: ['c', 'd'], kmh: 30 }, { cp: ['a'], kmh: 40 }, { cp: ['x'], kmh: 50 }];
  for (const [i, d] of docs.entries()) await req('PUT', `/passes/_doc/${i}?routing=r${i}`, d);
  await req('POST', '/passes/_refresh');
});
after(async () => {
  await server.stop();
});

describe('adjacency_matrix', () => {
  test('singles and pairs sorted by key, empty ones left out, sub-aggregations per bucket', async () => {
    const r = await req('POST', '/passes/_search?typed_keys=true', {
      size: 0,
      aggs: { m: { adjacency_matrix: { filters: { c: { term: { cp: 'c' } }, a: { term: { cp: 'a' } }, b: { term: { cp: 'b' } } } }, aggs: { top: { max: { field: 'kmh' } } } } },
    });
    assert.equal(r.status, 200, r.text);
    const m = (r.body as { aggregations: Record<string, { buckets: Bucket[] }> }).aggregations['adjacency_matrix#m']!;
    assert.deepEqual(
      m.buckets.map((b) => [b.key, b.doc_count, (b['max#top'] as { value: number }).value]),
      [
        ['a', 2, 40],
        ['a&b', 1, 10],
        ['b', 2, 20],
        ['b&c', 1, 20],
        ['c', 2, 30],
      ],
    );
  });

  test('separator', async () => {
    const r = await req('POST', '/passes/_search', { size: 0, aggs: { m: { adjacency_matrix: { separator: '|', filters: { a: { term: { cp: 'a' } }, b: { term: { cp: 'b' } } } } } } });
    assert.deepEqual((r.body as { aggregations: { m: { buckets: Bucket[] } } }).aggregations.m.buckets.map((b) => b.key), ['a', 'a|b', 'b']);
  });

  test('more filters than index.max_adjacency_matrix_filters fails every shard with the setting named', async () => {
    const filters = Object.fromEntries(['a', 'b', 'c', 'd'].map((k) => [k, { term: { cp: k } }]));
    const r = await req('POST', '/passes/_search', { size: 0, aggs: { m: { adjacency_matrix: { filters } } } });
    assert.equal(r.status, 500, r.text);
    assert.match(r.text, /query_phase_execution_exception/);
    assert.match(r.text, /Number of filters is too large, must be less than or equal to: \[3\] but was \[4\]\.This limit can be set by changing the \[index\.max_adjacency_matrix_filters\] index level setting\./);
  });

  test('no filters is Elasticsearch\'s error', async () => {
    const r = await req('POST', '/passes/_search', { size: 0, aggs: { m: { adjacency_matrix: {} } } });
    assert.match(r.text, /\[m\] is missing : filters parameter/);
  });
});

describe('filters with other_bucket', () => {
  test('keyed: the other bucket holds the docs no filter matched, under other_bucket_key', async () => {
    const r = await req('POST', '/passes/_search', { size: 0, aggs: { f: { filters: { other_bucket_key: 'rest', filters: { a: { term: { cp: 'a' } }, c: { term: { cp: 'c' } } } } } } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((r.body as { aggregations: { f: { buckets: unknown } } }).aggregations.f.buckets, { a: { doc_count: 2 }, c: { doc_count: 2 }, rest: { doc_count: 1 } });
  });

  test('anonymous: the other bucket comes last', async () => {
    const r = await req('POST', '/passes/_search', { size: 0, aggs: { f: { filters: { other_bucket: true, filters: [{ term: { cp: 'd' } }] } } } });
    assert.deepEqual((r.body as { aggregations: { f: { buckets: unknown } } }).aggregations.f.buckets, [{ doc_count: 1 }, { doc_count: 4 }]);
  });
});
