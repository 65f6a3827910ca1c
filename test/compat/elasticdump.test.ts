/**
 * elasticdump (the npm tool operators move indices with), unchanged, against
 * two nodes: it exports an index's templates, settings, mapping, aliases and
 * documents from one and imports them into the other, where the index
 * answers as the original does.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startServer, http, type TestServer } from '../helpers/server.ts';

const run = promisify(execFile);
const BIN = new URL('../../node_modules/.bin/elasticdump', import.meta.url).pathname;

let source: TestServer;
let target: TestServer;
let dir: string;

/** One elasticdump run; its child process talks to the servers of this process, so it must not block the event loop. */
async function dump(input: string, output: string, type: string): Promise<string> {
  const { stdout } = await run(BIN, [`--input=${input}`, `--output=${output}`, `--type=${type}`, '--limit=100'], { encoding: 'utf8', timeout: 60_000 });
  assert.match(stdout, /dump complete/, stdout);
  return stdout;
}

const DOCS = 250;

before(async () => {
  [source, target] = await Promise.all([startServer(), startServer()]);
  dir = await mkdtemp(join(tmpdir(), 'elasticdump-'));
  const r = (m: string, p: string, b?: unknown, h?: Record<string, string>) => http(source.url, m, p, b, h);
  assert.equal((await r('PUT', '/_template/cars-tpl', { index_patterns: ['cars*'], order: 1, version: 4, settings: { number_of_replicas: 0 }, aliases: { 'all-cars': {} } })).status, 200);
  const created = await r('PUT', '/cars', {
    settings: { number_of_shards: 2, refresh_interval: '2s', analysis: { analyzer: { plate: { type: 'custom', tokenizer: 'keyword', filter: ['lowercase'] } } } },
    mappings: { _doc: { properties: { plate: { type: 'text', analyzer: 'plate' }, color: { type: 'keyword' }, n: { type: 'long' } } } },
  });
  assert.equal(created.status, 200, created.text);
  const lines: string[] = [];
  for (let i = 0; i < DOCS; i++) lines.push(JSON.stringify({ index: { _id: String(i) } }), JSON.stringify({ plate: `京A${10000 + i}`, color: i % 3 === 0 ? 'white' : 'black', n: i }));
  const bulk = await r('POST', '/cars/_doc/_bulk?refresh=true', lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
  assert.equal((bulk.body as { errors: boolean }).errors, false);
});

after(async () => {
  await Promise.all([source.stop(), target.stop()]);
  await rm(dir, { recursive: true, force: true });
});

describe('elasticdump', () => {
  test('exports templates, settings, mapping, aliases and documents', async () => {
    await dump(`${source.url}/cars-tpl`, join(dir, 'templates.json'), 'template');
    for (const type of ['settings', 'mapping', 'alias', 'data']) await dump(`${source.url}/cars`, join(dir, `${type}.json`), type);
    const data = (await readFile(join(dir, 'data.json'), 'utf8')).trim().split('\n');
    assert.equal(data.length, DOCS);
    const templates = JSON.parse(JSON.parse(await readFile(join(dir, 'templates.json'), 'utf8')) as string) as Record<string, { index_patterns: string[] }>;
    assert.deepEqual(templates['cars-tpl']!.index_patterns, ['cars*']);
  });

  test('imports them into another node, where the index answers as the original does', async () => {
    await dump(join(dir, 'templates.json'), target.url, 'template');
    for (const type of ['settings', 'mapping', 'alias', 'data']) await dump(join(dir, `${type}.json`), `${target.url}/cars`, type);
    const t = (m: string, p: string, b?: unknown) => http(target.url, m, p, b);
    await t('POST', '/cars/_refresh');

    const tpl = (await t('GET', '/_template/cars-tpl')).body as Record<string, { order: number; version: number; index_patterns: string[] }>;
    assert.deepEqual([tpl['cars-tpl']!.order, tpl['cars-tpl']!.version, tpl['cars-tpl']!.index_patterns], [1, 4, ['cars*']]);
    const settings = (await t('GET', '/cars/_settings?flat_settings=true')).body as { cars: { settings: Record<string, unknown> } };
    assert.equal(settings.cars.settings['index.number_of_shards'], '2');
    assert.equal(settings.cars.settings['index.refresh_interval'], '2s');
    assert.equal(settings.cars.settings['index.analysis.analyzer.plate.tokenizer'], 'keyword');
    const mapping = (await t('GET', '/cars/_mapping')).body;
    assert.deepEqual(mapping, (await http(source.url, 'GET', '/cars/_mapping')).body);
    const aliases = (await t('GET', '/cars/_alias')).body as { cars: { aliases: Record<string, unknown> } };
    assert.deepEqual(Object.keys(aliases.cars.aliases), ['all-cars']);

    const count = (await t('GET', '/cars/_count')).body as { count: number };
    assert.equal(count.count, DOCS);
    // The custom analyzer came along: the plate matches whole and lowercased.
    const hit = (await t('POST', '/cars/_search', { query: { match: { plate: '京a10042' } } })).body as { hits: { total: number; hits: { _id: string; _source: unknown }[] } };
    assert.equal(hit.hits.total, 1);
    assert.deepEqual(hit.hits.hits[0]!._source, { plate: '京A10042', color: 'white', n: 42 });
    const agg = async (url: string) =>
      ((await http(url, 'POST', '/cars/_search', { size: 0, aggs: { c: { terms: { field: 'color' } } } })).body as { aggregations: unknown }).aggregations;
    assert.deepEqual(await agg(target.url), await agg(source.url));
  });
});
