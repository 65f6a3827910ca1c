/**
 * `cluster.routing.allocation.enable` and the disk watermark settings on one
 * node, over HTTP: what `PUT /_cluster/settings` accepts and refuses, a new
 * index held back by `none` (red, UNASSIGNED, explained), placed when the
 * setting goes back to `all`, and a persistent value kept across a restart.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startServer, http, tempDir, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let dir: string;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const health = async (index = '') => ((await req('GET', `/_cluster/health/${index}`)).body as { status: string }).status;

before(async () => {
  dir = await tempDir();
  server = await startServer([], dir);
  assert.equal((await req('PUT', '/before', { settings: { number_of_shards: 2, number_of_replicas: 0 } })).status, 200);
});
after(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('cluster.routing.allocation.enable on one node', () => {
  test('bad values are refused with Elasticsearch errors; any case is accepted and returned as given', async () => {
    const bad = await req('PUT', '/_cluster/settings', { transient: { 'cluster.routing.allocation.enable': 'sometimes' } });
    assert.equal(bad.status, 400);
    assert.deepEqual((bad.body as { error: { type: string; reason: string } }).error.type, 'illegal_argument_exception');
    assert.equal((bad.body as { error: { reason: string } }).error.reason, 'Illegal allocation.enable value [SOMETIMES]');
    const ok = await req('PUT', '/_cluster/settings?flat_settings', { transient: { 'cluster.routing.allocation.enable': 'PRIMARIES' } });
    assert.deepEqual(ok.body, { acknowledged: true, persistent: {}, transient: { 'cluster.routing.allocation.enable': 'PRIMARIES' } });
    await req('PUT', '/_cluster/settings', { transient: { 'cluster.routing.allocation.enable': null } });
    const defaults = (await req('GET', '/_cluster/settings?include_defaults&flat_settings')).body as { transient: object; defaults: Record<string, string> };
    assert.deepEqual(defaults.transient, {});
    assert.equal(defaults.defaults['cluster.routing.allocation.enable'], 'all');
  });

  test('none: a new index is created (shards not acknowledged), its primaries UNASSIGNED, health red, and the explain names the setting', async () => {
    assert.equal((await req('PUT', '/_cluster/settings', { transient: { cluster: { routing: { allocation: { enable: 'none' } } } } })).status, 200);
    const created = await req('PUT', '/held?timeout=300ms', { settings: { number_of_shards: 2, number_of_replicas: 0 } });
    assert.equal(created.status, 200);
    assert.deepEqual(created.body, { acknowledged: true, shards_acknowledged: false, index: 'held' });
    assert.equal(await health('held'), 'red');
    assert.equal(await health('before'), 'green');
    assert.equal((await req('GET', '/_cat/shards/held?h=index,shard,prirep,state&s=shard')).text, 'held 0 p UNASSIGNED\nheld 1 p UNASSIGNED\n');
    const e = (await req('POST', '/_cluster/allocation/explain', { index: 'held', shard: 0, primary: true })).body as {
      current_state: string;
      can_allocate: string;
      node_allocation_decisions: { deciders: { decider: string; decision: string; explanation: string }[] }[];
    };
    assert.equal(e.current_state, 'unassigned');
    assert.equal(e.can_allocate, 'no');
    assert.deepEqual(e.node_allocation_decisions[0]!.deciders, [
      { decider: 'enable', decision: 'NO', explanation: 'no allocations are allowed due to cluster setting [cluster.routing.allocation.enable=none]' },
    ]);
    // The index that was placed before stays and takes writes.
    assert.equal((await req('PUT', '/before/_doc/1?refresh=true', { n: 1 })).status, 201);
    // A write to the held index waits for a primary, then is refused as Elasticsearch refuses it.
    const write = await req('PUT', '/held/_doc/1?timeout=200ms', { n: 1 });
    assert.equal(write.status, 503);
    assert.equal((write.body as { error: { type: string } }).error.type, 'unavailable_shards_exception');
  });

  test('back to all: the held shards open, health goes green, and the index takes writes', async () => {
    assert.equal((await req('PUT', '/_cluster/settings', { transient: { 'cluster.routing.allocation.enable': 'all' } })).status, 200);
    await until('held to go green', async () => (await health('held')) === 'green');
    assert.equal((await req('GET', '/_cat/shards/held?h=index,shard,prirep,state&s=shard')).text, 'held 0 p STARTED\nheld 1 p STARTED\n');
    assert.equal((await req('PUT', '/held/_doc/1?refresh=true', { n: 1 })).status, 201);
    assert.equal(((await req('GET', '/held/_count')).body as { count: number }).count, 1);
  });

  test('new_primaries and primaries place the primaries of a new index', async () => {
    for (const enable of ['new_primaries', 'primaries']) {
      await req('PUT', '/_cluster/settings', { transient: { 'cluster.routing.allocation.enable': enable } });
      const created = await req('PUT', `/np-${enable}`, { settings: { number_of_shards: 1, number_of_replicas: 0 } });
      assert.deepEqual(created.body, { acknowledged: true, shards_acknowledged: true, index: `np-${enable}` }, enable);
      assert.equal(await health(`np-${enable}`), 'green', enable);
    }
    await req('PUT', '/_cluster/settings', { transient: { 'cluster.routing.allocation.enable': null } });
  });

  test("an index's own index.routing.allocation.enable overrides the cluster's, and a bad one is refused", async () => {
    const bad = await req('PUT', '/own-bad', { settings: { 'index.routing.allocation.enable': 'maybe' } });
    assert.equal(bad.status, 400);
    assert.equal((bad.body as { error: { reason: string } }).error.reason, 'Illegal allocation.enable value [MAYBE]');
    await req('PUT', '/own', { settings: { number_of_shards: 1, number_of_replicas: 0, 'index.routing.allocation.enable': 'none' } });
    assert.equal(await health('own'), 'red');
    const e = (await req('POST', '/_cluster/allocation/explain', { index: 'own', shard: 0, primary: true })).body as {
      node_allocation_decisions: { deciders: { explanation: string }[] }[];
    };
    assert.equal(e.node_allocation_decisions[0]!.deciders[0]!.explanation, 'no allocations are allowed due to index setting [index.routing.allocation.enable=none]');
    const badUpdate = await req('PUT', '/own/_settings', { 'index.routing.allocation.enable': 'bogus' });
    assert.equal(badUpdate.status, 400);
    assert.equal((badUpdate.body as { error: { reason: string } }).error.reason, 'Illegal allocation.enable value [BOGUS]');
    assert.equal((await req('PUT', '/own/_settings', { 'index.routing.allocation.enable': 'all' })).status, 200);
    await until('own to go green', async () => (await health('own')) === 'green');
  });

  test('a persistent none survives a restart: shards the node held open again, a shard it never held stays unassigned until reset', async () => {
    assert.equal((await req('PUT', '/_cluster/settings', { persistent: { 'cluster.routing.allocation.enable': 'none' } })).status, 200);
    await req('PUT', '/after?timeout=100ms', { settings: { number_of_shards: 1, number_of_replicas: 0 } });
    await server.stop();
    server = await startServer([], dir);
    const s = (await req('GET', '/_cluster/settings?flat_settings')).body as { persistent: Record<string, string> };
    assert.equal(s.persistent['cluster.routing.allocation.enable'], 'none');
    await until('before and held to open from their files', async () => (await health('before')) === 'green' && (await health('held')) === 'green');
    assert.equal(((await req('GET', '/held/_count')).body as { count: number }).count, 1);
    assert.equal(await health('after'), 'red');
    await req('PUT', '/_cluster/settings', { persistent: { 'cluster.routing.allocation.enable': null } });
    await until('after to go green', async () => (await health('after')) === 'green');
  });
});

describe('disk watermark settings', () => {
  const put = (transient: Record<string, unknown>) => req('PUT', '/_cluster/settings', { transient });
  const reason = (r: { body: unknown }) => (r.body as { error: { type: string; reason: string } }).error;

  test('percentages, ratios and byte sizes are accepted when consistent, and stored', async () => {
    assert.equal((await put({ 'cluster.routing.allocation.disk.watermark.low': '0.8', 'cluster.routing.allocation.disk.watermark.high': '88%' })).status, 200);
    const s = (await req('GET', '/_cluster/settings?flat_settings')).body as { transient: Record<string, string> };
    assert.equal(s.transient['cluster.routing.allocation.disk.watermark.low'], '0.8');
    const bytes = await put({
      'cluster.routing.allocation.disk.watermark.low': '50gb',
      'cluster.routing.allocation.disk.watermark.high': '30gb',
      'cluster.routing.allocation.disk.watermark.flood_stage': '10gb',
    });
    assert.equal(bytes.status, 200);
    assert.equal((await put({ 'cluster.routing.allocation.disk.threshold_enabled': false })).status, 200);
    await put({ 'cluster.routing.allocation.disk.*': null });
    const after = (await req('GET', '/_cluster/settings?flat_settings')).body as { transient: Record<string, string> };
    assert.deepEqual(after.transient, {});
  });

  test('low above high, high above flood stage, a mix of kinds and a bad value are refused with Elasticsearch messages', async () => {
    const low = await put({ 'cluster.routing.allocation.disk.watermark.low': '95%' });
    assert.equal(low.status, 400);
    assert.equal(reason(low).type, 'illegal_argument_exception');
    assert.equal(reason(low).reason, 'low disk watermark [95%] more than high disk watermark [90%]');
    assert.equal(reason(await put({ 'cluster.routing.allocation.disk.watermark.high': '97%' })).reason, 'high disk watermark [97%] more than flood stage disk watermark [95%]');
    assert.equal(
      reason(await put({ 'cluster.routing.allocation.disk.watermark.low': '10gb' })).reason,
      'unable to consistently parse [cluster.routing.allocation.disk.watermark.low=10gb], [cluster.routing.allocation.disk.watermark.high=90%], and [cluster.routing.allocation.disk.watermark.flood_stage=95%] as percentage or bytes',
    );
    assert.equal(
      reason(
        await put({
          'cluster.routing.allocation.disk.watermark.low': '10gb',
          'cluster.routing.allocation.disk.watermark.high': '20gb',
          'cluster.routing.allocation.disk.watermark.flood_stage': '5gb',
        }),
      ).reason,
      'low disk watermark [10gb] less than high disk watermark [20gb]',
    );
    const badValue = await put({ 'cluster.routing.allocation.disk.watermark.low': '150%' });
    assert.equal(badValue.status, 400);
    assert.equal(
      reason(badValue).reason,
      'failed to parse setting [cluster.routing.allocation.disk.watermark.low] with value [150%] as a size in bytes: unit is missing or unrecognized',
    );
    assert.equal(reason(await put({ 'cluster.routing.allocation.disk.threshold_enabled': 'yes' })).reason, 'Failed to parse value [yes] as only [true] or [false] are allowed.');
    // Nothing refused was stored.
    assert.deepEqual(((await req('GET', '/_cluster/settings')).body as { transient: object }).transient, {});
  });
});
