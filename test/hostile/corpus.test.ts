/**
 * Sends every row of the bad-input corpus (corpus.ts) to one node and checks
 * what a client sees: the status, the error, and that the node still answers
 * right after, and at the end that nothing was created or lost.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';
import { CASES, SETUP } from './corpus.ts';

let server: TestServer;

before(async () => {
  server = await startServer(['--node.processors', '1']);
  for (const s of SETUP) {
    const r = await http(server.url, s.method, s.path, s.body);
    assert.ok(r.status < 300, `setup ${s.method} ${s.path}: ${r.status} ${r.text}`);
  }
});
after(async () => {
  await server.stop();
});

/** The error a body carries: `error.type` of an Elasticsearch error, or the string of a simple one. */
function errorOf(body: unknown): string | undefined {
  const e = (body as { error?: unknown } | undefined)?.error;
  if (typeof e === 'string') return e;
  if (e && typeof e === 'object') return String((e as { type?: unknown }).type);
  return undefined;
}

describe('hostile and malformed requests', () => {
  for (const c of CASES) {
    test(`${c.method} ${c.path}: ${c.name}`, async () => {
      const sent = Date.now();
      const r = await http(server.url, c.method, c.path, c.body, { ...(c.headers ?? {}) });
      if (c.maxMs !== undefined) assert.ok(Date.now() - sent < c.maxMs, `answered in ${Date.now() - sent} ms, more than ${c.maxMs}`);
      assert.equal(r.status, c.status, `${c.method} ${c.path} answered ${r.status}: ${r.text.slice(0, 300)}`);
      if (c.error !== undefined) {
        const got = errorOf(r.body);
        assert.ok(got !== undefined && got.includes(c.error), `expected error [${c.error}], got ${r.text.slice(0, 300)}`);
      }
      if (c.header !== undefined) {
        const [name, value] = c.header;
        assert.ok((r.headers.get(name) ?? '').includes(value), `header ${name}: expected [${value}], got [${r.headers.get(name)}]`);
      }
      const started = Date.now();
      const ping = await http(server.url, 'GET', '/');
      assert.equal(ping.status, 200);
      assert.ok(Date.now() - started < 1000, `GET / took ${Date.now() - started} ms after this request`);
    });
  }

  test('afterwards the indices are the ones setup made, and no request created another', async () => {
    const r = await http(server.url, 'GET', '/_cat/indices?h=index&s=index');
    const names = r.text.split('\n').map((l) => l.trim()).filter(Boolean).sort();
    assert.deepEqual(names, ['hostile', 'hostile-2', 'hostile-regex']);
    const doc = await http(server.url, 'GET', '/hostile/_doc/1');
    assert.equal((doc.body as { found: boolean }).found, true);
  });
});
