/**
 * bench:cluster — three node processes on librdkafka's mock Kafka cluster
 * (test/helpers/cluster.ts), the pass-record index with 5 shards and
 * 1 replica, beside one embedded node loaded with the same records.
 *
 *   npm run bench:cluster                                  # 200,000 records
 *   npm run bench:cluster -- --count 50000 --samples 20 --runs 30
 *   npm run bench:cluster -- --single 0 --failover 0       # the cluster's load and queries only
 *
 * What it prints, for the cluster and (unless --single 0) for one node:
 *
 * - Bulk indexing: the records as prebuilt NDJSON bodies of --batch records
 *   over keep-alive connections, --concurrency requests in flight, spread
 *   round robin over the nodes. In the cluster a bulk is answered once both
 *   copies of each shard applied it (replication=sync), so this is the rate
 *   at which documents are in Kafka and on two copies.
 * - Acknowledged → searchable: one document indexed with refresh=false
 *   through one node; from the moment its 200/201 arrives, a search for its
 *   id on another node (the same node for the single node) is repeated every
 *   5 ms until it finds it. This is what a client that writes and then
 *   searches elsewhere sees: the apply on the copies, then the next periodic
 *   refresh (refresh_interval 1s), then the poll's granularity. Samples
 *   start at random moments, so the refresh wait averages half an interval.
 *   Beside it, the latency of a write with refresh=wait_for, which answers
 *   only once the write is searchable.
 * - Search: p50 and p99 of bench:search's queries, all sent to node 0 (which
 *   queries its own copies and the other nodes' over the transport).
 * - Copy rebuild (unless --failover 0): node 2 is killed with SIGKILL. After
 *   the session timeout (3 s) the master gives its copies to the two others,
 *   which build them by replaying their partitions from Kafka. `_cat/recovery`
 *   gives each new copy's replayed records and its start and stop times: the
 *   rate is replayed records over the span from the first start to the last
 *   stop, and "kill → green" is the whole outage as a client sees it.
 *
 * The load generator, three nodes and the mock share the machine's cores.
 */
import { rm } from 'node:fs/promises';
import { generatePassRecords, PASSINFO_INDEX_BODY, prng, type PassRecord } from './pass-records.ts';
import { argNumber, measure } from './dataset.ts';
import { buildBulkBodies, seedSearches } from './seed-workload.ts';
import { KeepAliveClient } from './keep-alive-client.ts';
import { percentile, printTable } from './report.ts';
import { Progress } from '../shared/terminal/progress.ts';
import { startCluster, type TestCluster } from '../test/helpers/cluster.ts';
import { spawnServer, tempDir, type ChildServer } from '../test/helpers/server.ts';

const count = argNumber('count', 200_000);
const batch = argNumber('batch', 5000);
const concurrency = argNumber('concurrency', 3);
const samples = argNumber('samples', 40);
const runs = argNumber('runs', 50);
const withSingle = argNumber('single', 1) !== 0;
const withFailover = argNumber('failover', 1) !== 0;

/** How often the visibility probe searches. */
const POLL_MS = 5;
/**
 * Each visibility sample starts after a random pause of up to this long, so
 * that the writes do not fall into step with the copies' 1 s refresh timers
 * (a write made just after the probe saw a refresh would always wait a
 * whole interval).
 */
const JITTER_MS = 1000;
const INDEX = '/passinfo';

interface Figures {
  docsPerSecond: number;
  visible: number[];
  waitFor: number[];
  queries: Map<string, number[]>;
}

async function ok(client: KeepAliveClient, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const r = await client.request(method, path, body);
  if (r.status < 200 || r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.body as Record<string, unknown>;
}

/** Loads the records through the nodes round robin; returns documents/s. */
async function load(urls: readonly string[], bodies: readonly { body: Buffer; docs: number }[]): Promise<number> {
  const clients = urls.map((u) => new KeepAliveClient(u));
  let next = 0;
  let sent = 0;
  const start = performance.now();
  const progress = new Progress({ label: 'indexed', total: bodies.reduce((n, b) => n + b.docs, 0) });
  const worker = async () => {
    while (next < bodies.length) {
      const i = next++;
      await clients[i % clients.length]!.bulk(`${INDEX}/_bulk`, bodies[i]!.body);
      sent += bodies[i]!.docs;
      progress.update(sent);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  progress.finish(sent);
  const seconds = (performance.now() - start) / 1000;
  for (const c of clients) c.close();
  return sent / seconds;
}

/** Write on `writers[i]`, then search for the id on `readers[i]` until found: ms from acknowledgement to found. */
async function visibility(writers: readonly KeepAliveClient[], readers: readonly KeepAliveClient[], record: PassRecord): Promise<{ visible: number[]; waitFor: number[] }> {
  const visible: number[] = [];
  const waitFor: number[] = [];
  const random = prng(11);
  for (let i = 0; i < samples; i++) {
    await new Promise((r) => setTimeout(r, random() * JITTER_MS));
    const id = `visibility-${i}`;
    const writer = writers[i % writers.length]!;
    const reader = readers[i % readers.length]!;
    await ok(writer, 'PUT', `${INDEX}/passinfo/${id}?refresh=false`, { ...record, event_id: id });
    const acked = performance.now();
    for (;;) {
      const found = await ok(reader, 'POST', `${INDEX}/_search`, { size: 0, query: { ids: { values: [id] } } });
      if ((found.hits as { total: number }).total > 0) break;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    visible.push(performance.now() - acked);
    await new Promise((r) => setTimeout(r, random() * JITTER_MS));
    const t0 = performance.now();
    await ok(writer, 'PUT', `${INDEX}/passinfo/${id}-wait?refresh=wait_for`, { ...record, event_id: `${id}-wait` });
    waitFor.push(performance.now() - t0);
  }
  return { visible, waitFor };
}

/** bench:search's queries (bench/search.bench.ts), p50/p99 through one node. */
async function queries(client: KeepAliveClient): Promise<Map<string, number[]>> {
  const post = (body: unknown) => async () => {
    await ok(client, 'POST', `${INDEX}/_search`, body);
  };
  const list: [string, () => Promise<void>][] = seedSearches().map(([name, body]) => [name, post(body)]);
  const out = new Map<string, number[]>();
  for (const [name, fn] of list) out.set(name, await measure(runs, fn));
  return out;
}

/** Every node counts every loaded record (after a refresh; a periodic refresh a second later as a fallback). */
async function checkCount(clients: readonly KeepAliveClient[], expected: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await ok(clients[0]!, 'POST', `${INDEX}/_refresh`);
    const counts: number[] = [];
    for (const c of clients) counts.push((await ok(c, 'GET', `${INDEX}/_count`)).count as number);
    if (counts.every((n) => n === expected)) return;
    if (attempt === 3) throw new Error(`_count is ${counts.join(', ')} on the nodes, ${expected} loaded`);
    process.stderr.write(`_count is ${counts.join(', ')} on the nodes, ${expected} loaded; counting again\n`);
    await new Promise((r) => setTimeout(r, 1500));
  }
}

interface Rebuild {
  copies: number;
  records: number;
  replaySeconds: number;
  outageSeconds: number;
}

/** Kills node 2 and measures how its copies are rebuilt on the others (see the header). */
async function rebuild(c: TestCluster, via: KeepAliveClient): Promise<Rebuild> {
  const killedAt = Date.now();
  await c.kill(2);
  await c.waitForHealth('green', { via: 0, nodes: 2, timeoutMs: 15 * 60_000 });
  const outageSeconds = (Date.now() - killedAt) / 1000;
  const rows = (await via.request('GET', '/_cat/recovery/passinfo?format=json&h=translog_ops,start_time_millis,stop_time_millis')).body as {
    translog_ops: string;
    start_time_millis: string;
    stop_time_millis: string;
  }[];
  const rebuilt = rows.filter((r) => Number(r.start_time_millis) >= killedAt);
  if (rebuilt.length === 0) throw new Error('no copy was rebuilt after the kill');
  const first = Math.min(...rebuilt.map((r) => Number(r.start_time_millis)));
  const last = Math.max(...rebuilt.map((r) => Number(r.stop_time_millis)));
  return {
    copies: rebuilt.length,
    records: rebuilt.reduce((n, r) => n + Number(r.translog_ops), 0),
    replaySeconds: (last - first) / 1000,
    outageSeconds,
  };
}

async function clusterFigures(bodies: readonly { body: Buffer; docs: number }[], record: PassRecord): Promise<{ figures: Figures; rebuild: Rebuild | null }> {
  const c = await startCluster({ nodes: 3, sessionTimeout: '3s' });
  const clients = [0, 1, 2].map((i) => new KeepAliveClient(c.url(i)));
  try {
    await c.waitForHealth('green', { nodes: 3, timeoutMs: 120_000 });
    await ok(clients[0]!, 'PUT', INDEX, { ...PASSINFO_INDEX_BODY, settings: { ...PASSINFO_INDEX_BODY.settings, number_of_shards: 5, number_of_replicas: 1 } });
    await c.waitForHealth('green', { timeoutMs: 120_000 });
    const docsPerSecond = await load([0, 1, 2].map((i) => c.url(i)), bodies);
    await checkCount(clients, count);
    const { visible, waitFor } = await visibility(clients, [clients[1]!, clients[2]!, clients[0]!], record);
    const figures: Figures = { docsPerSecond, visible, waitFor, queries: await queries(clients[0]!) };
    return { figures, rebuild: withFailover ? await rebuild(c, clients[0]!) : null };
  } finally {
    for (const k of clients) k.close();
    await c.stop();
  }
}

async function singleNodeFigures(bodies: readonly { body: Buffer; docs: number }[], record: PassRecord): Promise<Figures> {
  const dir = await tempDir('bench-cluster-single-');
  let server: ChildServer | null = null;
  let client: KeepAliveClient | null = null;
  try {
    server = await spawnServer(dir);
    client = new KeepAliveClient(server.url);
    await ok(client, 'PUT', INDEX, PASSINFO_INDEX_BODY);
    const docsPerSecond = await load([server.url], bodies);
    await checkCount([client], count);
    const { visible, waitFor } = await visibility([client], [client], record);
    return { docsPerSecond, visible, waitFor, queries: await queries(client) };
  } finally {
    client?.close();
    if (server) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await rm(dir, { recursive: true, force: true });
  }
}

const pair = (s: readonly number[] | undefined): string => (s === undefined ? '-' : `${percentile(s, 50).toFixed(1)} / ${percentile(s, 99).toFixed(1)}`);

async function main(): Promise<void> {
  const bodies = buildBulkBodies(count, batch);
  const record = generatePassRecords({ count: 1, seed: 99 }).next().value!;
  const cluster = await clusterFigures(bodies, record);
  const single = withSingle ? await singleNodeFigures(bodies, record) : null;
  const rows: string[][] = [['measure', '3 nodes, 1 replica (mock Kafka)', single ? '1 node (embedded log)' : '']];
  rows.push(['bulk indexing, documents/s', Math.round(cluster.figures.docsPerSecond).toString(), single ? Math.round(single.docsPerSecond).toString() : '']);
  rows.push(['acknowledged → searchable on another node, p50 / p99 ms', pair(cluster.figures.visible), single ? pair(single.visible) : '']);
  rows.push(['write with refresh=wait_for, p50 / p99 ms', pair(cluster.figures.waitFor), single ? pair(single.waitFor) : '']);
  for (const [name, s] of cluster.figures.queries) rows.push([`${name}, p50 / p99 ms`, pair(s), single ? pair(single.queries.get(name)) : '']);
  if (cluster.rebuild) {
    const r = cluster.rebuild;
    rows.push([`copy rebuild after kill -9: ${r.copies} copies, ${r.records} records`, `${Math.round(r.records / Math.max(r.replaySeconds, 0.001))} records/s`, '']);
    rows.push(['  replay (first copy opened → last started), s', r.replaySeconds.toFixed(1), '']);
    rows.push(['  kill → green (incl. 3 s session timeout), s', r.outageSeconds.toFixed(1), '']);
  }
  printTable(`bench:cluster (${count} records, 5 shards, batch ${batch}, ${concurrency} in flight, ${samples} visibility samples, ${runs} runs per query)`, rows);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
