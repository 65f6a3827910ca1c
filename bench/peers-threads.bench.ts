/**
 * bench:peers-threads — where a bench:peers query's CPU goes in the node,
 * thread by thread: one build on the data a `bench:peers -- --keep DIR` run
 * left (DIR/node), each query asked many times as bench:peers asks it
 * (`bench/peers/node-engine.ts`), then per query its p50 and p90 and the CPU
 * time per request of the HTTP thread (`main`), of each other thread of the
 * process (the two shard workers are the busiest; the four `node` threads
 * started first are V8's helpers: garbage collection and compilation), from
 * /proc/PID/task/* /schedstat, the process's minor page faults per request
 * (mapped pages touched anew) and the node's RSS. Many runs after many
 * warm-ups measure the code once V8 has compiled it (bench:peers' 10 warm-ups
 * leave much of it unoptimised); `--cpu-prof DIR` writes each thread's
 * profile, and the printed `window` (µs on the profiles' clock) bounds the
 * query's timed runs.
 *
 *   npm run bench:peers-threads -- --data /tmp/peers-1m/node --only collision,'fragment of 3' --runs 800 --warmup 200
 *   npm run bench:peers-threads -- --data DIR --root /path/to/main-checkout          # another build (compiled)
 *   npm run bench:peers-threads -- --data DIR --only collision --cpu-prof /tmp/prof --node-flags '--trace-gc'
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { argNumber } from './dataset.ts';
import { NodeEngine } from './peers/node-engine.ts';
import { peerQueries } from './peers/workload.ts';

const argValue = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const dataDir = argValue('data');
if (dataDir === undefined) {
  process.stderr.write('usage: npm run bench:peers-threads -- --data DIR [--root CHECKOUT] [--only a,b] [--runs 800] [--warmup 200] [--cpu-prof DIR] [--node-flags "..."]\n');
  process.exit(2);
}
const root = resolve(argValue('root') ?? new URL('../', import.meta.url).pathname);
const runs = argNumber('runs', 800);
const warmup = argNumber('warmup', 200);
const only = argValue('only')?.split(',');
const profDir = argValue('cpu-prof');
const nodeFlags = [...(profDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profDir}`]), ...(argValue('node-flags')?.split(' ') ?? [])];
const queries = peerQueries().filter((q) => only === undefined || only.some((o) => q.name.includes(o)));

/** CPU nanoseconds per thread: `main` for the process's first thread, `name:tid` for the others. */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = t === String(pid) ? 'main' : `${readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim()}:${t}`;
      out.set(name, Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** Minor page faults of the process (a mapped page touched that was not in its page tables). */
function minorFaults(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7]);
}

const engine = await NodeEngine.start(dataDir, root, nodeFlags);
process.stdout.write(`bench:peers-threads ${new Date().toISOString()} root ${root} data ${dataDir} runs ${runs} warmup ${warmup} pid ${engine.pid} load average ${loadavg()[0]!.toFixed(1)}\n`);
try {
  for (const q of queries) {
    for (let i = 0; i < warmup; i++) await engine.answer(q);
    const before = threadCpu(engine.pid);
    const faults = minorFaults(engine.pid);
    const from = process.hrtime.bigint() / 1000n;
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const s = performance.now();
      await engine.answer(q);
      times.push(performance.now() - s);
    }
    const to = process.hrtime.bigint() / 1000n;
    const after = threadCpu(engine.pid);
    const faulted = (minorFaults(engine.pid) - faults) / runs;
    times.sort((a, b) => a - b);
    let total = 0;
    const parts: string[] = [];
    for (const [name, ns] of after) {
      const ms = (ns - (before.get(name) ?? 0)) / 1e6 / runs;
      total += ms;
      if (ms >= 0.05) parts.push(`${name} ${ms.toFixed(2)}`);
    }
    const pct = (p: number) => times[Math.min(times.length - 1, Math.floor(times.length * p))]!.toFixed(2);
    process.stdout.write(
      `${q.name.padEnd(52)} p50 ${pct(0.5)} p90 ${pct(0.9)} cpu ${total.toFixed(2)} ms/req [${parts.join(', ')}] minor faults/req ${faulted.toFixed(1)} rss ${engine.memory().rss.toFixed(0)} MiB load ${loadavg()[0]!.toFixed(1)} window ${from}-${to}\n`,
    );
  }
} finally {
  await engine.close();
}
