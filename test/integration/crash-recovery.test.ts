import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { spawnServer, startServer, tempDir, http } from '../helpers/server.ts';
import type { ShardWorkers } from '../../services/node/shard-worker/shard-workers.ts';

/**
 * kill -9 the server while bulk loads are in flight, restart it on the same
 * data directory, and find every acknowledged document once, with the
 * version its acknowledgement reported.
 */
test('every acknowledged write survives kill -9 during a bulk load', async () => {
  const dir = await tempDir('crash-');
  try {
    let server = await spawnServer(dir);
    await http(server.url, 'PUT', '/crash', { settings: { number_of_shards: 3, number_of_replicas: 0 } });
    const acked = new Map<string, number>();
    let stop = false;
    let batchNo = 0;
    const loader = async () => {
      while (!stop) {
        const b = batchNo++;
        const lines: string[] = [];
        for (let i = 0; i < 200; i++) {
          // Every fifth batch rewrites ids of an earlier batch, so versions go above 1.
          const id = b % 5 === 4 ? `d${b - 4}-${i}` : `d${b}-${i}`;
          lines.push(JSON.stringify({ index: { _type: '_doc', _id: id } }), JSON.stringify({ batch: b, i }));
        }
        try {
          const res = await http(server.url, 'POST', '/crash/_bulk', lines.join('\n') + '\n');
          const items = (res.body as { items: { index: { _id: string; _version: number; status: number } }[] }).items;
          for (const it of items) if (it.index.status < 300) acked.set(it.index._id, it.index._version);
        } catch {
          return; // the server is gone
        }
      }
    };
    const loaders = [loader(), loader()];
    await new Promise((r) => setTimeout(r, 1500));
    server.child.kill('SIGKILL');
    stop = true;
    await Promise.all(loaders);
    await server.exited;
    assert.ok(acked.size > 0, 'some writes were acknowledged before the kill');

    server = await spawnServer(dir);
    try {
      const ids = [...acked.keys()];
      for (let i = 0; i < ids.length; i += 500) {
        const chunk = ids.slice(i, i + 500);
        const res = await http(server.url, 'POST', '/crash/_doc/_mget', { ids: chunk });
        const docs = (res.body as { docs: { _id: string; found: boolean; _version: number }[] }).docs;
        for (const d of docs) {
          assert.equal(d.found, true, `acknowledged document ${d._id} is missing after restart`);
          assert.ok(d._version >= acked.get(d._id)!, `document ${d._id} went back from version ${acked.get(d._id)} to ${d._version}`);
        }
      }
      await http(server.url, 'POST', '/crash/_refresh');
      const count = (await http(server.url, 'GET', '/crash/_count')).body as { count: number };
      const distinct = new Set<string>();
      for (let b = 0; b < batchNo; b++) if (b % 5 !== 4) for (let i = 0; i < 200; i++) distinct.add(`d${b}-${i}`);
      // Each document is present once: the count never exceeds the ids that were ever written.
      assert.ok(count.count >= new Set(acked.keys()).size && count.count <= distinct.size);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/**
 * A shard worker thread dies (a bug, memory): the node replaces it and the
 * copies it held rebuild their segments from their doc stores. Searches on
 * those shards are left out (never answered from part of the documents)
 * until the rebuild is done, writes and realtime gets go on, and no document
 * is lost.
 */
test('a shard worker that dies is replaced and its copies rebuilt from their doc stores', async () => {
  const server = await startServer(['--node.processors', '2']);
  try {
    await http(server.url, 'PUT', '/wk', { settings: { number_of_shards: 4, number_of_replicas: 0 } });
    const lines: string[] = [];
    for (let i = 0; i < 400; i++) lines.push(JSON.stringify({ index: { _type: '_doc', _id: `d${i}` } }), JSON.stringify({ n: i, tag: `t${i % 7}` }));
    assert.equal(((await http(server.url, 'POST', '/wk/_bulk?refresh=true', lines.join('\n') + '\n')).body as { errors: boolean }).errors, false);

    const workers = (server.node as unknown as { workers: ShardWorkers }).workers;
    await workers.slot(0).crash();
    // Writes and realtime gets never needed the worker.
    assert.equal((await http(server.url, 'PUT', '/wk/_doc/after?refresh=true', { n: -1, tag: 'late' })).status, 201);
    assert.equal(((await http(server.url, 'GET', '/wk/_doc/d7')).body as { found: boolean }).found, true);

    const deadline = Date.now() + 30_000;
    let body: { hits: { total: number }; _shards: { failed: number } };
    for (;;) {
      body = (await http(server.url, 'POST', '/wk/_search', { size: 0, query: { match_all: {} } })).body as typeof body;
      if (body._shards.failed === 0 || Date.now() > deadline) break;
      // Until its copies are rebuilt, their shards are reported failed, not answered with part of their documents.
      assert.ok(body.hits.total < 401);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(body._shards.failed, 0, 'every shard answers again');
    assert.equal(body.hits.total, 401);
    const agg = (await http(server.url, 'POST', '/wk/_search', { size: 0, aggs: { tags: { terms: { field: 'tag.keyword', size: 10 } } } })).body as {
      aggregations: { tags: { buckets: { key: string; doc_count: number }[] } };
    };
    assert.equal(agg.aggregations.tags.buckets.find((b) => b.key === 't0')?.doc_count, 58);
    assert.equal(agg.aggregations.tags.buckets.find((b) => b.key === 'late')?.doc_count, 1);
  } finally {
    await server.stop();
  }
});

/**
 * A restarted node fills each copy's segments from its doc store before the
 * copy starts (segments live in memory). It answers HTTP meanwhile, as
 * Elasticsearch does: health is red while a primary loads and green after,
 * and a search sent during the load waits for it rather than seeing part of
 * the documents.
 */
async function loadDocs(url: string, index: string, docs: number): Promise<void> {
  await http(url, 'PUT', `/${index}`, { settings: { number_of_shards: 1, number_of_replicas: 0 } });
  for (let start = 0; start < docs; start += 10_000) {
    const lines: string[] = [];
    for (let i = start; i < start + 10_000; i++) lines.push(`{"index":{"_type":"_doc","_id":"${i}"}}`, `{"n":${i},"plate":"京A${String(i).padStart(5, '0')}"}`);
    assert.equal(((await http(url, 'POST', `/${index}/_bulk`, lines.join('\n') + '\n')).body as { errors: boolean }).errors, false);
  }
}

test('a restarted node answers at once; its copies load from their doc stores, and searches wait for them', async () => {
  const dir = await tempDir('restart-');
  const docs = 60_000;
  try {
    let server = await startServer([], dir);
    await loadDocs(server.url, 'big', docs);
    await server.stop();

    server = await startServer([], dir);
    try {
      // Loading 60,000 documents takes far longer than these two requests.
      const health = (await http(server.url, 'GET', '/_cluster/health')).body as { status: string; initializing_shards: number };
      const search = http(server.url, 'POST', '/big/_search', { size: 0, query: { match_all: {} } });
      assert.equal(health.status, 'red', 'the primary is still loading');
      assert.equal(health.initializing_shards, 1);
      const found = (await search).body as { hits: { total: number }; _shards: { failed: number } };
      assert.deepEqual([found.hits.total, found._shards.failed], [docs, 0], 'the search waited for the whole shard');
      const green = (await http(server.url, 'GET', '/_cluster/health?wait_for_status=green&timeout=30s')).body as { status: string };
      assert.equal(green.status, 'green');
      assert.equal((await http(server.url, 'GET', '/big/_doc/59999')).status, 200);
    } finally {
      await server.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('an index deleted while a restarted node loads its copies goes at once, without waiting for the other loads', async () => {
  const dir = await tempDir('restart-');
  try {
    let server = await startServer([], dir);
    // Copies load one at a time, in the order the indices were created: `first`, then `second`.
    await loadDocs(server.url, 'first', 60_000);
    await loadDocs(server.url, 'second', 10_000);
    await server.stop();

    server = await startServer([], dir);
    try {
      assert.equal((await http(server.url, 'DELETE', '/second')).status, 200);
      const health = (await http(server.url, 'GET', '/_cluster/health')).body as { status: string; initializing_shards: number };
      assert.deepEqual([health.status, health.initializing_shards], ['red', 1], "deleted while `first` was still loading");
      assert.equal((await http(server.url, 'GET', '/second/_count')).status, 404);
      assert.equal(((await http(server.url, 'GET', '/first/_count')).body as { count: number }).count, 60_000);
    } finally {
      await server.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
