/**
 * bench:peers — the node beside what a user would pick instead (issue 18).
 * Generates N pass records with the project's generator and loads them into
 * SQLite (FTS5 trigram, better-sqlite3), DuckDB (@duckdb/node-api), both in
 * this process, PostgreSQL with pg_trgm when `--pg URL` names a server, and a compiled node in its own process through `_bulk`
 * (5 shards, no replica). Then asks the eleven queries of the issue of each
 * engine, one at a time: each query's answers must agree across engines
 * (counts, groups, top-10 ids and order; see peers/answers.ts), or the run
 * prints the difference and exits 1. Prints each query's p50 and p95 per
 * engine side by side with node / best peer (p50), ingest records/s per
 * engine (every index built, the node's records searchable), and the node's
 * RSS. Engines are measured back to back on each query so they see the same
 * machine load.
 *
 *   npm run bench:peers                          # 1,000,000 records, 30 runs after 20 warm-up
 *   npm run bench:peers -- --count 5000000 --runs 20 --warmup 10
 *   npm run bench:peers -- --only sqlite         # the node and SQLite only (--only node,duckdb ...)
 *   npm run bench:peers -- --keep /tmp/peers-1m  # keep the node's data and the peers' files there
 *   npm run bench:peers -- --pg postgres://bench:bench@127.0.0.1/bench   # PostgreSQL + pg_trgm too (schema bench_peers)
 */
import { execSync } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { argNumber, measure } from './dataset.ts';
import { percentile, printTable } from './report.ts';
import { tempDir } from '../test/helpers/server.ts';
import { compareAnswers, describeAnswer, type Answer } from './peers/answers.ts';
import type { Engine } from './peers/engine.ts';
import { NodeEngine } from './peers/node-engine.ts';
import { SqliteEngine } from './peers/sqlite-engine.ts';
import { DuckdbEngine } from './peers/duckdb-engine.ts';
import { PostgresEngine } from './peers/postgres-engine.ts';
import { peerQueries } from './peers/workload.ts';

const ENGINES = ['node', 'sqlite', 'duckdb', 'postgres'] as const;
type EngineName = (typeof ENGINES)[number];

const count = argNumber('count', 1_000_000);
const runs = argNumber('runs', 30);
const warmup = argNumber('warmup', 20);
const argValue = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const keepDir = argValue('keep');
const only = argValue('only');
const pgUrl = argValue('pg');

function selectedEngines(): EngineName[] {
  // PostgreSQL is a server the user runs: measured only when --pg says where.
  if (only === undefined) return ENGINES.filter((e) => e !== 'postgres' || pgUrl !== undefined);
  const names = only.split(',').map((s) => s.trim());
  for (const n of names) if (!(ENGINES as readonly string[]).includes(n)) throw new Error(`--only: unknown engine ${n} (one of ${ENGINES.join(', ')})`);
  if (names.includes('postgres') && pgUrl === undefined) throw new Error('--only postgres needs --pg postgres://user:password@127.0.0.1/database');
  // The node is what the others are measured against: always there.
  return ENGINES.filter((e) => e === 'node' || names.includes(e));
}

const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0));
const commit = () => {
  try {
    return execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
};

async function main(): Promise<void> {
  const names = selectedEngines();
  if (names.includes('node')) execSync('npm run --silent build', { stdio: 'inherit' });
  const dir = keepDir ?? (await tempDir('bench-peers-'));
  if (keepDir !== undefined) await mkdir(keepDir, { recursive: true });
  const engines: Engine[] = [];
  let node: NodeEngine | undefined;
  let failed = false;
  process.stdout.write(
    `bench:peers ${new Date().toISOString()} commit ${commit()} count ${count} runs ${runs} warmup ${warmup} load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  try {
    const ingest: string[][] = [['engine', 'records/s', 'seconds']];
    for (const name of names) {
      let engine: Engine;
      if (name === 'node') {
        await mkdir(join(dir, 'node'), { recursive: true });
        engine = node = await NodeEngine.start(join(dir, 'node'));
      } else if (name === 'sqlite') engine = new SqliteEngine(dir);
      else if (name === 'duckdb') engine = await DuckdbEngine.open(dir);
      else engine = await PostgresEngine.connect(pgUrl!, keepDir !== undefined);
      engines.push(engine);
      process.stderr.write(`loading ${count} records into ${name}\n`);
      const seconds = await engine.load(count);
      ingest.push([name, (count / seconds).toFixed(0), seconds.toFixed(1)]);
      process.stderr.write(`${name}: ${(count / seconds).toFixed(0)} records/s\n`);
    }
    const afterLoad = node?.memory();

    const header = ['query', ...engines.flatMap((e) => [`${e.name} p50`, 'p95']), 'best peer', 'node/best'];
    const table: string[][] = [header];
    const agreed: string[][] = [['query', 'answer (every engine)']];
    for (const q of peerQueries()) {
      // The answers first (a first call, untimed), so a wrong one stops nothing but is reported loudly.
      const answers: Answer[] = [];
      for (const e of engines) answers.push(await e.answer(q));
      for (let i = 1; i < engines.length; i++) {
        const diff = compareAnswers(answers[0]!, answers[i]!);
        if (diff.length > 0) {
          failed = true;
          process.stderr.write(`\n!!! MISMATCH on "${q.name}": ${engines[0]!.name} vs ${engines[i]!.name}\n${diff.map((d) => `    ${d}`).join('\n')}\n\n`);
        }
      }
      agreed.push([q.name, describeAnswer(answers[0]!)]);
      const p50s = new Map<string, number>();
      const row = [q.name];
      for (const e of engines) {
        const samples = await measure(runs, async () => void (await e.answer(q)), warmup);
        p50s.set(e.name, percentile(samples, 50));
        row.push(fmt(percentile(samples, 50)), fmt(percentile(samples, 95)));
      }
      const peers = engines.filter((e) => e.name !== 'node');
      if (peers.length > 0 && p50s.has('node')) {
        const best = peers.reduce((a, b) => (p50s.get(a.name)! <= p50s.get(b.name)! ? a : b));
        row.push(best.name, (p50s.get('node')! / p50s.get(best.name)!).toFixed(2));
      } else row.push('-', '-');
      table.push(row);
      process.stderr.write(`${row.join('  ')}\n`);
    }

    printTable(`bench:peers: ${count} pass records, ms per query (p50, p95 of ${runs} runs after ${warmup} warm-up), one query at a time`, table);
    printTable('answers (agreed between engines unless a MISMATCH is printed above)', agreed);
    printTable('ingest, generation excluded, every index built (the node: through _bulk until searchable)', ingest);
    if (node !== undefined && afterLoad !== undefined) {
      const served = node.memory();
      printTable('node memory, MiB', [
        ['when', 'RSS', 'peak RSS'],
        ['after the load', afterLoad.rss.toFixed(0), afterLoad.peak.toFixed(0)],
        ['after the queries', served.rss.toFixed(0), served.peak.toFixed(0)],
      ]);
    }
    process.stdout.write(`peers' process (SQLite and DuckDB together) RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB\n`);
    if (failed) process.stdout.write('\nFAILED: the engines disagreed on at least one answer (see MISMATCH above)\n');
  } finally {
    for (const e of engines) await e.close();
    if (keepDir === undefined) await rm(dir, { recursive: true, force: true });
  }
  if (failed) process.exit(1);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
