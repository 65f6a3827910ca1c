/**
 * Issue 11, item 6: a shard worker busy with a long piece of work still
 * answers the small searches sent to it. An aggregation collects in slices,
 * a refresh builds its segment and a commit writes it in steps, with turns
 * of the thread in between where searches run; the searches see the same
 * documents as they would before or after (never half a refresh).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  // One shard worker: the probes and the long work share its thread.
  server = await startServer(['--node.processors', '1']);
});
after(() => server.stop());

const DOCS = 40_000;
/** Keyword fields of distinct values besides `k`: a refresh builds a field at a time. */
const FIELDS = 6;

async function load(index: string): Promise<void> {
  const create = await http(server.url, 'PUT', `/${index}`, {
    settings: { number_of_shards: 1, refresh_interval: '-1' },
    mappings: { _doc: { properties: { k: { type: 'keyword' }, g: { type: 'keyword' }, msg: { type: 'text' }, n: { type: 'long' } }, dynamic_templates: [{ f: { match: 'f*', mapping: { type: 'keyword' } } }] } },
  });
  assert.equal(create.status, 200, create.text);
  for (let from = 0; from < DOCS; from += 10_000) {
    let body = '';
    for (let i = from; i < from + 10_000; i++) {
      const doc: Record<string, unknown> = { k: `key-${i}`, g: `group-${i % 100}`, msg: `line ${i} of the log, word${i % 977} and word${i % 13}`, n: i };
      for (let f = 0; f < FIELDS; f++) doc[`f${f}`] = `value-${f}-${i}`;
      body += `{"index":{"_id":"${i}"}}\n${JSON.stringify(doc)}\n`;
    }
    const r = await http(server.url, 'POST', `/${index}/_doc/_bulk`, body, { 'content-type': 'application/x-ndjson' });
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.equal((r.body as { errors: boolean }).errors, false);
  }
}

async function count(index: string): Promise<number> {
  const r = await http(server.url, 'GET', `/${index}/_search?q=g:group-7&size=0`);
  assert.equal(r.status, 200, r.text);
  return (r.body as { hits: { total: number } }).hits.total;
}

/** Probes `count` until `work` settles; returns its time, the probes' times and the counts they saw. */
async function probeDuring(index: string, work: () => Promise<unknown>): Promise<{ workMs: number; probes: number[]; counts: Set<number> }> {
  let done = false;
  const probes: number[] = [];
  const counts = new Set<number>();
  const probing = (async () => {
    while (!done) {
      const t0 = performance.now();
      counts.add(await count(index));
      probes.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  const t0 = performance.now();
  await work();
  const workMs = performance.now() - t0;
  done = true;
  await probing;
  return { workMs, probes, counts };
}

test('searches answer while a flush builds the segment of 40,000 documents and writes it, and see none of them or all', async () => {
  await load('steps');
  // Nothing refreshed yet (and the search path warmed up: analyzers build their tables on first use).
  assert.equal(await count('steps'), 0);
  // The flush refreshes (the buffer's segment is built a field at a time) and commits (the segment written in steps).
  const flush = await probeDuring('steps', async () => assert.equal((await http(server.url, 'POST', '/steps/_flush')).status, 200));
  // group-7 holds every 100th document: 400 once refreshed, none before, never a part.
  assert.deepEqual([...flush.counts].filter((c) => c !== 0 && c !== DOCS / 100), []);
  assert.equal(await count('steps'), DOCS / 100);
  const longest = Math.max(...flush.probes);
  assert.ok(flush.probes.length >= 3, `${flush.probes.length} searches during the flush of ${flush.workMs.toFixed(0)} ms`);
  // Waiting behind the flush, the longest search would take about as long as the flush itself.
  assert.ok(longest < flush.workMs / 2, `the longest search took ${longest.toFixed(0)} ms during a flush of ${flush.workMs.toFixed(0)} ms: ${flush.probes.map((p) => p.toFixed(0)).join(' ')}`);
  const all = await http(server.url, 'GET', '/steps/_count');
  assert.equal((all.body as { count: number }).count, DOCS);
});

test('searches answer while terms under terms collects over 40,000 documents, and terms 1000 x terms 1000 fails with too_many_buckets_exception', async () => {
  // Every (group, key) pair is a bucket to collect; with min_doc_count 0 each group built also weighs all
  // 40,000 keys, so an aggregation takes many turns of the thread (collecting alone is now a few of them).
  const heavy = { size: 0, aggs: { g: { terms: { field: 'g', size: 10 }, aggs: { k: { terms: { field: 'k', size: 10, min_doc_count: 0 } } } } } };
  // Once first: global ordinals are built (once per set of segments) before collecting starts.
  assert.equal((await http(server.url, 'POST', '/steps/_search', heavy)).status, 200);
  // One after the other: without turns, a search sent meanwhile would wait for the rest of the one running.
  const times: number[] = [];
  const run = await probeDuring('steps', async () => {
    for (let i = 0; i < 8; i++) {
      const t0 = performance.now();
      const r = await http(server.url, 'POST', '/steps/_search', heavy);
      times.push(performance.now() - t0);
      assert.equal(r.status, 200, r.text.slice(0, 300));
      const groups = (r.body as { aggregations: { g: { buckets: { doc_count: number; k: { buckets: unknown[] } }[] } } }).aggregations.g.buckets;
      assert.deepEqual(
        groups.map((b) => [b.doc_count, b.k.buckets.length]),
        Array.from({ length: 10 }, () => [DOCS / 100, 10]),
      );
    }
  });
  const longest = Math.max(...run.probes);
  const median = times.sort((a, b) => a - b)[times.length >> 1]!;
  assert.ok(run.probes.length >= 8, `${run.probes.length} searches during 8 aggregations of ${run.workMs.toFixed(0)} ms`);
  assert.ok(longest < median, `the longest search took ${longest.toFixed(0)} ms, an aggregation ${median.toFixed(0)} ms: ${run.probes.map((p) => p.toFixed(0)).join(' ')}`);
  const tooMany = await http(server.url, 'POST', '/steps/_search', { size: 0, aggs: { g: { terms: { field: 'g', size: 1000 }, aggs: { k: { terms: { field: 'k', size: 1000 } } } } } });
  assert.equal(tooMany.status, 400, tooMany.text.slice(0, 300));
  assert.equal((tooMany.body as { error: { type: string } }).error.type, 'too_many_buckets_exception');
});

test('searches answer while an _mget of 40,000 ids reads them, and the _mget answers every id in the order asked', async () => {
  // Every id once, in an order that is not the index's, and one that does not exist.
  const ids = Array.from({ length: DOCS }, (_, i) => String((i * 7919) % DOCS));
  ids.splice(1234, 0, 'no-such-id');
  let mget: Awaited<ReturnType<typeof http>> | null = null;
  const run = await probeDuring('steps', async () => {
    mget = await http(server.url, 'POST', '/steps/_doc/_mget', { ids });
  });
  const r = mget!;
  assert.equal(r.status, 200, r.text.slice(0, 300));
  const docs = (r.body as { docs: { _id: string; found: boolean; _source?: { k: string } }[] }).docs;
  assert.deepEqual(
    docs.map((d) => d._id),
    ids,
  );
  assert.deepEqual(
    docs.filter((d) => !d.found).map((d) => d._id),
    ['no-such-id'],
  );
  assert.ok(docs.every((d) => !d.found || d._source!.k === `key-${d._id}`));
  // Every probe saw the 400 documents of group-7 (nothing is written meanwhile).
  assert.deepEqual([...run.counts], [DOCS / 100]);
  const longest = Math.max(...run.probes);
  assert.ok(run.probes.length >= 3, `${run.probes.length} searches during an _mget of ${run.workMs.toFixed(0)} ms`);
  assert.ok(longest < run.workMs / 2, `the longest search took ${longest.toFixed(0)} ms during an _mget of ${run.workMs.toFixed(0)} ms: ${run.probes.map((p) => p.toFixed(0)).join(' ')}`);
});
