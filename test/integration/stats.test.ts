/**
 * Stats count what the node did: `_stats` and `_nodes/stats` read before and
 * after 1,000 writes, 100 searches and 10 gets move by exactly that much, and
 * `_cat` prints the same figures.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => http(server.url, method, path, body, headers);

interface Section {
  [k: string]: number;
}
interface IndexFigures {
  docs: Section;
  indexing: Section;
  search: Section;
  get: Section;
  refresh: Section;
  flush: Section;
  store: Section;
}

async function indexStats(): Promise<IndexFigures> {
  const r = await req('GET', '/counted/_stats');
  assert.equal(r.status, 200, r.text);
  const body = r.body as { _all: { primaries: IndexFigures; total: IndexFigures } };
  // One shard, no replicas: the primaries are all the copies.
  assert.deepEqual(body._all.primaries.indexing, body._all.total.indexing);
  return body._all.total;
}

async function nodeIndices(): Promise<IndexFigures> {
  const r = await req('GET', '/_nodes/_local/stats/indices');
  assert.equal(r.status, 200, r.text);
  const nodes = (r.body as { nodes: Record<string, { indices: IndexFigures }> }).nodes;
  const ids = Object.keys(nodes);
  assert.equal(ids.length, 1);
  return nodes[ids[0]!]!.indices;
}

before(async () => {
  server = await startServer();
  // No periodic refresh: the test makes every refresh itself, so their count is known.
  const created = await req('PUT', '/counted', { settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: -1 } });
  assert.equal(created.status, 200, created.text);
  // Another index the node-level figures include and the index-level ones do not.
  assert.equal((await req('PUT', '/other/_doc/1?refresh=true', { n: 1 })).status, 201);
});
after(async () => {
  await server.stop();
});

describe('stats count the work exactly', () => {
  test('1,000 writes, 100 searches and 10 gets move _stats and _nodes/stats by exactly that much', async () => {
    const before = await indexStats();
    const nodeBefore = await nodeIndices();

    // 500 single writes, 4 at a time, then 500 in one bulk request.
    for (let i = 0; i < 500; i += 4) {
      const batch = [];
      for (let k = i; k < Math.min(i + 4, 500); k++) batch.push(req('PUT', `/counted/_doc/${k}`, { n: k, plate: `A${k % 37}` }));
      for (const r of await Promise.all(batch)) assert.equal(r.status, 201, r.text);
    }
    const lines: string[] = [];
    for (let k = 500; k < 1000; k++) lines.push(JSON.stringify({ index: { _id: String(k) } }), JSON.stringify({ n: k, plate: `A${k % 37}` }));
    const bulk = await req('POST', '/counted/_doc/_bulk', lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
    assert.equal((bulk.body as { errors: boolean }).errors, false);
    assert.equal((await req('POST', '/counted/_refresh')).status, 200);

    for (let i = 0; i < 100; i++) {
      const r = await req('POST', '/counted/_search', { query: { term: { n: i } } });
      assert.equal((r.body as { hits: { total: number } }).hits.total, 1);
    }
    for (let i = 0; i < 10; i++) {
      const r = await req('GET', `/counted/_doc/${i % 2 === 0 ? i : `missing-${i}`}`);
      assert.equal(r.status, i % 2 === 0 ? 200 : 404);
    }
    assert.equal((await req('POST', '/counted/_flush')).status, 200);

    const after = await indexStats();
    const nodeAfter = await nodeIndices();
    for (const [b, a] of [
      [before, after],
      [nodeBefore, nodeAfter],
    ] as const) {
      assert.equal(a.indexing.index_total! - b.indexing.index_total!, 1000);
      assert.equal(a.indexing.delete_total! - b.indexing.delete_total!, 0);
      assert.equal(a.indexing.index_failed! - b.indexing.index_failed!, 0);
      assert.equal(a.search.query_total! - b.search.query_total!, 100);
      assert.equal(a.search.fetch_total! - b.search.fetch_total!, 100);
      assert.equal(a.get.total! - b.get.total!, 10);
      assert.equal(a.get.exists_total! - b.get.exists_total!, 5);
      assert.equal(a.get.missing_total! - b.get.missing_total!, 5);
      assert.equal(a.refresh.total! - b.refresh.total!, 1);
      assert.equal(a.flush.total! - a.flush.periodic! - (b.flush.total! - b.flush.periodic!), 1);
      assert.ok(a.indexing.index_time_in_millis! >= b.indexing.index_time_in_millis!);
      assert.ok(a.search.query_time_in_millis! >= b.search.query_time_in_millis!);
    }
    assert.equal(after.docs.count, 1000);
    // The node also holds `other`'s document.
    assert.equal(nodeAfter.docs.count, 1001);
    // After _flush the segments are files: the store holds them.
    assert.ok(after.store.size_in_bytes! > 0);
  });

  test('deletes, updates that change nothing and refused writes are counted as such', async () => {
    const before = await indexStats();
    assert.equal((await req('DELETE', '/counted/_doc/0')).status, 200);
    assert.equal((await req('POST', '/counted/_doc/1/_update', { doc: { n: 1 } })).status, 200);
    assert.equal((await req('PUT', '/counted/_doc/2/_create', { n: 2 })).status, 409);
    const after = await indexStats();
    assert.equal(after.indexing.delete_total! - before.indexing.delete_total!, 1);
    assert.equal(after.indexing.noop_update_total! - before.indexing.noop_update_total!, 1);
    assert.equal(after.indexing.index_failed! - before.indexing.index_failed!, 1);
    assert.equal(after.indexing.index_total! - before.indexing.index_total!, 0);
  });

  test('_cat/indices and _cat/count print the same counts, in the units asked for', async () => {
    await req('POST', '/counted/_refresh');
    const stats = await indexStats();
    const cat = await req('GET', '/_cat/indices/counted?h=index,docs.count,store.size,indexing.index_total,search.query_total&bytes=b&format=json');
    assert.equal(cat.status, 200);
    const [row] = cat.body as Record<string, string>[];
    assert.deepEqual(row, {
      index: 'counted',
      'docs.count': String(stats.docs.count),
      'store.size': String(stats.store.size_in_bytes),
      'indexing.index_total': String(stats.indexing.index_total),
      'search.query_total': String(stats.search.query_total),
    });
    const count = await req('GET', '/_cat/count/counted?h=count');
    assert.equal(count.text, `${stats.docs.count}\n`);
  });
});

describe('_nodes/stats describes the process and machine', () => {
  test('os, process, jvm, fs, http and thread_pool hold the real figures of this process', async () => {
    const r = await req('GET', '/_nodes/stats/os,process,jvm,fs,http,thread_pool,indices');
    const n = Object.values((r.body as { nodes: Record<string, Record<string, Record<string, unknown>>> }).nodes)[0]!;
    const jvm = n.jvm as { mem: { heap_used_in_bytes: number; heap_max_in_bytes: number }; gc: { collectors: { young: { collection_count: number } } } };
    assert.ok(jvm.mem.heap_used_in_bytes > 0 && jvm.mem.heap_used_in_bytes < jvm.mem.heap_max_in_bytes);
    assert.equal(typeof jvm.gc.collectors.young.collection_count, 'number');
    assert.ok((n.os as { mem: { total_in_bytes: number } }).mem.total_in_bytes > 0);
    assert.ok((n.fs as { total: { total_in_bytes: number } }).total.total_in_bytes > 0);
    assert.ok((n.process as { open_file_descriptors: number }).open_file_descriptors > 0);
    const http = n.http as { current_open: number; total_opened: number };
    assert.ok(http.current_open >= 1 && http.total_opened >= http.current_open);
    // The search pool completed what the copies' query and fetch phases count.
    const search = (n.indices as { search: { query_total: number; fetch_total: number } }).search;
    assert.equal((n.thread_pool as { search: { completed: number } }).search.completed, search.query_total + search.fetch_total);
    const bad = await req('GET', '/_nodes/stats/jvmm');
    assert.equal(bad.status, 400);
    assert.equal((bad.body as { error: { reason: string } }).error.reason, 'request [/_nodes/stats/jvmm] contains unrecognized metric: [jvmm] -> did you mean [jvm]?');
  });
});
