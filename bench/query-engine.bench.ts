/**
 * Query latency of one shard of the pass-record index (the seed's mapping:
 * `plate` with a 1–8 n-gram analyzer plus `plate.keyword`, integer
 * `plate_category`, `pass_time` as `yyyy-MM-dd HH:mm:ss`), per query type:
 *
 *   - fragment: match on `plate`, 3-character inner fragment, operator and, top 10 + exact total
 *   - prefix:   match on `plate`, first 3 characters, operator and
 *   - filter:   bool filter term plate_category + range pass_time (one day), top 10
 *   - combo:    bool filter term plate.keyword + term plate_category + range pass_time
 *   - trajectory: term plate.keyword, sort pass_time asc, size 100
 *
 * Prints p50/p99 per query type (ms). Targets (1M docs in 5 shards): fragment
 * under 30 ms across shards, filter and trajectory under 5 ms. With more than
 * one shard, records are spread round-robin (as `_id` routing spreads them) and
 * a sample is the whole query phase of every shard run one after the other
 * plus the coordinator's merge.
 *
 *   node --expose-gc --import tsx bench/query-engine.bench.ts [docsPerShard=200000] [iterations=200] [shards=1] [segmentsPerShard=1]
 */
import { AnalysisRegistry } from '../shared/engine/analysis/registry.ts';
import { dateFormatter } from '../shared/engine/mapping/date-format.ts';
import type { FieldMapping, FieldType, MappingLookup, ParsedField } from '../shared/engine/mapping/types.ts';
import { SegmentBuilder } from '../shared/engine/segment/segment-builder.ts';
import type { SearcherSnapshot, Segment } from '../shared/engine/segment/types.ts';
import { FilterCache } from '../shared/engine/search/filter-cache.ts';
import { mergeTopHits } from '../shared/engine/search/merge-top-hits.ts';
import { executeQueryPhase } from '../shared/engine/search/query-phase.ts';
import type { ShardSearchContext } from '../shared/engine/search/types.ts';
import { parseSearchBody } from '../shared/dsl/query/search-body.ts';
import { PASSINFO_INDEX_BODY, generatePassRecords, prng } from './pass-records.ts';
import { percentile, printTable } from './report.ts';
import { fieldMapping } from '../test/helpers/field-mapping.ts';

const docCount = Number(process.argv[2] ?? 200_000);
const iterations = Number(process.argv[3] ?? 200);
const shardCount = Number(process.argv[4] ?? 1);
const segmentCount = Number(process.argv[5] ?? 1);

const analyzers = AnalysisRegistry.fromIndexSettings(PASSINFO_INDEX_BODY.settings.analysis, { maxNgramDiff: 7 });
const PASS_TIME_FORMAT = dateFormatter('yyyy-MM-dd HH:mm:ss');

function mapping(path: string, type: FieldType, opts: Partial<FieldMapping> = {}): FieldMapping {
  return fieldMapping(path, type, { docValues: type !== 'text', ...opts });
}

const FIELDS = {
  plate: mapping('plate', 'text', { analyzer: 'plate_ngram' }),
  plateKeyword: mapping('plate.keyword', 'keyword', { parent: 'plate' }),
  plateCategory: mapping('plate_category', 'integer'),
  plateColor: mapping('plate_color', 'integer'),
  landId: mapping('land_id', 'keyword'),
  speed: mapping('speed', 'integer'),
  passTime: mapping('pass_time', 'date', { dateFormat: PASS_TIME_FORMAT }),
};
const byPath = new Map(Object.values(FIELDS).map((f) => [f.path, f]));
const lookup: MappingLookup = {
  field: (p) => byPath.get(p),
  matchingFields: (pattern) => {
    const re = new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    return [...byPath.keys()].filter((k) => re.test(k));
  },
};

interface Shard {
  builder: SegmentBuilder;
  segments: Segment[];
}

function build(): { shards: SearcherSnapshot[]; plates: string[]; days: string[] } {
  const perSegment = Math.ceil(docCount / segmentCount);
  const shards: Shard[] = Array.from({ length: shardCount }, () => ({ builder: new SegmentBuilder(analyzers), segments: [] }));
  const plates: string[] = [];
  const days = new Set<string>();
  let i = 0;
  for (const r of generatePassRecords({ count: docCount * shardCount })) {
    const fields: ParsedField[] = [
      { mapping: FIELDS.plate, values: [r.plate] },
      { mapping: FIELDS.plateKeyword, values: [r.plate] },
      { mapping: FIELDS.plateCategory, values: [r.plate_category] },
      { mapping: FIELDS.plateColor, values: [r.plate_color] },
      { mapping: FIELDS.landId, values: [r.land_id] },
      { mapping: FIELDS.speed, values: [r.speed] },
      { mapping: FIELDS.passTime, values: [PASS_TIME_FORMAT.parse(r.pass_time)] },
    ];
    const shard = shards[i % shardCount]!;
    shard.builder.add({ id: r.event_id, version: 1, seqNo: i, routing: null, source: Buffer.from(JSON.stringify(r)), parsed: { fields, dynamicUpdate: null } });
    if (i % 97 === 0) plates.push(r.plate);
    days.add(r.pass_time.slice(0, 10));
    i++;
    if (shard.builder.size === perSegment) {
      shard.segments.push(shard.builder.build(shard.segments.length + 1));
      shard.builder = new SegmentBuilder(analyzers);
    }
  }
  const snapshots = shards.map((shard) => {
    if (shard.builder.size > 0) shard.segments.push(shard.builder.build(shard.segments.length + 1));
    let docBase = 0;
    const views = shard.segments.map((segment) => {
      const v = { segment, liveDocs: null, numDocs: segment.maxDoc, docBase };
      docBase += segment.maxDoc;
      return v;
    });
    return { views, maxDoc: docBase, numDocs: docBase };
  });
  return { shards: snapshots, plates, days: [...days].sort() };
}

const t0 = performance.now();
const { shards, plates, days } = build();
const buildMs = performance.now() - t0;

const ctx: ShardSearchContext = {
  mapping: lookup,
  analyzers,
  nowMillis: Date.now(),
  filterCache: new FilterCache(),
  typeName: 'passinfo',
};
const contexts = shards.map(() => ({ ...ctx, filterCache: new FilterCache() }));

/** The query phase on every shard, then the coordinator's merge of the top hits. */
function searchAll(body: unknown, size: number): number {
  const search = parseSearchBody(body, {});
  const results = shards.map((snapshot, i) => executeQueryPhase(snapshot, search, contexts[i]!, { size }));
  mergeTopHits(search, results, 0, size);
  return results.reduce((n, r) => n + r.totalHits, 0);
}

const rnd = prng(1234);
const pickPlate = (): string => plates[Math.floor(rnd() * plates.length)]!;
const pickDay = (): string => days[Math.floor(rnd() * days.length)]!;

type Scenario = { name: string; body: () => unknown; size: number };
const scenarios: Scenario[] = [
  {
    name: 'fragment (match and, 3 inner chars)',
    size: 10,
    body: () => {
      const p = pickPlate();
      return { query: { match: { plate: { query: p.slice(2, 5), operator: 'and' } } } };
    },
  },
  {
    name: 'prefix (match and, first 3 chars)',
    size: 10,
    body: () => ({ query: { match: { plate: { query: pickPlate().slice(0, 3), operator: 'and' } } } }),
  },
  {
    name: 'filter (term category + 1-day range)',
    size: 10,
    body: () => {
      const d = pickDay();
      return { query: { bool: { filter: [{ term: { plate_category: 1 } }, { range: { pass_time: { gte: `${d} 00:00:00`, lte: `${d} 23:59:59` } } }] } } };
    },
  },
  {
    name: 'plate + category + range',
    size: 10,
    body: () => {
      const d = pickDay();
      return {
        query: {
          bool: {
            filter: [
              { term: { 'plate.keyword': pickPlate() } },
              { term: { plate_category: 1 } },
              { range: { pass_time: { gte: `${d.slice(0, 8)}01 00:00:00`, lt: `${d} 23:59:59` } } },
            ],
          },
        },
      };
    },
  },
  {
    name: 'trajectory (term plate, sort pass_time)',
    size: 100,
    body: () => ({ query: { bool: { filter: { term: { 'plate.keyword': pickPlate() } } } }, sort: [{ pass_time: 'asc' }], size: 100 }),
  },
];

const rows: string[][] = [['query', 'p50 ms', 'p99 ms', 'mean hits']];
const gc = (globalThis as { gc?: () => void }).gc;
for (const s of scenarios) {
  gc?.();
  // Warm up the JIT, then measure (request parsing included, as a shard sees it).
  for (let i = 0; i < 20; i++) searchAll(s.body(), s.size);
  const samples: number[] = [];
  let hits = 0;
  for (let i = 0; i < iterations; i++) {
    const body = s.body();
    const start = performance.now();
    const total = searchAll(body, s.size);
    samples.push(performance.now() - start);
    hits += total;
  }
  rows.push([s.name, percentile(samples, 50).toFixed(2), percentile(samples, 99).toFixed(2), (hits / iterations).toFixed(0)]);
}
printTable(
  `query engine: ${shardCount} shard(s) × ${docCount} pass records, ${segmentCount} segment(s) per shard (built in ${(buildMs / 1000).toFixed(1)} s), ${iterations} iterations, RSS ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB`,
  rows,
);
