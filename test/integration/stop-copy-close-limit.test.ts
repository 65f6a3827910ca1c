/**
 * A node's stop waits for each shard copy's close (its final commit) only so
 * long: a copy stuck in its worker must not hold the stop forever, and the
 * stop says which copy it left. Giving up loses nothing: the next start
 * replays the log after the copy's last commit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { loadConfig } from '../../services/node/config.ts';
import { Node } from '../../services/node/node.ts';
import { http, tempDir } from '../helpers/server.ts';

async function startOn(dir: string, copyCloseLimitMs: number | undefined, lines: string[]): Promise<{ node: Node; url: string }> {
  const config = loadConfig(['--path.data', dir, '--path.logs', join(dir, 'logs'), '--http.port', '0', '--node.name', 'test-node'], {});
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const node = await Node.start(config, { logger: pino({ level: 'warn' }, sink), copyCloseLimitMs });
  return { node, url: `http://127.0.0.1:${node.httpPort}` };
}

test('a copy that does not close within the limit: the stop goes on, names the copy, and the next start has every acknowledged write', async () => {
  const dir = await tempDir('logsearch-close-limit-');
  try {
    const lines: string[] = [];
    // 0 ms: no copy's close (a commit with fsyncs, in its worker) can answer in time.
    const first = await startOn(dir, 0, lines);
    assert.equal((await http(first.url, 'PUT', '/passes', { settings: { number_of_shards: 2, number_of_replicas: 0 } })).status, 200);
    const bulk = Array.from({ length: 300 }, (_, i) => `{"index":{"_index":"passes","_type":"_doc","_id":"${i}"}}\n{"plate":"P${i}"}\n`).join('');
    const written = await http(first.url, 'POST', '/_bulk', bulk, { 'content-type': 'application/x-ndjson' });
    assert.equal(written.status, 200);
    assert.equal((written.body as { errors: boolean }).errors, false);
    await first.node.stop();
    const late = lines.filter((l) => l.includes('did not close within 0 ms'));
    assert.equal(late.length, 2, `one notice per copy, got: ${lines.join('')}`);
    assert.match(late[0]!, /shard copy \[passes\]\[[01]\] did not close within 0 ms; stopping without its final commit/);

    const second = await startOn(dir, undefined, []);
    try {
      const health = await http(second.url, 'GET', '/_cluster/health/passes?wait_for_status=green&timeout=30s');
      assert.equal((health.body as { status: string }).status, 'green');
      assert.equal((await http(second.url, 'POST', '/passes/_refresh')).status, 200);
      assert.deepEqual((await http(second.url, 'GET', '/passes/_count')).body, { count: 300, _shards: { total: 2, successful: 2, skipped: 0, failed: 0 } });
      const doc = await http(second.url, 'GET', '/passes/_doc/299');
      assert.deepEqual((doc.body as { _source: unknown })._source, { plate: 'P299' });
    } finally {
      await second.node.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
