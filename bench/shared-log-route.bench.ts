/**
 * What one copy of a shared log (a rebuild to another shard count) spends
 * on the records of one partition before indexing: every record routed to
 * its shard with Elasticsearch's formula, and its own shard's records packed
 * for the worker and decoded. Two ways: the whole batch packed and fully
 * decoded, then routed (the worker did this before), against routing from
 * `_id` and `routing` alone and packing and decoding only its own records
 * (shard-copy.ts now). Indexing itself is the same for both and left out.
 *
 *   npx tsx bench/shared-log-route.bench.ts [records=220000] [runs=5] [shards=3]
 */
import { docOpCodec, docOpRoute, type DocOp } from '../shared/records/doc-op.ts';
import { shardForDocument } from '../shared/routing/shard-routing.ts';
import type { LogRecord } from '../shared/log/commit-log.ts';
import { packRecordBatch, readRecordBatch } from '../services/node/shard-worker/record-batch.ts';
import { generatePassRecords } from '../services/passinfo/pass-record-generator.ts';
import { percentile, printTable } from './report.ts';

const count = Number(process.argv[2] ?? 220_000);
const runs = Number(process.argv[3] ?? 5);
const settings = { numberOfShards: Number(process.argv[4] ?? 3) };

const records: LogRecord[] = [];
for (const rec of generatePassRecords({ count, seed: 1 })) {
  const i = records.length;
  const op: DocOp = {
    request_id: 'n1:bench:0',
    item: i % 1000,
    op: 'INDEX',
    index_uuid: 'Yx3kZ0pWQ9uW1f0a2b3c4d',
    type: 'passinfo',
    id: `pass-${i}`,
    routing: null,
    source: Buffer.from(JSON.stringify(rec)),
    version: null,
    version_type: 'INTERNAL',
    if_seq_no: null,
    if_primary_term: null,
    update: null,
    timestamp: 1_790_000_000_000,
  };
  records.push({ offset: i, value: docOpCodec.encode(op) } as LogRecord);
}

function decodeThenRoute(): number {
  let mine = 0;
  for (const v of readRecordBatch(packRecordBatch(records)).values) {
    const op = docOpCodec.decode(v);
    if (shardForDocument(op.id, op.routing, settings) === 0) mine++;
  }
  return mine;
}

function routeThenDecode(): number {
  const own = records.filter((r) => {
    const { id, routing } = docOpRoute(r.value);
    return shardForDocument(id, routing, settings) === 0;
  });
  for (const v of readRecordBatch(packRecordBatch(own)).values) docOpCodec.decode(v);
  return own.length;
}

const rows: string[][] = [['per copy', 'median ms', 'p99 ms', 'records/s', 'own records', 'RSS MiB']];
for (const [name, fn] of [
  ['pack all, decode all, then route', decodeThenRoute],
  ['route from _id/routing, pack and decode own', routeThenDecode],
] as const) {
  fn(); // warm-up
  const ms: number[] = [];
  let own = 0;
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    own = fn();
    ms.push(performance.now() - t);
  }
  const median = percentile(ms, 50);
  rows.push([
    name,
    median.toFixed(0),
    percentile(ms, 99).toFixed(0),
    Math.round(count / (median / 1000)).toLocaleString('en-US'),
    own.toLocaleString('en-US'),
    (process.memoryUsage().rss / 1048576).toFixed(0),
  ]);
}
printTable(`bench:shared-log-route — ${count.toLocaleString('en-US')} pass records of a shared log, ${settings.numberOfShards} shards, ${runs} runs`, rows);
