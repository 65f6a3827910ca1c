/**
 * Issue 11, item 6 (a 10 MB nested document): a document of tens of
 * thousands of nested objects, under a raised
 * `index.mapping.nested_objects.limit`, is indexed whole by its shard
 * worker, and the searches of that shard answer while it is being applied
 * instead of waiting for it; the document appears, all of it, at the next
 * refresh.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer(['--node.processors', '1']);
});
after(() => server.stop());

const NESTED = 30_000;

function bigDocument(tag: string): unknown {
  return { title: `big ${tag}`, items: Array.from({ length: NESTED }, (_, i) => ({ name: `item-${i}`, value: i, inner: { a: `a-${i % 13}` } })) };
}

async function createIndex(name: string): Promise<void> {
  const r = await http(server.url, 'PUT', `/${name}`, {
    settings: { number_of_shards: 1, refresh_interval: '-1', 'index.mapping.nested_objects.limit': 1_000_000 },
    mappings: { _doc: { properties: { title: { type: 'text' }, items: { type: 'nested' } } } },
  });
  assert.equal(r.status, 200, r.text);
}

async function hits(index: string, query: unknown): Promise<number> {
  const r = await http(server.url, 'POST', `/${index}/_search`, { query, size: 0 });
  assert.equal(r.status, 200, r.text);
  return (r.body as { hits: { total: number } }).hits.total;
}

test('a document with more nested objects than the default limit, under a raised limit, is found by its fields and its nested ones', async () => {
  await createIndex('raised');
  const put = await http(server.url, 'PUT', '/raised/_doc/1?refresh=true', bigDocument('one'));
  assert.equal(put.status, 201, put.text);
  assert.equal(await hits('raised', { match: { title: 'big' } }), 1);
  assert.equal(await hits('raised', { nested: { path: 'items', query: { term: { 'items.name.keyword': `item-${NESTED - 1}` } } } }), 1);
  const agg = await http(server.url, 'POST', '/raised/_search', { size: 0, aggs: { n: { nested: { path: 'items' } } } });
  assert.equal((agg.body as { aggregations: { n: { doc_count: number } } }).aggregations.n.doc_count, NESTED);
});

test('searches of the shard answer while a large nested document is applied, and the document appears whole at the next refresh', async () => {
  await createIndex('steps');
  await http(server.url, 'PUT', '/steps/_doc/small?refresh=true', { title: 'small' });
  const statsBefore = await indexTimeMs('steps');
  let writing = true;
  const latencies: number[] = [];
  const probing = (async () => {
    while (writing) {
      const t0 = performance.now();
      // The big document is not refreshed yet: every answer is the small one alone.
      assert.equal(await hits('steps', { match_all: {} }), 1);
      latencies.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  const put = await http(server.url, 'PUT', '/steps/_doc/big', bigDocument('two'));
  writing = false;
  await probing;
  assert.equal(put.status, 201, put.text);
  // The worker's time applying the document (indexing.index_time_in_millis counts it).
  const applyMs = (await indexTimeMs('steps')) - statsBefore;
  const longest = Math.max(...latencies);
  assert.ok(latencies.length >= 3, `${latencies.length} searches during the write`);
  // Waiting behind the apply, the longest search took about as long as the apply itself.
  assert.ok(longest < applyMs / 2, `the longest search took ${longest.toFixed(0)} ms while the apply took ${applyMs} ms`);
  await http(server.url, 'POST', '/steps/_refresh');
  assert.equal(await hits('steps', { match_all: {} }), 2);
  const agg = await http(server.url, 'POST', '/steps/_search', { size: 0, aggs: { n: { nested: { path: 'items' } } } });
  assert.equal((agg.body as { aggregations: { n: { doc_count: number } } }).aggregations.n.doc_count, NESTED);
});

async function indexTimeMs(index: string): Promise<number> {
  const r = await http(server.url, 'GET', `/${index}/_stats/indexing`);
  return (r.body as { _all: { primaries: { indexing: { index_time_in_millis: number } } } })._all.primaries.indexing.index_time_in_millis;
}
