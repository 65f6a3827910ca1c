/**
 * The shard grid's lag is measured against the end of the log (the
 * partition's high watermark), so a shard whose only copy is stuck shows
 * it: against its most advanced copy (itself) it would read 0.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { http, startServer, type TestServer } from '../helpers/server.ts';
import { buildConsole, eventually, launch, skipReason } from './browser.ts';

const skip = skipReason();

describe('the shard grid measures lag against the log end', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer();
    await http(server.url, 'PUT', '/moving', { settings: { number_of_shards: 2, number_of_replicas: 0 } });
    for (let i = 0; i < 5; i++) await http(server.url, 'PUT', `/moving/_doc/${i}`, { i });
    await http(server.url, 'PUT', '/stuck', { settings: { number_of_shards: 1, number_of_replicas: 0 } });
    await http(server.url, 'PUT', '/stuck/_doc/1?refresh=true', { a: 1 });
    // A record the copy cannot apply: its follower stops there, the log goes on.
    const meta = server.node.cluster.indices().find((m) => m.name === 'stuck')!;
    const topic = server.node.indices.topicOf(meta);
    await server.node.log.append(topic, 0, [{ value: Buffer.from('not a document operation'), headers: {} }]);
    await server.node.log.append(topic, 0, [{ value: Buffer.from('nor this'), headers: {} }]);
  });

  after(async () => {
    await server?.stop();
  });

  test("log_ends: each shard's end of log, summed over its partitions", async () => {
    const r = await http(server.url, 'GET', '/_console/api/log_ends');
    assert.equal(r.status, 200);
    const ends = (r.body as { indices: { index: string; shards: number[] }[] }).indices;
    assert.deepEqual(
      ends.map((e) => e.index),
      ['moving', 'stuck'],
    );
    const moving = ends[0]!.shards;
    assert.equal(moving.length, 2);
    assert.equal(moving[0]! + moving[1]!, 5, 'five writes, one record each');
    assert.deepEqual(ends[1]!.shards, [3]);
  });

  describe('in the browser', { skip }, () => {
    let browser: Browser;
    let page: Page;

    before(async () => {
      buildConsole();
      browser = await launch();
      page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    });

    after(async () => {
      await browser?.close();
    });

    test('a stuck copy shows how far it is behind the log; copies that applied everything show lag 0', async () => {
      await page.goto(`${server.url}/_console/#/cluster`);
      const stuck = page.locator('#shard-grid tbody tr', { hasText: 'stuck / 0' }).locator('.copy');
      await eventually('the stuck copy in the grid', async () => (await stuck.count()) === 1);
      assert.match(await stuck.innerText(), /^P STARTED\n1 docs · .* · offset 1 · lag 2$/);
      const moving = await page.locator('#shard-grid tbody tr', { hasText: 'moving' }).locator('.copy').allInnerTexts();
      assert.equal(moving.length, 2);
      for (const c of moving) assert.match(c, /· lag 0$/);
      assert.match(await page.locator('#shard-grid caption').innerText(), /lag = records behind the end of its log/);
    });
  });
});
