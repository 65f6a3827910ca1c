/**
 * Takes the node console's screenshots in docs/images/ (cluster, console,
 * traces) from a three-node cluster on mock Kafka (test/helpers/cluster.ts),
 * in headless Chromium (test/console/browser.ts). The pass-record page's
 * screenshot comes from its own service and is not retaken here.
 *
 *   bash test/helpers/mock-kafka/build.sh && npx tsx scripts/console-screenshots.ts
 */
import { join } from 'node:path';
import { startCluster } from '../test/helpers/cluster.ts';
import { http } from '../test/helpers/server.ts';
import { buildConsole, launch } from '../test/console/browser.ts';

const images = new URL('../docs/images/', import.meta.url).pathname;

async function main(): Promise<void> {
  buildConsole();
  const c = await startCluster({ nodes: 3, clusterName: 'logsearch-demo', sessionTimeout: '30s', nodeFlags: () => ['--telemetry.traces.buffer_size', '10000'] });
  const browser = await launch();
  try {
    await c.waitForHealth('green', { nodes: 3, timeoutMs: 90_000, via: 'every' });
    const url = c.url(0);
    await http(url, 'PUT', '/logs-2026.11.27', {
      settings: {
        number_of_shards: 3,
        number_of_replicas: 1,
        'index.search.slowlog.threshold.query.warn': '20ms',
        'index.search.slowlog.threshold.query.info': '0ms',
        'index.indexing.slowlog.threshold.index.info': '0ms',
      },
      mappings: { _doc: { properties: { message: { type: 'text', fields: { keyword: { type: 'keyword' } } }, level: { type: 'keyword' }, took_ms: { type: 'long' } } } },
    });
    await http(url, 'PUT', '/orders', { settings: { number_of_shards: 2, number_of_replicas: 2 } });
    await http(url, 'POST', '/_aliases', { actions: [{ add: { index: 'logs-2026.11.27', alias: 'logs' } }] });
    await c.waitForHealth('green', { nodes: 3, timeoutMs: 90_000 });
    const lines: string[] = [];
    for (let i = 0; i < 300; i++) {
      lines.push(JSON.stringify({ index: { _index: 'logs-2026.11.27', _type: '_doc', _id: String(i) } }));
      lines.push(JSON.stringify({ message: `request ${i} served`, level: i % 7 === 0 ? 'warn' : 'info', took_ms: i % 50 }));
    }
    await http(url, 'POST', '/_bulk?refresh=true', `${lines.join('\n')}\n`, { 'content-type': 'application/x-ndjson' });
    await http(url, 'PUT', '/orders/_doc/1?refresh=true', { item: 'plate', count: 2 });
    await http(url, 'POST', '/logs/_search', { query: { match: { message: 'served' } }, aggs: { levels: { terms: { field: 'level' } } } });

    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    await page.goto(`${url}/_console/#/cluster`);
    await page.locator('#shard-grid tbody tr', { hasText: 'orders / 1' }).waitFor();
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(images, 'console-cluster.png'), fullPage: true });

    await page.goto('about:blank');
    await page.goto(`${url}/_console/#/console`);
    const path = page.getByRole('combobox', { name: 'Path' });
    await path.fill('/logs-2026.11.27/_search');
    await path.dispatchEvent('change');
    await page.getByRole('button', { name: 'level', exact: true }).waitFor();
    await page.getByLabel('Method').selectOption('POST');
    const body = page.getByRole('combobox', { name: /^Body/ });
    await body.fill('{\n  "query": {\n    "match": { "message": "served" }\n  },\n  "size": 2\n}');
    await body.press('Control+Enter');
    await page.locator('#resp-status', { hasText: '200' }).waitFor();
    // The completion popup open on a field name, as a user sees it while typing.
    await body.fill('{\n  "query": {\n    "match": { "message": "served" }\n  },\n  "sort": [{ "');
    await body.press('End');
    await body.press('Control+Space');
    await page.getByRole('listbox', { name: 'Fields' }).waitFor();
    await page.screenshot({ path: join(images, 'console-devtools.png'), fullPage: true });

    await page.goto('about:blank');
    await page.goto(`${url}/_console/#/traces`);
    await page.getByLabel('Path').fill('/_bulk');
    await page.getByRole('button', { name: 'Search' }).click();
    const bulk = page.getByRole('link', { name: 'POST /_bulk' }).first();
    await bulk.waitFor();
    await bulk.click();
    await page.locator('#waterfall').waitFor();
    await page.locator('#slow-log').waitFor();
    await page.screenshot({ path: join(images, 'console-traces.png'), fullPage: true });
    process.stdout.write(`screenshots in ${images}\n`);
  } finally {
    await browser.close();
    await c.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
