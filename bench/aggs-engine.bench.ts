/**
 * Aggregations over the seed's pass records split into five shards
 * round-robin (1,000,000 records over 100,000 plates, ~200 checkpoints,
 * 30 days; doc values built directly, no HTTP). For each aggregation, p50/p99
 * over the rounds of: the five shards' collect (one after the other, as one
 * node runs them), the coordinator's reduce of the five partial states, and
 * rendering the reduced tree to the response's JSON text; then the whole of
 * it. Wall time suffers on a busy machine; the CPU columns are the process's
 * own CPU time for the same phases (GC threads included), steadier when other
 * processes compete for the cores.
 *
 *   npx tsx bench/aggs-engine.bench.ts [rounds] [segments per shard] [records] [scenario name part]
 */
import { parseAggregations } from '../shared/dsl/aggs/parse.ts';
import { collectShardAggs } from '../shared/engine/aggs/collect.ts';
import { reduceAggTree, renderAggsJson } from '../shared/engine/aggs/reduce.ts';
import type { ShardAggState } from '../shared/engine/aggs/state.ts';
import type { AggContext, MatchSet } from '../shared/engine/aggs/types.ts';
import type { FieldMapping, FieldType, MappingLookup } from '../shared/engine/mapping/types.ts';
import type { DocValues, Segment, SegmentView } from '../shared/engine/segment/types.ts';
import { generatePassRecords } from './pass-records.ts';
import { percentile, printTable } from './report.ts';
import { fieldMapping } from '../test/helpers/field-mapping.ts';
import { PackedStrings } from '../shared/engine/segment/packed-strings.ts';

const ROUNDS = Number(process.argv[2] ?? 30);
const SEGMENTS = Number(process.argv[3] ?? 1);
const SHARDS = 5;
const TOTAL = Number(process.argv[4] ?? 1_000_000);
const ONLY = process.argv[5] ?? '';

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
  const distinct = [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const ordOf = new Map(distinct.map((t, i) => [t, i]));
  const ords = new Int32Array(values.length);
  values.forEach((v, i) => (ords[i] = ordOf.get(v)!));
  return { kind: 'sorted', dict: PackedStrings.of(distinct), ords, starts: null };
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
    versions: new Float64Array(n).fill(1),
    seqNos: new Float64Array(n),
    stored: { document: () => ({ source: new Uint8Array(0), routing: null }), sourceLength: () => 0, mayHaveRouting: () => false },
    sizeInBytes: 0,
    inverted: new Map(),
    docValues,
    fieldsPresent: new Set(docValues.keys()),
    fieldDocs: new Map(),
  };
}

const t0 = Date.now();
export {};
const shardRows: Row[][] = Array.from({ length: SHARDS }, () => []);
let i = 0;
for (const r of generatePassRecords({ count: TOTAL, plates: 100_000, checkpoints: 200, days: 30 })) {
  shardRows[i++ % SHARDS]!.push({ land: r.land_id, plate: r.plate, time: Date.parse(r.pass_time.replace(' ', 'T') + 'Z'), speed: r.speed });
}
let segmentId = 0;
/** One shard's matches: every live doc of its segments. */
function shardMatches(rows: readonly Row[]): MatchSet[] {
  const per = Math.ceil(rows.length / SEGMENTS);
  let base = 0;
  const matches: MatchSet[] = [];
  for (let s = 0; s < SEGMENTS; s++) {
    const part = rows.slice(s * per, (s + 1) * per);
    const segment = segmentOf(part, ++segmentId);
    const view: SegmentView = { segment, liveDocs: null, numDocs: part.length, docBase: base };
    base += part.length;
    const bits = new Uint32Array(Math.ceil(part.length / 32)).fill(0xffffffff);
    if (part.length % 32 !== 0) bits[bits.length - 1] = (1 << part.length % 32) - 1;
    matches.push({ view, bits, scores: null });
  }
  return matches;
}
const shards = shardRows.map(shardMatches);
const distinctPlates = new Set(shardRows.flatMap((rows) => rows.map((r) => r.plate))).size;
const ctx: AggContext = {
  mapping,
  nowMillis: Date.now(),
  numberOfShards: SHARDS,
  filterBits: () => {
    throw new Error('no filters in this benchmark');
  },
};
process.stdout.write(
  `${TOTAL} docs in ${SHARDS} shards of ${SEGMENTS} segment(s), ${new Set(shardRows[0]!.map((r) => r.land)).size} land_id, ${distinctPlates} plates; built in ${Date.now() - t0} ms\n`,
)
;

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

const table: string[][] = [
  ['aggregation', 'collect x5 p50', 'p99', 'reduce p50', 'render p50', 'total p50', 'p99', 'CPU: collect', 'reduce', 'render', 'total', 'JSON KB'],
];
const cpuMs = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;
for (const [name, aggs] of Object.entries(SCENARIOS)) {
  if (!name.includes(ONLY)) continue;
  const specs = parseAggregations(aggs, mapping);
  const wall = { collect: [] as number[], reduce: [] as number[], render: [] as number[], total: [] as number[] };
  const cpu = { collect: [] as number[], reduce: [] as number[], render: [] as number[], total: [] as number[] };
  let bytes = 0;
  for (let r = 0; r < ROUNDS + 3; r++) {
    const u0 = process.cpuUsage();
    const c0 = performance.now();
    const states: ShardAggState[] = shards.map((matches) => collectShardAggs(specs, matches, ctx));
    const u1 = process.cpuUsage();
    const c1 = performance.now();
    const reduced = reduceAggTree(specs, states);
    const u2 = process.cpuUsage();
    const c2 = performance.now();
    const text = renderAggsJson(reduced, false);
    const u3 = process.cpuUsage();
    const c3 = performance.now();
    bytes = text.length;
    if (r >= 3) {
      wall.collect.push(c1 - c0);
      wall.reduce.push(c2 - c1);
      wall.render.push(c3 - c2);
      wall.total.push(c3 - c0);
      cpu.collect.push(cpuMs(u1) - cpuMs(u0));
      cpu.reduce.push(cpuMs(u2) - cpuMs(u1));
      cpu.render.push(cpuMs(u3) - cpuMs(u2));
      cpu.total.push(cpuMs(u3) - cpuMs(u0));
    }
  }
  const p50 = (xs: number[]): string => percentile(xs, 50).toFixed(1);
  table.push([
    name,
    p50(wall.collect),
    percentile(wall.collect, 99).toFixed(1),
    p50(wall.reduce),
    p50(wall.render),
    p50(wall.total),
    percentile(wall.total, 99).toFixed(1),
    p50(cpu.collect),
    p50(cpu.reduce),
    p50(cpu.render),
    p50(cpu.total),
    (bytes / 1024).toFixed(0),
  ]);
}
printTable(`aggregations, ${ROUNDS} rounds (after 3 warm-up), ms; RSS ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB`, table);
