/**
 * Stopping a node as systemd, Docker and process managers do: SIGTERM (or
 * SIGINT) to the process `npm start` created, or to npm itself. The node
 * answers what is in flight, closes its log and copies, and exits 0; the
 * port and the data directory's lock are free within 5 s, so the next start
 * on the same directory works.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { http, spawnServer, tempDir } from '../helpers/server.ts';
import { ROOT, childPids, commandLine, killTree, portIsFree, startedPort, within } from '../helpers/processes.ts';

const dirs: string[] = [];
const started: ChildProcess[] = [];
after(async () => {
  // A test that failed may leave its node running: nothing outlives the suite.
  for (const p of started) if (p.exitCode === null && p.signalCode === null) killTree(p.pid!);
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** `npm start` (or `npx logsearch start`) on a fresh data directory, compiling dist/ first when it is stale. */
async function npmStart(how: 'npm start' | 'npx' = 'npm start'): Promise<{ npm: ChildProcess; port: number; dir: string; exited: Promise<number | null> }> {
  const dir = await tempDir('logsearch-stop-');
  dirs.push(dir);
  const settings = ['--path.data', dir, '--path.logs', join(dir, 'logs'), '--http.port', '0', '--node.processors', '1'];
  const [command, args] = how === 'npm start' ? ['npm', ['start', '--', ...settings]] : ['npx', ['logsearch', 'start', ...settings]];
  const npm = spawn(command, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(npm);
  let stderr = '';
  npm.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  const port = await startedPort(npm, 240_000).catch((err: Error) => {
    throw new Error(`${err.message}; stderr: ${stderr}`);
  });
  return { npm, port, dir, exited };
}

const lockOf = (dir: string) => join(dir, 'log', 'LOCK');

test('SIGTERM to the process npm start created: port and lock free within 5 s, exit 0, acknowledged writes kept', async () => {
  const { npm, port, dir, exited } = await npmStart();
  const children = childPids(npm.pid!);
  assert.equal(children.length, 1, 'npm start runs one process');
  const nodePid = children[0]!;
  // No shell or tsx between npm and the node: the signal reaches the node itself.
  assert.deepEqual(commandLine(nodePid).slice(1, 3), ['bin/logsearch.mjs', 'start']);
  assert.ok(existsSync(lockOf(dir)));

  const lines: string[] = [];
  for (let i = 0; i < 2000; i++) lines.push(JSON.stringify({ index: { _index: 'docs', _type: '_doc', _id: `d${i}` } }), JSON.stringify({ n: i }));
  const inFlight = http(`http://127.0.0.1:${port}`, 'POST', '/_bulk', `${lines.join('\n')}\n`).then(
    (res) => res,
    (err: Error) => err,
  );
  await new Promise((r) => setTimeout(r, 20));
  process.kill(nodePid, 'SIGTERM');
  const sent = Date.now();
  const freed = await within(5000, async () => !existsSync(lockOf(dir)) && (await portIsFree(port)));
  assert.ok(freed, `port ${port} or ${lockOf(dir)} still held ${Date.now() - sent} ms after SIGTERM`);
  assert.equal(await exited, 0);
  // The write in flight was answered in full, or refused (503 once the node stops taking requests, or no connection), never left hanging.
  const answer = await inFlight;
  const acknowledged = !(answer instanceof Error) && answer.status === 200;
  if (acknowledged) assert.equal((answer.body as { errors: boolean }).errors, false);
  else if (!(answer instanceof Error)) assert.equal(answer.status, 503, answer.text.slice(0, 200));
  const log = readFileSync(join(dir, 'logs', 'logsearch.log'), 'utf8');
  assert.match(log, /"signal":"SIGTERM","msg":"stopping"/);
  assert.match(log, /"msg":"stopped"/);

  // The next start on the same directory works and keeps what was acknowledged.
  const again = await spawnServer(dir, ['--node.processors', '1']);
  try {
    await http(again.url, 'GET', '/_cluster/health?wait_for_status=yellow&timeout=30s');
    const count = await http(again.url, 'GET', '/docs/_count');
    if (acknowledged) assert.equal((count.body as { count: number }).count, 2000);
  } finally {
    again.child.kill('SIGTERM');
    assert.equal(await again.exited, 0);
  }
});

test('SIGTERM to npx logsearch start reaches the node: npx runs it with no shell between them, and exits 0', async () => {
  const { npm: npx, port, dir, exited } = await npmStart('npx');
  const children = childPids(npx.pid!);
  assert.equal(children.length, 1);
  assert.match(commandLine(children[0]!)[1]!, /\/logsearch$/, 'the node runs the bin itself');
  npx.kill('SIGTERM');
  const freed = await within(5000, async () => !existsSync(lockOf(dir)) && (await portIsFree(port)));
  assert.ok(freed, 'port or lock still held 5 s after SIGTERM to npx');
  assert.equal(await exited, 0);
});

test('SIGINT to npm itself reaches the node: it stops and npm exits 0', async () => {
  const { npm, port, dir, exited } = await npmStart();
  npm.kill('SIGINT');
  const freed = await within(5000, async () => !existsSync(lockOf(dir)) && (await portIsFree(port)));
  assert.ok(freed, 'port or lock still held 5 s after SIGINT to npm');
  assert.equal(await exited, 0);
});
