/**
 * Issue 11, item 2: `DELETE /` deleted every index and `PUT /` created an
 * index named "". Neither is an index operation in Elasticsearch. And
 * `action.destructive_requires_name` (default false, as in 6.8) refuses
 * wildcard and `_all` deletes, closes and opens, set in the node's
 * configuration or through `PUT /_cluster/settings`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startServer, tempDir, http, type TestServer } from '../helpers/server.ts';

const NOT_ALLOWED = 'Wildcard expressions or all indices are not allowed';

async function indexNames(server: TestServer): Promise<string[]> {
  const r = await http(server.url, 'GET', '/_cat/indices?h=index');
  return r.text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .sort();
}

function reasonOf(body: unknown): string {
  return String((body as { error?: { reason?: unknown } }).error?.reason);
}

describe('DELETE / and PUT /', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer(['--node.processors', '1']);
    for (const name of ['keep-a', 'keep-b']) await http(server.url, 'PUT', `/${name}`, { settings: { number_of_shards: 1 } });
  });
  after(() => server.stop());

  test('DELETE / is a 405 and every index is still there', async () => {
    const r = await http(server.url, 'DELETE', '/');
    assert.equal(r.status, 405);
    assert.equal(r.headers.get('allow'), 'GET,HEAD');
    assert.deepEqual(await indexNames(server), ['keep-a', 'keep-b']);
  });

  test('PUT / is a 405 and creates no index', async () => {
    const r = await http(server.url, 'PUT', '/', { settings: {} });
    assert.equal(r.status, 405);
    assert.deepEqual(await indexNames(server), ['keep-a', 'keep-b']);
  });

  test('without destructive_requires_name a wildcard delete works, as in 6.8', async () => {
    await http(server.url, 'PUT', '/tmp-1', {});
    await http(server.url, 'PUT', '/tmp-2', {});
    const r = await http(server.url, 'DELETE', '/tmp-*');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await indexNames(server), ['keep-a', 'keep-b']);
  });
});

describe('action.destructive_requires_name through PUT /_cluster/settings', () => {
  let dir: string;
  let server: TestServer;
  before(async () => {
    dir = await tempDir('destructive-');
    server = await startServer(['--node.processors', '1'], dir);
    for (const name of ['logs-1', 'logs-2', 'other']) await http(server.url, 'PUT', `/${name}`, { settings: { number_of_shards: 1 } });
  });
  after(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('set persistent, it is listed by GET /_cluster/settings', async () => {
    const r = await http(server.url, 'PUT', '/_cluster/settings', { persistent: { 'action.destructive_requires_name': true } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { acknowledged: true, persistent: { action: { destructive_requires_name: 'true' } }, transient: {} });
    const g = await http(server.url, 'GET', '/_cluster/settings?flat_settings=true');
    assert.deepEqual(g.body, { persistent: { 'action.destructive_requires_name': 'true' }, transient: {} });
  });

  for (const [method, path] of [
    ['DELETE', '/_all'],
    ['DELETE', '/*'],
    ['DELETE', '/logs-*'],
    ['DELETE', '/logs-1,logs-*'],
    ['POST', '/logs-*/_close'],
    ['POST', '/_all/_close'],
    ['POST', '/*/_open'],
  ] as const) {
    test(`${method} ${path} is refused and nothing is deleted or closed`, async () => {
      const r = await http(server.url, method, path);
      assert.equal(r.status, 400, r.text);
      assert.equal((r.body as { error: { type: string } }).error.type, 'illegal_argument_exception');
      assert.equal(reasonOf(r.body), NOT_ALLOWED);
      assert.deepEqual(await indexNames(server), ['logs-1', 'logs-2', 'other']);
      const s = await http(server.url, 'GET', '/logs-1/_search');
      assert.equal(s.status, 200, 'logs-1 is still open');
    });
  }

  test('naming the index still deletes it', async () => {
    const r = await http(server.url, 'DELETE', '/logs-2');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await indexNames(server), ['logs-1', 'other']);
  });

  test('the setting survives a restart (it is in the meta log)', async () => {
    await server.stop();
    server = await startServer(['--node.processors', '1'], dir);
    const r = await http(server.url, 'DELETE', '/_all');
    assert.equal(r.status, 400);
    assert.equal(reasonOf(r.body), NOT_ALLOWED);
  });

  test('a transient false overrides the persistent true; null resets it', async () => {
    await http(server.url, 'PUT', '/_cluster/settings', { transient: { action: { destructive_requires_name: false } } });
    await http(server.url, 'PUT', '/logs-9', {});
    assert.equal((await http(server.url, 'DELETE', '/logs-9*')).status, 200);
    const reset = await http(server.url, 'PUT', '/_cluster/settings', { transient: { 'action.destructive_requires_name': null } });
    assert.deepEqual(reset.body, { acknowledged: true, persistent: {}, transient: {} });
    assert.equal((await http(server.url, 'DELETE', '/logs-*')).status, 400);
  });

  test('unknown settings and bad values are refused with Elasticsearch errors', async () => {
    const unknown = await http(server.url, 'PUT', '/_cluster/settings', { persistent: { 'action.destructive_requires_nam': true } });
    assert.equal(unknown.status, 400);
    assert.equal(reasonOf(unknown.body), 'persistent setting [action.destructive_requires_nam], not recognized');
    const bad = await http(server.url, 'PUT', '/_cluster/settings', { transient: { 'action.destructive_requires_name': 'yes' } });
    assert.equal(bad.status, 400);
    assert.equal(reasonOf(bad.body), 'Failed to parse value [yes] as only [true] or [false] are allowed.');
    const empty = await http(server.url, 'PUT', '/_cluster/settings', {});
    assert.equal(empty.status, 400);
    assert.equal(reasonOf(empty.body), 'Validation Failed: 1: no settings to update;');
  });
});

describe('action.destructive_requires_name in the node configuration', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer(['--node.processors', '1', '--action.destructive_requires_name', 'true']);
    await http(server.url, 'PUT', '/cfg-1', {});
  });
  after(() => server.stop());

  test('refuses DELETE /_all', async () => {
    const r = await http(server.url, 'DELETE', '/_all');
    assert.equal(r.status, 400);
    assert.equal(reasonOf(r.body), NOT_ALLOWED);
    assert.deepEqual(await indexNames(server), ['cfg-1']);
  });

  test('GET /_cluster/settings?include_defaults shows the configured value', async () => {
    const r = await http(server.url, 'GET', '/_cluster/settings?include_defaults=true&flat_settings=true');
    assert.equal((r.body as { defaults: Record<string, string> }).defaults['action.destructive_requires_name'], 'true');
  });
});
