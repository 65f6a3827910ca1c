/**
 * bench:http-thread — nothing long runs on the thread that serves HTTP
 * (issue 11, item 6). While one client sends a heavy request again and
 * again, a second client probes `GET /` and a small search every 20 ms; the
 * table gives the probes' p50/p99/max, the heavy request's status and time,
 * and the node's RSS. The bar: probe p99 under 50 ms in every row.
 *
 *   npm run bench:http-thread                    # 100,000 documents, 8 s per scenario
 *   npm run bench:http-thread -- --seconds 15
 *   npm run bench:http-thread -- --only _mget       # the scenarios whose name holds this
 *   npm run bench:http-thread -- --url http://127.0.0.1:9311 --pid 1234 --only _mget
 *                                                   # against a node already running (a profiled one; RSS read with --pid)
 *   npm run bench:http-thread -- --root /path/to/other/checkout    # that checkout's build (alternate before/after)
 *   npm run bench:http-thread -- --only nested --cpu-prof /tmp/prof
 *                                                   # a .cpuprofile of every thread of the node; then
 *                                                   # `npx tsx bench/long-stretches.ts /tmp/prof` lists what held a thread > 15 ms
 *
 * The heavy requests are the ones that stalled every other request: a
 * terms aggregation with size 2^31-1 over 100,000 distinct values, a
 * per-second date_histogram over 30 days, terms × terms, _mget of 100,000
 * ids, and a 10 MB document of nested objects; and three whose size is in
 * the request: a 10 MB `_bulk`, an `_msearch` of 1,000 searches, and an
 * `_analyze` of a 4 MB text; and an ids query of 10,000 ids (the fuzz run's).
 *
 * The heavy request's body is serialised once and its answer not decoded
 * (KeepAliveClient.status): this process times the probes, and a 10 MB
 * JSON.stringify or JSON.parse of its own on that thread showed up as the
 * node's latency.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from '../test/helpers/server.ts';
import { KeepAliveClient } from './keep-alive-client.ts';
import { argNumber } from './dataset.ts';
import { percentile, printTable } from './report.ts';

const DOCS = argNumber('docs', 100_000);
const SECONDS = argNumber('seconds', 8);
const PROBE_EVERY_MS = 20;
const DAY = 86_400_000;
const START = Date.UTC(2024, 0, 1);

async function rssMiB(pid: number | undefined): Promise<number> {
  if (pid === undefined) return NaN;
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** CPU time of every thread of the node so far (user + system), ms. */
async function cpuMs(pid: number | undefined): Promise<number> {
  if (pid === undefined) return NaN;
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat (11 and 12 after the command), in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function load(client: KeepAliveClient): Promise<void> {
  const create = await client.request('PUT', '/heavy', {
    // The 10 MB document holds ~90,000 nested objects: past the default limit of 10,000 (Elasticsearch's 400).
    settings: { number_of_shards: 2, refresh_interval: '-1', 'index.mapping.nested_objects.limit': 1_000_000 },
    mappings: { _doc: { properties: { k: { type: 'keyword' }, g: { type: 'keyword' }, ts: { type: 'date' }, items: { type: 'nested' } } } },
  });
  // A node given with --url may hold the index from an earlier run: used as it is.
  if (create.status === 400 && create.text.includes('resource_already_exists_exception')) return;
  if (create.status !== 200) throw new Error(create.text);
  for (let from = 0; from < DOCS; from += 5000) {
    let body = '';
    for (let i = from; i < Math.min(DOCS, from + 5000); i++) {
      body += `{"index":{"_id":"${i}"}}\n`;
      // 100,000 distinct keys, 1,000 groups, times spread over 30 days.
      body += `${JSON.stringify({ k: `key-${i}`, g: `group-${i % 1000}`, ts: START + Math.floor((i / DOCS) * 30 * DAY) })}\n`;
    }
    await client.bulk('/heavy/_doc/_bulk', Buffer.from(body));
  }
  await client.request('POST', '/heavy/_refresh');
  // The load's commit (seconds of segment writing on the workers) would otherwise fall in the first row.
  await client.request('POST', '/heavy/_flush');
}

function nestedDocument(bytes: number): unknown {
  const items: unknown[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const item = { name: `item-${i}`, value: i, tags: [`t${i % 7}`, `u${i % 11}`], inner: { a: `a-${i}`, b: i * 2 } };
    items.push(item);
    size += JSON.stringify(item).length + 1;
  }
  return { title: 'ten megabytes', items };
}

interface Scenario {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  /** An NDJSON body instead of `body`. */
  readonly ndjson?: Buffer;
}

/** 50,000 documents with the ids 0..49,999 of the loaded index (each run overwrites them): 10 MB. */
function bigBulk(): Buffer {
  let body = '';
  for (let i = 0; i < 50_000; i++) {
    body += `{"index":{"_id":"${i}"}}\n`;
    body += `${JSON.stringify({ k: `key-${i}`, g: `group-${i % 1000}`, ts: START + i * 1000, msg: `a log line of some length, number ${i}, with words to index` })}\n`;
  }
  return Buffer.from(body);
}

function scenarios(): Scenario[] {
  const ids = Array.from({ length: 100_000 }, (_, i) => String(i));
  return [
    { name: 'terms size 2^31-1, 100,000 keys', method: 'POST', path: '/heavy/_search', body: { size: 0, aggs: { t: { terms: { field: 'k', size: 2 ** 31 - 1 } } } } },
    { name: 'date_histogram 1s over 30 days', method: 'POST', path: '/heavy/_search', body: { size: 0, aggs: { h: { date_histogram: { field: 'ts', interval: '1s', min_doc_count: 0 } } } } },
    { name: 'terms 1000 x terms 1000', method: 'POST', path: '/heavy/_search', body: { size: 0, aggs: { g: { terms: { field: 'g', size: 1000 }, aggs: { k: { terms: { field: 'k', size: 1000 } } } } } } },
    { name: '_mget of 100,000 ids', method: 'POST', path: '/heavy/_doc/_mget', body: { ids } },
    { name: 'a 10 MB nested document', method: 'PUT', path: '/heavy/_doc/big', body: nestedDocument(10 * 1024 * 1024) },
    { name: 'a 10 MB _bulk of 50,000 documents', method: 'POST', path: '/heavy/_doc/_bulk', body: null, ndjson: bigBulk() },
    {
      name: '_msearch of 1,000 searches',
      method: 'POST',
      path: '/heavy/_msearch',
      body: null,
      ndjson: Buffer.from(Array.from({ length: 1000 }, (_, i) => `{}\n{"query":{"term":{"k":"key-${i * 97}"}},"size":1}\n`).join('')),
    },
    {
      name: 'ids query of 10,000 ids',
      method: 'POST',
      path: '/heavy/_search',
      body: { query: { ids: { values: Array.from({ length: 10_000 }, (_, i) => String(i * 10)) } }, size: 10 },
    },
    { name: '_analyze of a 4 MB text', method: 'POST', path: '/_analyze', body: { analyzer: 'standard', text: 'lorem ipsum dolor sit amet '.repeat(150_000) } },
  ];
}

interface Probe {
  readonly root: number[];
  readonly search: number[];
}

/** Two probes in their own loops (so a slow one does not hide the other): `GET /` and a small search, each every PROBE_EVERY_MS. */
async function probe(client: KeepAliveClient, until: () => boolean): Promise<Probe> {
  const loop = async (method: string, path: string, out: number[]): Promise<void> => {
    while (!until()) {
      const t0 = performance.now();
      const r = await client.request(method, path);
      if (r.status !== 200) throw new Error(`probe ${path} failed: ${r.status} ${r.text.slice(0, 200)}`);
      out.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  };
  const out: Probe = { root: [], search: [] };
  await Promise.all([loop('GET', '/', out.root), loop('GET', '/heavy/_search?q=k:key-7&size=1', out.search)]);
  return out;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-http-thread-'));
  const urlAt = process.argv.indexOf('--url');
  const pidAt = process.argv.indexOf('--pid');
  const child = pidAt >= 0 ? { pid: Number(process.argv[pidAt + 1]) } : null;
  const profAt = process.argv.indexOf('--cpu-prof');
  const profDir = profAt >= 0 ? process.argv[profAt + 1]! : null;
  // With the profiles, each thread's stretches without a turn of its event loop (loop-gaps.mjs).
  const profFlags = profDir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${profDir}`, '--import', new URL('./loop-gaps.mjs', import.meta.url).pathname];
  if (profDir !== null) process.env.LOOP_GAPS_DIR = profDir;
  // --root DIR: another checkout's build (a "before" to alternate with this one on the same machine state).
  const rootAt = process.argv.indexOf('--root');
  const root = rootAt >= 0 ? `${process.argv[rootAt + 1]!.replace(/\/$/, '')}/` : undefined;
  const server =
    urlAt >= 0 ? { url: process.argv[urlAt + 1]!, child } : await spawnServer(dir, ['--node.processors', '2'], 60_000, false, root, profFlags);
  const heavyClient = new KeepAliveClient(server.url);
  const probeClient = new KeepAliveClient(server.url);
  try {
    await load(heavyClient);
    const rows: string[][] = [['while this runs', 'status', 'heavy ms', 'GET / p50', 'p99', 'max', 'search p50', 'p99', 'max', 'RSS MiB', 'node CPU ms/req']];
    const idle = await probe(probeClient, (() => {
      const end = Date.now() + 2000;
      return () => Date.now() > end;
    })());
    rows.push(['(nothing)', '-', '-', ...stats(idle.root), ...stats(idle.search), (await rssMiB(server.child?.pid)).toFixed(0), '-']);
    const only = process.argv.indexOf('--only');
    const filter = only >= 0 ? process.argv[only + 1]! : '';
    for (const s of scenarios().filter((x) => x.name.includes(filter))) {
      // Serialised once: the load generator shares its thread with the probes (see KeepAliveClient.status).
      const payload = s.ndjson ?? Buffer.from(JSON.stringify(s.body), 'utf8');
      const contentType = s.ndjson ? 'application/x-ndjson' : 'application/json';
      const heavyTimes: number[] = [];
      const statuses = new Set<string>();
      const end = Date.now() + SECONDS * 1000;
      let done = false;
      const heavy = (async () => {
        while (Date.now() < end) {
          const t0 = performance.now();
          const r = await heavyClient.status(s.method, s.path, payload, contentType);
          heavyTimes.push(performance.now() - t0);
          statuses.add(r.errorType === undefined ? String(r.status) : `${r.status} ${r.errorType}`);
        }
        done = true;
      })();
      const from = process.hrtime.bigint() / 1000n;
      const cpuBefore = await cpuMs(server.child?.pid);
      const p = await probe(probeClient, () => done);
      await heavy;
      // The window on the clock of the .cpuprofile files (µs, monotonic): `bench/long-stretches.ts DIR --from A --to B`.
      if (profFlags.length > 0) process.stdout.write(`${s.name}: --from ${from} --to ${process.hrtime.bigint() / 1000n}\n`);
      // The probes' own CPU is in it too (a few ms a second).
      const cpuPerRequest = ((await cpuMs(server.child?.pid)) - cpuBefore) / heavyTimes.length;
      rows.push([s.name, [...statuses].join('/'), percentile(heavyTimes, 50).toFixed(0), ...stats(p.root), ...stats(p.search), (await rssMiB(server.child?.pid)).toFixed(0), cpuPerRequest.toFixed(0)]);
    }
    printTable(`bench:http-thread (${DOCS} documents, 2 shards, ${SECONDS} s per scenario, probes every ${PROBE_EVERY_MS} ms; times in ms)`, rows);
  } finally {
    heavyClient.close();
    probeClient.close();
    if ('exited' in server) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await rm(dir, { recursive: true, force: true });
  }
}

function stats(samples: readonly number[]): string[] {
  return [percentile(samples, 50).toFixed(1), percentile(samples, 99).toFixed(1), Math.max(...samples).toFixed(1)];
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
