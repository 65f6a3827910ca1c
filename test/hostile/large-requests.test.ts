/**
 * Issue 11, item 6: requests whose size is the attack are worked through in
 * slices on the thread that serves HTTP (time-slice.ts). What a client sees
 * must not change: a bulk larger than one slice keeps its order (two items
 * on one document apply in the request's order, across slice boundaries),
 * answers one item per action in order, and an `_msearch` of many searches
 * answers each. How long other requests wait meanwhile is measured by
 * bench/http-thread.bench.ts and the fuzz run, not here.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer(['--node.processors', '1']);
  const r = await http(server.url, 'PUT', '/sliced', { settings: { number_of_shards: 2 }, mappings: { _doc: { properties: { k: { type: 'keyword' }, n: { type: 'long' } } } } });
  assert.equal(r.status, 200, r.text);
});
after(() => server.stop());

const NDJSON = { 'content-type': 'application/x-ndjson' };

test('a bulk of 5,000 items applies writes to one document in the request order, across slices', async () => {
  const lines: string[] = [];
  // Document "hot" is written every 7th item (715 times, across every slice); the others once each.
  let hotWrites = 0;
  for (let i = 0; i < 5000; i++) {
    if (i % 7 === 0) {
      hotWrites++;
      lines.push(JSON.stringify({ index: { _id: 'hot' } }), JSON.stringify({ k: 'hot', n: i }));
    } else {
      lines.push(JSON.stringify({ index: { _id: `d${i}` } }), JSON.stringify({ k: `d${i}`, n: i }));
    }
  }
  // One delete and re-create of "hot" in the middle: the last word is the last index action.
  lines.splice(2 * 2500, 0, JSON.stringify({ delete: { _id: 'hot' } }));
  const r = await http(server.url, 'POST', '/sliced/_doc/_bulk?refresh=true', lines.join('\n') + '\n', NDJSON);
  assert.equal(r.status, 200, r.text.slice(0, 300));
  const body = r.body as { errors: boolean; items: Record<string, { _id: string; status: number; _version: number; result: string }>[] };
  assert.equal(body.errors, false);
  assert.equal(body.items.length, 5001);
  // Items answer in the request's order.
  const ids = body.items.map((it) => Object.values(it)[0]!._id);
  const sent = lines.filter((l) => l.startsWith('{"index"') || l.startsWith('{"delete"')).map((l) => Object.values(JSON.parse(l) as Record<string, { _id: string }>)[0]!._id);
  assert.deepEqual(ids, sent);
  // Versions of "hot" rise by one per write (the delete included), in order.
  const hotVersions = body.items.filter((it) => Object.values(it)[0]!._id === 'hot').map((it) => Object.values(it)[0]!._version);
  assert.deepEqual(hotVersions, Array.from({ length: hotWrites + 1 }, (_, i) => i + 1));
  const doc = await http(server.url, 'GET', '/sliced/_doc/hot');
  assert.equal((doc.body as { _source: { n: number } })._source.n, 4998 - (4998 % 7));
  assert.equal((doc.body as { _version: number })._version, hotWrites + 1);
  const count = await http(server.url, 'GET', '/sliced/_count');
  assert.equal((count.body as { count: number }).count, 5000 - hotWrites + 1);
});

test('an _msearch of 2,000 searches answers each, in order', async () => {
  const lines: string[] = [];
  for (let i = 0; i < 2000; i++) lines.push('{}', JSON.stringify({ query: { term: { k: `d${i % 7 === 0 ? i + 1 : i}` } }, size: 1 }));
  const r = await http(server.url, 'POST', '/sliced/_msearch', lines.join('\n') + '\n', NDJSON);
  assert.equal(r.status, 200, r.text.slice(0, 300));
  const responses = (r.body as { responses: { status: number; hits: { hits: { _id: string }[] } }[] }).responses;
  assert.equal(responses.length, 2000);
  responses.forEach((res, i) => {
    assert.equal(res.status, 200);
    assert.equal(res.hits.hits[0]?._id, `d${i % 7 === 0 ? i + 1 : i}`);
  });
});

test('an _analyze beyond 10,000 tokens is a 400 naming index.analyze.max_token_count', async () => {
  const r = await http(server.url, 'POST', '/_analyze', { analyzer: 'standard', text: 'lorem ipsum '.repeat(200_000) });
  assert.equal(r.status, 400, r.text.slice(0, 300));
  const e = (r.body as { error: { type: string; reason: string } }).error;
  assert.equal(e.type, 'illegal_argument_exception');
  assert.match(e.reason, /exceeded the allowed maximum of \[10000\]\. This limit can be set by changing the \[index\.analyze\.max_token_count\] index level setting/);
});

test('index.analyze.max_token_count is an index setting', async () => {
  const created = await http(server.url, 'PUT', '/few-tokens', { settings: { 'index.analyze.max_token_count': 3 } });
  assert.equal(created.status, 200, created.text);
  assert.equal((await http(server.url, 'POST', '/few-tokens/_analyze', { text: 'a b c' })).status, 200);
  const over = await http(server.url, 'POST', '/few-tokens/_analyze', { text: 'a b c d' });
  assert.equal(over.status, 400);
  assert.match((over.body as { error: { reason: string } }).error.reason, /allowed maximum of \[3\]/);
});
