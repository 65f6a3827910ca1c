/**
 * The CPU a shard worker spends per pass record, in one process and by
 * phase: the source's JSON and mapping parse, indexing into the buffer,
 * refresh (every `--refresh` docs, as a 1 s refresh at ~4,000 docs/s a
 * shard) and commit (every 5 refreshes, the refreshed segments written as
 * one). CPU time (process.cpuUsage), so on a busy machine it tells builds
 * apart better than a whole node's docs/s.
 *
 *   npx tsx bench/shard-ingest.bench.ts [--count 200000] [--refresh 4000] [--runs 3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePassRecords, PASSINFO_INDEX_BODY } from './pass-records.ts';
import { argNumber } from './dataset.ts';
import { AnalysisRegistry } from '../shared/engine/analysis/registry.ts';
import { Mapping } from '../shared/engine/mapping/mapping.ts';
import { ShardIndex, EMPTY_COMMIT } from '../shared/engine/segment/shard-index.ts';

const count = argNumber('count', 200_000);
const refreshEvery = argNumber('refresh', 4000);
const runs = argNumber('runs', 3);

const settings = PASSINFO_INDEX_BODY.settings;
const analyzers = AnalysisRegistry.fromIndexSettings(settings.analysis, { maxNgramDiff: 7 });
const mapping = Mapping.fromJSON('passinfo', PASSINFO_INDEX_BODY.mappings.passinfo, { analyzerExists: (n: string) => analyzers.get(n) !== undefined });

const sources: { id: string; source: Buffer }[] = [];
for (const r of generatePassRecords({ count })) sources.push({ id: r.event_id, source: Buffer.from(JSON.stringify(r)) });

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

for (let run = 0; run < runs; run++) {
  const dir = mkdtempSync(join(tmpdir(), 'shard-ingest-'));
  const index = ShardIndex.open(dir, analyzers, EMPTY_COMMIT);
  const spent = { parse: 0, index: 0, refresh: 0, commit: 0 };
  let refreshes = 0;
  const t0 = cpuMs();
  for (let from = 0; from < sources.length; from += refreshEvery) {
    const to = Math.min(sources.length, from + refreshEvery);
    let t = cpuMs();
    const parsed = [];
    for (let i = from; i < to; i++) parsed.push(mapping.parse(JSON.parse(sources[i]!.source.toString('utf8')) as Record<string, unknown>));
    let u = cpuMs();
    spent.parse += u - t;
    for (let i = from; i < to; i++) index.index({ id: sources[i]!.id, version: 1, seqNo: i, routing: null, source: sources[i]!.source, parsed: parsed[i - from]! }, false);
    t = cpuMs();
    spent.index += t - u;
    index.refresh();
    u = cpuMs();
    spent.refresh += u - t;
    if (++refreshes % 5 === 0 || to === sources.length) {
      index.commit();
      spent.commit += cpuMs() - u;
    }
  }
  const total = cpuMs() - t0;
  const per = (ms: number) => ((ms / count) * 1000).toFixed(1);
  process.stdout.write(
    `run ${run + 1}: ${per(total)} µs CPU a doc (parse ${per(spent.parse)}, index ${per(spent.index)}, refresh ${per(spent.refresh)}, commit ${per(spent.commit)}) over ${count} docs, ${index.segmentCount} segments\n`,
  );
  index.close();
  rmSync(dir, { recursive: true, force: true });
}
