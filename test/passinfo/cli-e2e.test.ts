/**
 * The passinfo CLI and HTTP server as a user runs them: separate processes
 * talking to a started search node. The expected landing points are counted
 * from the imported records, not by the code under test.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';
import { generatePassRecords } from '../../bench/pass-records.ts';

const root = new URL('../../', import.meta.url).pathname;
const cli = join(root, 'services/passinfo/cli.ts');
let server: TestServer;
let dir: string;
const records = [...generatePassRecords({ count: 2000, seed: 21, plates: 50 })];
const plate = records[0]!.plate;

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', cli, ...args, '--es', server.url], { cwd: root });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

function expectedLandingPoints(): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of records) if (r.plate === plate) m.set(r.land_id, (m.get(r.land_id) ?? 0) + 1);
  return m;
}

before(async () => {
  server = await startServer();
  dir = await tempDir('passinfo-cli-');
  const file = join(dir, 'passes.ndjson');
  await writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const imported = await run(['import', file, '--shards', '2', '--replicas', '0']);
  assert.equal(imported.code, 0, imported.stderr);
  await fetch(`${server.url}/passinfo/_refresh`, { method: 'POST' });
});

after(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

test('the CLI answers a query with JSON on stdout', async () => {
  const r = await run(['landing-points', '--plate', plate]);
  assert.equal(r.code, 0, r.stderr);
  const body = JSON.parse(r.stdout) as { points: { land_id: string; count: number }[] };
  assert.deepEqual(new Map(body.points.map((p) => [p.land_id, p.count])), expectedLandingPoints());
});

test('an unknown command is a usage error', async () => {
  const r = await run(['nonsense']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown command \[nonsense\]/);
});

test('serve answers the same query over HTTP', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', cli, 'serve', '--port', '0', '--es', server.url], { cwd: root });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const rl = createInterface({ input: child.stdout });
      rl.on('line', (line) => {
        const m = /listening at (http:\/\/127\.0\.0\.1:\d+)/i.exec(line);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
      setTimeout(() => reject(new Error('serve did not start within 60 s')), 60_000).unref();
    });
    const res = await fetch(`${url}/plates/${encodeURIComponent(plate)}/landing-points`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { points: { land_id: string; count: number }[] };
    assert.deepEqual(new Map(body.points.map((p) => [p.land_id, p.count])), expectedLandingPoints());
  } finally {
    child.kill('SIGTERM');
  }
});
