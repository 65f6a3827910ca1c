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
