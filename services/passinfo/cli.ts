/**
 * The pass-record application's command line:
 *
 *   logsearch passinfo <command> [flags]
 *
 *   generate         write sample pass records as NDJSON (for import)
 *   setup            create the indices and aliases (idempotent)
 *   produce          stream generated pass records to Kafka as Avro
 *   ingest           consume the topic into the search service
 *   import FILE      load an NDJSON or CSV file (no Kafka needed)
 *   serve            the HTTP API of the nine queries
 *   plates | passes | trajectory | traffic | landing-points | collision |
 *   first-entries | companions | similarity | day-night
 *                    run one query and print its JSON answer
 *
 * Common flags: --es http://127.0.0.1:9200 (the search service), and for
 * Kafka --brokers host:9092[,host:9092] --topic passinfo. See docs/passinfo.md.
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { stat } from 'node:fs/promises';
import { parseTimeValue } from '../../shared/engine/mapping/time-value.ts';
import { Progress } from '../../shared/terminal/progress.ts';
import { writeSampleFile } from './sample-file.ts';
import { createKafka, type KafkaLogLevel } from './kafka-client.ts';
import { designation, DEFAULT_LOOK_BACK_DAYS } from './entry-designation.ts';
import { PassinfoError, asPassinfoError } from './errors.ts';
import { importFile } from './file-import.ts';
import { buildHttpApi, DEFAULT_HOST, DEFAULT_PORT } from './http-api.ts';
import { defaultConsoleDir } from '../node/rest/console-static.ts';
import { DEFAULT_INDEX_NAMES, ensureIndices, type IndexOptions } from './index-setup.ts';
import { DEFAULT_GROUP, IngestService } from './ingest.ts';
import { produce, realisticRecords } from './producer.ts';
import { PassinfoQueries } from './queries.ts';
import type { Region } from './region-collision.ts';
import type { PlateSort } from './plate-search.ts';
import type { TrafficGrouping } from './traffic-counts.ts';
import { SearchClient } from './search-client.ts';

const FLAGS = {
  es: { type: 'string', default: process.env.PASSINFO_ES ?? 'http://127.0.0.1:9200' },
  brokers: { type: 'string', default: process.env.PASSINFO_BROKERS ?? '127.0.0.1:9092' },
  topic: { type: 'string', default: process.env.PASSINFO_TOPIC ?? 'passinfo' },
  group: { type: 'string', default: DEFAULT_GROUP },
  'dead-letter-topic': { type: 'string' },
  'entry-checkpoints': { type: 'string', default: process.env.PASSINFO_ENTRY_CHECKPOINTS },
  'look-back-days': { type: 'string', default: String(DEFAULT_LOOK_BACK_DAYS) },
  'session-timeout': { type: 'string' },
  'bulk-size': { type: 'string' },
  'status-interval': { type: 'string' },
  'kafka-log': { type: 'string', default: 'error' },
  shards: { type: 'string' },
  // rebuild
  mapping: { type: 'string' },
  'delete-source': { type: 'boolean', default: false },
  replicas: { type: 'string' },
  // producer
  count: { type: 'string' },
  duration: { type: 'string' },
  rate: { type: 'string' },
  seed: { type: 'string' },
  plates: { type: 'string' },
  checkpoints: { type: 'string' },
  days: { type: 'string' },
  'start-day': { type: 'string' },
  // generate
  out: { type: 'string', short: 'o' },
  // import
  format: { type: 'string' },
  rejects: { type: 'string' },
  // serve
  host: { type: 'string', default: DEFAULT_HOST },
  port: { type: 'string', default: String(DEFAULT_PORT) },
  // queries
  q: { type: 'string' },
  plate: { type: 'string' },
  'plate-a': { type: 'string' },
  'plate-b': { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  sort: { type: 'string' },
  size: { type: 'string' },
  'from-hit': { type: 'string' },
  after: { type: 'string' },
  by: { type: 'string' },
  'land-id': { type: 'string' },
  'plate-category': { type: 'string' },
  'plate-color': { type: 'string' },
  'vehicle-color': { type: 'string' },
  tolerance: { type: 'string' },
  'min-checkpoints': { type: 'string' },
  night: { type: 'string' },
  day: { type: 'string' },
  'min-night-passes': { type: 'string' },
  region: { type: 'string', multiple: true },
  polygon: { type: 'string' },
  circle: { type: 'string' },
  precision: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Flags = ReturnType<typeof parse>['values'];
const parse = (argv: string[]) => parseArgs({ args: argv, options: FLAGS, allowPositionals: true });

const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));
const csv = (v: string | undefined): string[] | undefined => v?.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
const nums = (v: string | undefined): number[] | undefined => csv(v)?.map(Number);

/** A time flag in Elasticsearch's units (`30s`, `5m`, `2h`), read by the node's own parser. */
function durationMs(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  try {
    return parseTimeValue(v, flag);
  } catch (err) {
    throw new UsageError(`${(err as Error).message} (a time such as 500ms, 30s, 5m, 2h)`);
  }
}

/** A count flag: a whole number. */
function count(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${flag} [${v}] is not a whole number`);
  return Number(v);
}

/** A mistake in the command line: one line and exit status 2. */
class UsageError extends Error {}

/**
 * `--region L0001,L0002@2026-10-01 08:00:00/2026-10-01 10:00:00`, or with
 * `circle:39.9,116.4,2km` or `polygon:39.9,116.3;39.95,116.4;39.9,116.5`
 * in place of the checkpoints.
 */
function region(v: string): Region {
  const m = /^([^@]+)@([^/]+)\/(.+)$/.exec(v);
  if (m === null) throw new UsageError(`--region [${v}] must look like L0001,L0002@FROM/TO, circle:LAT,LON,RADIUS@FROM/TO or polygon:LAT,LON;LAT,LON;...@FROM/TO`);
  const area = m[1]!.trim();
  const time = { from: m[2]!.trim(), to: m[3]!.trim() };
  if (area.startsWith('circle:')) return { circle: area.slice('circle:'.length), ...time };
  if (area.startsWith('polygon:')) return { polygon: area.slice('polygon:'.length), ...time };
  return { land_id: csv(area) ?? [], ...time };
}

const indexOptions = (f: Flags): IndexOptions => ({ shards: num(f.shards), replicas: num(f.replicas) });
const entryDesignation = (f: Flags) => {
  const list = csv(f['entry-checkpoints']);
  return list && list.length > 0 ? designation(list, Number(f['look-back-days'])) : undefined;
};
const kafkaOf = (f: Flags, clientId: string) =>
  createKafka({ brokers: csv(f.brokers) ?? [], clientId, logLevel: f['kafka-log'] as KafkaLogLevel });
const print = (v: unknown): void => void process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);

async function runQuery(command: string, f: Flags): Promise<boolean> {
  const queries = new PassinfoQueries(f.es);
  const range = { from: f.from, to: f.to };
  const page = { sort: f.sort as PlateSort | undefined, size: num(f.size), from_hit: num(f['from-hit']), after: f.after };
  try {
    switch (command) {
      case 'plates':
        print(await queries.plates({ q: f.q ?? '', ...page, ...range }));
        return true;
      case 'passes':
        print(
          await queries.passes({
            q: f.q ?? '',
            ...page,
            ...range,
            plate_category: nums(f['plate-category']),
            plate_color: nums(f['plate-color']),
            vehicle_color: nums(f['vehicle-color']),
            land_id: csv(f['land-id']),
          }),
        );
        return true;
      case 'trajectory':
        print(await queries.trajectory({ plate: f.plate ?? '', ...range }));
        return true;
      case 'traffic':
        print(
          await queries.traffic({
            by: f.by as TrafficGrouping | undefined,
            land_id: csv(f['land-id']),
            polygon: f.polygon,
            circle: f.circle,
            precision: count(f.precision, 'precision'),
            ...range,
          }),
        );
        return true;
      case 'landing-points':
        print(await queries.landingPoints({ plate: f.plate ?? '', ...range }));
        return true;
      case 'collision':
        print(await queries.regionCollision({ regions: (f.region ?? []).map(region), size: num(f.size) }));
        return true;
      case 'first-entries':
        print(await queries.firstEntries({ land_id: csv(f['land-id']), size: num(f.size), from_hit: num(f['from-hit']), ...range }));
        return true;
      case 'companions':
        print(
          await queries.companions({ plate: f.plate ?? '', tolerance: num(f.tolerance), min_checkpoints: num(f['min-checkpoints']), size: num(f.size), ...range }),
        );
        return true;
      case 'similarity':
        print(await queries.similarity({ plate_a: f['plate-a'] ?? '', plate_b: f['plate-b'] ?? '', tolerance: num(f.tolerance), ...range }));
        return true;
      case 'day-night':
        print(
          await queries.dayNight({
            from: f.from ?? '',
            to: f.to ?? '',
            night: f.night,
            day: f.day,
            land_id: csv(f['land-id']),
            min_night_passes: num(f['min-night-passes']),
            size: num(f.size),
          }),
        );
        return true;
      default:
        return false;
    }
  } finally {
    await queries.close();
  }
}

const USAGE = `usage: logsearch passinfo <command> [flags]

The pass-record application over the search node (--es, default
http://127.0.0.1:9200). Everything, with each query's parameters:
docs/passinfo.md.

data in:
  generate --count N [--out FILE]    sample records as NDJSON (stdout without --out)
           [--seed --plates --checkpoints --days --start-day yyyy-MM-dd]
  import FILE [--format ndjson|csv]  load an NDJSON or CSV file, no Kafka needed
         [--rejects FILE --entry-checkpoints L1,L2 --shards --replicas]
  produce --count N | --rate R --duration 5m   stream generated records to Kafka
          [--brokers host:9092 --topic passinfo]
  ingest [--brokers --topic --group --entry-checkpoints]   consume the topic into the index
  setup [--shards --replicas]        create the indices and aliases (idempotent)
  rebuild --mapping FILE [--shards N --delete-source]
                                     rebuild the passes index behind the alias from its log
                                     with a new mapping (passinfo-vN → passinfo-vN+1), then move the alias

answers:
  serve [--host 127.0.0.1 --port 9280]   the HTTP API of the queries
  plates | passes | trajectory | traffic | landing-points | collision |
  first-entries | companions | similarity | day-night [flags]
                                     run one query and print its JSON answer
  traffic [--by checkpoint|day|checkpoint_day|grid --precision 1-10]
          [--land-id L1,L2 | --polygon LAT,LON;LAT,LON;... | --circle LAT,LON,2km]
  collision --region AREA@FROM/TO --region AREA@FROM/TO ...
          AREA: L0001,L0002 | circle:LAT,LON,2km | polygon:LAT,LON;LAT,LON;...

Times take Elasticsearch's units (500ms, 30s, 5m, 2h).`;

export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    // node:util's message names the flag; its advice about `--` is about positionals, not ours.
    throw new UsageError(`${(err as Error).message.split(/\.\s/)[0]} (logsearch passinfo --help lists the flags)`);
  }
  const { values: f, positionals } = parsed;
  const command = positionals[0];
  if (f.help || command === undefined) {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined && !f.help ? 2 : 0;
  }
  switch (command) {
    case 'generate': {
      const total = count(f.count, 'count');
      if (total === undefined) throw new UsageError('generate needs --count N (and --out FILE, else it writes to stdout)');
      const progress = new Progress({ label: 'generated', total });
      const result = await writeSampleFile(
        {
          count: total,
          seed: count(f.seed, 'seed'),
          plates: count(f.plates, 'plates'),
          checkpoints: count(f.checkpoints, 'checkpoints'),
          days: count(f.days, 'days'),
          startDay: f['start-day'],
        },
        f.out ?? process.stdout,
        (n) => progress.update(n),
      );
      progress.finish(result.records);
      if (f.out !== undefined) print({ file: f.out, records: result.records, bytes: result.bytes });
      return 0;
    }
    case 'setup': {
      const client = new SearchClient(f.es);
      await ensureIndices(client, DEFAULT_INDEX_NAMES, indexOptions(f));
      await client.close();
      print({ acknowledged: true, ...DEFAULT_INDEX_NAMES });
      return 0;
    }
    case 'rebuild': {
      // The live store is behind the alias: the next version is built from its log and takes the alias over.
      const alias = DEFAULT_INDEX_NAMES.passes;
      const res = await fetch(`${f.es.replace(/\/+$/, '')}/_alias/${alias}`);
      const current = Object.keys((await res.json()) as Record<string, unknown>);
      if (res.status !== 200 || current.length !== 1) throw new UsageError(`the alias [${alias}] must name one index (run setup first)`);
      const m = /^(.*)-v(\d+)$/.exec(current[0]!);
      const dest = m ? `${m[1]}-v${Number(m[2]) + 1}` : `${current[0]}-v2`;
      const args = ['--url', f.es, '--index', current[0]!, '--dest', dest, '--alias', alias];
      if (f.mapping !== undefined) args.push('--mapping', f.mapping);
      if (f.shards !== undefined) args.push('--shards', f.shards);
      if (f['delete-source']) args.push('--delete-source');
      return (await import('../cli/rebuild-command.ts')).runRebuild(args);
    }
    case 'produce': {
      const rate = count(f.rate, 'rate') ?? 0;
      const duration = durationMs(f.duration, 'duration');
      const total = count(f.count, 'count') ?? (duration !== undefined && rate > 0 ? Math.ceil((rate * duration) / 1000) : undefined);
      if (total === undefined) throw new UsageError('produce needs --count, or --rate with --duration');
      const records = realisticRecords({
        count: total,
        seed: num(f.seed),
        plates: num(f.plates),
        checkpoints: num(f.checkpoints),
        days: num(f.days),
        startDay: f['start-day'],
      });
      const controller = new AbortController();
      process.once('SIGINT', () => controller.abort());
      process.once('SIGTERM', () => controller.abort());
      const progress = new Progress({ label: 'produced', total });
      const result = await produce(kafkaOf(f, 'passinfo-producer'), f.topic, records, {
        rate,
        durationMs: duration,
        signal: controller.signal,
        progress: (p) => (p.done ? progress.finish(p.produced) : progress.update(p.produced)),
      });
      return result.produced > 0 || total === 0 ? 0 : 1;
    }
    case 'ingest': {
      const client = new SearchClient(f.es);
      const ingestProgress = process.stderr.isTTY ? new Progress({ label: 'consumed' }) : null;
      let fatal: (err: Error) => void = () => undefined;
      const failed = new Promise<Error>((resolve) => (fatal = resolve));
      const service = await IngestService.start({
        kafka: kafkaOf(f, 'passinfo-ingest'),
        client,
        names: DEFAULT_INDEX_NAMES,
        topic: f.topic,
        groupId: f.group,
        deadLetterTopic: f['dead-letter-topic'],
        designation: entryDesignation(f),
        index: indexOptions(f),
        sessionTimeoutMs: durationMs(f['session-timeout'], 'session-timeout'),
        bulkSize: count(f['bulk-size'], 'bulk-size'),
        statusIntervalMs: durationMs(f['status-interval'], 'status-interval'),
        report: (s) => {
          // A terminal gets a live line; a log gets the status as JSON, every status interval.
          if (ingestProgress !== null) ingestProgress.update(s.consumed, `indexed ${s.indexed}, duplicates ${s.duplicates}, dead-lettered ${s.dead_lettered}`);
          else process.stderr.write(`${JSON.stringify({ msg: 'ingest status', ...s })}\n`);
        },
        onFatal: (err) => fatal(err),
      });
      process.stderr.write(`${JSON.stringify({ msg: 'ingest started', topic: f.topic, group: service.groupId })}\n`);
      const stop = new Promise<string>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      const why = await Promise.race([stop, failed]);
      await service.stop();
      ingestProgress?.finish();
      await client.close();
      if (why instanceof Error) {
        process.stderr.write(`${JSON.stringify({ msg: 'ingest failed', error: why.message })}\n`);
        return 1;
      }
      return 0;
    }
    case 'import': {
      const file = positionals[1];
      if (file === undefined) throw new Error('import needs a file: passinfo import records.ndjson');
      const client = new SearchClient(f.es);
      const size = (await stat(file)).size;
      const progress = new Progress({ label: 'read', total: size, bytes: true });
      const detail = (s: { indexed: number; duplicates: number; rejected: number }) => `indexed ${s.indexed}, duplicates ${s.duplicates}, rejected ${s.rejected}`;
      const summary = await importFile({
        client,
        names: DEFAULT_INDEX_NAMES,
        file,
        format: f.format as 'ndjson' | 'csv' | undefined,
        rejectsFile: f.rejects,
        designation: entryDesignation(f),
        index: indexOptions(f),
        progress: (s, bytesRead) => progress.update(bytesRead, detail(s)),
      });
      progress.finish(size, detail(summary));
      await client.close();
      print(summary);
      return summary.rejected > 0 ? 3 : 0;
    }
    case 'serve': {
      const queries = new PassinfoQueries(f.es);
      const app = buildHttpApi(queries, { logger: true, consoleDir: defaultConsoleDir() });
      await app.listen({ host: f.host, port: Number(f.port) });
      const signal = await new Promise<string>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      app.log.info({ signal }, 'stopping');
      await app.close();
      await queries.close();
      return 0;
    }
    default:
      if (await runQuery(command, f)) return 0;
      process.stderr.write(`unknown command [${command}]\n${USAGE}\n`);
      return 2;
  }
}

/** main() with its errors as a user sees them: one line on stderr, exit 2 for a mistake in the command or a refused parameter. */
export async function runPassinfo(argv: string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`passinfo: ${err.message}\n`);
      return 2;
    }
    if (err instanceof PassinfoError || err instanceof RangeError) {
      const e = asPassinfoError(err);
      process.stderr.write(`${JSON.stringify({ error: { code: e.code, message: e.message } })}\n`);
      return e.status === 400 ? 2 : 1;
    }
    process.stderr.write(`passinfo: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

// Run from the sources: `node --import tsx services/passinfo/cli.ts <command>` (`logsearch passinfo` runs the compiled form).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  runPassinfo(process.argv.slice(2)).then((code) => process.exit(code));
}
