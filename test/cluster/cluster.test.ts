/**
 * The cluster on Kafka (issue 5), as separate node processes on librdkafka's
 * mock cluster: allocation and health, writes replicated to every copy,
 * reads from any node, conflicts across coordinators, failover after
 * `kill -9`, and two clusters sharing one Kafka.
 *
 * LOGSEARCH_CLUSTER_DOCS sets the bulk size (default 20,000 to keep CI
 * short; the 100,000 passes the bulk test, see docs/testing.md).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type TestCluster } from '../helpers/cluster.ts';
import { http } from '../helpers/server.ts';
import { generatePassRecords, PASSINFO_INDEX_BODY } from '../../services/passinfo/pass-record-generator.ts';

const DOCS = Number(process.env.LOGSEARCH_CLUSTER_DOCS ?? 20_000);
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

/**
 * Writers that `_create` new ids in bulks of 20 through the given nodes
 * until stopped, collecting the ids whose creation was acknowledged.
 */
function writeLoad(c: TestCluster, via: readonly number[], prefix: string): { acked: string[]; stop: () => Promise<void> } {
  const acked: string[] = [];
  let stopped = false;
  let n = 0;
  const writer = async (node: number) => {
    while (!stopped) {
      const ids = Array.from({ length: 20 }, () => `${prefix}-${node}-${n++}`);
      const body = ids.map((id) => `{"create":{"_type":"passinfo","_id":"${id}"}}\n{"plate":"${id}"}\n`).join('');
      try {
        const r = await http(c.url(node), 'POST', '/passinfo/_bulk?timeout=20s', body);
        if (r.status !== 200) continue;
        const items = (r.body as { items: { create: { _id: string; status: number } }[] }).items;
        for (const it of items) if (it.create.status === 201) acked.push(it.create._id);
      } catch {
        // the request failed: nothing acknowledged
      }
    }
  };
  const running = via.map(writer);
  return {
    acked,
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
    await c.waitForHealth('green', { nodes: 3, timeoutMs: 90_000 });
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

  test('an index with 5 shards and 1 replica goes green with each copy pair on distinct nodes', async () => {
    await ok(http(c.url(0), 'PUT', '/passinfo', { ...PASSINFO_INDEX_BODY, settings: { ...PASSINFO_INDEX_BODY.settings, number_of_shards: 5, number_of_replicas: 1 } }), 'create');
    const health = await c.waitForHealth('green', { timeoutMs: 60_000 });
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

  test('concurrent _create of one id through different nodes has exactly one winner', async () => {
    const attempts = await Promise.all(
      [0, 1, 2, 0, 1, 2].map((i, k) => http(c.url(i), 'PUT', `/passinfo/passinfo/race-1/_create`, { plate: `race-${k}` })),
    );
    const statuses = attempts.map((a) => a.status).sort();
    assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409]);
    const versioned = await Promise.all([0, 1, 2].map((i) => http(c.url(i), 'PUT', `/passinfo/passinfo/race-2?version=7&version_type=external`, { n: i })));
    assert.deepEqual(versioned.map((a) => a.status).sort(), [201, 409, 409]);
  });

  test('a broker down, leader changes and produce errors during writes: every acknowledged write is there, once', async () => {
    const settings = (await ok(http(c.url(0), 'GET', '/passinfo/_settings'), 'settings')) as { passinfo: { settings: { index: { uuid: string } } } };
    const topic = `${c.clusterName}.passinfo.${settings.passinfo.settings.index.uuid}`;
    const { acked, stop } = writeLoad(c, [0, 1, 2], 'bf');
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
    assert.ok(acked.length > 0, 'some writes were acknowledged');
    await assertAllPresent(c, [0, 1, 2], 'bf-', acked);
  });

  test('kill -9 of a data node during writes: no acknowledged write lost, health yellow then green', async () => {
    const { acked, stop } = writeLoad(c, [0, 1], 'fo');
    await new Promise((r) => setTimeout(r, 1500));
    await c.kill(2);
    await c.waitForHealth('yellow', { via: 0, timeoutMs: 30_000 });
    await new Promise((r) => setTimeout(r, 2000));
    await stop();
    assert.ok(acked.length > 0);
    const health = await c.waitForHealth('green', { via: 0, nodes: 2, timeoutMs: 120_000 });
    assert.equal(health.number_of_nodes, 2);
    await assertAllPresent(c, [0, 1], 'fo-', acked);
    // The restarted node rejoins and the cluster balances copies onto it again.
    await c.restart(2);
    await c.waitForHealth('green', { via: 2, nodes: 3, timeoutMs: 120_000 });
    const count = await ok(http(c.url(2), 'GET', '/passinfo/_count'), 'count');
    assert.ok((count.count as number) >= DOCS + acked.length);
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
