/**
 * Issue 11, item 6 (the bucket limit): `search.max_buckets`, Elasticsearch 7's
 * limit (10,000 by default, too_many_buckets_exception) counted over the
 * reduced aggregations, sub-aggregations included, before any is rendered.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer(['--node.processors', '1']);
  const lines: string[] = [];
  for (let i = 0; i < 30; i++) lines.push(JSON.stringify({ index: { _id: String(i) } }), JSON.stringify({ k: `v${i}`, g: `g${i % 3}` }));
  await http(server.url, 'POST', '/buckets/_doc/_bulk?refresh=true', lines.join('\n') + '\n');
});
after(() => server.stop());

const terms = (size: number) => ({ size: 0, aggs: { g: { terms: { field: 'g.keyword' }, aggs: { k: { terms: { field: 'k.keyword', size } } } } } });

test('under the default limit an aggregation answers', async () => {
  const r = await http(server.url, 'POST', '/buckets/_search', terms(100));
  assert.equal(r.status, 200, r.text);
});

test('more buckets than search.max_buckets (sub-aggregations counted) is a 400 too_many_buckets_exception', async () => {
  const set = await http(server.url, 'PUT', '/_cluster/settings', { transient: { 'search.max_buckets': 20 } });
  assert.equal(set.status, 200, set.text);
  // 3 outer buckets + 30 inner ones = 33 > 20.
  const r = await http(server.url, 'POST', '/buckets/_search', terms(100));
  assert.equal(r.status, 400, r.text);
  const e = (r.body as { error: { type: string; reason: string; max_buckets: number } }).error;
  assert.equal(e.type, 'too_many_buckets_exception');
  assert.equal(e.max_buckets, 20);
  assert.match(e.reason, /^Trying to create too many buckets\. Must be less than or equal to: \[20\] but was \[33\]/);
  // 3 outer + 3 × 5 inner = 18 fits.
  assert.equal((await http(server.url, 'POST', '/buckets/_search', terms(5))).status, 200);
  await http(server.url, 'PUT', '/_cluster/settings', { transient: { 'search.max_buckets': null } });
});

test('a shard stops building buckets as soon as it passes search.max_buckets (the count it reports is where it stopped)', async () => {
  await http(server.url, 'PUT', '/one-shard', { settings: { number_of_shards: 1 } });
  const lines: string[] = [];
  for (let i = 0; i < 30; i++) lines.push(JSON.stringify({ index: { _id: String(i) } }), JSON.stringify({ k: `v${i}`, g: `g${i % 3}` }));
  await http(server.url, 'POST', '/one-shard/_doc/_bulk?refresh=true', lines.join('\n') + '\n');
  await http(server.url, 'PUT', '/_cluster/settings', { transient: { 'search.max_buckets': 20 } });
  try {
    const r = await http(server.url, 'POST', '/one-shard/_search', terms(100));
    assert.equal(r.status, 400, r.text);
    const e = (r.body as { error: { type: string; reason: string } }).error;
    assert.equal(e.type, 'too_many_buckets_exception');
    // 3 outer buckets, then 10 inner ones per outer bucket: the shard stops at the second, 23, not after all 33.
    assert.match(e.reason, /but was \[23\]/);
  } finally {
    await http(server.url, 'PUT', '/_cluster/settings', { transient: { 'search.max_buckets': null } });
  }
});

test('a terms aggregation of size 2^31-1 over more keys than the limit is refused by the shard', async () => {
  await http(server.url, 'PUT', '/_cluster/settings', { transient: { 'search.max_buckets': 10 } });
  try {
    const r = await http(server.url, 'POST', '/one-shard/_search', { size: 0, aggs: { k: { terms: { field: 'k.keyword', size: 2 ** 31 - 1 } } } });
    assert.equal(r.status, 400, r.text);
    assert.equal((r.body as { error: { type: string } }).error.type, 'too_many_buckets_exception');
  } finally {
    await http(server.url, 'PUT', '/_cluster/settings', { transient: { 'search.max_buckets': null } });
  }
});

test('a per-second date_histogram over 30 days stops filling empty buckets at the limit', async () => {
  const day = 86_400_000;
  const start = Date.UTC(2024, 0, 1);
  await http(server.url, 'POST', '/sparse/_doc/_bulk?refresh=true', `{"index":{}}\n{"ts":${start}}\n{"index":{}}\n{"ts":${start + 30 * day}}\n`);
  const started = Date.now();
  const r = await http(server.url, 'POST', '/sparse/_search', { size: 0, aggs: { h: { date_histogram: { field: 'ts', interval: '1s', min_doc_count: 0 } } } });
  assert.equal(r.status, 400, r.text);
  const e = (r.body as { error: { type: string; reason: string } }).error;
  assert.equal(e.type, 'too_many_buckets_exception');
  assert.match(e.reason, /less than or equal to: \[10000\] but was \[10001\]/);
  // Filling 2,592,001 buckets took seconds on the thread that serves HTTP.
  assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
});

test('a shard stops collecting a histogram as soon as its keys pass the limit (the count it reports is where it stopped)', async () => {
  const start = Date.UTC(2024, 0, 1);
  const lines: string[] = [];
  for (let i = 0; i < 30; i++) lines.push(JSON.stringify({ index: { _id: String(i) } }), JSON.stringify({ ts: start + i * 1000 }));
  await http(server.url, 'PUT', '/seconds', { settings: { number_of_shards: 1 } });
  await http(server.url, 'POST', '/seconds/_doc/_bulk?refresh=true', lines.join('\n') + '\n');
  await http(server.url, 'PUT', '/_cluster/settings', { transient: { 'search.max_buckets': 10 } });
  try {
    for (const agg of [{ date_histogram: { field: 'ts', interval: '1s' } }, { histogram: { field: 'ts', interval: 1000 } }, { date_histogram: { field: 'ts', interval: '1s', time_zone: 'Europe/Paris' } }]) {
      const r = await http(server.url, 'POST', '/seconds/_search', { size: 0, aggs: { h: agg } });
      assert.equal(r.status, 400, r.text);
      const e = (r.body as { error: { type: string; reason: string } }).error;
      assert.equal(e.type, 'too_many_buckets_exception');
      // 30 seconds hold a document each: the shard stops at the 11th key, not after counting all 30.
      assert.match(e.reason, /less than or equal to: \[10\] but was \[11\]/, JSON.stringify(agg));
    }
  } finally {
    await http(server.url, 'PUT', '/_cluster/settings', { transient: { 'search.max_buckets': null } });
  }
});
