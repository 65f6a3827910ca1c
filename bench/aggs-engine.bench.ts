/**
 * Aggregations on one 200,000-doc shard of the seed's pass records (a fifth
 * of 1,000,000 records over 100,000 plates, ~200 checkpoints, 30 days; doc
 * values built directly). For each aggregation: shard collect time (p50/p99
 * over the rounds) and the coordinator's reduce of five such shard states,
 * i.e. roughly what a 5-shard, 1,000,000-doc index costs per shard and at the
 * coordinator. Wall time suffers on a busy machine; the CPU column is the
 * process's own CPU time for the collect (GC threads included).
 *
 *   npx tsx bench/aggs-engine.bench.ts [rounds] [segments]
 */
import { parseAggregations } from '../shared/dsl/aggs/parse.ts';
import { collectShardAggs } from '../shared/engine/aggs/collect.ts';
import { reduceAggs } from '../shared/engine/aggs/reduce.ts';
import type { AggContext, MatchSet } from '../shared/engine/aggs/types.ts';
import type { FieldMapping, FieldType, MappingLookup } from '../shared/engine/mapping/types.ts';
import type { DocValues, Segment, SegmentView } from '../shared/engine/segment/types.ts';
import { generatePassRecords } from './pass-records.ts';
import { percentile, printTable } from './report.ts';
import { fieldMapping } from '../test/helpers/field-mapping.ts';

const ROUNDS = Number(process.argv[2] ?? 30);
const SEGMENTS = Number(process.argv[3] ?? 1);
const SHARDS = 5;
const TOTAL = 1_000_000;

function field(path: string, type: FieldType): FieldMapping {
  return fieldMapping(path, type, { docValues: type !== 'text' });
}

const fields = new Map<string, FieldMapping>([
  ['land_id', field('land_id', 'keyword')],
  ['plate', field('plate', 'text')],
  ['plate.keyword', field('plate.keyword', 'keyword')],
  ['pass_time', field('pass_time', 'date')],
  ['speed', field('speed', 'integer')],
]);
const mapping: MappingLookup = { field: (p) => fields.get(p), matchingFields: (p) => (fields.has(p) ? [p] : []) };

interface Row {
  land: string;
  plate: string;
  time: number;
  speed: number;
}

function keywordColumn(values: readonly string[]): DocValues {
  const dict = [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const ordOf = new Map(dict.map((t, i) => [t, i]));
  const ords = new Int32Array(values.length);
  values.forEach((v, i) => (ords[i] = ordOf.get(v)!));
  return { kind: 'sorted', dict, ords, starts: null };
}

function segmentOf(rows: readonly Row[], id: number): Segment {
  const n = rows.length;
  const docValues = new Map<string, DocValues>([
    ['land_id', keywordColumn(rows.map((r) => r.land))],
    ['plate.keyword', keywordColumn(rows.map((r) => r.plate))],
    ['pass_time', { kind: 'numeric', values: Float64Array.from(rows, (r) => r.time), starts: null }],
    ['speed', { kind: 'numeric', values: Float64Array.from(rows, (r) => r.speed), starts: null }],
  ]);
  return {
    id,
    maxDoc: n,
    ids: rows.map((_, i) => `${id}-${i}`),
    versions: new Float64Array(n).fill(1),
    seqNos: new Float64Array(n),
    routings: rows.map(() => null),
    source: { bytes: Buffer.alloc(0), offsets: new Uint32Array(n + 1) },
    inverted: new Map(),
    docValues,
    fieldsPresent: new Set(docValues.keys()),
    fieldDocs: new Map(),
  };
}

const t0 = Date.now();
export {};
const rows: Row[] = [];
let i = 0;
for (const r of generatePassRecords({ count: TOTAL, plates: 100_000, checkpoints: 200, days: 30 })) {
  if (i++ % SHARDS !== 0) continue;
  rows.push({ land: r.land_id, plate: r.plate, time: Date.parse(r.pass_time.replace(' ', 'T') + 'Z'), speed: r.speed });
}
const per = Math.ceil(rows.length / SEGMENTS);
let base = 0;
const matches: MatchSet[] = [];
for (let s = 0; s < SEGMENTS; s++) {
  const part = rows.slice(s * per, (s + 1) * per);
  const segment = segmentOf(part, s + 1);
  const view: SegmentView = { segment, liveDocs: null, numDocs: part.length, docBase: base };
  base += part.length;
  const bits = new Uint32Array(Math.ceil(part.length / 32)).fill(0xffffffff);
  if (part.length % 32 !== 0) bits[bits.length - 1] = (1 << part.length % 32) - 1;
  matches.push({ view, bits, scores: null });
}
const distinctPlates = new Set(rows.map((r) => r.plate)).size;
const ctx: AggContext = {
  mapping,
  nowMillis: Date.now(),
  numberOfShards: SHARDS,
  filterBits: () => {
    throw new Error('no filters in this benchmark');
  },
};
process.stdout.write(
  `shard: ${rows.length} docs in ${SEGMENTS} segment(s), ${new Set(rows.map((r) => r.land)).size} land_id, ${distinctPlates} plates; built in ${Date.now() - t0} ms\n`,
);

const SCENARIOS: Record<string, unknown> = {
  'terms land_id': { by_land: { terms: { field: 'land_id', size: 200 } } },
  'date_histogram 1d': { per_day: { date_histogram: { field: 'pass_time', interval: '1d' } } },
  'terms land_id x date_histogram 1d': {
    by_land: { terms: { field: 'land_id', size: 200 }, aggs: { per_day: { date_histogram: { field: 'pass_time', interval: '1d' } } } },
  },
  'cardinality plate.keyword': { plates: { cardinality: { field: 'plate.keyword' } } },
  'terms plate.keyword + bucket_selector _count>10': {
    plates: {
      terms: { field: 'plate.keyword', size: 10000 },
      aggs: { frequent: { bucket_selector: { buckets_path: { c: '_count' }, script: 'params.c > 10' } } },
    },
  },
  'terms land_id + avg speed': { by_land: { terms: { field: 'land_id', size: 200 }, aggs: { s: { avg: { field: 'speed' } } } } },
};

const table: string[][] = [['aggregation', 'collect p50 ms', 'collect p99 ms', 'collect CPU p50 ms', 'reduce x5 p50 ms', 'shard docs/s', 'RSS MB']];
for (const [name, aggs] of Object.entries(SCENARIOS)) {
  const specs = parseAggregations(aggs, mapping);
  const collect: number[] = [];
  const collectCpu: number[] = [];
  const reduce: number[] = [];
  for (let r = 0; r < ROUNDS + 3; r++) {
    const cpu0 = process.cpuUsage();
    const c0 = performance.now();
    const state = collectShardAggs(specs, matches, ctx);
    const c1 = performance.now();
    const cpu = process.cpuUsage(cpu0);
    reduceAggs(specs, [state, state, state, state, state], { typedKeys: false });
    const c2 = performance.now();
    if (r >= 3) {
      collect.push(c1 - c0);
      collectCpu.push((cpu.user + cpu.system) / 1000);
      reduce.push(c2 - c1);
    }
  }
  const p50 = percentile(collect, 50);
  table.push([
    name,
    p50.toFixed(1),
    percentile(collect, 99).toFixed(1),
    percentile(collectCpu, 50).toFixed(1),
    percentile(reduce, 50).toFixed(1),
    Math.round(rows.length / (p50 / 1000)).toLocaleString('en-US'),
    (process.memoryUsage().rss / 1048576).toFixed(0),
  ]);
}
printTable(`aggregations, ${ROUNDS} rounds (after 3 warm-up)`, table);
