/**
 * The pass-record application end to end: N generated records (default
 * 1,000,000) produced to Kafka (librdkafka's mock cluster) as Avro, consumed
 * by the ingest service into a search node in its own process, then each of
 * the nine business queries timed against the loaded data.
 *
 *   npm run bench:passinfo                  # 1,000,000 records
 *   npm run bench:passinfo -- --count 200000 --runs 10
 *   npm run bench:passinfo -- --count 200000 --cpu-prof /tmp/prof   # .cpuprofile of every thread of the node
 *
 * Prints the produce rate, the ingest rate from Kafka to searchable (first
 * record consumed to the last one counted by a search) with the CPU the node
 * and the ingest service each spent per 1,000 records, and p50/p90 per query;
 * beside region collision and day-hidden / night-out, the p50 of the engine's
 * own requests for the same answer (passinfo-engine.ts), which must agree.
 */
import { parseArgs } from 'node:util';
import { execSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { http, spawnServer, tempDir } from '../test/helpers/server.ts';
import { startMockKafka } from '../test/helpers/mock-kafka.ts';
import { plateOf } from './pass-records.ts';
import { percentile, printTable } from './report.ts';
import { cpuBetween, threadCpu } from './node-cpu.ts';
import { Progress } from '../shared/terminal/progress.ts';
import { createKafka } from '../services/passinfo/kafka-client.ts';
import { produce, realisticRecords } from '../services/passinfo/producer.ts';
import { IngestService } from '../services/passinfo/ingest.ts';
import { DEFAULT_INDEX_NAMES } from '../services/passinfo/index-setup.ts';
import { PassinfoQueries } from '../services/passinfo/queries.ts';
import { SearchClient } from '../services/passinfo/search-client.ts';
import { KeepAliveClient } from './keep-alive-client.ts';
import { engineCollision, engineDayNight, type EngineRegion } from './passinfo-engine.ts';

const { values } = parseArgs({
  options: { count: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '10' }, partitions: { type: 'string' }, 'cpu-prof': { type: 'string' } },
});
const COUNT = Number(values.count);
/**
 * librdkafka's mock keeps at most 5 MB (or 100,000 records) per partition and
 * drops the oldest beyond that, like retention. A pass record is about 190
 * bytes of Avro with its batch overhead, so the topic gets enough partitions
 * to hold the whole run: 4 MB of records per partition.
 */
const PARTITIONS = Number(values.partitions ?? Math.max(4, Math.ceil((COUNT * 190) / 4_000_000)));
const RUNS = Number(values.runs);
const SEED = 42;
const ENTRY_CHECKPOINTS = Array.from({ length: 10 }, (_, i) => `L${String(i + 1).padStart(4, '0')}`);
const TOPIC = 'passinfo.bench';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const log = (msg: string): void => void process.stderr.write(`${msg}\n`);

async function main(): Promise<void> {
  const dir = await tempDir('passinfo-bench-');
  const kafkaMock = await startMockKafka(1);
  // The compiled node, as `npm start` runs it (the sources through tsx cost the first seconds of a load).
  execSync('npm run --silent build', { stdio: 'inherit' });
  const server = await spawnServer(dir, [], 60_000, true, undefined, values['cpu-prof'] === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`]);
  const client = new SearchClient(server.url, { requestTimeoutMs: 300_000 });
  const kafka = createKafka({ brokers: kafkaMock.bootstrap, clientId: 'passinfo-bench', logLevel: 'nothing' });
  let service: IngestService | null = null;
  try {
    await kafkaMock.createTopic(TOPIC, PARTITIONS, 1);
    await kafkaMock.createTopic(`${TOPIC}.dead-letter`, 1, 1);

    log(`producing ${COUNT} records to Kafka ...`);
    const producing = new Progress({ label: 'produced', total: COUNT });
    const produced = await produce(kafka, TOPIC, realisticRecords({ count: COUNT, seed: SEED }), {
      batchSize: 2000,
      progress: (p) => (p.done ? producing.finish(p.produced) : producing.update(p.produced)),
    });
    const admin = kafka.admin();
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets(TOPIC);
    await admin.disconnect();
    const held = offsets.reduce((a, o) => a + Number(o.high) - Number(o.low), 0);
    if (held !== COUNT) throw new Error(`the topic holds ${held} of ${COUNT} records (mock retention): use more --partitions`);

    log('ingesting ...');
    const cpuBefore = threadCpu(server.child.pid!);
    const ingestCpuBefore = process.cpuUsage();
    const t0 = performance.now();
    service = await IngestService.start({
      kafka,
      client,
      names: DEFAULT_INDEX_NAMES,
      topic: TOPIC,
      groupId: 'bench',
      sessionTimeoutMs: 10_000,
      bulkSize: 5000,
      designation: { entry_checkpoints: ENTRY_CHECKPOINTS, look_back_days: 30 },
      index: { shards: 5, replicas: 0 },
    });
    let searchable = 0;
    let lastLog = 0;
    const ingesting = new Progress({ label: 'searchable', total: COUNT });
    while (searchable < COUNT) {
      await sleep(250);
      const res = await http(server.url, 'GET', '/passinfo/_count');
      searchable = (res.body as { count?: number }).count ?? 0;
      ingesting.update(searchable);
      if (performance.now() - lastLog > 5000) {
        lastLog = performance.now();
        const s = await service.status();
        log(`  searchable ${searchable}, lag ${s.total_lag}, first entries ${s.first_entries}`);
        if (s.lost_to_retention > 0) throw new Error(`${s.lost_to_retention} records lost to the mock's retention`);
      }
    }
    ingesting.finish(searchable);
    const ingestSeconds = (performance.now() - t0) / 1000;
    const nodeCpu = cpuBetween(cpuBefore, threadCpu(server.child.pid!)).total;
    const ingestCpu = process.cpuUsage(ingestCpuBefore);
    const status = await service.status();
    await service.stop();
    service = null;
    await client.refresh('passinfo,passinfo-first-entry');

    const q = new PassinfoQueries(client);
    const busiest = plateOf(0, SEED);
    const other = plateOf(5, SEED);
    const lands = (from: number, n: number) => Array.from({ length: n }, (_, i) => `L${String(from + i).padStart(4, '0')}`);
    const engine = new KeepAliveClient(server.url);
    const smallRegions: [EngineRegion, EngineRegion] = [
      { land_id: lands(1, 10), from: '2026-10-10', to: '2026-10-11' },
      { land_id: lands(6, 10), from: '2026-10-11', to: '2026-10-12' },
    ];
    const bigRegions: [EngineRegion, EngineRegion] = [
      { land_id: lands(1, 100), from: '2026-10-05', to: '2026-10-08' },
      { land_id: lands(101, 100), from: '2026-10-08', to: '2026-10-11' },
    ];
    /** [name, runs, the application's call, the engine's own requests for the same number]. */
    const cases: [string, number, () => Promise<number>, (() => Promise<number>)?][] = [
      ['1 fuzzy plate (inner fragment, newest 20)', RUNS, async () => (await q.plates({ q: other.slice(2, 5), size: 20 })).total],
      ['1 fuzzy plate (2 fragments, relevance)', RUNS, async () => (await q.plates({ q: `${other.slice(0, 2)} ${other.slice(4)}`, sort: 'relevance', size: 20 })).total],
      [
        '2 fragment + filters + 7 days',
        RUNS,
        async () =>
          (await q.passes({ q: other.slice(3, 5), plate_color: [0, 1], land_id: lands(1, 50), from: '2026-10-05', to: '2026-10-12', size: 20 })).total,
      ],
      ['3 trajectory (busiest plate, 30 days)', RUNS, async () => (await q.trajectory({ plate: busiest, from: '2026-10-01', to: '2026-10-31' })).total],
      ['4 traffic per checkpoint per day (30 days)', RUNS, async () => (await q.traffic({ by: 'checkpoint_day', from: '2026-10-01', to: '2026-10-31' })).rows.length],
      ['5 landing points (busiest plate)', RUNS, async () => (await q.landingPoints({ plate: busiest })).points.length],
      ['6 region collision (2 x 10 checkpoints x 1 day)', RUNS, async () => (await q.regionCollision({ regions: smallRegions })).total, () => engineCollision(engine, 'passinfo', smallRegions)],
      [
        '6 region collision (2 x 100 checkpoints x 3 days)',
        Math.max(3, Math.floor(RUNS / 2)),
        async () => (await q.regionCollision({ regions: bigRegions })).total,
        () => engineCollision(engine, 'passinfo', bigRegions),
      ],
      ['7 first entries (one checkpoint, 30 days)', RUNS, async () => (await q.firstEntries({ land_id: ['L0001'], from: '2026-10-01', to: '2026-10-31' })).total],
      [
        '8 companions (busiest plate, 3 days, 60 s)',
        Math.max(3, Math.floor(RUNS / 2)),
        async () => (await q.companions({ plate: busiest, from: '2026-10-10', to: '2026-10-13', tolerance: 60, min_checkpoints: 2 })).candidates,
      ],
      ['8 similarity of two plates (30 days)', RUNS, async () => (await q.similarity({ plate_a: busiest, plate_b: plateOf(1, SEED), from: '2026-10-01', to: '2026-10-31' })).lcs],
      [
        '9 day-hidden/night-out (3 days)',
        Math.max(3, Math.floor(RUNS / 2)),
        async () => (await q.dayNight({ from: '2026-10-10', to: '2026-10-13' })).days.reduce((a, d) => a + d.total, 0),
        () => engineDayNight(engine, 'passinfo', '2026-10-10', '2026-10-13'),
      ],
    ];
    const timed = async (runs: number, fn: () => Promise<number>): Promise<{ result: number; samples: number[] }> => {
      let result = await fn(); // warm-up
      const samples: number[] = [];
      for (let i = 0; i < runs; i++) {
        const s = performance.now();
        result = await fn();
        samples.push(performance.now() - s);
      }
      return { result, samples };
    };
    const rows: string[][] = [['query', 'p50 ms', 'p90 ms', 'engine p50 ms', 'app / engine', 'runs', 'result']];
    for (const [name, runs, fn, engineFn] of cases) {
      const app = await timed(runs, fn);
      const p50 = percentile(app.samples, 50);
      let own = ['', ''];
      if (engineFn !== undefined) {
        const e = await timed(runs, engineFn);
        if (e.result !== app.result) throw new Error(`${name}: the application answers ${app.result}, the engine's own requests ${e.result}`);
        const engineP50 = percentile(e.samples, 50);
        own = [engineP50.toFixed(1), (p50 / engineP50).toFixed(2)];
      }
      rows.push([name, p50.toFixed(1), percentile(app.samples, 90).toFixed(1), ...own, String(runs), String(app.result)]);
    }
    engine.close();
    printTable(`passinfo: ${COUNT} records, ${PARTITIONS} partitions, 5 shards, one node`, [
      ['stage', 'records', 'seconds', 'records/s'],
      ['produce to Kafka (Avro)', String(produced.produced), produced.seconds.toFixed(1), Math.round(produced.rate).toString()],
      ['ingest: Kafka to searchable', String(COUNT), ingestSeconds.toFixed(1), Math.round(COUNT / ingestSeconds).toString()],
    ]);
    // On shared cores a rate says less than the CPU each side spent per record.
    const perThousand = (seconds: number) => ((seconds * 1000) / COUNT).toFixed(3);
    process.stdout.write(
      `CPU s per 1,000 records while ingesting: node ${perThousand(nodeCpu)}, this process (the ingest service and its Kafka client) ${perThousand((ingestCpu.user + ingestCpu.system) / 1e6)}\n`,
    );
    process.stdout.write(`first entries ${status.first_entries}, dead-lettered ${status.dead_lettered}, duplicates ${status.duplicates}, bench RSS ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB\n`);
    printTable('queries', rows);
  } finally {
    await service?.stop();
    await client.close();
    server.child.kill('SIGTERM');
    await server.exited;
    await kafkaMock.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
