/**
 * bench:builds — two builds of the node, one after the other on the same data
 * directory, asked bench:peers' eleven queries: the before/after of an engine
 * change on a shared machine. Each round starts build A, then build B, on the
 * directory a `bench:peers -- --keep DIR` run left (DIR/node), so both read
 * the same segments; alternating rounds let the machine's load fall on both.
 * Prints per query and build each round's p50 and the node's CPU time per
 * request (every thread of its process, from /proc/PID/task/* /schedstat),
 * which moves far less with the load than wall time; then the node's RSS.
 * The answers of the two builds must agree (as bench:peers checks), or it
 * exits 1.
 *
 *   npm run bench:peers -- --count 1000000 --only sqlite --keep /tmp/peers-1m   # once, to make the data
 *   npm run bench:builds -- --data /tmp/peers-1m/node --a /path/to/main-checkout   # B defaults to this checkout
 *   npm run bench:builds -- --data DIR --a A --b B --rounds 3 --runs 40 --warmup 10 --only collision,landing
 *
 * Both checkouts must be built (`npm run build`: the node runs from dist/) and
 * read the same segment format: a build that finds another format rebuilds
 * the copies from the log, and the two would not read the same segments.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { argNumber } from './dataset.ts';
import { printTable } from './report.ts';
import { compareAnswers, describeAnswer, type Answer } from './peers/answers.ts';
import { NodeEngine } from './peers/node-engine.ts';
import { peerQueries, type Query } from './peers/workload.ts';

const argValue = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const dataDir = argValue('data');
const rootA = argValue('a');
if (dataDir === undefined || rootA === undefined) {
  process.stderr.write('usage: npm run bench:builds -- --data DIR --a CHECKOUT [--b CHECKOUT] [--rounds 2] [--runs 30] [--warmup 10] [--only a,b]\n');
  process.exit(2);
}
const rootB = argValue('b') ?? new URL('../', import.meta.url).pathname;
const rounds = argNumber('rounds', 2);
const runs = argNumber('runs', 30);
const warmup = argNumber('warmup', 10);
const only = argValue('only')?.split(',');
const queries = peerQueries().filter((q) => only === undefined || only.some((o) => q.name.includes(o)));

/** CPU nanoseconds the process's threads have run, from the scheduler's own count. */
function cpuNs(pid: number): number {
  let ns = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return ns;
}

interface Sample {
  p50: number;
  cpu: number;
}

async function measureBuild(root: string, answers: Map<string, Answer>, label: string): Promise<{ samples: Map<string, Sample>; rss: number }> {
  const engine = await NodeEngine.start(dataDir!, resolve(root));
  const samples = new Map<string, Sample>();
  try {
    for (const q of queries) {
      const answer = await engine.answer(q);
      checkAgrees(q, answer, answers, label);
      for (let i = 0; i < warmup; i++) await engine.answer(q);
      const times: number[] = [];
      const c0 = cpuNs(engine.pid);
      for (let i = 0; i < runs; i++) {
        const s = performance.now();
        await engine.answer(q);
        times.push(performance.now() - s);
      }
      times.sort((x, y) => x - y);
      samples.set(q.name, { p50: times[times.length >> 1]!, cpu: (cpuNs(engine.pid) - c0) / 1e6 / runs });
    }
    return { samples, rss: engine.memory().rss };
  } finally {
    await engine.close();
  }
}

function checkAgrees(q: Query, answer: Answer, answers: Map<string, Answer>, label: string): void {
  const first = answers.get(q.name);
  if (first === undefined) return void answers.set(q.name, answer);
  const diff = compareAnswers(first, answer);
  if (diff.length === 0) return;
  process.stderr.write(`\n!!! ${label} answers "${q.name}" differently: ${diff.join('; ')}\n  first: ${describeAnswer(first)}\n  ${label}: ${describeAnswer(answer)}\n`);
  process.exit(1);
}

const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0));
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

async function main(): Promise<void> {
  process.stderr.write(`bench:builds ${new Date().toISOString()} A ${rootA} B ${rootB} data ${dataDir} rounds ${rounds} runs ${runs} load average ${load()}\n`);
  const answers = new Map<string, Answer>();
  const results: { a: Map<string, Sample>; b: Map<string, Sample>; rssA: number; rssB: number }[] = [];
  for (let r = 0; r < rounds; r++) {
    const a = await measureBuild(rootA!, answers, 'A');
    const b = await measureBuild(rootB, answers, 'B');
    results.push({ a: a.samples, b: b.samples, rssA: a.rss, rssB: b.rss });
    process.stderr.write(`round ${r + 1} done, load average ${load()}\n`);
  }
  const perRound = (pick: (s: Sample) => number, side: 'a' | 'b', name: string) => results.map((x) => fmt(pick(x[side].get(name)!))).join(' / ');
  printTable(
    'per round: p50 and the node\'s CPU time per request (every thread), build A then build B',
    [
      ['query', 'A p50 ms', 'B p50 ms', 'A cpu ms', 'B cpu ms'],
      ...queries.map((q) => [q.name, perRound((s) => s.p50, 'a', q.name), perRound((s) => s.p50, 'b', q.name), perRound((s) => s.cpu, 'a', q.name), perRound((s) => s.cpu, 'b', q.name)]),
      ['node RSS after the queries (MiB)', results.map((x) => x.rssA.toFixed(0)).join(' / '), results.map((x) => x.rssB.toFixed(0)).join(' / '), '', ''],
    ],
  );
  process.stderr.write(`load average at the end ${load()}\n`);
}

await main();
