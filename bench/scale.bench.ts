/**
 * bench:scale — a node's size is bounded by its disk, not its memory
 * (issue 12). Loads N pass records through `_bulk` into the seed's index
 * (5 shards, no replica) on a compiled node in its own process, and prints
 * after each million: docs/s, the process's RSS (anonymous: heaps and
 * buffers; file: mapped segment pages) and PSS, and bytes on disk split into
 * log, segments and version map. Then runs the seed's searches and
 * aggregations, restarts the node (SIGTERM, then start) and prints the time
 * until HTTP answers and until every shard is started, and the queries'
 * p50s again.
 *
 *   npm run bench:scale                         # 1,000,000 records
 *   npm run bench:scale -- --count 5000000
 *   npm run bench:scale -- --count 20000000 --runs 10
 *   npm run bench:scale -- --keep /tmp/scale-1m   # keep the data directory (to profile queries on it;
 *                                                 # `npx tsx bench/segment-sizes.ts /tmp/scale-1m` splits its segments per field)
 *   npm run bench:scale -- --load-only            # the load only (no queries, no restart)
 *   npm run bench:scale -- --load-only --root /tmp/main-build   # another checkout's build (a before/after)
 *   npm run bench:scale -- --load-only --cpu-prof /tmp/prof     # .cpuprofile of every thread of the node
 *   npm run bench:scale -- --load-only --without-location --root /tmp/in-heap   # the seed as issue 12 found it
 *       (no `location` geo_point: the in-heap engine before segment files, b6d1045^, has no such type),
 *       to load that engine and this one side by side
 *
 * The load's table also gives the node's CPU seconds per 1,000 documents by
 * thread (from /proc; on a shared machine that says more than docs/s).
 */
import { execSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { generatePassRecords, PASSINFO_INDEX_BODY, type PassRecord } from './pass-records.ts';
import { nextBulkBody, seedAggregations, seedSearches } from './seed-workload.ts';
import { KeepAliveClient } from './keep-alive-client.ts';
import { cpuBetween, threadCpu } from './node-cpu.ts';
import { argNumber, argString, measure } from './dataset.ts';
import { percentile, printTable } from './report.ts';
import { spawnServer, tempDir, type ChildServer } from '../test/helpers/server.ts';

const count = argNumber('count', 1_000_000);
const batch = argNumber('batch', 5000);
const concurrency = argNumber('concurrency', 3);
const runs = argNumber('runs', 30);
const warmup = argNumber('warmup', 30);
const REPORT_EVERY = 1_000_000;
const keepIndex = process.argv.indexOf('--keep');
const keepDir = keepIndex > 0 ? process.argv[keepIndex + 1] : undefined;
const LOAD_ONLY = process.argv.includes('--load-only');
const ROOT = argString('root');
const CPU_PROF = argString('cpu-prof');
const WITHOUT_LOCATION = process.argv.includes('--without-location');

/** CPU seconds per 1,000 docs by thread between two readings (node-cpu.ts), busiest first; threads under 0.5 s are counted, not listed. */
function cpuPerThousand(before: Map<string, number>, after: Map<string, number>, docs: number): string {
  const { total, threads } = cpuBetween(before, after);
  const per = (s: number) => ((s * 1000) / docs).toFixed(3);
  return `${total.toFixed(1)} CPU s, ${per(total)} s per 1,000 docs (${threads
    .filter(([, s]) => s >= 0.5)
    .map(([name, s]) => `${name} ${per(s)}`)
    .join(', ')})`;
}

interface Memory {
  rss: number;
  anon: number;
  file: number;
  pss: number;
  hwm: number;
}

/** The node process's memory, all its threads together (MiB). */
function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  let pss = NaN;
  try {
    pss = Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? NaN) / 1024;
  } catch {
    // smaps_rollup needs Linux 4.14
  }
  return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile'), pss, hwm: kb('VmHWM') };
}

function duBytes(path: string): number {
  let total = 0;
  let entries: string[];
  try {
    entries = readdirSync(path);
  } catch {
    return 0;
  }
  for (const name of entries) {
    const p = join(path, name);
    const s = statSync(p);
    total += s.isDirectory() ? duBytes(p) : s.size;
  }
  return total;
}

/** Bytes of the segment files under `dir`'s indices, by kind (`.tim`, `.doc`, ...). */
function segmentKinds(dir: string): Map<string, number> {
  const kinds = new Map<string, number>();
  const indices = join(dir, 'indices');
  for (const uuid of readdirSync(indices)) {
    for (const shard of readdirSync(join(indices, uuid))) {
      const segs = join(indices, uuid, shard, 'segments');
      let names: string[];
      try {
        names = readdirSync(segs);
      } catch {
        continue;
      }
      for (const name of names) {
        const kind = name.slice(name.lastIndexOf('.') + 1);
        kinds.set(kind, (kinds.get(kind) ?? 0) + statSync(join(segs, name)).size);
      }
    }
  }
  return kinds;
}

/** Bytes on disk: the log, the segment files, the version maps (classic-level). */
function diskOf(dir: string): { log: number; segments: number; versions: number } {
  let segments = 0;
  let versions = 0;
  const indices = join(dir, 'indices');
  let uuids: string[] = [];
  try {
    uuids = readdirSync(indices);
  } catch {
    // no index yet
  }
  for (const uuid of uuids) {
    for (const shard of readdirSync(join(indices, uuid))) {
      segments += duBytes(join(indices, uuid, shard, 'segments'));
      versions += duBytes(join(indices, uuid, shard, 'versions'));
    }
  }
  return { log: duBytes(join(dir, 'log')), segments, versions };
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const f0 = (n: number) => n.toFixed(0);

async function waitGreen(client: KeepAliveClient): Promise<void> {
  for (;;) {
    const r = await client.request('GET', '/_cluster/health?wait_for_status=green&timeout=30s');
    if ((r.body as { status?: string }).status === 'green') return;
  }
}

async function runQueries(client: KeepAliveClient, title: string): Promise<void> {
  const rows: string[][] = [['query', 'p50 ms', 'p99 ms']];
  const cases: [string, unknown][] = [...seedSearches(), ...seedAggregations()];
  for (const [name, body] of cases) {
    const s = await measure(
      runs,
      async () => {
        const r = await client.request('POST', '/passinfo/_search', body);
        if (r.status !== 200) throw new Error(`${name}: ${r.status} ${r.text.slice(0, 300)}`);
      },
      warmup,
    );
    rows.push([name, percentile(s, 50).toFixed(2), percentile(s, 99).toFixed(2)]);
  }
  printTable(title, rows);
}

/** The seed's index body, without `location` under --without-location. */
function indexBody(): typeof PASSINFO_INDEX_BODY {
  if (!WITHOUT_LOCATION) return PASSINFO_INDEX_BODY;
  const type = PASSINFO_INDEX_BODY.mappings.passinfo;
  const { location: _dropped, ...properties } = type.properties;
  return { ...PASSINFO_INDEX_BODY, mappings: { passinfo: { ...type, properties } } } as unknown as typeof PASSINFO_INDEX_BODY;
}

function* withoutLocation(records: Iterable<PassRecord>): Generator<PassRecord> {
  for (const r of records) {
    const { location: _dropped, ...rest } = r;
    yield rest as PassRecord;
  }
}

async function main(): Promise<void> {
  if (ROOT === undefined) execSync('npm run --silent build', { stdio: 'inherit' });
  const dir = keepDir ?? (await tempDir('bench-scale-'));
  if (keepDir !== undefined) await mkdir(keepDir, { recursive: true });
  const profFlags = [...(CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`]), ...(argString('node-flags')?.split(' ') ?? [])];
  let server: ChildServer = await spawnServer(dir, [], 60_000, true, ROOT, profFlags);
  let client = new KeepAliveClient(server.url);
  try {
    const body = { ...indexBody(), settings: { ...PASSINFO_INDEX_BODY.settings, number_of_replicas: 0 } };
    const created = await client.request('PUT', '/passinfo', body);
    if (created.status !== 200) throw new Error(`create index: ${created.text}`);

    const rows: string[][] = [['docs', 'docs/s', 'RSS MiB', 'anon', 'file', 'PSS', 'log MiB', 'segments', 'versions']];
    const gen = WITHOUT_LOCATION ? withoutLocation(generatePassRecords({ count })) : generatePassRecords({ count });
    let sent = 0;
    let reported = 0;
    const load = () => loadavg().map((n) => n.toFixed(1)).join(' ');
    process.stdout.write(`bench:scale ${new Date().toISOString()} ${ROOT ?? 'this build'} load average ${load()}\n`);
    const cpuBefore = threadCpu(server.child.pid!);
    const clientBefore = process.cpuUsage();
    const t0 = performance.now();
    let tLast = t0;
    let sentLast = 0;
    const report = () => {
      const now = performance.now();
      const m = memoryOf(server.child.pid!);
      const d = diskOf(dir);
      rows.push([String(sent), f0((sent - sentLast) / ((now - tLast) / 1000)), f0(m.rss), f0(m.anon), f0(m.file), f0(m.pss), mb(d.log), mb(d.segments), mb(d.versions)]);
      process.stderr.write(`${rows[rows.length - 1]!.join('  ')}\n`);
      tLast = now;
      sentLast = sent;
    };
    const worker = async () => {
      for (let b = nextBulkBody(gen, batch); b !== null; b = nextBulkBody(gen, batch)) {
        await client.bulk('/passinfo/_bulk', b.body);
        sent += b.docs;
        if (sent - reported >= REPORT_EVERY) {
          reported += REPORT_EVERY;
          report();
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const loadSeconds = (performance.now() - t0) / 1000;
    const cpuAfter = threadCpu(server.child.pid!);
    const clientCpu = process.cpuUsage(clientBefore);
    await client.request('POST', '/passinfo/_refresh');
    if (sent !== reported) report();
    printTable(`bench:scale load: ${sent} records in ${loadSeconds.toFixed(0)} s, ${f0(sent / loadSeconds)} docs/s overall (5 shards, no replica)`, rows);
    process.stdout.write(`node CPU during the load: ${cpuPerThousand(cpuBefore, cpuAfter, sent)}\n`);
    // The client generates and sends the records on the same cores: what it takes is not the node's to use.
    const clientSeconds = (clientCpu.user + clientCpu.system) / 1e6;
    process.stdout.write(`this client's CPU: ${clientSeconds.toFixed(1)} s, ${((1000 * clientSeconds) / sent).toFixed(3)} s per 1,000 docs\n`);
    process.stdout.write(`load average after the load ${load()}; peak RSS (VmHWM) ${f0(memoryOf(server.child.pid!).hwm)} MiB\n`);
    const counted = (await client.request('GET', '/passinfo/_count')).body as { count: number };
    if (counted.count !== count) throw new Error(`_count says ${counted.count}, expected ${count}`);
    if (LOAD_ONLY) return;

    await runQueries(client, `queries after the load (${count} records, ${runs} runs each)`);
    const served = memoryOf(server.child.pid!);

    // A clean stop commits every copy; the restart then replays nothing.
    const stopStart = performance.now();
    server.child.kill('SIGTERM');
    await server.exited;
    const stopMs = performance.now() - stopStart;
    client.close();
    const startAt = performance.now();
    server = await spawnServer(dir, [], 600_000, true, ROOT);
    const httpMs = performance.now() - startAt;
    client = new KeepAliveClient(server.url);
    await waitGreen(client);
    const greenMs = performance.now() - startAt;
    const afterRestart = memoryOf(server.child.pid!);
    const disk = diskOf(dir);
    await runQueries(client, `queries after the restart (${count} records)`);
    const servedAgain = memoryOf(server.child.pid!);

    printTable(`bench:scale summary (${count} records)`, [
      ['measure', 'value'],
      ['bulk load docs/s', f0(count / loadSeconds)],
      ['RSS / anon / file / PSS while serving queries, MiB', `${f0(served.rss)} / ${f0(served.anon)} / ${f0(served.file)} / ${f0(served.pss)}`],
      ['peak RSS (VmHWM) during the load, MiB', f0(served.hwm)],
      ['on disk: log + segments + versions, MiB', `${mb(disk.log + disk.segments + disk.versions)} (${mb(disk.log)} + ${mb(disk.segments)} + ${mb(disk.versions)})`],
      [
        'segments by file kind, MiB',
        [...segmentKinds(dir)]
          .sort((a, b) => b[1] - a[1])
          .map(([k, n]) => `.${k} ${mb(n)}`)
          .join(', '),
      ],
      ['stop (SIGTERM, commits every copy), ms', f0(stopMs)],
      ['restart until HTTP answers, ms', f0(httpMs)],
      ['restart until every shard is started, ms', f0(greenMs)],
      ['RSS right after the restart, MiB', f0(afterRestart.rss)],
      ['RSS / anon / file / PSS serving queries after the restart, MiB', `${f0(servedAgain.rss)} / ${f0(servedAgain.anon)} / ${f0(servedAgain.file)} / ${f0(servedAgain.pss)}`],
    ]);
  } finally {
    client.close();
    server.child.kill('SIGTERM');
    await server.exited;
    if (keepDir === undefined) await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
