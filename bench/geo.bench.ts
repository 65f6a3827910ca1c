/**
 * bench:geo — geo filters over pass records (issue 20): N records from the
 * application's generator, each at its checkpoint's place on the city map
 * (2,000 checkpoints within 20 km of the centre), loaded into a compiled
 * node through `_bulk` (the seed's index: 5 shards, no replica, `location`
 * a geo_point) and, with `--pg URL`, into PostgreSQL with PostGIS (schema
 * `bench_geo`: a geometry and a geography column, a GiST index on each, a
 * B-tree on pass_time). Then, one query at a time, a 2 km geo_distance
 * around the checkpoint nearest the centre and a 2 km x 2 km
 * geo_bounding_box, each over all 30 days and over the data's last hour:
 * the count and the 10 newest (pass_time desc, event_id asc). Beside them a
 * brute-force scan of the records in this process. Every engine's count and
 * top 10 must agree, or the run prints the difference and exits 1. Prints
 * p50 and p95 per engine, with the node's RSS beside every figure. The
 * node is measured with its filter cache emptied before every run (each run
 * evaluates its filters), and again warm (the filters' bitsets cached).
 *
 * `--scan-node ROOT`: after the node above, the same data directory is
 * opened by the node built at ROOT (a checkout from before the point index,
 * `npm run build` there) and asked the same queries: the scan's figures.
 *
 *   npm run bench:geo                                   # 1,000,000 records, 30 runs after 10 warm-up
 *   npm run bench:geo -- --count 5000000 --runs 20
 *   npm run bench:geo -- --pg postgres://bench:bench@127.0.0.1/bench
 *   npm run bench:geo -- --scan-node /tmp/before        # the node before the point index too
 *   npm run bench:geo -- --keep /tmp/geo-1m             # keep the node's data; a rerun opens it instead of loading
 */
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { CITY_CENTER, checkpointLocation } from '../services/passinfo/checkpoint-map.ts';
import { generatePassRecords, landId, PASSINFO_INDEX_BODY, type PassRecord } from './pass-records.ts';
import { KeepAliveClient } from './keep-alive-client.ts';
import { percentile, printTable } from './report.ts';
import { nextBulkBody, type BulkBody } from './seed-workload.ts';
import { spawnServer, tempDir, type ChildServer } from '../test/helpers/server.ts';

const { values: args } = parseArgs({
  options: {
    count: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '10' },
    checkpoints: { type: 'string', default: '2000' },
    pg: { type: 'string' },
    'scan-node': { type: 'string' },
    keep: { type: 'string' },
  },
});
const count = Number(args.count);
const runs = Number(args.runs);
const warmup = Number(args.warmup);
const checkpoints = Number(args.checkpoints);

const INDEX = 'passinfo';
const BATCH = 5000;
const CONCURRENCY = 3;
const SEED = 42;
const EARTH_MEAN_RADIUS = 6371008.7714;
const KM_LAT = 1 / 111.195;
const KM_LON = 1 / (111.195 * Math.cos((CITY_CENTER.lat * Math.PI) / 180));
/** The generator's days: 2026-10-01 and the 29 after; its last hour. */
const LAST_HOUR = ['2026-10-30 23:00:00', '2026-10-31 00:00:00'] as const;

interface Case {
  readonly name: string;
  readonly circle?: { readonly lat: number; readonly lon: number; readonly meters: number };
  readonly box?: { readonly top: number; readonly left: number; readonly bottom: number; readonly right: number };
  readonly window?: readonly [string, string];
}

/** Count and the 10 newest ids (pass_time desc, event_id asc). */
interface Answer {
  readonly total: number;
  readonly top: readonly string[];
}

/** The records as columns, for the brute-force scan (event_id is `E16-` + the index in base 36, so index order is id order). */
interface Columns {
  readonly lat: Float64Array;
  readonly lon: Float64Array;
  readonly time: Float64Array;
}

const ms = (s: string): number => Date.parse(s.replace(' ', 'T') + 'Z');
const eventId = (i: number): string => `E${SEED.toString(36)}-${i.toString(36).padStart(8, '0')}`;

function haversine(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * r) / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lon2 - lon1) * r) / 2) ** 2;
  return 2 * EARTH_MEAN_RADIUS * Math.asin(Math.min(1, Math.sqrt(a)));
}

function cases(): Case[] {
  // The checkpoint nearest the centre: the busiest part of the map.
  let best = CITY_CENTER;
  let bestD = Infinity;
  for (let i = 0; i < checkpoints; i++) {
    const p = checkpointLocation(landId(i));
    const d = haversine(p.lat, p.lon, CITY_CENTER.lat, CITY_CENTER.lon);
    if (d < bestD) [best, bestD] = [p, d];
  }
  const circle = { lat: best.lat, lon: best.lon, meters: 2000 };
  // 2 km x 2 km, its corner 1.5 km north-east of the centre (edges off any checkpoint's coordinates, checked below).
  const south = CITY_CENTER.lat + 0.5 * KM_LAT;
  const west = CITY_CENTER.lon + 0.5 * KM_LON;
  const box = { bottom: south, top: south + 2 * KM_LAT, left: west, right: west + 2 * KM_LON };
  return [
    { name: 'geo_distance 2 km, 30 days', circle },
    { name: 'geo_distance 2 km, last hour', circle, window: LAST_HOUR },
    { name: 'geo_bounding_box 2x2 km, 30 days', box },
    { name: 'geo_bounding_box 2x2 km, last hour', box, window: LAST_HOUR },
  ];
}

// ---- brute force ----------------------------------------------------------------

function bruteForce(cols: Columns, c: Case): Answer {
  const n = cols.lat.length;
  const from = c.window ? ms(c.window[0]) : -Infinity;
  const to = c.window ? ms(c.window[1]) : Infinity;
  let total = 0;
  // The 10 newest so far, as indexes, newest first.
  const top: number[] = [];
  const newer = (a: number, b: number) => cols.time[a]! > cols.time[b]! || (cols.time[a] === cols.time[b] && a < b);
  for (let i = 0; i < n; i++) {
    const t = cols.time[i]!;
    if (t < from || t >= to) continue;
    const lat = cols.lat[i]!;
    const lon = cols.lon[i]!;
    if (c.circle !== undefined) {
      if (haversine(c.circle.lat, c.circle.lon, lat, lon) > c.circle.meters) continue;
    } else if (c.box !== undefined) {
      if (lat < c.box.bottom || lat > c.box.top || lon < c.box.left || lon > c.box.right) continue;
    }
    total++;
    if (top.length < 10 || newer(i, top[top.length - 1]!)) {
      let k = top.length < 10 ? top.length : 9;
      top[k] = i;
      while (k > 0 && newer(top[k]!, top[k - 1]!)) {
        [top[k], top[k - 1]] = [top[k - 1]!, top[k]!];
        k--;
      }
    }
  }
  return { total, top: top.map(eventId) };
}

// ---- the node --------------------------------------------------------------------

function nodeBody(c: Case): unknown {
  const filter: unknown[] = [];
  if (c.circle) filter.push({ geo_distance: { distance: `${c.circle.meters}m`, location: { lat: c.circle.lat, lon: c.circle.lon } } });
  if (c.box) filter.push({ geo_bounding_box: { location: { top_left: { lat: c.box.top, lon: c.box.left }, bottom_right: { lat: c.box.bottom, lon: c.box.right } } } });
  if (c.window) filter.push({ range: { pass_time: { gte: c.window[0], lt: c.window[1] } } });
  return { size: 10, _source: false, query: { bool: { filter } }, sort: [{ pass_time: 'desc' }, { event_id: 'asc' }] };
}

/** Nodes still running: stopped if the bench fails half-way. */
const running = new Set<ChildServer>();
process.on('exit', () => {
  for (const s of running) s.child.kill('SIGTERM');
});

class Node {
  readonly client: KeepAliveClient;
  constructor(readonly server: ChildServer) {
    this.client = new KeepAliveClient(server.url);
    running.add(server);
  }

  /** VmRSS of the node process, MiB. */
  rss(): number {
    const status = readFileSync(`/proc/${this.server.child.pid!}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
  }

  async answer(c: Case): Promise<Answer> {
    const r = await this.client.request('POST', `/${INDEX}/_search`, nodeBody(c));
    if (r.status !== 200) throw new Error(`node: search answered ${r.status}: ${r.text.slice(0, 500)}`);
    const body = r.body as { hits: { total: number; hits: { _id: string }[] } };
    return { total: body.hits.total, top: body.hits.hits.map((h) => h._id) };
  }

  /** Waits until every record is searchable (a restarted node opens its copies first). */
  async waitForCount(n: number): Promise<void> {
    const deadline = Date.now() + 600_000;
    for (;;) {
      const r = await this.client.request('POST', `/${INDEX}/_count`, { query: { match_all: {} } });
      if (r.status === 200 && (r.body as { count: number }).count === n) return;
      if (Date.now() > deadline) throw new Error(`node: ${r.text.slice(0, 300)} after 10 minutes, expected ${n} records`);
      await new Promise((res) => setTimeout(res, 500));
    }
  }

  async close(): Promise<void> {
    this.client.close();
    this.server.child.kill('SIGTERM');
    await this.server.exited;
    running.delete(this.server);
  }
}

async function loadNode(node: Node, onRecord: (r: PassRecord) => void): Promise<number> {
  const body = { ...PASSINFO_INDEX_BODY, settings: { ...PASSINFO_INDEX_BODY.settings, number_of_replicas: 0 } };
  const created = await node.client.request('PUT', `/${INDEX}`, body);
  if (created.status !== 200) throw new Error(`create index: ${created.text}`);
  const gen = generatePassRecords({ count, checkpoints, seed: SEED });
  const t0 = performance.now();
  for (;;) {
    const bodies: BulkBody[] = [];
    for (let n = 0; n < 200_000; n += BATCH) {
      const b = nextBulkBody(gen, BATCH, onRecord);
      if (b === null) break;
      bodies.push(b);
    }
    if (bodies.length === 0) break;
    let next = 0;
    const worker = async () => {
      while (next < bodies.length) await node.client.bulk(`/${INDEX}/_bulk`, bodies[next++]!.body);
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  }
  await node.client.request('POST', `/${INDEX}/_refresh`);
  const seconds = (performance.now() - t0) / 1000;
  await node.waitForCount(count);
  const flushed = await node.client.request('POST', `/${INDEX}/_flush`);
  if (flushed.status !== 200) throw new Error(`flush: ${flushed.text}`);
  return seconds;
}

// ---- PostgreSQL + PostGIS --------------------------------------------------------

const SCHEMA = 'bench_geo';

async function loadPostgres(client: pg.Client, cols: Columns): Promise<number> {
  await client.query(`SET work_mem = '256MB'; SET jit = off`);
  await client.query(`CREATE EXTENSION IF NOT EXISTS postgis SCHEMA public; DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA};
    SET search_path = ${SCHEMA}, public;
    CREATE TABLE passes (event_id text NOT NULL, pass_time timestamp NOT NULL, geom geometry(Point, 4326) NOT NULL, geog geography(Point, 4326) NOT NULL)`);
  const t0 = performance.now();
  const n = cols.lat.length;
  const ROWS = 20_000;
  for (let from = 0; from < n; from += ROWS) {
    const ids: string[] = [];
    const times: string[] = [];
    const lats: number[] = [];
    const lons: number[] = [];
    for (let i = from; i < Math.min(n, from + ROWS); i++) {
      ids.push(eventId(i));
      times.push(new Date(cols.time[i]!).toISOString().slice(0, 19).replace('T', ' '));
      lats.push(cols.lat[i]!);
      lons.push(cols.lon[i]!);
    }
    await client.query(
      `INSERT INTO passes SELECT id, t, ST_SetSRID(ST_MakePoint(lon, lat), 4326), ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography
       FROM unnest($1::text[], $2::timestamp[], $3::float8[], $4::float8[]) AS u(id, t, lat, lon)`,
      [ids, times, lats, lons],
    );
  }
  await client.query(`CREATE INDEX passes_geom ON passes USING gist (geom); CREATE INDEX passes_geog ON passes USING gist (geog);
    CREATE INDEX passes_time ON passes (pass_time, event_id)`);
  await client.query('VACUUM ANALYZE passes');
  return (performance.now() - t0) / 1000;
}

async function postgresAnswer(client: pg.Client, c: Case): Promise<Answer> {
  const where: string[] = [];
  const params: unknown[] = [];
  const p = (v: unknown) => `$${params.push(v)}`;
  if (c.circle) where.push(`ST_DWithin(geog, ST_SetSRID(ST_MakePoint(${p(c.circle.lon)}, ${p(c.circle.lat)}), 4326)::geography, ${p(c.circle.meters)}, false)`);
  if (c.box) where.push(`geom && ST_MakeEnvelope(${p(c.box.left)}, ${p(c.box.bottom)}, ${p(c.box.right)}, ${p(c.box.top)}, 4326)`);
  if (c.window) where.push(`pass_time >= ${p(c.window[0])} AND pass_time < ${p(c.window[1])}`);
  // One statement: the total over every match beside the 10 newest.
  const r = await client.query<{ event_id: string; total: string }>(
    `SELECT event_id, count(*) OVER () AS total FROM passes WHERE ${where.join(' AND ')} ORDER BY pass_time DESC, event_id LIMIT 10`,
    params,
  );
  return { total: r.rows.length === 0 ? 0 : Number(r.rows[0]!.total), top: r.rows.map((row) => row.event_id) };
}

// ---- measuring -------------------------------------------------------------------

async function timed(run: () => Promise<Answer> | Answer, before?: () => Promise<void>): Promise<{ answer: Answer; samples: number[] }> {
  let answer: Answer = { total: -1, top: [] };
  const samples: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    await before?.();
    const t0 = performance.now();
    answer = await run();
    if (i >= warmup) samples.push(performance.now() - t0);
  }
  return { answer, samples };
}

const fmt = (v: number): string => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const mib = (): number => process.memoryUsage().rss / 1024 / 1024;

async function main(): Promise<void> {
  const commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  process.stdout.write(
    `bench:geo ${new Date().toISOString()} commit ${commit} count ${count} checkpoints ${checkpoints} runs ${runs} warmup ${warmup} load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`,
  );
  execSync('npm run --silent build', { stdio: 'inherit' });
  const dataDir = args.keep ?? (await tempDir('geo-bench-'));
  const cols: Columns = { lat: new Float64Array(count), lon: new Float64Array(count), time: new Float64Array(count) };
  let loaded = 0;
  const onRecord = (r: PassRecord) => {
    cols.lat[loaded] = r.location.lat;
    cols.lon[loaded] = r.location.lon;
    cols.time[loaded] = ms(r.pass_time);
    loaded++;
  };
  const all = cases();
  // A checkpoint on a box edge or within a centimetre of the circle could fall either way in engines that round differently.
  for (let i = 0; i < checkpoints; i++) {
    const p = checkpointLocation(landId(i));
    for (const c of all) {
      if (c.circle && Math.abs(haversine(c.circle.lat, c.circle.lon, p.lat, p.lon) - c.circle.meters) < 0.01) throw new Error(`checkpoint ${landId(i)} sits on the circle`);
      if (c.box && (p.lat === c.box.top || p.lat === c.box.bottom || p.lon === c.box.left || p.lon === c.box.right)) throw new Error(`checkpoint ${landId(i)} sits on the box`);
    }
  }

  // `--keep DIR` of an earlier run with the same records: the node opens them instead of loading again.
  const marker = join(dataDir, 'bench-geo.json');
  const loadedBefore = existsSync(marker) && readFileSync(marker, 'utf8') === JSON.stringify({ count, checkpoints, seed: SEED });
  const node = new Node(await spawnServer(dataDir, [], 600_000, true));
  if (loadedBefore) {
    for (const r of generatePassRecords({ count, checkpoints, seed: SEED })) onRecord(r);
    await node.waitForCount(count);
    process.stdout.write(`node: the ${count} records of an earlier run opened from ${dataDir}, RSS ${node.rss().toFixed(0)} MiB\n`);
  } else {
    const nodeLoad = await loadNode(node, onRecord);
    if (args.keep !== undefined) writeFileSync(marker, JSON.stringify({ count, checkpoints, seed: SEED }));
    process.stdout.write(`node: ${count} records searchable in ${nodeLoad.toFixed(1)} s (${Math.round(count / nodeLoad)}/s), RSS ${node.rss().toFixed(0)} MiB\n`);
  }

  let pgClient: pg.Client | null = null;
  if (args.pg !== undefined) {
    pgClient = new pg.Client({ connectionString: args.pg });
    await pgClient.connect();
    const s = await loadPostgres(pgClient, cols);
    process.stdout.write(`postgres: loaded and indexed in ${s.toFixed(1)} s (${Math.round(count / s)}/s)\n`);
  }

  type Row = { name: string; engine: string; p50: number; p95: number; rss: number; answer: Answer };
  const results: Row[] = [];
  // Cold: the filter cache emptied before every run, so each run evaluates its filters (the index's or the
  // scan's work); warm: the same query again, its filters' bitsets cached (what a dashboard's refresh sees).
  const measureNode = async (n: Node, engine: string, warmToo: boolean) => {
    const clear = async () => {
      const r = await n.client.request('POST', `/${INDEX}/_cache/clear?query=true`);
      if (r.status !== 200) throw new Error(`cache clear: ${r.text}`);
    };
    for (const c of all) {
      const cold = await timed(() => n.answer(c), clear);
      results.push({ name: c.name, engine, p50: percentile(cold.samples, 50), p95: percentile(cold.samples, 95), rss: n.rss(), answer: cold.answer });
      if (!warmToo) continue;
      const warm = await timed(() => n.answer(c));
      results.push({ name: c.name, engine: `${engine}, cached`, p50: percentile(warm.samples, 50), p95: percentile(warm.samples, 95), rss: n.rss(), answer: warm.answer });
    }
  };
  await measureNode(node, 'node (index)', true);
  const nodeRss = node.rss();
  for (const c of all) {
    if (pgClient !== null) {
      const { answer, samples } = await timed(() => postgresAnswer(pgClient!, c));
      results.push({ name: c.name, engine: 'postgis', p50: percentile(samples, 50), p95: percentile(samples, 95), rss: nodeRss, answer });
    }
    const { answer, samples } = await timed(() => bruteForce(cols, c));
    results.push({ name: c.name, engine: 'brute force', p50: percentile(samples, 50), p95: percentile(samples, 95), rss: nodeRss, answer });
  }
  await node.close();

  if (args['scan-node'] !== undefined) {
    const before = new Node(await spawnServer(dataDir, [], 600_000, true, args['scan-node']));
    await before.waitForCount(count);
    await measureNode(before, 'node (scan, before)', false);
    await before.close();
  }
  await pgClient?.end();
  if (args.keep === undefined) await rm(dataDir, { recursive: true, force: true });

  let disagreements = 0;
  const rows: string[][] = [['query', 'engine', 'matched', 'p50 ms', 'p95 ms', 'node RSS MiB']];
  for (const c of all) {
    const mine = results.filter((r) => r.name === c.name);
    const truth = mine.find((r) => r.engine === 'brute force')!.answer;
    for (const r of mine) {
      rows.push([c.name, r.engine, String(r.answer.total), fmt(r.p50), fmt(r.p95), r.rss.toFixed(0)]);
      if (r.answer.total !== truth.total || r.answer.top.join() !== truth.top.join()) {
        disagreements++;
        process.stdout.write(`DISAGREE ${c.name} ${r.engine}: ${r.answer.total} [${r.answer.top.join(' ')}] vs brute force ${truth.total} [${truth.top.join(' ')}]\n`);
      }
    }
  }
  printTable(`bench:geo: ${count} pass records, ms per query (p50, p95 of ${runs} runs after ${warmup} warm-up), count + 10 newest`, rows);
  process.stdout.write(`\nbench process RSS (brute-force columns) ${mib().toFixed(0)} MiB; load average now ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  process.stdout.write(disagreements === 0 ? 'every engine gave the same counts and top 10\n' : `${disagreements} answers disagree\n`);
  if (disagreements > 0) process.exitCode = 1;
}

await main();
