/**
 * The console's pass-record pages, served by the pass-record service
 * (services/passinfo/http-api.ts with a console folder) in a real browser,
 * on the planted data set of test/passinfo (answers known in advance).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';
import { SearchClient } from '../../services/passinfo/search-client.ts';
import { DEFAULT_INDEX_NAMES } from '../../services/passinfo/index-setup.ts';
import { importFile } from '../../services/passinfo/file-import.ts';
import { designation } from '../../services/passinfo/entry-designation.ts';
import { PassinfoQueries } from '../../services/passinfo/queries.ts';
import { buildHttpApi } from '../../services/passinfo/http-api.ts';
import { defaultConsoleDir } from '../../services/node/rest/console-static.ts';
import type { PassRecord } from '../../services/passinfo/pass-record.ts';
import * as P from '../passinfo/planted.ts';
import { buildConsole, collectErrors, launch, skipReason } from './browser.ts';

const skip = skipReason();

describe('pass-record pages of the console', { skip }, () => {
  let server: TestServer;
  let queries: PassinfoQueries;
  let app: FastifyInstance;
  let url: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let records: PassRecord[];
  let dir: string;

  before(async () => {
    buildConsole();
    server = await startServer();
    const client = new SearchClient(server.url);
    records = P.dataset(3000);
    dir = await tempDir('console-passes-');
    const file = join(dir, 'passes.ndjson');
    await writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    await importFile({ client, names: DEFAULT_INDEX_NAMES, file, rejectsFile: join(dir, 'rejects.ndjson'), designation: designation(P.ENTRY_CHECKPOINTS, P.LOOK_BACK_DAYS), index: { shards: 2, replicas: 0 }, batchSize: 3000 });
    await client.refresh('passinfo,passinfo-first-entry');
    await client.close();
    queries = new PassinfoQueries(server.url);
    app = buildHttpApi(queries, { consoleDir: defaultConsoleDir() });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const addr = app.server.address();
    url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
    errors = collectErrors(page);
    await page.goto(`${url}/_console/`);
    await page.getByRole('heading', { name: 'Pass records' }).waitFor();
  });

  after(async () => {
    await browser?.close();
    await app?.close();
    await queries?.close();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('served by the pass-record service, the console shows only the pass-record pages', async () => {
    const visible = await page.locator('nav a:visible').allInnerTexts();
    assert.deepEqual(visible, ['Pass records']);
  });

  test('a plate search marks the fragment in every plate found, and the count is the API total', async () => {
    const form = page.getByRole('form', { name: 'Plate search' });
    await form.getByLabel('Plate fragments').fill('o1000');
    await form.getByRole('button', { name: 'Search' }).click();
    await page.locator('#passes tbody tr').first().waitFor();
    const expected = records.filter((r) => r.plate.includes('O1000')).length;
    assert.match(await page.locator('#plate-results > p').innerText(), new RegExp(`^${expected} passes`));
    assert.equal(await page.locator('#passes tbody tr').count(), expected);
    const marks = await page.locator('#passes tbody .plate mark').allInnerTexts();
    assert.equal(marks.length, expected);
    assert.ok(marks.every((m) => m === 'O1000'), marks.join(','));
  });

  test('filters narrow the search to a checkpoint', async () => {
    const form = page.getByRole('form', { name: 'Plate search' });
    await form.getByLabel('Plate fragments').fill('O1000');
    await form.getByLabel('Checkpoints').fill('L0010');
    await form.getByRole('button', { name: 'Search' }).click();
    const expected = records.filter((r) => r.plate.includes('O1000') && r.land_id === 'L0010').length;
    await page.locator('#plate-results > p', { hasText: new RegExp(`^${expected} passes`) }).waitFor();
    const checkpoints = await page.locator('#passes tbody td:nth-child(2)').allInnerTexts();
    assert.equal(checkpoints.length, expected);
    assert.ok(checkpoints.every((c) => c === 'L0010'));
    await form.getByLabel('Checkpoints').fill('');
  });

  test("a plate's trajectory is a time line of its checkpoints, with its landing points", async () => {
    await page.locator('#passes tbody tr', { hasText: P.TARGET }).first().getByRole('button', { name: 'Trajectory' }).click();
    await page.locator('#trajectory').waitFor();
    const stops = await page.locator('#trajectory .stop b').allInnerTexts();
    assert.deepEqual(stops, P.ROUTE);
    assert.deepEqual(await page.locator('#trajectory .day').allInnerTexts(), [P.ROUTE_DAY]);
    assert.equal(await page.locator('#landing-points tbody tr').count(), P.ROUTE.length);
  });

  test('traffic per day is a bar per day with the day count, and downloads as CSV', async () => {
    const form = page.getByRole('form', { name: 'Traffic' });
    await form.getByLabel('Count').selectOption('day');
    await form.getByLabel('From').fill('2026-10-05');
    await form.getByLabel('To').fill('2026-10-08');
    await form.getByRole('button', { name: 'Count' }).click();
    await page.locator('#traffic-chart').waitFor();
    const perDay = new Map<string, number>();
    for (const r of records) if (r.pass_time >= '2026-10-05' && r.pass_time < '2026-10-08') perDay.set(r.pass_time.slice(0, 10), (perDay.get(r.pass_time.slice(0, 10)) ?? 0) + 1);
    const labels = await page.locator('#traffic-chart .bar-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label')));
    assert.deepEqual(labels, [...perDay].map(([d, n]) => `${d}: ${n}`));
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download traffic.csv' }).click()]);
    const text = await readFile(await download.path(), 'utf8');
    assert.equal(text, ['day,count', ...[...perDay].map(([d, n]) => `${d},${n}`)].join('\r\n') + '\r\n');
  });

  test('region collision lists the planted plates with their passes per region', async () => {
    const line = (r: { land_id: string[]; from: string; to: string }) => `${r.land_id.join(',')}@${r.from}/${r.to}`;
    await page.getByLabel(/^Regions/).fill(`${line(P.REGION_1)}\n${line(P.REGION_2)}`);
    await page.getByRole('form', { name: 'Region collision' }).getByRole('button', { name: 'Find plates' }).click();
    await page.locator('#collision-plates tbody tr').first().waitFor();
    const rows = (await page.locator('#collision-plates tbody tr').allInnerTexts()).sort();
    assert.deepEqual(rows, Object.entries(P.COLLISION).map(([plate, [a, b]]) => `${plate}\t${a}\t${b}`).sort());
  });

  test('day-hidden, night-out finds the planted night-only plate', async () => {
    const form = page.getByRole('form', { name: 'Day-hidden, night-out' });
    await form.getByLabel('From day').fill('2026-10-07');
    await form.getByLabel('To day').fill('2026-10-08');
    await form.getByRole('button', { name: 'Find plates' }).click();
    await page.locator('#day-night-plates').waitFor();
    const plates = await page.locator('#day-night-plates tbody td:nth-child(2)').allInnerTexts();
    assert.ok(plates.includes(P.NIGHT_ONLY), plates.join(','));
    assert.ok(!plates.includes(P.NIGHT_AND_DAY));
  });

  test('first entries list the planted entering plate at a designated checkpoint', async () => {
    const form = page.getByRole('form', { name: 'First entry into the city' });
    await form.getByRole('button', { name: 'List entries' }).click();
    await page.locator('#first-entry-rows').waitFor();
    assert.match(await page.locator('#first-entries > p').innerText(), /first entries at L0001, L0002 \(no pass in the 7 days before\)/);
    const rows = await page.locator('#first-entry-rows tbody tr', { hasText: P.ENTERING }).allInnerTexts();
    // 2026-10-12 at L0001 is a first entry (its previous pass is 10 days before); 2026-10-13 at L0002 is not.
    assert.deepEqual(rows.map((r) => r.split('\t').slice(0, 3).join(' ')), [`${P.ENTERING} L0001 2026-10-12 09:00:00`]);
  });

  test('companions of the planted target rank the planted companion first; similarity compares two plates', async () => {
    const form = page.getByRole('form', { name: 'Companions and trajectory similarity' });
    await form.getByLabel('Plate', { exact: true }).fill(P.TARGET);
    await form.getByLabel('From').fill(P.ROUTE_DAY);
    await form.getByLabel('To').fill('2026-10-06');
    await form.getByRole('button', { name: 'Find' }).click();
    await page.locator('#companion-rows').waitFor();
    const first = (await page.locator('#companion-rows tbody tr').first().innerText()).split('\t');
    assert.deepEqual(first.slice(0, 2), [P.COMPANION, String(P.ROUTE.length)]);
    assert.ok(!(await page.locator('#companion-rows tbody td:first-child').allInnerTexts()).includes(P.LATE));
    await form.getByLabel('Compare with plate').fill(P.COMPANION);
    await form.getByRole('button', { name: 'Find' }).click();
    // The companion's 5 route visits match the target's 5; it has one more pass (L0199): 2*5/(5+6).
    await page.locator('#similarity').waitFor();
    assert.match(await page.locator('#similarity').innerText(), /^Similarity 0\.909\d*: 5 shared visits in order, of 5 and 6$/);
  });

  test('no error was logged by the page', () => {
    assert.deepEqual(errors, []);
  });
});
