/**
 * `_reindex` of a whole index on three nodes on mock Kafka
 * (coordinator/reindex-replay.ts): the node that takes the request reads the
 * source's log from the brokers and looks the documents up on copies that
 * are on other nodes for the shards it does not hold. Every live document
 * of the source ends up in the destination once, with its source, routing
 * and (external versioning) its version.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type TestCluster } from '../helpers/cluster.ts';
import { http } from '../helpers/server.ts';

describe('_reindex of a whole index on a three-node cluster on mock Kafka', { timeout: 10 * 60_000 }, () => {
  let c: TestCluster;

  before(async () => {
    c = await startCluster({ nodes: 3 });
    await c.waitForHealth('green', { nodes: 3, timeoutMs: 90_000, via: 'every' });
  });

  after(async () => {
    await c?.stop();
  });

  test('copies every live document once, with its source, routing and version, from copies on every node', async () => {
    const created = await http(c.url(0), 'PUT', '/src', { settings: { number_of_shards: 3, number_of_replicas: 0 } });
    assert.equal(created.status, 200, created.text);
    await c.waitForHealth('green', { timeoutMs: 60_000, via: 'every' });
    const live = new Map<string, { source: string; routing: string | null; version: number }>();
    const lines: string[] = [];
    for (let i = 0; i < 600; i++) {
      const routing = i % 10 === 0 ? `r${i}` : null;
      const source = `{"n": ${i}, "price": 2.50}`;
      lines.push(JSON.stringify({ index: { _type: '_doc', _id: `d${i}`, ...(routing ? { routing } : {}) } }), source);
      live.set(`d${i}`, { source, routing, version: 1 });
    }
    for (let i = 1; i < 600; i += 3) {
      const e = live.get(`d${i}`)!;
      const source = `{"n": ${i}, "again": true}`;
      lines.push(JSON.stringify({ index: { _type: '_doc', _id: `d${i}`, ...(e.routing ? { routing: e.routing } : {}) } }), source);
      live.set(`d${i}`, { ...e, source, version: 2 });
    }
    for (let i = 2; i < 600; i += 5) {
      const e = live.get(`d${i}`)!;
      lines.push(JSON.stringify({ delete: { _type: '_doc', _id: `d${i}`, ...(e.routing ? { routing: e.routing } : {}) } }));
      live.delete(`d${i}`);
    }
    const bulk = await http(c.url(1), 'POST', '/src/_bulk', lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
    assert.equal((bulk.body as { errors: boolean }).errors, false, bulk.text.slice(0, 500));

    const r = await http(c.url(2), 'POST', '/_reindex?refresh=true', { source: { index: 'src', size: 100 }, dest: { index: 'copy', version_type: 'external' } });
    assert.equal(r.status, 200, r.text);
    const body = r.body as { total: number; created: number; batches: number; version_conflicts: number; failures: unknown[] };
    assert.deepEqual([body.total, body.created, body.batches, body.version_conflicts, body.failures], [live.size, live.size, Math.ceil(live.size / 100), 0, []]);
    for (const [id, e] of live) {
      const q = e.routing ? `?routing=${e.routing}` : '';
      const got = (await http(c.url(0), 'GET', `/copy/_doc/${id}${q}`)).body as { found: boolean; _version: number; _routing?: string };
      assert.equal(got.found, true, id);
      assert.equal(got._version, e.version, id);
      assert.equal(got._routing ?? null, e.routing, id);
      assert.equal((await http(c.url(1), 'GET', `/copy/_doc/${id}/_source${q}`)).text, e.source, id);
    }
    const count = (await http(c.url(0), 'GET', '/copy/_count')).body as { count: number };
    assert.equal(count.count, live.size);
  });
});
