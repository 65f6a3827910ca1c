/**
 * The seed's two aggregations over millions of distinct plates
 * (`cardinality` of `plate.keyword`, and `terms` on it with size 10,000 and a
 * `bucket_selector` on `_count > 10`) on one shard copy in this process, at
 * the sizes a 5-shard index holds per shard: the shard is built through a
 * ShardIndex as a bulk load drives one (every fifth record of a load of
 * 5 × docs, refreshed every 5,000 docs, committed every fifth refresh, merged
 * as the policy asks), then reopened from its commit point (mapped segments,
 * as after a restart). For each aggregation: p50/p99 of the shard's query
 * phase + collect, the reduce and the render, and the memory the first run
 * left behind (heap, array buffers, anonymous RSS) beside the figures before
 * any aggregation ran: what a node keeps per shard for these aggregations,
 * and the field data cache's bytes after it (field-data-cache.ts). The CPU
 * column is the process's CPU time per run, steadier than wall time when
 * other processes compete for the cores.
 *
 *   npm run bench:plate-aggs -- [docsPerShard=200000] [runs=20] [name part]
 *   (node --expose-gc --import tsx bench/plate-aggs.bench.ts ...)
 *
 * The built shard is kept in $TMPDIR/plate-aggs-bench/<docs> and reused.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAggregations } from '../shared/dsl/aggs/parse.ts';
import { parseSearchBody } from '../shared/dsl/query/search-body.ts';
import { collectShardAggs } from '../shared/engine/aggs/collect.ts';
import { reduceAggTree, renderAggsJson } from '../shared/engine/aggs/reduce.ts';
import { fieldDataCache } from '../shared/engine/aggs/field-data-cache.ts';
import { AnalysisRegistry } from '../shared/engine/analysis/registry.ts';
import { Mapping } from '../shared/engine/mapping/mapping.ts';
import { FilterCache } from '../shared/engine/search/filter-cache.ts';
import { executeQueryPhase } from '../shared/engine/search/query-phase.ts';
import type { ShardSearchContext } from '../shared/engine/search/types.ts';
import { EMPTY_COMMIT, ShardIndex, type SegmentsCommit } from '../shared/engine/segment/shard-index.ts';
import { generatePassRecords, PASSINFO_INDEX_BODY } from './pass-records.ts';
import { percentile, printTable } from './report.ts';

const docs = Number(process.argv[2] ?? 200_000);
const runs = Number(process.argv[3] ?? 20);
/** Only the aggregations whose name contains this. */
const only = process.argv[4] ?? '';
const SHARDS = 5;
const PER_REFRESH = 5000;

const analyzers = AnalysisRegistry.fromIndexSettings(PASSINFO_INDEX_BODY.settings.analysis, { maxNgramDiff: 7 });
const mapping = Mapping.fromJSON('passinfo', PASSINFO_INDEX_BODY.mappings.passinfo, { analyzerExists: (n) => analyzers.get(n) !== undefined });
const gc = (globalThis as { gc?: () => void }).gc;

interface Memory {
  heap: number;
  buffers: number;
  anon: number;
}

function memory(): Memory {
  gc?.();
  const m = process.memoryUsage();
  const status = readFileSync('/proc/self/status', 'utf8');
  const anonKb = Number(/RssAnon:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { heap: m.heapUsed / 2 ** 20, buffers: m.arrayBuffers / 2 ** 20, anon: anonKb / 1024 };
}

/** Builds (or finds, when this node's segment format reads it) the shard and returns its commit point. */
function buildShard(dir: string): SegmentsCommit {
  const commitFile = join(dir, 'bench-commit.json');
  if (existsSync(commitFile)) {
    const commit = JSON.parse(readFileSync(commitFile, 'utf8')) as SegmentsCommit;
    try {
      ShardIndex.open(dir, analyzers, commit).close();
      return commit;
    } catch (err) {
      console.log(`rebuilding the shard: ${(err as Error).message}`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  const index = ShardIndex.open(dir, analyzers, EMPTY_COMMIT);
  let i = 0;
  let seqNo = 0;
  let refreshes = 0;
  let pending = 0;
  for (const r of generatePassRecords({ count: docs * SHARDS })) {
    if (i++ % SHARDS !== 0) continue;
    const text = JSON.stringify(r);
    index.index({ id: r.event_id, version: 1, seqNo: seqNo++, routing: null, source: Buffer.from(text), parsed: mapping.parse(JSON.parse(text) as Record<string, unknown>) }, false);
    if (++pending === PER_REFRESH) {
      pending = 0;
      index.refresh();
      if (++refreshes % 5 === 0) index.commit();
      index.maybeMerge();
    }
  }
  index.refresh();
  while (index.maybeMerge());
  const commit = index.commit();
  index.close();
  writeFileSync(commitFile, JSON.stringify(commit));
  console.log(`built ${docs} docs in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return commit;
}

const AGGS: [string, Record<string, unknown>][] = [
  ['cardinality plate.keyword', { plates: { cardinality: { field: 'plate.keyword' } } }],
  [
    'plates with _count > 10 (bucket_selector)',
    {
      plates: {
        terms: { field: 'plate.keyword', size: 10000 },
        aggs: { many: { bucket_selector: { buckets_path: { c: '_count' }, script: 'params.c > 10' } } },
      },
    },
  ],
];

function main(): void {
  const dir = join(tmpdir(), 'plate-aggs-bench', String(docs));
  const commit = buildShard(dir);
  const before = memory();
  const index = ShardIndex.open(dir, analyzers, commit);
  const snapshot = index.acquireSnapshot();
  const opened = memory();
  const segments = snapshot.views.map((v) => v.segment.maxDoc);
  console.log(`${snapshot.numDocs} docs in ${segments.length} segments (${segments.join(', ')})`);
  const ctx: ShardSearchContext = { mapping, analyzers, nowMillis: Date.now(), filterCache: new FilterCache(), typeName: 'passinfo' };
  const rows: string[][] = [['aggregation', 'first ms', 'p50 ms', 'p99 ms', 'CPU p50', 'collect p50', 'reduce+render p50', 'result', 'cache MB', 'heap +MB', 'buffers +MB', 'anon +MB']];
  for (const [name, aggs] of AGGS) {
    if (!name.includes(only)) continue;
    // Each aggregation's own cache figures: it starts from an empty cache.
    fieldDataCache.clear();
    const search = parseSearchBody({ size: 0, query: { match_all: {} }, aggs });
    const specs = parseAggregations(search.aggregations, mapping);
    const start = memory();
    const total: number[] = [];
    const collect: number[] = [];
    const cpu: number[] = [];
    const reduce: number[] = [];
    let first = 0;
    let result = '';
    let after: Memory = start;
    for (let r = 0; r <= runs; r++) {
      const u0 = process.cpuUsage();
      const t0 = performance.now();
      const q = executeQueryPhase(snapshot, search, ctx, { size: 0, after: null, collectMatches: true });
      const state = collectShardAggs(specs, q.matches!, { mapping, nowMillis: ctx.nowMillis, numberOfShards: SHARDS, filterBits: () => new Uint32Array(0) });
      const t1 = performance.now();
      const text = renderAggsJson(reduceAggTree(specs, [state]), false);
      const t2 = performance.now();
      const u = process.cpuUsage(u0);
      if (r === 0) {
        first = t2 - t0;
        const parsed = JSON.parse(text) as { plates: { value?: number; buckets?: unknown[] } };
        result = parsed.plates.value !== undefined ? `${parsed.plates.value} distinct` : `${parsed.plates.buckets!.length} buckets`;
        after = memory();
        continue;
      }
      total.push(t2 - t0);
      cpu.push((u.user + u.system) / 1000);
      collect.push(t1 - t0);
      reduce.push(t2 - t1);
    }
    rows.push([
      name,
      first.toFixed(1),
      percentile(total, 50).toFixed(1),
      percentile(total, 99).toFixed(1),
      percentile(cpu, 50).toFixed(1),
      percentile(collect, 50).toFixed(1),
      percentile(reduce, 50).toFixed(1),
      result,
      (fieldDataCache.bytes / 2 ** 20).toFixed(1),
      (after.heap - start.heap).toFixed(1),
      (after.buffers - start.buffers).toFixed(1),
      (after.anon - start.anon).toFixed(1),
    ]);
  }
  const end = memory();
  const cached = fieldDataCache.bytes;
  fieldDataCache.clear();
  const emptied = memory();
  printTable(
    `plate aggregations, one shard of ${docs} docs (${runs} runs after the first); opened: heap ${opened.heap.toFixed(0)} MB (${(opened.heap - before.heap).toFixed(0)} for the segments), ` +
      `at the end: heap ${end.heap.toFixed(0)} MB, array buffers ${end.buffers.toFixed(0)} MB (${(emptied.buffers - opened.buffers).toFixed(1)} MB more than when opened once the cache's ${(cached / 2 ** 20).toFixed(1)} MB are dropped), anon RSS ${end.anon.toFixed(0)} MB`,
    rows,
  );
  index.unpin(snapshot);
  index.close();
}

main();
