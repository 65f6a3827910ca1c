/**
 * What a node's anonymous memory is right after a long `_bulk` load (issue
 * 12: 1,018 MiB anonymous after a 5M load against 387 after a restart on the
 * same data). Loads N pass records like bench:scale, then classifies the
 * node process's anonymous memory from /proc/PID/smaps: V8 heap pages
 * (regions of 256 KB), glibc malloc (the main arena's [heap] and the other
 * threads' 64 MiB arena heaps), other mappings; again after `--idle` seconds
 * without writes (the idle commits ran), and after each `--gdb` call made
 * into the process (needs gdb; e.g. `--gdb malloc_trim(0)` shows what the
 * allocator holds free).
 *
 *   npx tsx bench/memory-probe.ts --count 2000000 [--root DIR] [--idle 15] [--gdb 'malloc_trim(0)']
 *   MALLOC_ARENA_MAX=2 npx tsx bench/memory-probe.ts ...   # the environment reaches the node
 */
import { execFileSync, execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { generatePassRecords, PASSINFO_INDEX_BODY } from './pass-records.ts';
import { nextBulkBody } from './seed-workload.ts';
import { KeepAliveClient } from './keep-alive-client.ts';
import { argNumber, argString } from './dataset.ts';
import { anonymousByKind } from './node-cpu.ts';
import { spawnServer, tempDir } from '../test/helpers/server.ts';

const count = argNumber('count', 2_000_000);
const idleSeconds = argNumber('idle', 15);
const ROOT = argString('root');
const GDB = argString('gdb');

function status(pid: number): { rss: number; anon: number; file: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (n: string) => Number(new RegExp(`${n}:\\s+(\\d+) kB`).exec(s)?.[1] ?? NaN) / 1024;
  return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') };
}

function print(title: string, pid: number): void {
  const s = status(pid);
  process.stdout.write(`\n${title} (load average ${loadavg().map((n) => n.toFixed(1)).join(' ')}): RSS ${s.rss.toFixed(0)} MiB, anonymous ${s.anon.toFixed(0)}, file ${s.file.toFixed(0)}\n`);
  for (const [kind, kb] of [...anonymousByKind(pid)].sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${(kb / 1024).toFixed(0).padStart(6)} MiB  ${kind}\n`);
}

async function main(): Promise<void> {
  if (ROOT === undefined) execSync('npm run --silent build', { stdio: 'inherit' });
  const dir = await tempDir('memory-probe-');
  const server = await spawnServer(dir, [], 60_000, true, ROOT);
  const client = new KeepAliveClient(server.url);
  const pid = server.child.pid!;
  try {
    const body = { ...PASSINFO_INDEX_BODY, settings: { ...PASSINFO_INDEX_BODY.settings, number_of_replicas: 0 } };
    const created = await client.request('PUT', '/passinfo', body);
    if (created.status !== 200) throw new Error(`create index: ${created.text}`);
    const gen = generatePassRecords({ count });
    let sent = 0;
    let next = 1_000_000;
    const worker = async () => {
      for (let b = nextBulkBody(gen, 5000); b !== null; b = nextBulkBody(gen, 5000)) {
        await client.bulk('/passinfo/_bulk', b.body);
        sent += b.docs;
        if (sent >= next) {
          next += 1_000_000;
          print(`after ${sent} records`, pid);
        }
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    print(`right after the load of ${sent}`, pid);
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    print(`after ${idleSeconds} s idle`, pid);
    if (GDB !== undefined) {
      execFileSync('gdb', ['-p', String(pid), '-batch', '-ex', `call (int)${GDB}`], { stdio: 'ignore' });
      print(`after ${GDB}`, pid);
    }
  } finally {
    client.close();
    server.child.kill('SIGTERM');
    await server.exited;
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
