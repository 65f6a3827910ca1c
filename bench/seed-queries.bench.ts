/**
 * bench:seed-queries — the seed's searches (seed-workload.ts, as bench:scale
 * runs them after its load) on a kept data directory, without loading it
 * again: p50 and p99 wall time, and the node's CPU milliseconds per request
 * (every thread, from /proc), with its RSS and the load average.
 *
 *   npm run bench:seed-queries -- --data /tmp/scale-1m
 *   npm run bench:seed-queries -- --data /tmp/scale-1m --only trajectory --runs 100
 *   npm run bench:seed-queries -- --data /tmp/scale-1m --root /tmp/main-build   # another checkout's build (before/after)
 *   npm run bench:seed-queries -- --data /tmp/scale-1m --only '1000 hits' --cpu-prof /tmp/prof   # .cpuprofile of every thread
 *   npm run bench:seed-queries -- --data /tmp/scale-20m --aggs --memory --runs 10 --warmup 0
 *       # also bench:scale's aggregations (its 11 queries), then the node's memory: smaps_rollup
 *       # and its anonymous memory by kind (issue 12's 20M / 5M row: run it on both directories);
 *       # --idle 40 prints it again after 40 s without requests
 *
 * Never run it on a data directory another node has open.
 */
import { execSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { KeepAliveClient } from './keep-alive-client.ts';
import { argNumber, argString } from './dataset.ts';
import { percentile, printTable } from './report.ts';
import { seedAggregations, seedSearches } from './seed-workload.ts';
import { anonymousByKind, cpuBetween, filePagesByKind, memoryMiB, smapsRollupMiB, threadCpu } from './node-cpu.ts';
import { spawnServer } from '../test/helpers/server.ts';


const DATA = argString('data');
const ROOT = argString('root');
const ONLY = argString('only');
const runs = argNumber('runs', 50);
const warmup = argNumber('warmup', 10);
const CPU_PROF = argString('cpu-prof');
const AGGS = process.argv.includes('--aggs');
const MEMORY = process.argv.includes('--memory');
const IDLE_S = argNumber('idle', 0);

/** The node's memory after the queries: smaps_rollup, and the anonymous part by kind of mapping. */
function printMemory(pid: number, load: string): void {
  const m = smapsRollupMiB(pid);
  process.stdout.write(`\nnode memory after the queries (smaps_rollup, load average ${load}): RSS ${m.rss.toFixed(0)} MiB, anonymous ${m.anon.toFixed(0)}, file ${(m.rss - m.anon).toFixed(0)}, PSS ${m.pss.toFixed(0)}\n`);
  const print = (kinds: Map<string, number>) => {
    for (const [kind, kb] of [...kinds].sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${(kb / 1024).toFixed(0).padStart(6)} MiB  ${kind}\n`);
  };
  print(anonymousByKind(pid));
  process.stdout.write(`file pages: ${(m.rss - m.anon).toFixed(0)} MiB\n`);
  print(filePagesByKind(pid));
}

async function main(): Promise<void> {
  if (DATA === undefined) throw new Error('--data DIR: a data directory holding the pass-record index (npm run bench:scale -- --keep DIR --load-only)');
  if (ROOT === undefined) execSync('npm run --silent build', { stdio: 'inherit' });
  const server = await spawnServer(DATA, [], 600_000, true, ROOT, CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`]);
  const pid = server.child.pid!;
  const client = new KeepAliveClient(server.url);
  const load = () => loadavg().map((n) => n.toFixed(1)).join(' ');
  try {
    const health = await client.request('GET', '/_cluster/health/passinfo?wait_for_status=green&timeout=600s');
    if (health.status !== 200) throw new Error(`health: ${health.text}`);
    process.stdout.write(`bench:seed-queries ${new Date().toISOString()} ${ROOT ?? 'this build'}, load average ${load()}\n`);
    const rows: string[][] = [['query', 'p50 ms', 'p99 ms', 'node CPU ms/request', 'busiest threads ms/request', 'RSS MiB', 'load avg']];
    const cases = AGGS ? [...seedSearches(), ...seedAggregations()] : seedSearches();
    for (const [name, body] of cases.filter(([n]) => ONLY === undefined || n.includes(ONLY))) {
      const run = async () => {
        const r = await client.request('POST', '/passinfo/_search', body);
        if (r.status !== 200) throw new Error(`${name}: ${r.status} ${r.text.slice(0, 300)}`);
      };
      for (let i = 0; i < warmup; i++) await run();
      const cpu0 = threadCpu(pid);
      const samples: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        await run();
        samples.push(performance.now() - t0);
      }
      const { total, threads } = cpuBetween(cpu0, threadCpu(pid));
      const per = (s: number) => ((s * 1000) / runs).toFixed(2);
      rows.push([
        name,
        percentile(samples, 50).toFixed(2),
        percentile(samples, 99).toFixed(2),
        per(total),
        threads
          .slice(0, 3)
          .map(([k, s]) => `${k} ${per(s)}`)
          .join(', '),
        memoryMiB(pid).rss.toFixed(0),
        load(),
      ]);
    }
    printTable(`bench:seed-queries: ${runs} runs each after ${warmup} warm-up runs`, rows);
    if (MEMORY) printMemory(pid, load());
    if (MEMORY && IDLE_S > 0) {
      // What the node still holds once idle (collections and deferred malloc trims had their chance).
      await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000));
      process.stdout.write(`\nafter ${IDLE_S} s idle:`);
      printMemory(pid, load());
    }
  } finally {
    client.close();
    server.child.kill('SIGTERM');
    await server.exited;
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
