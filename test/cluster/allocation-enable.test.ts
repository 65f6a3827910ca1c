/**
 * `cluster.routing.allocation.enable` on three nodes on the mock Kafka: the
 * elected master holds back every copy of an index created under `none`
 * (red, UNASSIGNED in `_cat/shards`, the explain naming the setting on every
 * node), and places them when the setting goes back to `all`; placed copies
 * stay meanwhile, and a persistent value is what a restarted node reads.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type TestCluster } from '../helpers/cluster.ts';
import { http } from '../helpers/server.ts';

interface ShardRow {
  index: string;
  shard: string;
  prirep: string;
  state: string;
  node: string | null;
}

async function eventually(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() >= deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('allocation enable on a three-node cluster on mock Kafka', { timeout: 10 * 60_000 }, () => {
  let c: TestCluster;
  const shards = async (via: number, index: string) =>
    ((await http(c.url(via), 'GET', `/_cat/shards/${index}?format=json&h=index,shard,prirep,state,node&s=shard,prirep`)).body as ShardRow[]);
  const health = async (via: number, index: string) => ((await http(c.url(via), 'GET', `/_cluster/health/${index}`)).body as { status: string }).status;

  before(async () => {
    c = await startCluster({ nodes: 3, sessionTimeout: '10s' });
    await c.waitForHealth('green', { nodes: 3, timeoutMs: 120_000 });
    assert.equal((await http(c.url(0), 'PUT', '/placed', { settings: { number_of_shards: 3, number_of_replicas: 1 } })).status, 200);
    await c.waitForHealth('green', { timeoutMs: 120_000 });
  });
  after(async () => {
    await c?.stop();
  });

  test('none: a new index stays red with every copy UNASSIGNED, placed copies stay, and the explain names the setting', async () => {
    const before = await shards(0, 'placed');
    const set = await http(c.url(1), 'PUT', '/_cluster/settings', { persistent: { 'cluster.routing.allocation.enable': 'none' } });
    assert.equal(set.status, 200, set.text);
    const created = await http(c.url(2), 'PUT', '/held?timeout=2s', { settings: { number_of_shards: 2, number_of_replicas: 1 } });
    assert.deepEqual(created.body, { acknowledged: true, shards_acknowledged: false, index: 'held' });
    for (const via of [0, 1, 2]) {
      assert.equal(await health(via, 'held'), 'red', `node-${via}`);
      const rows = await shards(via, 'held');
      assert.deepEqual(
        rows.map((r) => `${r.shard} ${r.prirep} ${r.state}`),
        ['0 p UNASSIGNED', '0 r UNASSIGNED', '1 p UNASSIGNED', '1 r UNASSIGNED'],
        `node-${via}`,
      );
      const e = (await http(c.url(via), 'POST', '/_cluster/allocation/explain', { index: 'held', shard: 0, primary: true })).body as {
        can_allocate: string;
        node_allocation_decisions: { node_name: string; deciders: { decider: string; explanation: string }[] }[];
      };
      assert.equal(e.can_allocate, 'no');
      assert.equal(e.node_allocation_decisions.length, 3);
      for (const d of e.node_allocation_decisions) {
        assert.deepEqual(
          d.deciders.map((x) => `${x.decider}: ${x.explanation}`),
          ['enable: no allocations are allowed due to cluster setting [cluster.routing.allocation.enable=none]'],
          d.node_name,
        );
      }
    }
    // The copies placed before stay where they were, and the index takes writes.
    assert.deepEqual(await shards(0, 'placed'), before);
    assert.equal((await http(c.url(0), 'PUT', '/placed/_doc/1?refresh=true', { n: 1 })).status, 201);
  });

  test('a restarted node reads the persistent none and the index stays held', async () => {
    await c.kill(2);
    await c.restart(2);
    const s = (await http(c.url(2), 'GET', '/_cluster/settings?flat_settings')).body as { persistent: Record<string, string> };
    assert.equal(s.persistent['cluster.routing.allocation.enable'], 'none');
    await eventually('the cluster to see node-2 again with placed green', async () => (await health(2, 'placed')) === 'green', 120_000);
    assert.ok((await shards(0, 'held')).every((r) => r.state === 'UNASSIGNED'));
    assert.equal(await health(0, 'held'), 'red');
  });

  test('back to all: the master places every copy, primaries and replicas on distinct nodes, and health goes green', async () => {
    const set = await http(c.url(0), 'PUT', '/_cluster/settings', { persistent: { 'cluster.routing.allocation.enable': null } });
    assert.equal(set.status, 200);
    await eventually('held to go green on every node', async () => {
      for (const via of [0, 1, 2]) if ((await health(via, 'held')) !== 'green') return false;
      return true;
    }, 120_000);
    const rows = await shards(1, 'held');
    assert.deepEqual(rows.map((r) => `${r.shard} ${r.prirep} ${r.state}`), ['0 p STARTED', '0 r STARTED', '1 p STARTED', '1 r STARTED']);
    for (const s of ['0', '1']) {
      const nodes = rows.filter((r) => r.shard === s).map((r) => r.node);
      assert.equal(new Set(nodes).size, 2, `shard ${s} copies on distinct nodes`);
    }
    assert.equal((await http(c.url(1), 'PUT', '/held/_doc/1?refresh=true', { n: 1 })).status, 201);
  });
});
