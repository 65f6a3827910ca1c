/**
 * bench:query-phase — the query phase alone of the seed's searches
 * (seed-workload.ts) over the five shards of a kept pass-record directory,
 * one shard after the other in this thread: no HTTP, no worker messages, no
 * fetch. CPU µs a request (this process, from process.cpuUsage) says what
 * the segments cost on a machine shared with other work, where wall times
 * do not; p50 wall beside it, and RSS.
 *
 *   npm run bench:query-phase -- --data /tmp/scale-1m --only fuzzy --runs 2000
 *
 * It opens the shards' commit points and segment files as a node would:
 * run it on a copy, never on a directory a node has open.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { AnalysisRegistry } from '../shared/engine/analysis/registry.ts';
import { dateFormatter } from '../shared/engine/mapping/date-format.ts';
import type { FieldMapping, FieldType, MappingLookup } from '../shared/engine/mapping/types.ts';
import { ShardIndex } from '../shared/engine/segment/shard-index.ts';
import type { SearcherSnapshot } from '../shared/engine/segment/types.ts';
import { VersionStore } from '../shared/engine/store/version-store.ts';
import { FilterCache } from '../shared/engine/search/filter-cache.ts';
import { executeQueryPhase } from '../shared/engine/search/query-phase.ts';
import type { ShardSearchContext } from '../shared/engine/search/types.ts';
import { parseSearchBody } from '../shared/dsl/query/search-body.ts';
import { PASSINFO_INDEX_BODY } from './pass-records.ts';
import { argNumber, argString } from './dataset.ts';
import { percentile, printTable } from './report.ts';
import { seedSearches } from './seed-workload.ts';
import { fieldMapping } from '../test/helpers/field-mapping.ts';


const DATA = argString('data');
const ONLY = argString('only');
const runs = argNumber('runs', 1000);
const warmup = argNumber('warmup', 300);

const analyzers = AnalysisRegistry.fromIndexSettings(PASSINFO_INDEX_BODY.settings.analysis, { maxNgramDiff: 7 });
const field = (path: string, type: FieldType, opts: Partial<FieldMapping> = {}) => fieldMapping(path, type, { docValues: type !== 'text', ...opts });
/** The fields the seed's searches name, mapped as PASSINFO_INDEX_BODY maps them. */
const FIELDS = [
  field('plate', 'text', { analyzer: 'plate_ngram' }),
  field('plate.keyword', 'keyword', { parent: 'plate' }),
  field('plate_category', 'integer'),
  field('land_id', 'keyword'),
  field('pass_time', 'date', { dateFormat: dateFormatter('yyyy-MM-dd HH:mm:ss') }),
];
const byPath = new Map(FIELDS.map((f) => [f.path, f]));
const mapping: MappingLookup = { field: (p) => byPath.get(p), matchingFields: (p) => (byPath.has(p) ? [p] : []) };

async function openShards(data: string): Promise<SearcherSnapshot[]> {
  const indices = join(data, 'indices');
  const index = join(indices, readdirSync(indices)[0]!);
  const shards = readdirSync(index).filter((s) => /^\d+$/.test(s)).sort((a, b) => Number(a) - Number(b));
  const out: SearcherSnapshot[] = [];
  for (const s of shards) {
    const store = await VersionStore.open(join(index, s, 'versions'));
    const commit = await store.lastCommit();
    await store.close();
    if (commit === null) throw new Error(`shard ${s} has no commit point`);
    out.push(ShardIndex.open(join(index, s, 'segments'), analyzers, commit).acquireSnapshot());
  }
  return out;
}

async function main(): Promise<void> {
  if (DATA === undefined) throw new Error('--data DIR: a copy of a data directory holding the pass-record index (npm run bench:scale -- --keep DIR --load-only)');
  const shards = await openShards(DATA);
  const contexts: ShardSearchContext[] = shards.map(() => ({ mapping, analyzers, nowMillis: Date.now(), filterCache: new FilterCache(), typeName: 'passinfo' }));
  const segments = shards.reduce((n, s) => n + s.views.length, 0);
  const rows: string[][] = [['query', 'hits', 'CPU µs/request', 'p50 ms', 'p99 ms', 'RSS MiB']];
  for (const [name, body] of seedSearches().filter(([n]) => ONLY === undefined || n.includes(ONLY))) {
    const size = (body as { size?: number }).size ?? 10;
    // Parsed per request, as each shard's worker parses it.
    const run = (): number => {
      const search = parseSearchBody(body, {});
      let total = 0;
      for (let i = 0; i < shards.length; i++) total += executeQueryPhase(shards[i]!, search, contexts[i]!, { size }).totalHits;
      return total;
    };
    const hits = run();
    for (let i = 0; i < warmup; i++) run();
    const samples: number[] = [];
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      run();
      samples.push(performance.now() - t0);
    }
    const cpu = process.cpuUsage(cpu0);
    rows.push([
      name,
      String(hits),
      ((cpu.user + cpu.system) / runs).toFixed(0),
      percentile(samples, 50).toFixed(2),
      percentile(samples, 99).toFixed(2),
      (process.memoryUsage().rss / 1048576).toFixed(0),
    ]);
  }
  const load = loadavg().map((n) => n.toFixed(1)).join(' ');
  printTable(`bench:query-phase: ${shards.length} shards, ${segments} segments, ${runs} runs each after ${warmup} warm-up runs, load average ${load}`, rows);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
