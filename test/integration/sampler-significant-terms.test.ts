/**
 * `sampler` and `significant_terms` over HTTP: the best-scoring docs of a
 * shard as the sample, significant terms reduced across two shards with
 * their background counts, typed_keys names, and the refusals.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);
const aggs = async (index: string, body: unknown, query = ''): Promise<Record<string, Record<string, unknown>>> => {
  const r = await req('POST', `/${index}/_search${query}`, body);
  assert.equal(r.status, 200, r.text);
  return (r.body as { aggregations: Record<string, Record<string, unknown>> }).aggregations;
};

before(async () => {
  server = await startServer();
  assert.equal((await req('PUT', '/sample', { settings: { number_of_shards: 1 }, mappings: { _doc: { properties: { text: { type: 'text' }, str: { type: 'keyword' } } } } })).status, 200);
  const texts: [string, string][] = [
    ['fox', 'a'],
    ['fox and a very long sentence about a dog', 'b'],
    ['fox quick', 'c'],
    ['fox with some words', 'd'],
  ];
  for (let i = 0; i < texts.length; i++) await req('PUT', `/sample/_doc/${i}`, { text: texts[i]![0], str: texts[i]![1] });
  await req('POST', '/sample/_refresh');

  assert.equal((await req('PUT', '/logs', { settings: { number_of_shards: 2 }, mappings: { _doc: { properties: { kind: { type: 'keyword' }, tag: { type: 'keyword' }, code: { type: 'long' } } } } })).status, 200);
  // The same eight documents under two routings: each shard (checked below) holds one copy.
  const group: [string, string, number][] = [
    ['crash', 'disk', 7],
    ['crash', 'disk', 7],
    ['crash', 'net', 3],
    ['ok', 'net', 3],
    ['ok', 'net', 3],
    ['ok', 'cpu', 1],
    ['ok', 'cpu', 1],
    ['ok', 'disk', 1],
  ];
  let id = 0;
  for (const routing of ['r1', 'r2']) {
    for (const [kind, tag, code] of group) await req('PUT', `/logs/_doc/${id++}?routing=${routing}`, { kind, tag, code });
  }
  await req('POST', '/logs/_refresh');
});
after(async () => {
  await server.stop();
});

describe('sampler', () => {
  test('sub-aggregations see only the shard_size best-scoring docs; doc_count is the sample size', async () => {
    const a = await aggs('sample', { size: 0, query: { match: { text: 'fox' } }, aggs: { s: { sampler: { shard_size: 2 }, aggs: { t: { terms: { field: 'str' } } } } } });
    assert.equal(a.s!.doc_count, 2);
    assert.deepEqual((a.s!.t as { buckets: { key: string }[] }).buckets.map((b) => b.key), ['a', 'c'], 'the two shortest documents score best for one term');
    const all = await aggs('sample', { size: 0, aggs: { s: { sampler: {}, aggs: { t: { terms: { field: 'str' } } } } } }, '?typed_keys=true');
    assert.equal((all['sampler#s'] as { doc_count: number }).doc_count, 4, 'the default sample (100) takes every doc');
    assert.ok('sterms#t' in all['sampler#s']!);
  });
});

describe('significant_terms', () => {
  test('the documents are on both shards', async () => {
    for (const shard of [0, 1]) {
      const r = await req('POST', `/logs/_search?preference=_shards:${shard}`, { size: 0 });
      assert.equal((r.body as { hits: { total: number } }).hits.total, 8, `shard ${shard}`);
    }
  });

  test('JLH: terms more frequent in the subset than in the index, with doc_count and bg_count summed over shards', async () => {
    const a = await aggs('logs', { size: 0, query: { term: { kind: 'crash' } }, aggs: { sig: { significant_terms: { field: 'tag', min_doc_count: 1 } } } }, '?typed_keys');
    const jlh = (4 / 6 - 6 / 16) * (4 / 6 / (6 / 16));
    assert.deepEqual(a['sigsterms#sig'], { doc_count: 6, bg_count: 16, buckets: [{ key: 'disk', doc_count: 4, score: jlh, bg_count: 6 }] });
  });

  test('min_doc_count defaults to 3; percentage scores by the share of the background; numbers are siglterms', async () => {
    const a = await aggs('logs', {
      size: 0,
      query: { term: { kind: 'crash' } },
      aggs: {
        def: { significant_terms: { field: 'tag' } },
        pct: { significant_terms: { field: 'tag', min_doc_count: 1, percentage: {} } },
        num: { significant_terms: { field: 'code', min_doc_count: 1 } },
      },
    }, '?typed_keys');
    assert.deepEqual((a['sigsterms#def'] as { buckets: { key: string }[] }).buckets.map((b) => b.key), ['disk']);
    assert.deepEqual((a['sigsterms#pct'] as { buckets: { key: string; score: number }[] }).buckets.map((b) => [b.key, b.score]), [
      ['disk', 4 / 6],
      ['net', 2 / 6],
    ]);
    assert.deepEqual((a['siglterms#num'] as { buckets: { key: number; doc_count: number; bg_count: number }[] }).buckets.map((b) => [b.key, b.doc_count, b.bg_count]), [[7, 4, 4]]);
  });

  test('chi_square, mutual_information and gnd rank the subset\'s terms', async () => {
    const a = await aggs('logs', {
      size: 0,
      query: { term: { kind: 'crash' } },
      aggs: {
        chi: { significant_terms: { field: 'tag', min_doc_count: 1, chi_square: {} } },
        mi: { significant_terms: { field: 'tag', min_doc_count: 1, mutual_information: { include_negatives: true } } },
        gnd: { significant_terms: { field: 'tag', min_doc_count: 1, gnd: {} } },
      },
    });
    // disk: 4 of the 6 crash docs, 6 of 16 docs; net: 2 of 6, 6 of 16.
    const chi = (16 * (4 * 8 - 2 * 2) ** 2) / (6 * 6 * 10 * 10);
    assert.deepEqual((a.chi as { buckets: { key: string; score: number }[] }).buckets.map((b) => [b.key, b.score]), [['disk', chi]]);
    assert.deepEqual((a.mi as { buckets: { key: string }[] }).buckets.map((b) => b.key), ['disk', 'net']);
    assert.deepEqual((a.gnd as { buckets: { key: string }[] }).buckets.map((b) => b.key), ['disk', 'net']);
  });

  test('background_filter: the background is the documents of a query', async () => {
    const a = await aggs('logs', {
      size: 0,
      query: { term: { kind: 'crash' } },
      aggs: { sig: { significant_terms: { field: 'tag', min_doc_count: 1, background_filter: { term: { kind: 'ok' } } } } },
    });
    const jlh = (4 / 6 - 2 / 10) * (4 / 6 / (2 / 10));
    assert.deepEqual(a.sig, { doc_count: 6, bg_count: 10, buckets: [{ key: 'disk', doc_count: 4, score: jlh, bg_count: 2 }] });
  });

  test('sub-aggregations of each significant term, reduced over the shards', async () => {
    const a = await aggs('logs', {
      size: 0,
      query: { term: { kind: 'crash' } },
      aggs: { sig: { significant_terms: { field: 'tag', min_doc_count: 1 }, aggs: { top: { max: { field: 'code' } }, kinds: { terms: { field: 'kind' } } } } },
    });
    const bucket = (a.sig as { buckets: Record<string, unknown>[] }).buckets[0]!;
    assert.equal(bucket.key, 'disk');
    assert.deepEqual(bucket.top, { value: 7 });
    assert.deepEqual((bucket.kinds as { buckets: unknown[] }).buckets, [{ key: 'crash', doc_count: 4 }]);
  });

  test('under a terms bucket, inside a sampler, and on an unmapped field (sigsterms with nothing in it)', async () => {
    const a = await aggs('logs', {
      size: 0,
      aggs: {
        kinds: { terms: { field: 'kind' }, aggs: { sig: { significant_terms: { field: 'tag', min_doc_count: 1 } }, none: { significant_terms: { field: 'nope' } } } },
        s: { sampler: { shard_size: 100 }, aggs: { sig: { significant_terms: { field: 'tag' } } } },
      },
    }, '?typed_keys');
    const kinds = (a['sterms#kinds'] as { buckets: Record<string, unknown>[] }).buckets;
    assert.deepEqual(kinds.map((b) => b.key), ['ok', 'crash']);
    assert.deepEqual((kinds[1]!['sigsterms#sig'] as { buckets: { key: string }[] }).buckets.map((b) => b.key), ['disk']);
    assert.deepEqual((kinds[0]!['sigsterms#sig'] as { buckets: { key: string }[] }).buckets.map((b) => b.key), ['cpu', 'net']);
    assert.deepEqual(kinds[0]!['sigsterms#none'], { doc_count: 0, bg_count: 0, buckets: [] });
    assert.equal((a['sampler#s'] as { doc_count: number }).doc_count, 16);
    assert.deepEqual((a['sampler#s']!['sigsterms#sig'] as { doc_count: number; buckets: unknown[] }).doc_count, 16);
  });

  test('refused with 400: other heuristics, an unknown parameter', async () => {
    const bad = async (agg: unknown) => (await req('POST', '/logs/_search', { size: 0, aggs: { x: agg } })).status;
    assert.equal(await bad({ significant_terms: { field: 'tag', script_heuristic: { script: '1' } } }), 400);
    assert.equal(await bad({ significant_terms: { field: 'tag', chi_square: { nope: true } } }), 400);
    assert.equal(await bad({ significant_terms: { field: 'tag', nope: 1 } }), 400);
  });
});
