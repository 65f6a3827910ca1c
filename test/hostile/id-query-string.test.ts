/**
 * `_id` in query_string and `match` (found by the issue 11 fuzz run: the
 * segments index `_id` as a keyword field, but the analyzed-query path looked
 * it up in the mapping and matched nothing).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;

before(async () => {
  server = await startServer(['--node.processors', '1']);
  await http(server.url, 'PUT', '/ids', { settings: { number_of_shards: 2 } });
  for (const id of ['1', '2', 'abc']) await http(server.url, 'PUT', `/ids/_doc/${id}`, { n: id });
  await http(server.url, 'POST', '/ids/_refresh');
});
after(async () => {
  await server.stop();
});

function ids(body: unknown): string[] {
  return (body as { hits: { hits: { _id: string }[] } }).hits.hits.map((h) => h._id).sort();
}

test('q=_id:1 finds the document with that id', async () => {
  const r = await http(server.url, 'GET', '/ids/_search?q=_id:1');
  assert.equal(r.status, 200);
  assert.deepEqual(ids(r.body), ['1']);
});

test('query_string on _id with OR finds both documents', async () => {
  const r = await http(server.url, 'POST', '/ids/_search', { query: { query_string: { query: '_id:1 OR _id:abc' } } });
  assert.deepEqual(ids(r.body), ['1', 'abc']);
});

test('a match query on _id is a term query on the id', async () => {
  const r = await http(server.url, 'POST', '/ids/_search', { query: { match: { _id: '2' } } });
  assert.deepEqual(ids(r.body), ['2']);
});

test('a query string with 10,000 nested parentheses is a 400, not a stack overflow', async () => {
  const query = `${'('.repeat(10_000)}a${')'.repeat(10_000)}`;
  const r = await http(server.url, 'POST', '/ids/_search', { query: { query_string: { query } } });
  assert.equal(r.status, 400, r.text.slice(0, 300));
  const e = (r.body as { error: { root_cause: { type: string }[] } }).error;
  assert.equal(e.root_cause[0]!.type, 'query_shard_exception');
  const ok = await http(server.url, 'GET', `/ids/_search?q=${encodeURIComponent('((_id:1))')}`);
  assert.deepEqual(ids(ok.body), ['1']);
});
