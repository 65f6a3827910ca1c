/**
 * Scripted updates (`_update`, bulk `update`) and stored scripts over HTTP:
 * what a user sees of the document afterwards, and the errors.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startServer, http, tempDir, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let dir: string;
const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => http(server.url, method, path, body, headers);
const source = async (id: string) => ((await req('GET', `/cars/_doc/${id}`)).body as { _source: Record<string, unknown> })._source;

before(async () => {
  dir = await tempDir();
  server = await startServer([], dir);
  const created = await req('PUT', '/cars', { mappings: { _doc: { properties: { plate: { type: 'keyword' }, passes: { type: 'long' }, tags: { type: 'keyword' } } } } });
  assert.equal(created.status, 200, created.text);
  await req('PUT', '/cars/_doc/1?refresh=true', { plate: '京A12345', passes: 1, tags: ['red'] });
});
after(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('scripted updates', () => {
  test('a script increments a counter and adds a tag from params; the version moves by one', async () => {
    const r = await req('POST', '/cars/_doc/1/_update', { script: { source: 'ctx._source.passes += params.n; ctx._source.tags.add(params.tag)', params: { n: 2, tag: 'night' } } });
    assert.equal(r.status, 200, r.text);
    assert.equal((r.body as { result: string; _version: number }).result, 'updated');
    assert.equal((r.body as { _version: number })._version, 2);
    assert.deepEqual(await source('1'), { plate: '京A12345', passes: 3, tags: ['red', 'night'] });
  });

  test("ctx.op = 'noop' changes nothing and answers noop; the string form of a script works", async () => {
    const r = await req('POST', '/cars/_doc/1/_update', { script: "if (ctx._source.passes > 100) { ctx._source.busy = true } else { ctx.op = 'noop' }" });
    assert.equal(r.status, 200, r.text);
    assert.equal((r.body as { result: string }).result, 'noop');
    assert.equal((r.body as { _version: number })._version, 2);
  });

  test('a scripted update returns the new source when asked (_source: true)', async () => {
    const r = await req('POST', '/cars/_doc/1/_update', { script: { source: "ctx._source.remove('tags')" }, _source: true });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((r.body as { get: { _source: unknown } }).get._source, { plate: '京A12345', passes: 3 });
  });

  test('a field a script adds is mapped and searchable', async () => {
    const r = await req('POST', '/cars/_doc/1/_update?refresh=true', { script: { source: "ctx._source.owner = 'ming'" } });
    assert.equal(r.status, 200, r.text);
    const mapping = (await req('GET', '/cars/_mapping')).body as { cars: { mappings: { _doc: { properties: Record<string, { type: string }> } } } };
    assert.equal(mapping.cars.mappings._doc.properties.owner!.type, 'text');
    const found = await req('POST', '/cars/_search', { query: { match: { owner: 'ming' } } });
    assert.equal((found.body as { hits: { total: number } }).hits.total, 1);
  });

  test("ctx.op = 'delete' deletes the document", async () => {
    await req('PUT', '/cars/_doc/gone', { plate: 'x', passes: 0 });
    const r = await req('POST', '/cars/_doc/gone/_update', { script: "ctx.op = 'delete'" });
    assert.equal(r.status, 200, r.text);
    assert.equal((r.body as { result: string }).result, 'deleted');
    assert.equal((await req('GET', '/cars/_doc/gone')).status, 404);
  });

  test('upsert: indexed as it is when the document is missing; with scripted_upsert the script runs on it', async () => {
    const plain = await req('POST', '/cars/_doc/u1/_update', { script: 'ctx._source.passes += 1', upsert: { passes: 10 } });
    assert.equal(plain.status, 201, plain.text);
    assert.deepEqual(await source('u1'), { passes: 10 });
    const again = await req('POST', '/cars/_doc/u1/_update', { script: 'ctx._source.passes += 1', upsert: { passes: 10 } });
    assert.equal((again.body as { result: string }).result, 'updated');
    assert.deepEqual(await source('u1'), { passes: 11 });
    const scripted = await req('POST', '/cars/_doc/u2/_update', { script: { source: 'ctx._source.passes = params.start * 2', params: { start: 4 } }, upsert: {}, scripted_upsert: true });
    assert.equal(scripted.status, 201, scripted.text);
    assert.deepEqual(await source('u2'), { passes: 8 });
  });

  test('a script on a missing document without upsert is document_missing_exception', async () => {
    const r = await req('POST', '/cars/_doc/nope/_update', { script: 'ctx._source.passes += 1' });
    assert.equal(r.status, 404);
    assert.equal((r.body as { error: { type: string } }).error.type, 'document_missing_exception');
  });

  test('a script that does not compile is a 400 with the position, and nothing is written', async () => {
    const r = await req('POST', '/cars/_doc/1/_update', { script: 'ctx._source.passes +=' });
    assert.equal(r.status, 400);
    const e = (r.body as { error: { type: string; reason: string; script_stack: string[]; root_cause: { type: string }[] } }).error;
    assert.equal(e.type, 'script_exception');
    assert.equal(e.reason, 'compile error');
    assert.match(e.script_stack[1]!, /\^---- HERE/);
    assert.equal(e.root_cause[0]!.type, 'script_exception');
  });

  test("a script that fails while it runs answers Elasticsearch's failed to execute script", async () => {
    const before = await req('GET', '/cars/_doc/1');
    const r = await req('POST', '/cars/_doc/1/_update', { script: 'ctx._source.nothing.deeper = 1' });
    assert.equal(r.status, 400);
    const e = (r.body as { error: { type: string; reason: string; caused_by: { type: string; reason: string; caused_by: { type: string } } } }).error;
    assert.equal(e.type, 'illegal_argument_exception');
    assert.equal(e.reason, 'failed to execute script');
    assert.equal(e.caused_by.type, 'script_exception');
    assert.equal(e.caused_by.reason, 'runtime error');
    assert.equal(e.caused_by.caused_by.type, 'null_pointer_exception');
    const after = await req('GET', '/cars/_doc/1');
    assert.equal((after.body as { _version: number })._version, (before.body as { _version: number })._version);
  });

  test("a script result the mapping refuses fails with the mapping's error and leaves the document as it was", async () => {
    const r = await req('POST', '/cars/_doc/u1/_update', { script: "ctx._source.passes = 'many'" });
    assert.equal(r.status, 400, r.text);
    assert.equal((r.body as { error: { type: string } }).error.type, 'mapper_parsing_exception');
    assert.deepEqual(await source('u1'), { passes: 11 });
  });

  test('other languages and doc with script are refused', async () => {
    const lang = await req('POST', '/cars/_doc/1/_update', { script: { source: 'doc.x', lang: 'expression' } });
    assert.equal(lang.status, 400);
    assert.match((lang.body as { error: { reason: string } }).error.reason, /script_lang not supported \[expression\]/);
    const both = await req('POST', '/cars/_doc/1/_update', { script: '1', doc: { a: 1 } });
    assert.equal(both.status, 400);
  });

  test('bulk update items run their scripts; a failing one fails alone', async () => {
    await req('PUT', '/cars/_doc/b1', { passes: 1 });
    await req('PUT', '/cars/_doc/b2', { passes: 5 });
    const lines = [
      { update: { _id: 'b1', _type: '_doc' } },
      { script: { source: 'ctx._source.passes *= params.f', params: { f: 3 } } },
      { update: { _id: 'b2', _type: '_doc' } },
      { script: 'ctx._source.missing.x = 1' },
    ];
    const r = await req('POST', '/cars/_bulk', lines.map((l) => JSON.stringify(l)).join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
    assert.equal(r.status, 200, r.text);
    const items = (r.body as { errors: boolean; items: { update: { status: number; error?: { type: string } } }[] }).items;
    assert.equal(items[0]!.update.status, 200);
    assert.equal(items[1]!.update.status, 400);
    assert.equal(items[1]!.update.error!.type, 'illegal_argument_exception');
    assert.deepEqual(await source('b1'), { passes: 3 });
    assert.deepEqual(await source('b2'), { passes: 5 });
  });
});

describe('stored scripts', () => {
  test('PUT, GET, use with params, DELETE', async () => {
    const put = await req('PUT', '/_scripts/add-passes', { script: { lang: 'painless', source: 'ctx._source.passes += params.n' } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body, { acknowledged: true });
    const got = await req('GET', '/_scripts/add-passes');
    assert.deepEqual(got.body, { _id: 'add-passes', found: true, script: { lang: 'painless', source: 'ctx._source.passes += params.n' } });
    await req('PUT', '/cars/_doc/s1', { passes: 1 });
    const r = await req('POST', '/cars/_doc/s1/_update', { script: { id: 'add-passes', params: { n: 41 } } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await source('s1'), { passes: 42 });
    assert.deepEqual((await req('DELETE', '/_scripts/add-passes')).body, { acknowledged: true });
    const gone = await req('GET', '/_scripts/add-passes');
    assert.equal(gone.status, 404);
    assert.deepEqual(gone.body, { _id: 'add-passes', found: false });
    const use = await req('POST', '/cars/_doc/s1/_update', { script: { id: 'add-passes', params: { n: 1 } } });
    assert.equal(use.status, 404);
    assert.equal((use.body as { error: { type: string } }).error.type, 'resource_not_found_exception');
    assert.equal((await req('DELETE', '/_scripts/add-passes')).status, 404);
  });

  test('a stored script that does not compile is refused; a non-painless one too', async () => {
    const bad = await req('PUT', '/_scripts/bad', { script: { lang: 'painless', source: 'ctx._source.a.(' } });
    assert.equal(bad.status, 400);
    assert.equal((bad.body as { error: { type: string } }).error.type, 'script_exception');
    const mustache = await req('PUT', '/_scripts/tpl', { script: { lang: 'mustache', source: '{}' } });
    assert.equal(mustache.status, 400);
    assert.equal((await req('GET', '/_scripts/bad')).status, 404);
  });

  test('stored scripts survive a restart (they are in the meta log)', async () => {
    assert.equal((await req('PUT', '/_scripts/keep', { script: { lang: 'painless', source: 'ctx._source.kept = true' } })).status, 200);
    await server.stop();
    server = await startServer([], dir);
    const got = await req('GET', '/_scripts/keep');
    assert.equal(got.status, 200);
    assert.equal((got.body as { script: { source: string } }).script.source, 'ctx._source.kept = true');
  });
});
