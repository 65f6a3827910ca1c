/**
 * bench:restart — a kept data directory's restart, from a cold page cache
 * (its files dropped from the cache first, as after a reboot or once other
 * work took the memory) and from a warm one: time until HTTP answers and
 * until every shard is started, the node's CPU until then, RSS and anonymous
 * memory, the machine's load average.
 *
 *   npm run build && npm run bench:restart -- --data /tmp/lead/scale5m-f5 --runs 3
 *   npm run bench:restart -- --data DIR --other /path/to/another/dist   # alternates the two builds
 *
 * The directory must have been written by a node of this format and be used
 * by no running node. Dropping a file from the page cache takes no root: GNU
 * dd's `iflag=nocache count=0` asks the kernel to drop its pages.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { http } from '../test/helpers/server.ts';
import { argString } from './dataset.ts';
import { percentile, printTable } from './report.ts';

const data = argString('data');
if (data === undefined) throw new Error('--data DIR: a kept data directory (e.g. bench:scale --keep DIR)');
const runs = Number(argString('runs') ?? 3);
const port = Number(argString('port') ?? 9431);
const builds: [string, string][] = [['this build', resolve('dist')]];
if (argString('other') !== undefined) builds.push(['other', resolve(argString('other')!)]);

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

function dropFromPageCache(dir: string): void {
  for (const f of files(dir)) spawnSync('dd', [`if=${f}`, 'iflag=nocache', 'count=0', 'status=none']);
}

function memoryMb(pid: number): { rss: number; anon: number } {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(rollup)![1]) / 1024;
  return { rss: kb('Rss'), anon: kb('Anonymous') };
}

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function once(dist: string, cold: boolean): Promise<number[]> {
  if (cold) dropFromPageCache(data!);
  const load = Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(dist, 'services/cli/main.js'), 'start', '--path.data', data!, '--path.logs', join(data!, 'logs'), '--http.port', String(port)], {
    stdio: 'ignore',
  });
  const exited = new Promise((r) => child.once('exit', r));
  for (;;) {
    if ((await http(url, 'GET', '/').catch(() => null)) !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const httpMs = performance.now() - t0;
  for (;;) {
    const h = await http(url, 'GET', '/_cluster/health?wait_for_status=green&timeout=60s');
    if ((h.body as { status: string }).status === 'green') break;
  }
  const startedMs = performance.now() - t0;
  const cpu = cpuSeconds(child.pid!);
  const { rss, anon } = memoryMb(child.pid!);
  child.kill('SIGTERM');
  await exited;
  return [httpMs, startedMs, cpu, rss, anon, load];
}

const results = new Map<string, number[][]>();
for (let r = 0; r < runs; r++) {
  for (const [name, dist] of builds) {
    for (const cold of [true, false]) {
      const key = `${name}, ${cold ? 'cold' : 'warm'}`;
      const row = await once(dist, cold);
      process.stdout.write(`${key}: http ${row[0]!.toFixed(0)} ms, started ${row[1]!.toFixed(0)} ms, cpu ${row[2]!.toFixed(2)} s, RSS ${row[3]!.toFixed(0)} MiB (anon ${row[4]!.toFixed(0)}), load ${row[5]}\n`);
      results.set(key, [...(results.get(key) ?? []), row]);
    }
  }
}
const rows: string[][] = [['restart', 'http p50 ms', 'started p50 ms', 'started max ms', 'cpu p50 s', 'RSS p50 MiB', 'anon p50 MiB', 'load']];
for (const [key, samples] of results) {
  const col = (i: number) => samples.map((s) => s[i]!);
  const loads = col(5);
  rows.push([
    key,
    percentile(col(0), 50).toFixed(0),
    percentile(col(1), 50).toFixed(0),
    Math.max(...col(1)).toFixed(0),
    percentile(col(2), 50).toFixed(2),
    percentile(col(3), 50).toFixed(0),
    percentile(col(4), 50).toFixed(0),
    `${Math.min(...loads)}-${Math.max(...loads)}`,
  ]);
}
printTable(`restart of ${data} (${runs} runs each, alternated)`, rows);
