/**
 * The web console in a real browser (headless Chromium, browser.ts) against
 * a started node: what a user sees on each page after what they do.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { http, startServer, type TestServer } from '../helpers/server.ts';
import { buildConsole, collectErrors, eventually, launch, skipReason } from './browser.ts';

const skip = skipReason();
if (skip) console.log(`# ${skip}`);

describe('web console', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  /** An OTLP collector: the spans the node exports beside its buffer (their trace ids). */
  let collector: Server;
  const exported = new Set<string>();

  before(async () => {
    buildConsole();
    collector = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        for (const m of body.matchAll(/"traceId":"([0-9a-f]{32})"/g)) exported.add(m[1]!);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    server = await startServer([
      '--telemetry.traces.buffer_size',
      '2000',
      '--telemetry.otlp.endpoint',
      `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
      '--telemetry.jaeger.ui_url',
      'http://jaeger.test:16686',
    ]);
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    errors = collectErrors(page);
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise((r) => collector?.close(r));
  });

  /** A fresh load of a page (going to the same URL with another hash would not reload it). */
  const open = async (hash: string) => {
    await page.goto('about:blank');
    await page.goto(`${server.url}/_console/#/${hash}`);
  };
  const rowTexts = (selector: string) => page.locator(selector).allInnerTexts();

  test('the node serves the console under a strict Content-Security-Policy, and a file it does not have is a 404', async () => {
    const res = await fetch(`${server.url}/_console/`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'; script-src 'self'/);
    assert.match(await res.text(), /<script type="module" src="app.js"><\/script>/);
    const js = await fetch(`${server.url}/_console/app.js`);
    assert.equal(js.status, 200);
    assert.match(js.headers.get('content-type') ?? '', /^text\/javascript/);
    const missing = await http(server.url, 'GET', '/_console/package.json');
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, { error: 'no console file [package.json]', status: 404 });
    assert.deepEqual((await http(server.url, 'GET', '/_console/api/app')).body, { app: 'node' });
    const redirect = await fetch(`${server.url}/_console`, { redirect: 'manual' });
    assert.equal(redirect.status, 301);
    assert.equal(redirect.headers.get('location'), '/_console/');
  });

  test('the cluster page shows health, the node and an index with its shards and alias', async () => {
    await http(server.url, 'PUT', '/orders', { settings: { number_of_shards: 2, number_of_replicas: 0 } });
    await http(server.url, 'PUT', '/orders/_doc/1?refresh=true', { item: 'plate' });
    await http(server.url, 'POST', '/_aliases', { actions: [{ add: { index: 'orders', alias: 'shop' } }] });
    await open('cluster');
    await page.locator('#indices tbody tr', { hasText: 'orders' }).waitFor();
    assert.match(await page.locator('#health').innerText(), /status\s+green/);
    assert.deepEqual(await rowTexts('#nodes tbody tr td:first-child'), ['test-node']);
    const orders = await page.locator('#indices tbody tr', { hasText: 'orders' }).innerText();
    assert.match(orders, /orders\s+green\s+open\s+2\s+0\s+1\s+0/);
    assert.deepEqual(await rowTexts('#shard-grid tbody th'), ['orders / 0', 'orders / 1']);
    const copies = await rowTexts('#shard-grid tbody .copy');
    assert.equal(copies.length, 2);
    for (const c of copies) assert.match(c, /^P STARTED\n\d docs · .* · offset \d · lag 0$/);
    // The document went to one shard: that copy is at offset 1, with 1 doc.
    assert.equal(copies.filter((c) => /1 docs · .* · offset 1 · lag 0/.test(c)).length, 1);
    assert.deepEqual(await rowTexts('#aliases tbody tr'), ['shop\torders\t-\t-\t-']);
  });

  test('creating an index from the form asks first, then its shards appear in the grid', async () => {
    await open('cluster');
    const form = page.getByRole('form', { name: 'Create an index' });
    await form.getByLabel('Name').fill('grid-test');
    await form.getByLabel('Shards').fill('3');
    await form.getByLabel('Replicas').fill('0');
    await form.getByRole('button', { name: 'Create…' }).click();
    const dialog = page.getByRole('dialog');
    assert.match(await dialog.innerText(), /Create the index grid-test with 3 shard\(s\) and 0 replica\(s\)\?/);
    await dialog.getByRole('button', { name: 'Create grid-test' }).click();
    await page.locator('#shard-grid tbody th', { hasText: 'grid-test / 2' }).waitFor();
    assert.deepEqual(
      (await rowTexts('#shard-grid tbody th')).filter((t) => t.startsWith('grid-test')),
      ['grid-test / 0', 'grid-test / 1', 'grid-test / 2'],
    );
    const created = await http(server.url, 'GET', '/grid-test/_settings');
    assert.equal((created.body as Record<string, { settings: { index: { number_of_shards: string } } }>)['grid-test'].settings.index.number_of_shards, '3');
  });

  test('changing replicas adds an unassigned replica per shard on a one-node cluster', async () => {
    await open('cluster');
    await page.getByRole('button', { name: 'Change replicas of grid-test' }).click();
    await page.getByRole('dialog').getByLabel('Replicas').fill('1');
    await page.getByRole('dialog').getByRole('button', { name: 'Set replicas' }).click();
    await eventually('three unassigned replicas of grid-test', async () => {
      const rows = await page.locator('#shard-grid tbody tr', { hasText: 'grid-test' }).allInnerTexts();
      return rows.length === 3 && rows.every((r) => /R UNASSIGNED/.test(r));
    });
    assert.match(await page.locator('#indices tbody tr', { hasText: 'grid-test' }).innerText(), /grid-test\s+yellow\s+open\s+3\s+1/);
  });

  test('moving an alias points it at the other index only', async () => {
    await open('cluster');
    const form = page.getByRole('form', { name: 'Move an alias' });
    await form.getByLabel('Alias').fill('shop');
    await form.getByLabel('To index').fill('grid-test');
    await form.getByRole('button', { name: 'Move…' }).click();
    const dialog = page.getByRole('dialog');
    assert.match(await dialog.innerText(), /Move the alias shop from orders to grid-test\?/);
    await dialog.getByRole('button', { name: 'Move alias' }).click();
    await eventually('the alias row names grid-test', async () => (await rowTexts('#aliases tbody tr')).join('|') === 'shop\tgrid-test\t-\t-\t-');
    const aliases = await http(server.url, 'GET', '/_alias/shop');
    assert.deepEqual(Object.keys(aliases.body as object), ['grid-test']);
  });

  test('deleting an index is cancelled or confirmed in its dialog', async () => {
    await open('cluster');
    await page.getByRole('button', { name: 'Delete index grid-test' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await http(server.url, 'HEAD', '/grid-test')).status, 200);
    await page.getByRole('button', { name: 'Delete index grid-test' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete grid-test' }).click();
    await eventually('grid-test gone from the indices and the grid', async () => {
      const names = await rowTexts('#indices tbody tr td:first-child');
      return !names.includes('grid-test') && names.includes('orders');
    });
    assert.deepEqual(await rowTexts('#shard-grid tbody th'), ['orders / 0', 'orders / 1']);
    assert.equal((await http(server.url, 'HEAD', '/grid-test')).status, 404);
  });

  test('the console sends a search and shows the pretty-printed answer with its status, and keeps it in the history', async () => {
    await open('console');
    await page.getByLabel('Method').selectOption('POST');
    await page.getByLabel('Path').fill('/orders/_search');
    await page.getByLabel(/^Body/).fill('{"query": {"match": {"item": "plate"}}}');
    assert.equal(await page.locator('#body-check').innerText(), 'Valid JSON');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('#resp-status', { hasText: '200 OK' }).waitFor();
    const body = JSON.parse(await page.locator('#resp-body').innerText()) as { hits: { total: number; hits: { _id: string }[] } };
    assert.equal(body.hits.total, 1);
    assert.equal(body.hits.hits[0]._id, '1');
    assert.match(await page.locator('#resp-body').innerText(), /^\{\n {2}"took"/);
    assert.equal((await rowTexts('#history li'))[0], 'POST /orders/_search');
  });

  test('the console refuses to send a body that is not JSON and says where it breaks', async () => {
    await open('console');
    await page.getByLabel('Method').selectOption('POST');
    await page.getByLabel('Path').fill('/orders/_search');
    await page.getByLabel(/^Body/).fill('{"query": {"match_all": {}}');
    assert.match(await page.locator('#body-check').innerText(), /^Invalid JSON: .* \(line 1, column 28\)$/);
    await page.getByRole('button', { name: 'Send' }).click();
    assert.match(await page.locator('#resp-status').innerText(), /^Not sent: the body is not valid JSON/);
  });

  test('the console shows a _cat page as a table and an error with its status', async () => {
    await open('console');
    await page.getByLabel('Method').selectOption('GET');
    await page.getByLabel('Path').fill('/_cat/indices');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('#resp-table table').waitFor();
    assert.deepEqual(await rowTexts('#resp-table tbody tr td:nth-child(3)'), ['orders']);
    await page.getByLabel('Path').fill('/missing-index/_search');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('#resp-status', { hasText: '404 Not Found' }).waitFor();
    assert.match(await page.locator('#resp-body').innerText(), /"type": "index_not_found_exception"/);
  });

  test('the console offers the fields of the index in the path and inserts one into the body', async () => {
    await open('console');
    await page.getByLabel('Path').fill('/orders/_search');
    await page.getByLabel('Path').dispatchEvent('change');
    await page.getByRole('button', { name: 'item', exact: true }).waitFor();
    await page.getByLabel(/^Body/).fill('');
    await page.getByRole('button', { name: 'item', exact: true }).click();
    assert.equal(await page.getByLabel(/^Body/).inputValue(), '"item"');
  });

  test('completion popup: endpoints in the path and mapping fields in the body, by keyboard (arrows, Enter, Tab, Escape) and by click', async () => {
    await open('console');
    const path = page.getByRole('combobox', { name: 'Path' });
    const endpoints = page.getByRole('listbox', { name: 'Endpoints' });
    await path.fill('');
    await path.pressSequentially('/ord');
    await endpoints.waitFor();
    assert.equal(await path.getAttribute('aria-expanded'), 'true');
    const offered = await endpoints.getByRole('option').allInnerTexts();
    assert.ok(offered.length > 3 && offered.every((o) => o.startsWith('/ord')), offered.join(', '));
    assert.ok(offered.includes('/orders/_search'), offered.join(', '));
    // The first is active; ArrowDown moves on, ArrowUp back, and the field says which is active.
    const selected = () => endpoints.locator('[aria-selected="true"]').innerText();
    assert.equal(await selected(), offered[0]);
    await path.press('ArrowDown');
    assert.equal(await selected(), offered[1]);
    const active = await path.getAttribute('aria-activedescendant');
    assert.equal(await page.locator(`#${active}`).innerText(), offered[1]);
    await path.press('ArrowUp');
    assert.equal(await selected(), offered[0]);
    // Type on to narrow the list, choose with the arrows, take with Enter (which does not send the request).
    await path.pressSequentially('ers/_sea');
    assert.deepEqual(await endpoints.getByRole('option').allInnerTexts(), ['/orders/_search']);
    await path.press('Enter');
    assert.equal(await path.inputValue(), '/orders/_search');
    assert.equal(await endpoints.isVisible(), false);
    assert.equal(await page.locator('#resp-status').innerText(), '');
    // Escape closes the list and leaves the text as typed.
    await path.pressSequentially('?');
    await path.fill('/_cat/');
    await path.press('End');
    await path.pressSequentially('n');
    await endpoints.waitFor();
    await path.press('Escape');
    assert.equal(await endpoints.isVisible(), false);
    assert.equal(await path.inputValue(), '/_cat/n');
    await path.fill('/orders/_search');
    await path.dispatchEvent('change');
    await page.getByRole('button', { name: 'item', exact: true }).waitFor();

    // In the body: typing a string offers the mapping's fields; Tab takes one and closes the quote.
    const body = page.getByRole('combobox', { name: /^Body/ });
    const fields = page.getByRole('listbox', { name: 'Fields' });
    await body.fill('');
    await body.pressSequentially('{"query": {"match": {"');
    await fields.waitFor();
    assert.deepEqual(await fields.getByRole('option').allInnerTexts(), ['item', 'item.keyword']);
    await body.pressSequentially('it');
    await body.press('ArrowDown');
    await body.press('Tab');
    assert.equal(await body.inputValue(), '{"query": {"match": {"item.keyword"');
    assert.equal(await fields.isVisible(), false);
    await body.pressSequentially(': "plate"}}}');
    assert.equal(await page.locator('#body-check').innerText(), 'Valid JSON');
    // Ctrl+Space asks inside a string; a click takes an option; Ctrl+Enter still sends.
    await body.fill('{"sort": ["');
    await body.press('End');
    await body.press('Control+Space');
    await fields.getByRole('option', { name: 'item', exact: true }).click();
    assert.equal(await body.inputValue(), '{"sort": ["item"');
    await page.getByLabel('Method').selectOption('POST');
    await body.fill('{"query": {"match": {"item": "plate"}}}');
    await body.press('Control+Enter');
    await page.locator('#resp-status', { hasText: '200' }).waitFor();
  });

  test('a written document has a trace: HTTP, produce and one apply span per copy, with the log offset', async () => {
    const put = await http(server.url, 'PUT', '/orders/_doc/traced', { item: 'trace me' });
    assert.equal(put.status, 201);
    await open('traces');
    await page.getByLabel('Path').fill('/orders/_doc/traced');
    await page.getByRole('button', { name: 'Search' }).click();
    await eventually('one trace for the write', async () => (await rowTexts('#traces tbody tr')).length === 1);
    const row = (await rowTexts('#traces tbody tr'))[0];
    assert.match(row, /PUT \/orders\/_doc\/traced\t201\t.* ms\t\d+\torders/);
    await page.getByRole('link', { name: 'PUT /orders/_doc/traced' }).click();
    await page.locator('#waterfall').waitFor();
    const names = await Promise.all((await page.locator('#waterfall .span-row').all()).map((row) => row.getAttribute('data-name')));
    assert.equal(names[0], 'PUT /{index}/{type}/{id}');
    assert.ok(names.includes('produce'), `spans: ${names.join(', ')}`);
    // orders has no replicas on this one node: one started copy, one apply.
    assert.equal(names.filter((n) => n === 'apply').length, 1);
    const apply = await page.locator('#waterfall .span-row[data-name="apply"] summary').innerText();
    assert.match(apply, /orders\[\d\] · offsets? \d+/);
    // The spans went to the OTLP endpoint too, and the view links to the same trace in Jaeger.
    const traceId = /#\/traces\/([0-9a-f]{32})$/.exec(page.url())![1]!;
    assert.equal(await page.getByRole('link', { name: 'Open in Jaeger' }).getAttribute('href'), `http://jaeger.test:16686/trace/${traceId}`);
    await eventually('the trace exported over OTLP', async () => exported.has(traceId));
    assert.match(await page.locator('#trace-nodes').innerText(), /Spans from test-node \(\d+\)/);
  });

  test("slow requests are listed with their trace: a slow search's query and fetch, a slow write's apply; the link opens the trace", async () => {
    const bad = await http(server.url, 'PUT', '/slowpoke', { settings: { 'index.search.slowlog.threshold.query.warn': 'soon' } });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /failed to parse setting \[index.search.slowlog.threshold.query.warn\] with value \[soon\] as a time value/);
    // 0ms: every query phase and applied batch of this index is slow; fetch only from 1 hour (so never).
    const created = await http(server.url, 'PUT', '/slowpoke', {
      settings: {
        number_of_shards: 1,
        number_of_replicas: 0,
        'index.search.slowlog.threshold.query.warn': '0ms',
        'index.search.slowlog.threshold.fetch.info': '1h',
        'index.indexing.slowlog.threshold.index.debug': '0ms',
      },
    });
    assert.equal(created.status, 200, created.text);
    const writeTrace = '9af92f3577b34da6a3ce929d0e0e4736';
    const searchTrace = '9bf92f3577b34da6a3ce929d0e0e4736';
    const put = await http(server.url, 'PUT', '/slowpoke/_doc/1?refresh=true', { slow: 'poke' }, { traceparent: `00-${writeTrace}-00f067aa0ba902b7-01` });
    assert.equal(put.status, 201);
    const found = await http(server.url, 'POST', '/slowpoke/_search', { query: { match: { slow: 'poke' } } }, { traceparent: `00-${searchTrace}-00f067aa0ba902b7-01` });
    assert.equal(found.status, 200);
    const log = (await http(server.url, 'GET', '/_console/api/slow_log')).body as {
      entries: { kind: string; level: string; index: string; traceId: string | null; count: number; source: string | null; node: string }[];
    };
    const mine = log.entries.filter((e) => e.index === 'slowpoke');
    assert.deepEqual(
      mine.map((e) => [e.kind, e.level, e.traceId, e.count]),
      [
        ['query', 'warn', searchTrace, 1],
        ['index', 'debug', writeTrace, 1],
      ],
    );
    assert.equal(mine[0]!.source, '{"query":{"match":{"slow":"poke"}}}');
    assert.equal(mine[0]!.node, 'test-node');

    await open('traces');
    const rows = page.locator('#slow-log tbody tr');
    await eventually('the slow entries listed', async () => (await rows.count()) >= 2);
    const texts = (await rows.allInnerTexts()).filter((t) => t.includes('slowpoke[0]'));
    assert.match(texts[0]!, /test-node\tWARN\tsearch query\tslowpoke\[0\]\t.* ms\ttrace 9bf92f35/);
    assert.match(texts[1]!, /test-node\tDEBUG\tindexing\tslowpoke\[0\]\t.* ms\ttrace 9af92f35/);
    await page.getByRole('link', { name: 'trace 9bf92f35' }).click();
    await page.locator('#waterfall').waitFor();
    assert.match(await page.locator('#trace h2').innerText(), new RegExp(`Trace ${searchTrace}`));
    const names = await Promise.all((await page.locator('#waterfall .span-row').all()).map((row) => row.getAttribute('data-name')));
    assert.ok(names.includes('query') && names.includes('fetch'), names.join(', '));
  });

  test('the traces page filters by status and leaves out the console own requests', async () => {
    await http(server.url, 'GET', '/nothing-here/_search');
    await open('traces');
    await page.getByLabel('Status').fill('404');
    await page.getByRole('button', { name: 'Search' }).click();
    await eventually('the 404 search is listed', async () => (await rowTexts('#traces tbody tr')).some((r) => r.includes('/nothing-here/_search')));
    for (const r of await rowTexts('#traces tbody tr')) assert.match(r, /\t404\t/);
    const all = await http(server.url, 'GET', '/_console/api/traces?size=1000');
    const paths = (all.body as { traces: { path: string | null }[] }).traces.map((t) => t.path ?? '');
    assert.ok(!paths.some((p) => p.startsWith('/_console') || p.startsWith('/_cat/shards')), paths.join(', '));
  });

  test('a rebuild started from the cluster page is followed to its end, and moves the alias', async () => {
    await http(server.url, 'POST', '/_aliases', { actions: [{ add: { index: 'orders', alias: 'current' } }] });
    // An earlier test wrote a document without refresh: count what the rebuild will replay.
    await http(server.url, 'POST', '/orders/_refresh');
    const before = (await http(server.url, 'GET', '/orders/_count')).body as { count: number };
    assert.equal(before.count, 2);
    await open('cluster');
    await page.getByRole('button', { name: 'Rebuild orders' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rebuild orders' });
    await dialog.getByLabel('New index').fill('orders-v2');
    await dialog.getByLabel('Shards').fill('1');
    await dialog.getByLabel('Move alias').selectOption('current');
    await dialog.getByLabel('Mappings (JSON)').fill('{"_doc": {"properties": {"item": {"type": "keyword"}}');
    await dialog.getByRole('button', { name: 'Start rebuild' }).click();
    assert.match(await dialog.getByRole('alert').innerText(), /^The mappings are not valid JSON/);
    await dialog.getByLabel('Mappings (JSON)').fill('{"_doc": {"properties": {"item": {"type": "keyword"}}}}');
    await dialog.getByRole('button', { name: 'Start rebuild' }).click();
    const task = page.locator('#tasks .task', { hasText: 'Rebuild orders → orders-v2' });
    await task.locator('.task-status', { hasText: /^done/ }).waitFor({ timeout: 30_000 });
    assert.match(await task.locator('.task-status').innerText(), /^done: \d+ ops replayed, alias current → orders-v2$/);
    await eventually('orders-v2 in the grid and the alias moved', async () => {
      const shards = await rowTexts('#shard-grid tbody th');
      const aliases = await rowTexts('#aliases tbody tr');
      return shards.includes('orders-v2 / 0') && aliases.includes('current\torders-v2\t-\t-\t-');
    });
    const after = (await http(server.url, 'GET', '/orders-v2/_count')).body as { count: number };
    assert.equal(after.count, before.count);
    const mapping = (await http(server.url, 'GET', '/orders-v2/_mapping')).body as Record<string, { mappings: Record<string, { properties: { item: { type: string } } }> }>;
    assert.equal(Object.values(mapping['orders-v2'].mappings)[0].properties.item.type, 'keyword');
  });

  test('no page logged an error (no CSP violation, no failed load)', () => {
    assert.deepEqual(
      errors.filter((e) => !/status of 404/.test(e)),
      [],
    );
  });
});
