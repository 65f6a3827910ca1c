/**
 * The transport across a process boundary: a node in a child process answers,
 * a kill -9 of it fails the requests in flight as node_disconnected_exception,
 * and the client reaches the restarted process on a new port.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { EsError } from '../../../shared/errors/es-errors.ts';
import { TransportClient } from '../../../services/node/transport/transport-client.ts';
import { NODE_STATUS, WAIT_APPLIED } from '../../../services/node/transport/rpc-messages.ts';

async function startChild(): Promise<{ child: ChildProcess; port: number }> {
  const script = new URL('./child-endpoint.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`child exited with ${code}`)));
  });
  return { child, port };
}

test('a node in another process answers, and its kill -9 fails requests in flight as disconnected', async () => {
  const client = new TransportClient({ connectTimeoutMs: 2000 });
  const first = await startChild();
  let second: { child: ChildProcess; port: number } | null = null;
  try {
    const node = { name: 'child', host: '127.0.0.1', port: first.port };
    const status = await client.call(node, NODE_STATUS, {});
    assert.equal(status.node_name, `child-${first.child.pid}`);
    const quick = await Promise.all([30, 10, 20].map((ms) => client.call(node, WAIT_APPLIED, { index_uuid: 'u', shard: 0, offset: ms, timeout_ms: 0 })));
    assert.deepEqual(quick.map((r) => r.applied_offset), [30, 10, 20]);

    const inFlight = client.call(node, WAIT_APPLIED, { index_uuid: 'u', shard: 0, offset: 10_000, timeout_ms: 0 });
    await new Promise((res) => setTimeout(res, 100));
    const exited = new Promise((res) => first.child.once('exit', res));
    first.child.kill('SIGKILL');
    await assert.rejects(inFlight, (err: unknown) => err instanceof EsError && err.type === 'node_disconnected_exception');
    await exited;

    second = await startChild();
    const restarted = await client.call({ ...node, port: second.port }, NODE_STATUS, {});
    assert.equal(restarted.node_name, `child-${second.child.pid}`);
  } finally {
    await client.close();
    first.child.kill('SIGKILL');
    if (second) {
      const gone = new Promise((res) => second!.child.once('exit', res));
      second.child.stdin!.end();
      await gone;
    }
  }
});
