/**
 * Issue 11, item 9: a body that stalls after its headers is timed out
 * (`http.read_timeout`), and the bytes of bodies in flight are bounded
 * (`network.breaker.inflight_requests.limit`, Elasticsearch's in-flight
 * requests breaker). Before, 8 stalled 60 MB bodies pinned 460 MiB forever.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;

before(async () => {
  server = await startServer(['--node.processors', '1', '--http.read_timeout', '1500ms', '--network.breaker.inflight_requests.limit', '1mb']);
});
after(() => server.stop());

/** Opens a request that declares `declared` body bytes, sends `sent` of them and stops; collects what comes back. */
function stalledRequest(declared: number, sent: number): { socket: Socket; answer: Promise<string> } {
  const { hostname, port } = new URL(server.url);
  const socket = connect(Number(port), hostname);
  socket.write(`POST /stalled/_doc/1 HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\n\r\n`);
  socket.write('{"a":"' + 'x'.repeat(sent - 6));
  let out = '';
  const answer = new Promise<string>((resolve) => {
    socket.on('data', (d: Buffer) => (out += d.toString()));
    socket.on('close', () => resolve(out));
    socket.on('error', () => resolve(out));
  });
  return { socket, answer };
}

describe('stalled and oversized bodies', () => {
  test('a body that stops arriving is answered 408 after http.read_timeout and the node goes on', async () => {
    const started = Date.now();
    const { answer } = stalledRequest(5_000_000, 100_000);
    const text = await answer;
    const took = Date.now() - started;
    assert.match(text, /^HTTP\/1\.1 408 /);
    assert.match(text, /"type":"timeout_exception"/);
    assert.ok(took >= 1000 && took < 10_000, `answered after ${took} ms`);
    assert.equal((await http(server.url, 'GET', '/')).status, 200);
  });

  test('a request without a body whose answer takes longer than http.read_timeout is answered, and the node goes on', async () => {
    // A health check that waits 3 s for a status the index never reaches (yellow: a replica with one node).
    assert.equal((await http(server.url, 'PUT', '/waits', { settings: { number_of_replicas: 1 } })).status, 200);
    const started = Date.now();
    const r = await http(server.url, 'GET', '/_cluster/health/waits?wait_for_status=green&timeout=3s');
    assert.ok(Date.now() - started >= 2500, `answered after ${Date.now() - started} ms`);
    assert.equal(r.status, 408);
    assert.equal((r.body as { status: string; timed_out: boolean }).timed_out, true);
    assert.equal((await http(server.url, 'GET', '/')).status, 200);
  });

  test('bodies in flight beyond the breaker limit are refused with 429 while the others hold', async () => {
    const first = stalledRequest(2_000_000, 700_000);
    await new Promise((r) => setTimeout(r, 300));
    const second = stalledRequest(2_000_000, 700_000);
    const text = await second.answer;
    assert.match(text, /^HTTP\/1\.1 429 /);
    assert.match(text, /"type":"circuit_breaking_exception"/);
    assert.match(text, /\[in_flight_requests\] Data too large, data for \[<http_request>\]/);
    // A small request still goes through, and so does everything once the stalled one is timed out.
    assert.equal((await http(server.url, 'GET', '/')).status, 200);
    assert.match(await first.answer, /^HTTP\/1\.1 408 /);
    const big = await http(server.url, 'PUT', '/after/_doc/1', { a: 'y'.repeat(800_000) });
    assert.equal(big.status, 201, big.text.slice(0, 200));
  });
});
