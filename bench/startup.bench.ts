/**
 * bench:startup — how long a node takes from its process's start to
 * listening, and its memory then and after a load, run from the TypeScript
 * sources through tsx (`node --import tsx services/node/main.ts`, what
 * `npm start` was) beside the compiled build (`node bin/logsearch.mjs
 * start`, what `npm start` is).
 *
 *   npm run bench:startup                    # 5 starts each, alternating; 100,000 records loaded
 *   npm run bench:startup -- --runs 9 --count 0
 *
 * Prints, for each way: median and slowest time to the `started` log line,
 * the process's RSS once started (idle, one shard worker per core), and RSS
 * after bulk-loading `--count` records and a refresh.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { http, tempDir } from '../test/helpers/server.ts';
import { ROOT, startedPort } from '../test/helpers/processes.ts';
import { ensureBuilt } from '../scripts/build.mjs';
import { argNumber, bulkLoad } from './dataset.ts';
import { PASSINFO_INDEX_BODY } from './pass-records.ts';
import { percentile, printTable } from './report.ts';

const runs = argNumber('runs', 5);
const count = argNumber('count', 100_000);

const WAYS = {
  'tsx (sources)': ['--import', 'tsx', 'services/node/main.ts'],
  'compiled (dist/)': ['bin/logsearch.mjs', 'start'],
} as const;
type Way = keyof typeof WAYS;

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

async function once(way: Way, load: boolean): Promise<{ ms: number; rss: number; loadedRss: number | null }> {
  const dir = await tempDir('logsearch-startup-');
  const t0 = performance.now();
  const child = spawn(process.execPath, [...WAYS[way], '--path.data', dir, '--path.logs', join(dir, 'logs'), '--http.port', '0'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    const port = await startedPort(child, 120_000);
    const ms = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 500)); // the workers' first allocations settle
    const rss = rssMb(child.pid!);
    let loadedRss: number | null = null;
    if (load && count > 0) {
      const url = `http://127.0.0.1:${port}`;
      await http(url, 'PUT', '/passinfo', PASSINFO_INDEX_BODY);
      await bulkLoad(url, count);
      await http(url, 'POST', '/passinfo/_refresh');
      loadedRss = rssMb(child.pid!);
    }
    return { ms, rss, loadedRss };
  } finally {
    child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  }
}

ensureBuilt();
const results = new Map<Way, { ms: number[]; rss: number[]; loaded: number[] }>();
for (const way of Object.keys(WAYS) as Way[]) results.set(way, { ms: [], rss: [], loaded: [] });
for (let i = 0; i < runs; i++) {
  for (const way of Object.keys(WAYS) as Way[]) {
    const r = await once(way, i === 0);
    const acc = results.get(way)!;
    acc.ms.push(r.ms);
    acc.rss.push(r.rss);
    if (r.loadedRss !== null) acc.loaded.push(r.loadedRss);
    process.stderr.write(`${way}: started in ${r.ms.toFixed(0)} ms, RSS ${r.rss.toFixed(0)} MB${r.loadedRss === null ? '' : `, ${r.loadedRss.toFixed(0)} MB after ${count} records`}\n`);
  }
}
const rows = [['', 'start p50 ms', 'start max ms', 'RSS started MB', `RSS after ${count} records MB`]];
for (const [way, r] of results) {
  rows.push([way, percentile(r.ms, 50).toFixed(0), Math.max(...r.ms).toFixed(0), percentile(r.rss, 50).toFixed(0), r.loaded.length ? r.loaded[0]!.toFixed(0) : '-']);
}
printTable(`node start-up, ${runs} runs each, alternating (empty data directory)`, rows);
