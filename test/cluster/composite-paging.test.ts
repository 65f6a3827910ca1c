/**
 * `composite` paging across two node processes: an index of four shards
 * without replicas spreads its shards over both nodes, so each page merges
 * states that crossed the transport. Paging with `after_key`, alternating
 * the coordinating node, must read every plate's bucket exactly once with
 * its exact count.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type TestCluster } from '../helpers/cluster.ts';
import { http } from '../helpers/server.ts';

let c: TestCluster;
const PLATES = 157;
/** Plate i passes (i % 5) + 1 times. */
const passesOf = (i: number): number => (i % 5) + 1;

before(async () => {
  c = await startCluster({ nodes: 2 });
  await c.waitForHealth('green', { nodes: 2, timeoutMs: 90_000 });
  const created = await http(c.url(0), 'PUT', '/passes', { settings: { number_of_shards: 4, number_of_replicas: 0 }, mappings: { _doc: { properties: { plate: { type: 'keyword' } } } } });
  assert.equal(created.status, 200, created.text);
  await c.waitForHealth('green', { nodes: 2, timeoutMs: 90_000 });
  const lines: string[] = [];
  for (let i = 0; i < PLATES; i++) {
    for (let k = 0; k < passesOf(i); k++) lines.push('{"index":{}}', JSON.stringify({ plate: `P${String(i).padStart(4, '0')}` }));
  }
  const r = await http(c.url(1), 'POST', '/passes/_doc/_bulk?refresh=true', `${lines.join('\n')}\n`, { 'content-type': 'application/x-ndjson' });
  assert.equal(r.status, 200, r.text.slice(0, 300));
}, { timeout: 180_000 });

after(async () => {
  await c?.stop();
});

describe('composite across nodes', () => {
  test('the four shards sit on both nodes', async () => {
    const rows = (await http(c.url(0), 'GET', '/_cat/shards/passes?format=json')).body as { node: string }[];
    assert.equal(new Set(rows.map((r) => r.node)).size, 2, JSON.stringify(rows));
  });

  test('pages of 10, coordinated by alternating nodes, read every plate once with its count', async () => {
    const counts = new Map<string, number>();
    const order: string[] = [];
    let afterKey: Record<string, unknown> | undefined;
    for (let page = 0; page < 100; page++) {
      const body = { size: 0, aggs: { plates: { composite: { size: 10, sources: [{ plate: { terms: { field: 'plate' } } }], ...(afterKey ? { after: afterKey } : {}) } } } };
      const r = await http(c.url(page % 2), 'POST', '/passes/_search', body);
      assert.equal(r.status, 200, r.text.slice(0, 300));
      const agg = (r.body as { aggregations: { plates: { after_key?: Record<string, unknown>; buckets: { key: { plate: string }; doc_count: number }[] } } }).aggregations.plates;
      if (agg.buckets.length === 0) break;
      for (const b of agg.buckets) {
        assert.ok(!counts.has(b.key.plate), `${b.key.plate} on two pages`);
        counts.set(b.key.plate, b.doc_count);
        order.push(b.key.plate);
      }
      afterKey = agg.after_key;
    }
    assert.equal(counts.size, PLATES);
    assert.deepEqual(order, [...order].sort());
    for (let i = 0; i < PLATES; i++) assert.equal(counts.get(`P${String(i).padStart(4, '0')}`), passesOf(i));
  });
});
