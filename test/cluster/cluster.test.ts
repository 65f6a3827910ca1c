/**
 * The cluster on Kafka (issue 5), as separate node processes on librdkafka's
 * mock cluster: allocation and health, writes replicated to every copy,
 * reads and scrolls from any node, conflicts across coordinators, replica
 * changes, failover after `kill -9`, the write quorum, a restart from the
 * copies' checkpoints, and two clusters sharing one Kafka.
 *
 * LOGSEARCH_CLUSTER_DOCS sets the bulk size (default: the issue's 100,000).
 */
import { COMMIT_INTERVAL_MS } from '../../services/node/shard-worker/copy-engine.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type TestCluster } from '../helpers/cluster.ts';
import { http } from '../helpers/server.ts';
import { generatePassRecords, PASSINFO_INDEX_BODY } from '../../services/passinfo/pass-record-generator.ts';

const DOCS = Number(process.env.LOGSEARCH_CLUSTER_DOCS ?? 100_000);
const BATCH = 2000;

type Json = Record<string, unknown>;

async function ok(res: Promise<{ status: number; body: unknown; text: string }>, what: string): Promise<Json> {
  const r = await res;
  assert.ok(r.status >= 200 && r.status < 300, `${what}: ${r.status} ${r.text.slice(0, 500)}`);
  return r.body as Json;
}

function total(body: Json): number {
  return (body.hits as { total: number }).total;
}

interface ShardRow {
  index: string;
  shard: string;
  prirep: string;
  state: string;
  docs: string;
  node: string;
}

async function catShards(c: TestCluster, via: number, index: string): Promise<ShardRow[]> {
  return (await http(c.url(via), 'GET', `/_cat/shards/${index}?format=json`)).body as ShardRow[];
}

/** Resolves once `check` holds, polling; fails with `what` after `ms`. */
async function eventually(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() >= deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The type of an error response's first root cause. */
function rootCause(body: unknown): string | undefined {
  return (body as { error?: { root_cause?: { type: string }[] } }).error?.root_cause?.[0]?.type;
}

/** Every id of a scroll, continuing it on the given nodes in turn; fails on a duplicate. */
async function scrollAll(c: TestCluster, first: Json, via: readonly number[]): Promise<Set<string>> {
  const seen = new Set<string>();
  let page = first;
  for (let i = 0; ; i++) {
    const hits = (page.hits as { hits: { _id: string }[] }).hits;
    if (hits.length === 0) return seen;
    for (const h of hits) {
      assert.ok(!seen.has(h._id), `${h._id} returned twice`);
      seen.add(h._id);
    }
    page = await ok(http(c.url(via[i % via.length]), 'POST', '/_search/scroll', { scroll: '1m', scroll_id: page._scroll_id }), 'scroll');
    assert.equal(page._scroll_id, first._scroll_id, 'the scroll id stays the same');
  }
}

/**
 * Writers that `_create` new ids in bulks of 20 through the given nodes
 * until stopped, collecting the ids whose creation was acknowledged.
 */
function writeLoad(c: TestCluster, via: readonly number[], prefix: string): { acked: string[]; failures: string[]; stop: () => Promise<void> } {
  const acked: string[] = [];
  /** The first few answers that acknowledged nothing, for the message of a test that saw none acknowledged. */
  const failures: string[] = [];
  const failed = (why: string) => {
    if (failures.length < 5) failures.push(why);
  };
  let stopped = false;
  let n = 0;
  const writer = async (node: number) => {
    while (!stopped) {
      const ids = Array.from({ length: 20 }, () => `${prefix}-${node}-${n++}`);
      const body = ids.map((id) => `{"create":{"_type":"passinfo","_id":"${id}"}}\n{"plate":"${id}"}\n`).join('');
      try {
        const r = await http(c.url(node), 'POST', '/passinfo/_bulk?timeout=20s', body);
        if (r.status !== 200) {
          failed(`node-${node}: ${r.status} ${r.text.slice(0, 300)}`);
          continue;
        }
        const items = (r.body as { items: { create: { _id: string; status: number; error?: unknown } }[] }).items;
        for (const it of items) {
          if (it.create.status === 201) acked.push(it.create._id);
          else failed(`node-${node}: item ${it.create.status} ${JSON.stringify(it.create.error ?? null).slice(0, 300)}`);
        }
      } catch (err) {
        // the request failed: nothing acknowledged
        failed(`node-${node}: ${(err as Error).message}`);
      }
    }
  };
  const running = via.map(writer);
  return {
    acked,
    failures,
    async stop() {
      stopped = true;
      await Promise.all(running);
    },
  };
}

/**
 * Every acknowledged id is found, at version 1 (applied once), from every
 * node. A copy that fell behind while Kafka was faulty (its write counted
 * one copy fewer in `_shards.successful`) may take a moment to catch up, so
 * this looks again for up to 60 s before failing.
 */
async function assertAllPresent(c: TestCluster, via: readonly number[], prefix: string, acked: readonly string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await ok(http(c.url(via[0]), 'POST', '/passinfo/_refresh'), 'refresh');
      for (const node of via) {
        const found = await ok(http(c.url(node), 'POST', '/passinfo/_search', { size: 0, query: { prefix: { 'plate.keyword': prefix } } }), 'search');
        assert.ok(total(found) >= acked.length, `node-${node}: ${total(found)} found, ${acked.length} acknowledged`);
        for (let i = 0; i < acked.length; i += 500) {
          const ids = acked.slice(i, i + 500);
          const got = await ok(http(c.url(node), 'POST', '/passinfo/_mget', { docs: ids.map((id) => ({ _type: 'passinfo', _id: id })) }), 'mget');
          for (const d of got.docs as { _id: string; found: boolean; _version: number }[]) {
            assert.equal(d.found, true, `${d._id} acknowledged but missing on node-${node}`);
            assert.equal(d._version, 1, `${d._id} applied twice`);
          }
        }
      }
      return;
    } catch (err) {
      if (Date.now() >= deadline) throw err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

describe('a three-node cluster on mock Kafka', { timeout: 15 * 60_000 }, () => {
  let c: TestCluster;

  before(async () => {
    c = await startCluster({ nodes: 3 });
    await c.waitForHealth('green', { nodes: 3, timeoutMs: 90_000, via: 'every' });
  });

  after(async () => {
    await c?.stop();
  });

  test('every node sees three nodes and one master', async () => {
    const masters = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const nodes = (await http(c.url(i), 'GET', '/_cat/nodes?format=json')).body as { name: string; master: string }[];
      assert.deepEqual(nodes.map((n) => n.name).sort(), ['node-0', 'node-1', 'node-2']);
      assert.equal(nodes.filter((n) => n.master === '*').length, 1);
      masters.add(nodes.find((n) => n.master === '*')!.name);
      const info = await ok(http(c.url(i), 'GET', '/_nodes'), '_nodes');
      assert.equal((info._nodes as Json).total, 3);
    }
    assert.equal(masters.size, 1, 'all nodes agree on the master');
  });

  test('_cat/master names the elected master, the same on every node', async () => {
    const answers: { id: string; node: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const rows = (await http(c.url(i), 'GET', '/_cat/master?format=json')).body as { id: string; node: string }[];
      assert.equal(rows.length, 1);
      answers.push(rows[0]);
      const text = (await http(c.url(i), 'GET', '/_cat/master?v')).text.split('\n');
      assert.match(text[0], /^id\s+host\s+ip\s+node$/);
      assert.match(text[1], new RegExp(`^${rows[0].id}\\s+127\\.0\\.0\\.1\\s+127\\.0\\.0\\.1\\s+${rows[0].node}$`));
    }
    assert.equal(new Set(answers.map((a) => `${a.id}/${a.node}`)).size, 1, 'one master');
    const nodes = (await http(c.url(0), 'GET', '/_cat/nodes?format=json')).body as { name: string; master: string }[];
    assert.equal(nodes.find((n) => n.master === '*')?.name, answers[0].node);
    const ids = Object.keys(((await ok(http(c.url(0), 'GET', '/_nodes'), '_nodes')).nodes as Json));
    assert.ok(ids.includes(answers[0].id), 'the master is one of the nodes');
  });

  test('_cluster/health?wait_for_nodes=3 answers at once; wait_for_nodes=4 times out with 408', async () => {
    for (let i = 0; i < 3; i++) {
      const t0 = Date.now();
      const r = await http(c.url(i), 'GET', '/_cluster/health?wait_for_nodes=3&timeout=5s');
      assert.equal(r.status, 200);
      assert.equal((r.body as Json).timed_out, false);
      assert.equal((r.body as Json).number_of_nodes, 3);
      assert.equal((r.body as Json).number_of_data_nodes, 3);
      assert.ok(Date.now() - t0 < 4000, 'no wait when already satisfied');
    }
    const more = await http(c.url(0), 'GET', '/_cluster/health?wait_for_nodes=4&timeout=500ms');
    assert.equal(more.status, 408);
    assert.equal((more.body as Json).timed_out, true);
    assert.equal((more.body as Json).number_of_nodes, 3);
    assert.equal((await http(c.url(1), 'GET', '/_cluster/health?wait_for_nodes=>=2&timeout=1s')).status, 200);
  });

  test('an index with 5 shards and 1 replica goes green with each copy pair on distinct nodes', async () => {
    const created = await ok(
      http(c.url(0), 'PUT', '/passinfo', { ...PASSINFO_INDEX_BODY, settings: { ...PASSINFO_INDEX_BODY.settings, number_of_shards: 5, number_of_replicas: 1 } }),
      'create',
    );
    // Placing the copies is one rebalance of the membership group: it ends once every member rejoined.
    assert.equal(created.shards_acknowledged, true, 'the primaries started within the create request\'s 30 s');
    const health = await c.waitForHealth('green', { timeoutMs: 60_000, activeShards: 10, via: 'every' });
    assert.equal(health.active_primary_shards, 5);
    assert.equal(health.active_shards, 10);
    const shards = (await http(c.url(1), 'GET', '/_cat/shards/passinfo?format=json')).body as { shard: string; prirep: string; node: string; state: string }[];
    assert.equal(shards.length, 10);
    for (let s = 0; s < 5; s++) {
      const copies = shards.filter((r) => r.shard === String(s));
      assert.deepEqual(copies.map((r) => r.prirep).sort(), ['p', 'r']);
      assert.notEqual(copies[0].node, copies[1].node);
    }
  });

  test(`a bulk of ${DOCS} records is searchable from every node with identical counts and aggregations`, async () => {
    const gen = generatePassRecords({ count: DOCS, seed: 5 });
    for (let sent = 0, batch = 0; sent < DOCS; batch++) {
      const lines: string[] = [];
      for (let i = 0; i < BATCH && sent < DOCS; i++, sent++) {
        const r = gen.next().value!;
        lines.push(JSON.stringify({ index: { _type: 'passinfo', _id: r.event_id } }), JSON.stringify(r));
      }
      // Spread the bulk requests over the coordinators.
      const body = await ok(http(c.url(batch % 3), 'POST', '/passinfo/_bulk', lines.join('\n') + '\n'), 'bulk');
      assert.equal(body.errors, false);
      const item = (body.items as { index: { _shards: Json } }[])[0].index;
      assert.deepEqual(item._shards, { total: 2, successful: 2, failed: 0 }, 'replication=sync: both copies applied it');
    }
    await ok(http(c.url(0), 'POST', '/passinfo/_refresh'), 'refresh');
    const aggs = { size: 0, aggs: { lands: { terms: { field: 'land_id', size: 300 } }, plates: { cardinality: { field: 'plate.keyword' } } } };
    const answers: string[] = [];
    for (let i = 0; i < 3; i++) {
      const count = await ok(http(c.url(i), 'GET', '/passinfo/_count'), 'count');
      assert.equal(count.count, DOCS, `count on node-${i}`);
      const res = await ok(http(c.url(i), 'POST', '/passinfo/_search', aggs), 'aggs');
      assert.equal(total(res), DOCS);
      assert.deepEqual(res._shards, { total: 5, successful: 5, skipped: 0, failed: 0 });
      answers.push(JSON.stringify(res.aggregations));
    }
    assert.equal(new Set(answers).size, 1, 'the same aggregations from every node');
  });

  test('_cat/shards shows every copy with its node, state, prirep and docs', async () => {
    // Docs are what each copy reported at its last refresh and the last status poll: wait for both.
    await ok(http(c.url(0), 'POST', '/passinfo/_refresh'), 'refresh');
    await eventually('every copy reports its documents', async () => {
      const now = await catShards(c, 2, 'passinfo');
      const primaries = now.filter((r) => r.prirep === 'p').reduce((n, r) => n + Number(r.docs), 0);
      return primaries === DOCS && [0, 1, 2, 3, 4].every((s) => new Set(now.filter((r) => r.shard === String(s)).map((r) => r.docs)).size === 1);
    }, 30_000);
    const rows = await catShards(c, 2, 'passinfo');
    assert.equal(rows.length, 10);
    const names = new Set(['node-0', 'node-1', 'node-2']);
    let primaryDocs = 0;
    for (let s = 0; s < 5; s++) {
      const copies = rows.filter((r) => r.shard === String(s));
      assert.deepEqual(copies.map((r) => r.prirep).sort(), ['p', 'r']);
      assert.ok(copies.every((r) => r.state === 'STARTED' && names.has(r.node)));
      assert.notEqual(copies[0].node, copies[1].node);
      assert.equal(copies[0].docs, copies[1].docs, `shard ${s}: both copies hold the same documents`);
      primaryDocs += Number(copies.find((r) => r.prirep === 'p')!.docs);
    }
    assert.equal(primaryDocs, DOCS);
    const text = (await http(c.url(0), 'GET', '/_cat/shards/passinfo?v')).text.split('\n');
    assert.match(text[0], /^index\s+shard\s+prirep\s+state\s+docs\s+store\s+ip\s+node$/);
    assert.match(text[1], /^passinfo\s+0\s+[pr]\s+STARTED\s+\d+\s+/);
  });

  test('_stats, _nodes/stats and _cat/indices on any node count every copy of the cluster (each node asked over the transport)', async () => {
    for (let i = 0; i < 3; i++) {
      const stats = (await ok(http(c.url(i), 'GET', '/passinfo/_stats/docs,indexing'), '_stats')) as {
        _shards: Json;
        _all: { primaries: { docs: { count: number }; indexing: { index_total: number } }; total: { docs: { count: number }; indexing: { index_total: number } } };
      };
      assert.deepEqual(stats._shards, { total: 10, successful: 10, failed: 0 });
      assert.equal(stats._all.primaries.docs.count, DOCS);
      assert.equal(stats._all.total.docs.count, 2 * DOCS);
      // Every copy applies every op of its partition: replicas count the writes too.
      assert.equal(stats._all.total.indexing.index_total, 2 * stats._all.primaries.indexing.index_total);
      assert.ok(stats._all.primaries.indexing.index_total >= DOCS);
      const cat = (await http(c.url(i), 'GET', '/_cat/indices/passinfo?h=docs.count&format=json')).body as { 'docs.count': string }[];
      assert.deepEqual(cat, [{ 'docs.count': String(DOCS) }]);
      const nodes = (await ok(http(c.url(i), 'GET', '/_nodes/stats/indices/docs'), '_nodes/stats')) as { _nodes: Json; nodes: Record<string, { indices: { docs: { count: number } } }> };
      assert.deepEqual(nodes._nodes, { total: 3, successful: 3, failed: 0 });
      assert.equal(
        Object.values(nodes.nodes).reduce((n, x) => n + x.indices.docs.count, 0),
        2 * DOCS,
      );
    }
  });

  test('a scroll opened on one node is continued on the others: every document once, then cleared anywhere', async () => {
    const first = await ok(http(c.url(0), 'POST', '/passinfo/_search?scroll=1m', { sort: ['_doc'], size: 5000 }), 'open scroll');
    const seen = await scrollAll(c, first, [1, 2, 0]);
    assert.equal(seen.size, total(first));
    assert.ok(seen.size >= DOCS);
    const sorted = await ok(
      http(c.url(1), 'POST', '/passinfo/_search?scroll=1m', { query: { term: { land_id: 'L0042' } }, sort: [{ pass_time: 'desc' }, { event_id: 'asc' }], size: 37 }),
      'open sorted scroll',
    );
    const ids = await scrollAll(c, sorted, [2, 0]);
    assert.equal(ids.size, total(sorted));
    const cleared = await http(c.url(2), 'DELETE', '/_search/scroll', { scroll_id: [first._scroll_id, sorted._scroll_id] });
    assert.equal(cleared.status, 200);
    assert.equal((cleared.body as Json).num_freed, 10, 'five shard contexts per scroll, on whichever nodes');
    const gone = await http(c.url(1), 'POST', '/_search/scroll', { scroll: '1m', scroll_id: first._scroll_id });
    assert.equal(gone.status, 404);
    assert.equal(rootCause(gone.body), 'search_context_missing_exception');
    assert.equal((await http(c.url(0), 'POST', '/_search/scroll', { scroll_id: 'not-a-scroll-id' })).status, 400);
  });

  test('gets rotate over the copies and find the document from every node; preference pins the copy', async () => {
    const r = generatePassRecords({ count: DOCS, seed: 5 }).next().value!;
    for (let i = 0; i < 3; i++) {
      for (let k = 0; k < 4; k++) {
        const got = await ok(http(c.url(i), 'GET', `/passinfo/passinfo/${r.event_id}`), 'get');
        assert.equal(got.found, true);
        assert.equal((got._source as Json).plate, r.plate);
      }
    }
    const pinned = await ok(http(c.url(0), 'POST', '/passinfo/_search?preference=abc', { query: { term: { 'plate.keyword': r.plate } } }), 'search');
    assert.ok(total(pinned) >= 1);
  });

  test('timeout: shards whose copy does not answer in time are left out, with timed_out true and the other shards\' hits', async () => {
    const full = total(await ok(http(c.url(0), 'POST', '/passinfo/_search', { size: 0 }), 'full count'));
    const onNode2 = new Set((await catShards(c, 0, 'passinfo')).filter((r) => r.node === 'node-2').map((r) => r.shard));
    assert.ok(onNode2.size > 0 && onNode2.size < 5, `node-2 holds some shards: ${[...onNode2]}`);
    // Sessions last 3 s: a pause well inside that keeps node-2 in the group.
    c.pause(2);
    let partial: Json;
    const t0 = Date.now();
    try {
      partial = await ok(http(c.url(0), 'POST', '/passinfo/_search?timeout=300ms&preference=_prefer_nodes:node-2', { size: 0 }), 'search with a timeout');
    } finally {
      c.resume(2);
    }
    assert.ok(Date.now() - t0 < 1500, `answered after the timeout, not after node-2 came back (${Date.now() - t0} ms)`);
    assert.equal(partial.timed_out, true);
    assert.deepEqual(partial._shards, { total: 5, successful: 5, skipped: 0, failed: 0 });
    const got = total(partial);
    assert.ok(got > 0 && got < full, `the shards node-2 does not hold answered: ${got} of ${full}`);
    const again = await ok(http(c.url(0), 'POST', '/passinfo/_search?timeout=30s&preference=_prefer_nodes:node-2', { size: 0 }), 'search after the pause');
    assert.equal(again.timed_out, false);
    assert.equal(total(again), full);
    const refused = await http(c.url(0), 'POST', '/passinfo/_search?preference=_only_nodes:nowhere', { size: 0 });
    assert.equal(refused.status, 400);
    assert.match((refused.body as { error: { reason: string } }).error.reason, /^no data nodes with criteria \[nowhere\] found for shard: \[passinfo\]\[\d\]$/);
  });

  test('concurrent _create of one id through different nodes has exactly one winner', async () => {
    const attempts = await Promise.all(
      [0, 1, 2, 0, 1, 2].map((i, k) => http(c.url(i), 'PUT', `/passinfo/passinfo/race-1/_create`, { plate: `race-${k}` })),
    );
    const statuses = attempts.map((a) => a.status).sort();
    assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409]);
    const versioned = await Promise.all([0, 1, 2].map((i) => http(c.url(i), 'PUT', `/passinfo/passinfo/race-2?version=7&version_type=external`, { n: i })));
    assert.deepEqual(versioned.map((a) => a.status).sort(), [201, 409, 409]);
  });

  test('concurrent writes with version=N through different nodes have exactly one winner', async () => {
    await ok(http(c.url(0), 'PUT', '/passinfo/passinfo/race-3', { n: -1 }), 'create');
    const attempts = await Promise.all([0, 1, 2, 0, 1, 2].map((i, k) => http(c.url(i), 'PUT', '/passinfo/passinfo/race-3?version=1', { n: k })));
    assert.deepEqual(attempts.map((a) => a.status).sort(), [200, 409, 409, 409, 409, 409]);
    const winner = attempts.findIndex((a) => a.status === 200);
    assert.equal((attempts[winner].body as Json)._version, 2);
    for (const a of attempts.filter((x) => x.status === 409)) assert.equal((a.body as { error: { type: string } }).error.type, 'version_conflict_engine_exception');
    for (let i = 0; i < 3; i++) {
      const got = await ok(http(c.url(i), 'GET', '/passinfo/passinfo/race-3'), 'get');
      assert.equal(got._version, 2);
      assert.deepEqual(got._source, { n: winner });
    }
  });

  test('concurrent writes with if_seq_no through different nodes have exactly one winner', async () => {
    const created = await ok(http(c.url(1), 'PUT', '/passinfo/passinfo/race-4', { n: -1 }), 'create');
    const cas = `if_seq_no=${String(created._seq_no)}&if_primary_term=${String(created._primary_term)}`;
    const attempts = await Promise.all([2, 1, 0, 2, 1, 0].map((i, k) => http(c.url(i), 'PUT', `/passinfo/passinfo/race-4?${cas}`, { n: k })));
    assert.deepEqual(attempts.map((a) => a.status).sort(), [200, 409, 409, 409, 409, 409]);
    const winner = attempts.findIndex((a) => a.status === 200);
    const won = attempts[winner].body as Json;
    assert.ok((won._seq_no as number) > (created._seq_no as number));
    for (let i = 0; i < 3; i++) {
      const got = await ok(http(c.url(i), 'GET', '/passinfo/passinfo/race-4'), 'get');
      assert.equal(got._seq_no, won._seq_no);
      assert.deepEqual(got._source, { n: winner });
    }
  });

  test('number_of_replicas changes take effect at once: more copies are allocated and built, fewer are removed', async () => {
    const health0 = await c.waitForHealth('green', { timeoutMs: 60_000 });
    assert.equal(health0.active_shards, 10);
    await ok(http(c.url(1), 'PUT', '/passinfo/_settings', { index: { number_of_replicas: 2 } }), 'replicas 2');
    // Allocated at once: a third copy of every shard, initializing or already started.
    await eventually('15 copies allocated', async () => (await catShards(c, 0, 'passinfo')).filter((r) => r.state !== 'UNASSIGNED').length === 15, 30_000);
    // A node whose table still has two copies a shard is green too: wait for the third copies as every node sees them.
    const health = await c.waitForHealth('green', { timeoutMs: 180_000, activeShards: 15, via: 'every' });
    assert.equal(health.active_shards, 15);
    assert.equal(health.active_primary_shards, 5);
    const rows = await catShards(c, 2, 'passinfo');
    for (let s = 0; s < 5; s++) {
      const copies = rows.filter((r) => r.shard === String(s));
      assert.deepEqual(copies.map((r) => r.node).sort(), ['node-0', 'node-1', 'node-2'], `shard ${s} on every node`);
    }
    // A started copy applied everything; what it shows as searchable follows its next refresh.
    await eventually('the new copies hold what the others hold', async () => {
      await ok(http(c.url(0), 'POST', '/passinfo/_refresh'), 'refresh');
      const now = await catShards(c, 2, 'passinfo');
      return [0, 1, 2, 3, 4].every((s) => new Set(now.filter((r) => r.shard === String(s)).map((r) => r.docs)).size === 1);
    }, 30_000);
    await ok(http(c.url(2), 'PUT', '/passinfo/_settings', { number_of_replicas: 1 }), 'replicas 1');
    await eventually('back to 10 copies', async () => (await catShards(c, 1, 'passinfo')).length === 10, 30_000);
    const after = await c.waitForHealth('green', { timeoutMs: 60_000, via: 1 });
    assert.equal(after.active_shards, 10);
    const count = await ok(http(c.url(0), 'GET', '/passinfo/_count'), 'count');
    assert.ok((count.count as number) >= DOCS);
  });

  test('a broker down, leader changes and produce errors during writes: every acknowledged write is there, once', async () => {
    const settings = (await ok(http(c.url(0), 'GET', '/passinfo/_settings'), 'settings')) as { passinfo: { settings: { index: { uuid: string } } } };
    const topic = `${c.clusterName}.passinfo.${settings.passinfo.settings.index.uuid}`;
    const { acked, failures, stop } = writeLoad(c, [0, 1, 2], 'bf');
    await new Promise((r) => setTimeout(r, 500));
    await c.kafka.produceErrors(5, 6); // NOT_LEADER_OR_FOLLOWER: retriable
    await new Promise((r) => setTimeout(r, 500));
    for (let p = 0; p < 5; p++) await c.kafka.setLeader(topic, p, 1 + ((p + 1) % 3));
    await new Promise((r) => setTimeout(r, 500));
    await c.kafka.brokerDown(3);
    await new Promise((r) => setTimeout(r, 1500));
    await c.kafka.brokerUp(3);
    await new Promise((r) => setTimeout(r, 1000));
    await stop();
    assert.ok(acked.length > 0, `some writes were acknowledged; answers: ${failures.join(' | ')}`);
    await assertAllPresent(c, [0, 1, 2], 'bf-', acked);
  });

  test('kill -9 of a data node during writes: no acknowledged write lost, health yellow then green', async () => {
    const { acked, failures, stop } = writeLoad(c, [0, 1], 'fo');
    await new Promise((r) => setTimeout(r, 1500));
    await c.kill(2);
    await c.waitForHealth('yellow', { via: 0, timeoutMs: 30_000 });
    await new Promise((r) => setTimeout(r, 2000));
    await stop();
    assert.ok(acked.length > 0, `some writes were acknowledged; answers: ${failures.join(' | ')}`);
    const health = await c.waitForHealth('green', { via: 0, nodes: 2, timeoutMs: 120_000 });
    assert.equal(health.number_of_nodes, 2);
    await assertAllPresent(c, [0, 1], 'fo-', acked);
    // The restarted node rejoins and the cluster balances copies onto it again.
    await c.restart(2);
    await c.waitForHealth('green', { via: 2, nodes: 3, timeoutMs: 120_000 });
    // Started copies applied everything; a refresh makes it searchable.
    await ok(http(c.url(2), 'POST', '/passinfo/_refresh'), 'refresh');
    const count = await ok(http(c.url(2), 'GET', '/passinfo/_count'), 'count');
    assert.ok((count.count as number) >= DOCS + acked.length, `${String(count.count)} counted, ${DOCS + acked.length} written`);
  });

  // Kills two nodes: the last test of this cluster.
  test('with number_of_replicas 2, a write is refused with 503 once fewer than a quorum of copies are started', async () => {
    await ok(http(c.url(0), 'PUT', '/quorum', { settings: { number_of_shards: 1, number_of_replicas: 2 } }), 'create');
    // As node 0 sees it: it counts the copies its writes wait for from its own polls of the others.
    await c.waitForHealth('green', { nodes: 3, timeoutMs: 60_000, via: 0 });
    const all = await ok(http(c.url(0), 'PUT', '/quorum/_doc/1', { n: 1 }), 'write with three copies');
    assert.deepEqual(all._shards, { total: 3, successful: 3, failed: 0 });
    await c.kill(2);
    // Two of three copies are a quorum: writes go on.
    await eventually('a write with two copies', async () => (await http(c.url(0), 'PUT', '/quorum/_doc/2?timeout=2s', { n: 2 })).status === 201);
    await c.kill(1);
    await eventually('one started copy left', async () => (await catShards(c, 0, 'quorum')).filter((r) => r.state === 'STARTED').length === 1, 30_000);
    const t0 = Date.now();
    const refused = await http(c.url(0), 'PUT', '/quorum/_doc/3?timeout=1s', { n: 3 });
    assert.equal(refused.status, 503, refused.text);
    assert.equal((refused.body as { error: { type: string } }).error.type, 'unavailable_shards_exception');
    assert.match((refused.body as { error: { reason: string } }).error.reason, /^\[quorum\]\[0\] Not enough active copies to meet shard count of \[QUORUM\] \(have 1, needed 2\)/);
    assert.ok(Date.now() - t0 >= 1000, 'refused after the timeout, not at once');
    const got = await http(c.url(0), 'GET', '/quorum/_doc/3');
    assert.equal((got.body as Json).found, false, 'a refused write is not in the index');
    // An explicit wait_for_active_shards=1 overrides the quorum.
    assert.equal((await http(c.url(0), 'PUT', '/quorum/_doc/4?timeout=1s&wait_for_active_shards=1', { n: 4 })).status, 201);
  });
});

describe('restarts and dead nodes (10 s sessions)', { timeout: 10 * 60_000 }, () => {
  let c: TestCluster;
  const LOADED = 3000;

  before(async () => {
    // A restarted node must rejoin before its session times out to keep its copies: sessions long enough for a restart.
    c = await startCluster({ nodes: 3, sessionTimeout: '10s' });
    await c.waitForHealth('green', { nodes: 3, timeoutMs: 120_000 });
    await ok(http(c.url(0), 'PUT', '/ckpt', { settings: { number_of_shards: 3, number_of_replicas: 1 } }), 'create');
    await c.waitForHealth('green', { timeoutMs: 120_000 });
    const lines: string[] = [];
    for (let i = 0; i < LOADED; i++) lines.push(`{"index":{"_type":"_doc","_id":"d${i}"}}`, `{"n":${i}}`);
    const bulk = await ok(http(c.url(0), 'POST', '/ckpt/_bulk', lines.join('\n') + '\n'), 'bulk');
    assert.equal(bulk.errors, false);
  });

  after(async () => {
    await c?.stop();
  });

  test('a restarted node resumes each copy from its checkpoint, not from zero (_cat/recovery)', async () => {
    const held = (await catShards(c, 0, 'ckpt')).filter((r) => r.node === 'node-1').map((r) => r.shard);
    assert.ok(held.length > 0);
    // A copy commits what it applied at most COMMIT_INTERVAL_MS after it went idle; a kill before that replays from the commit before.
    await new Promise((resolve) => setTimeout(resolve, COMMIT_INTERVAL_MS + 1500));
    await c.kill(1);
    // Writes while node-1 is down, then it comes back on its data directory.
    const restarted = c.restart(1);
    const lines: string[] = [];
    for (let i = 0; i < 200; i++) lines.push(`{"index":{"_type":"_doc","_id":"down${i}"}}`, `{"n":${i}}`);
    assert.equal((await ok(http(c.url(0), 'POST', '/ckpt/_bulk', lines.join('\n') + '\n'), 'bulk while down')).errors, false);
    await restarted;
    await c.waitForHealth('green', { via: 1, nodes: 3, timeoutMs: 120_000 });
    interface RecoveryRow {
      shard: string;
      target_node: string;
      type: string;
      stage: string;
      start_offset: string;
      target_offset: string;
      translog_ops: string;
    }
    // Asked of node-1 itself: the others learn its copies' recoveries at their next status poll.
    const rows = ((await http(c.url(1), 'GET', '/_cat/recovery/ckpt?format=json&h=shard,target_node,type,stage,start_offset,target_offset,translog_ops')).body as RecoveryRow[]).filter(
      (r) => r.target_node === 'node-1',
    );
    assert.deepEqual(rows.map((r) => r.shard).sort(), [...held].sort(), `node-1 kept its copies: ${JSON.stringify(rows)}`);
    let replayed = 0;
    for (const r of rows) {
      assert.equal(r.type, 'existing_store', `shard ${r.shard} reopened from its data directory`);
      assert.equal(r.stage, 'done');
      assert.ok(Number(r.start_offset) > 0, `shard ${r.shard} resumed at offset ${r.start_offset}, not 0`);
      assert.equal(Number(r.translog_ops), Number(r.target_offset) - Number(r.start_offset));
      replayed += Number(r.translog_ops);
    }
    assert.ok(replayed <= 200, `replayed ${replayed} records: only what was written while it was down`);
    await ok(http(c.url(0), 'POST', '/ckpt/_refresh'), 'refresh');
    assert.equal((await ok(http(c.url(0), 'GET', '/ckpt/_count'), 'count')).count, LOADED + 200);
    const others = (await catShards(c, 0, 'ckpt')).filter((r) => r.node !== 'node-1' && held.includes(r.shard));
    const heldDocs = others.reduce((n, r) => n + Number(r.docs), 0);
    // Refreshed through node-1 itself: it knows its copies are started before the others' status polls do.
    await eventually(`node-1's copies hold the ${heldDocs} documents of their shards`, async () => {
      await ok(http(c.url(1), 'POST', '/ckpt/_refresh'), 'refresh');
      return total(await ok(http(c.url(1), 'POST', '/ckpt/_search?preference=_only_local', { size: 0 }), 'search node-1 copies')) === heldDocs;
    }, 30_000);
  });

  test('a scroll whose contexts are on a node that died answers 404 search_context_missing_exception on the others', async () => {
    // _only_local: every context of this scroll is on node-2.
    const first = await ok(http(c.url(2), 'POST', '/ckpt/_search?scroll=1m&preference=_only_local', { sort: ['_doc'], size: 10 }), 'open scroll');
    assert.ok((first.hits as { hits: unknown[] }).hits.length > 0);
    const second = await http(c.url(0), 'POST', '/_search/scroll', { scroll: '1m', scroll_id: first._scroll_id });
    assert.equal(second.status, 200, 'continued on another node while node-2 lives');
    await c.kill(2);
    for (const via of [0, 1]) {
      const r = await http(c.url(via), 'POST', '/_search/scroll', { scroll: '1m', scroll_id: first._scroll_id });
      assert.equal(r.status, 404, r.text);
      assert.equal(rootCause(r.body), 'search_context_missing_exception');
    }
    const cleared = await http(c.url(0), 'DELETE', '/_search/scroll', { scroll_id: [first._scroll_id] });
    assert.equal(cleared.status, 404);
    assert.equal((cleared.body as Json).num_freed, 0);
  });
});

describe('two clusters on one Kafka', { timeout: 5 * 60_000 }, () => {
  test('clusters with different names do not see each other', async () => {
    const a = await startCluster({ nodes: 1, clusterName: `alpha-${process.pid}` });
    const b = await startCluster({ nodes: 1, clusterName: `beta-${process.pid}`, kafka: a.kafka });
    try {
      await ok(http(a.url(0), 'PUT', '/only-in-a', { settings: { number_of_replicas: 0 } }), 'create in a');
      await a.waitForHealth('green', { nodes: 1 });
      await b.waitForHealth('green', { nodes: 1 });
      assert.equal((await http(b.url(0), 'GET', '/only-in-a')).status, 404);
      const nodesB = (await http(b.url(0), 'GET', '/_cat/nodes?format=json')).body as unknown[];
      assert.equal(nodesB.length, 1);
    } finally {
      await b.stop();
      await a.stop();
    }
  });
});

describe('a coordinating-only node', { timeout: 5 * 60_000 }, () => {
  test('holds no copy, serves writes and searches through the data node, and reports red once a shard has no copy left', async () => {
    const c = await startCluster({ nodes: 2, nodeFlags: (i) => (i === 1 ? ['--node.data', 'false'] : []) });
    try {
      await c.waitForHealth('green', { nodes: 2, timeoutMs: 90_000, via: 'every' });
      const nodes = (await http(c.url(1), 'GET', '/_cat/nodes?format=json&h=name,node.role')).body as { name: string; 'node.role': string }[];
      assert.deepEqual(nodes.map((n) => [n.name, n['node.role'].includes('d')]).sort(), [
        ['node-0', true],
        ['node-1', false],
      ]);
      await ok(http(c.url(1), 'PUT', '/coord', { settings: { number_of_shards: 2, number_of_replicas: 0 } }), 'create through the coordinating node');
      await c.waitForHealth('green', { via: 1, timeoutMs: 60_000 });
      const shards = await catShards(c, 1, 'coord');
      assert.equal(shards.length, 2);
      assert.ok(shards.every((r) => r.node === 'node-0'), 'every copy on the data node');
      assert.equal((await http(c.url(1), 'PUT', '/coord/_doc/1?refresh=true', { plate: 'X1' })).status, 201);
      assert.equal(total(await ok(http(c.url(1), 'POST', '/coord/_search', { query: { match: { plate: 'X1' } } }), 'search')), 1);

      await c.kill(0);
      let health: Json = {};
      // Red as soon as the data node stops answering; its copies count as unassigned once the group drops it (session timeout).
      await eventually(
        'health red with both copies unassigned',
        async () => {
          health = (await http(c.url(1), 'GET', '/_cluster/health')).body as Json;
          return health.status === 'red' && health.unassigned_shards === 2;
        },
        30_000,
      );
      assert.equal(health.active_primary_shards, 0);
      assert.equal(health.number_of_data_nodes, 0);
      const refused = await http(c.url(1), 'PUT', '/coord/_doc/2?timeout=1s', { plate: 'X2' });
      assert.equal(refused.status, 503, refused.text);
    } finally {
      await c.stop();
    }
  });
});
