/**
 * Index templates: stored through the meta log, applied by order when an
 * index is created or auto-created, and kept across a restart.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, tempDir, http, type TestServer } from '../helpers/server.ts';
import { rm } from 'node:fs/promises';

let dir: string;
let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);

interface IndexBody {
  settings: { index: Record<string, unknown> };
  mappings: Record<string, { properties: Record<string, { type: string; analyzer?: string }> }>;
  aliases: Record<string, Record<string, unknown>>;
}

before(async () => {
  dir = await tempDir();
  server = await startServer([], dir);
});
after(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('index templates', () => {
  test('templates apply lowest order first, the request overrides them, and {index} aliases name the new index', async () => {
    assert.equal(
      (
        await req('PUT', '/_template/logs-base', {
          index_patterns: ['logs-*'],
          order: 0,
          settings: { number_of_shards: 3, number_of_replicas: 0, refresh_interval: '5s' },
          mappings: { _doc: { properties: { host: { type: 'keyword' }, msg: { type: 'text' } } } },
          aliases: { 'all-logs': {}, '{index}-alias': {} },
        })
      ).status,
      200,
    );
    assert.equal(
      (
        await req('PUT', '/_template/logs-web', {
          index_patterns: 'logs-web-*',
          order: 5,
          version: 3,
          settings: { index: { number_of_shards: 2 } },
          mappings: { _doc: { properties: { msg: { type: 'text', analyzer: 'whitespace' }, status: { type: 'integer' } } } },
        })
      ).status,
      200,
    );
    const created = await req('PUT', '/logs-web-1', { settings: { refresh_interval: '2s' }, mappings: { _doc: { properties: { path: { type: 'keyword' } } } } });
    assert.equal(created.status, 200, created.text);
    const got = (await req('GET', '/logs-web-1')).body as Record<string, IndexBody>;
    const idx = got['logs-web-1']!;
    assert.equal(idx.settings.index.number_of_shards, '2');
    assert.equal(idx.settings.index.number_of_replicas, '0');
    assert.equal(idx.settings.index.refresh_interval, '2s');
    const props = idx.mappings._doc!.properties;
    assert.deepEqual(Object.keys(props).sort(), ['host', 'msg', 'path', 'status']);
    assert.equal(props.msg!.analyzer, 'whitespace');
    assert.deepEqual(Object.keys(idx.aliases).sort(), ['all-logs', 'logs-web-1-alias']);
    // An index the higher-order template does not match gets only the base one.
    await req('PUT', '/logs-db-1', {});
    const db = ((await req('GET', '/logs-db-1')).body as Record<string, IndexBody>)['logs-db-1']!;
    assert.equal(db.settings.index.number_of_shards, '3');
    assert.equal(db.mappings._doc!.properties.msg!.analyzer, undefined);
  });

  test('an index auto-created by a write gets the templates too', async () => {
    await req('PUT', '/_template/auto', { index_patterns: ['auto-*'], settings: { number_of_shards: 1 }, mappings: { _doc: { properties: { code: { type: 'keyword' } } } } });
    const w = await req('PUT', '/auto-1/_doc/1?refresh=true', { code: 'A12', n: 1 });
    assert.equal(w.status, 201, w.text);
    const idx = ((await req('GET', '/auto-1')).body as Record<string, IndexBody>)['auto-1']!;
    assert.equal(idx.settings.index.number_of_shards, '1');
    assert.equal(idx.mappings._doc!.properties.code!.type, 'keyword');
    assert.equal(idx.mappings._doc!.properties.n!.type, 'long');
  });

  test('GET lists templates by name and wildcard, HEAD says whether one exists, DELETE removes it', async () => {
    await req('PUT', '/_template/t-one', { index_patterns: ['one-*'], version: 7 });
    const one = await req('GET', '/_template/t-one?flat_settings=true');
    assert.deepEqual(one.body, { 't-one': { order: 0, version: 7, index_patterns: ['one-*'], settings: {}, mappings: {}, aliases: {} } });
    const wild = (await req('GET', '/_template/logs-*')).body as Record<string, unknown>;
    assert.deepEqual(Object.keys(wild).sort(), ['logs-base', 'logs-web']);
    assert.equal((await req('HEAD', '/_template/t-one')).status, 200);
    assert.equal((await req('HEAD', '/_template/none')).status, 404);
    const missing = await req('GET', '/_template/none');
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, {});
    assert.equal((await req('DELETE', '/_template/t-one')).status, 200);
    const again = await req('DELETE', '/_template/t-one');
    assert.equal(again.status, 404);
    assert.equal((again.body as { error: { type: string; reason: string } }).error.reason, 'index_template [t-one] missing');
  });

  test('bad templates are refused with Elasticsearch errors and change nothing', async () => {
    const noPatterns = await req('PUT', '/_template/bad', { settings: {} });
    assert.equal(noPatterns.status, 400);
    assert.equal((noPatterns.body as { error: { reason: string } }).error.reason, 'Validation Failed: 1: index patterns are missing;');
    const badName = await req('PUT', '/_template/Bad_Name', { index_patterns: ['x*'] });
    assert.equal(badName.status, 400);
    assert.equal(
      (badName.body as { error: { type: string; reason: string } }).error.reason,
      'index_template [Bad_Name] invalid, cause [Validation Failed: 1: name must be lower cased;]',
    );
    const badShards = await req('PUT', '/_template/bad', { index_patterns: ['x*'], settings: { number_of_shards: 0 } });
    assert.equal(badShards.status, 400);
    assert.match((badShards.body as { error: { reason: string } }).error.reason, /must be >= 1/);
    const badMapping = await req('PUT', '/_template/bad', { index_patterns: ['x*'], mappings: { _doc: { properties: { f: { type: 'nope' } } } } });
    assert.equal(badMapping.status, 400);
    const unknownKey = await req('PUT', '/_template/bad', { index_patterns: ['x*'], frobnicate: 1 });
    assert.equal(unknownKey.status, 400);
    assert.equal((unknownKey.body as { error: { reason: string } }).error.reason, 'unknown key [frobnicate] in the template ');
    await req('PUT', '/_template/keep', { index_patterns: ['k*'] });
    const dup = await req('PUT', '/_template/keep?create=true', { index_patterns: ['k*'] });
    assert.equal(dup.status, 400);
    assert.equal((dup.body as { error: { reason: string } }).error.reason, 'index_template [keep] already exists');
    assert.equal((await req('HEAD', '/_template/bad')).status, 404);
  });

  test('templates survive a restart (they are replayed from the meta log)', async () => {
    await server.stop();
    server = await startServer([], dir);
    const got = (await req('GET', '/_template/logs-web')).body as Record<string, { order: number; version: number }>;
    assert.equal(got['logs-web']!.order, 5);
    assert.equal(got['logs-web']!.version, 3);
    await req('PUT', '/logs-web-2', {});
    const idx = ((await req('GET', '/logs-web-2')).body as Record<string, IndexBody>)['logs-web-2']!;
    assert.equal(idx.settings.index.number_of_shards, '2');
  });
});
