/**
 * Issue 11, items 4 and 10 beyond the corpus rows: CORS (`http.cors.*`, off
 * by default), and HTTP that does not parse answered with an Elasticsearch
 * error body while the node goes on serving.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startServer, http, type TestServer } from '../helpers/server.ts';

/** Writes raw bytes to the node and returns everything it answers before closing. */
function rawExchange(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let out = '';
    socket.on('data', (d: Buffer) => (out += d.toString('utf8')));
    socket.on('end', () => resolve(out));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
    socket.setTimeout(5000, () => {
      socket.destroy();
      resolve(out);
    });
  });
}

describe('CORS off (the default)', () => {
  let server: TestServer;
  before(async () => (server = await startServer(['--node.processors', '1'])));
  after(() => server.stop());

  test('a preflight gets no Access-Control headers, so a browser does not send the request', async () => {
    const r = await http(server.url, 'OPTIONS', '/_aliases', undefined, { origin: 'http://evil.example', 'access-control-request-method': 'POST' });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), null);
  });
});

describe('CORS on', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer(['--node.processors', '1', '--http.cors.enabled', 'true', '--http.cors.allow-origin', '/https?:\\/\\/good\\.example(:[0-9]+)?/']);
  });
  after(() => server.stop());

  test('a preflight from an allowed origin gets the Access-Control headers', async () => {
    const r = await http(server.url, 'OPTIONS', '/_search', undefined, { origin: 'http://good.example:8080', 'access-control-request-method': 'POST' });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), 'http://good.example:8080');
    assert.equal(r.headers.get('access-control-allow-methods'), 'OPTIONS,HEAD,GET,POST,PUT,DELETE');
    assert.equal(r.headers.get('access-control-allow-headers'), 'X-Requested-With,Content-Type,Content-Length');
    assert.equal(r.headers.get('access-control-max-age'), '1728000');
  });

  test('a preflight or a request from another origin is a 403', async () => {
    const pre = await http(server.url, 'OPTIONS', '/_search', undefined, { origin: 'http://evil.example', 'access-control-request-method': 'POST' });
    assert.equal(pre.status, 403);
    const req = await http(server.url, 'DELETE', '/anything', undefined, { origin: 'http://evil.example' });
    assert.equal(req.status, 403);
  });

  test('a request from an allowed origin is served with Access-Control-Allow-Origin', async () => {
    const r = await http(server.url, 'GET', '/', undefined, { origin: 'https://good.example' });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), 'https://good.example');
  });

  test('a request without Origin is not a CORS request', async () => {
    assert.equal((await http(server.url, 'GET', '/')).status, 200);
  });
});

describe('HTTP that does not parse', () => {
  let server: TestServer;
  before(async () => (server = await startServer(['--node.processors', '1'])));
  after(() => server.stop());

  for (const [name, bytes] of [
    ['a header line without a colon', 'GET / HTTP/1.1\r\nHost: x\r\nthis is not a header\r\n\r\n'],
    ['a request line that is not HTTP', 'HELLO\r\n\r\n'],
    ['a chunked body with a bad chunk size', 'POST /_search HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'],
    ['headers larger than the limit', `GET / HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`],
  ] as const) {
    test(`${name}: 400 with an Elasticsearch error body, and the node answers after`, async () => {
      const answer = await rawExchange(server.url, bytes);
      assert.match(answer, /^HTTP\/1\.1 400 /);
      const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
      const parsed = JSON.parse(body) as { error: { type: string; root_cause: unknown[] }; status: number };
      assert.equal(parsed.status, 400);
      assert.equal(parsed.error.type, 'illegal_argument_exception');
      assert.ok(Array.isArray(parsed.error.root_cause));
      assert.equal((await http(server.url, 'GET', '/')).status, 200);
    });
  }
});
