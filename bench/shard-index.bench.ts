/**
 * The indexing side of one shard copy as a bulk load drives it: pass records
 * parsed against the passinfo mapping (as the coordinator hands them off),
 * buffered in a ShardIndex, refreshed every `perRefresh` docs (one shard's
 * share of a one-second refresh) and merged as the policy asks after each
 * refresh. Prints CPU µs per document for parsing, buffering, refreshing and
 * merging, docs/s, and the segments left.
 *
 *   node --expose-gc --import tsx bench/shard-index.bench.ts [docs=200000] [perRefresh=1000] [runs=3] [refreshesPerCommit=5] [--edge]
 *
 * `--edge` indexes with bench:rebuild's new mapping (plate.edge, an edge
 * n-gram sub-field); `refreshesPerCommit` 1 with a large `perRefresh` is how a
 * rebuild's replay indexes (no periodic refresh, a commit every so many ops).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnalysisRegistry } from '../shared/engine/analysis/registry.ts';
import { Mapping } from '../shared/engine/mapping/mapping.ts';
import { EMPTY_COMMIT, ShardIndex } from '../shared/engine/segment/shard-index.ts';
import { generatePassRecords, PASSINFO_INDEX_BODY } from './pass-records.ts';

const docCount = Number(process.argv[2] ?? 200_000);
const perRefresh = Number(process.argv[3] ?? 1000);
const runs = Number(process.argv[4] ?? 3);
const refreshesPerCommit = Number(process.argv[5] ?? 5);
const edge = process.argv.includes('--edge');

const analysis = edge
  ? {
      analyzer: { ...PASSINFO_INDEX_BODY.settings.analysis.analyzer, plate_edge: { type: 'custom', tokenizer: 'plate_edge_tokenizer', filter: ['lowercase'] } },
      tokenizer: { ...PASSINFO_INDEX_BODY.settings.analysis.tokenizer, plate_edge_tokenizer: { type: 'edge_ngram', min_gram: 1, max_gram: 10, token_chars: ['letter', 'digit'] } },
    }
  : PASSINFO_INDEX_BODY.settings.analysis;
const properties = edge
  ? {
      ...PASSINFO_INDEX_BODY.mappings.passinfo.properties,
      plate: { type: 'text', analyzer: 'plate_ngram', fields: { keyword: { type: 'keyword' }, edge: { type: 'text', analyzer: 'plate_edge', search_analyzer: 'keyword' } } },
    }
  : PASSINFO_INDEX_BODY.mappings.passinfo.properties;
const analyzers = AnalysisRegistry.fromIndexSettings(analysis, { maxNgramDiff: 9 });
const mapping = Mapping.fromJSON('passinfo', { properties }, { analyzerExists: (n) => analyzers.get(n) !== undefined });

/** CPU time (all threads, GC helpers included) since `start`: steadier than wall time on shared cores. */
function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

console.log(`shard index: ${docCount} pass records${edge ? ' (with plate.edge)' : ''}, refresh every ${perRefresh} docs, commit every ${refreshesPerCommit} refreshes, merges after each refresh`);
console.log('run  parse µs/doc  index µs/doc  refresh+commit µs/doc  merge µs/doc  total µs/doc   docs/s  segments  rss MB');
const totals: number[] = [];
for (let run = 1; run <= runs; run++) {
  const records = generatePassRecords({ count: docCount, seed: 42 + run });
  const dir = mkdtempSync(join(tmpdir(), 'shard-index-bench-'));
  const index = ShardIndex.open(dir, analyzers, EMPTY_COMMIT);
  let parseMs = 0;
  let indexMs = 0;
  let refreshMs = 0;
  let mergeMs = 0;
  const wall = performance.now();
  let seqNo = 0;
  let refreshes = 0;
  for (;;) {
    const batch: { id: string; text: string }[] = [];
    for (let n = records.next(); !n.done; n = batch.length < perRefresh ? records.next() : { done: true, value: undefined }) {
      batch.push({ id: n.value.event_id, text: JSON.stringify(n.value) });
      if (batch.length === perRefresh) break;
    }
    if (batch.length === 0) break;
    let cpu: NodeJS.CpuUsage;
    // Parsed a thousand at a time, as a shard worker applies a batch: parsed documents are short-lived.
    for (let at = 0; at < batch.length; at += 1000) {
      cpu = process.cpuUsage();
      const docs = batch.slice(at, at + 1000).map(({ id, text }) => ({
        id,
        source: Buffer.from(text),
        parsed: mapping.parse(JSON.parse(text) as Record<string, unknown>),
      }));
      parseMs += cpuMsSince(cpu);
      cpu = process.cpuUsage();
      // New ids: the copy's version map knows none of them, so no segment is searched for an older copy.
      for (const doc of docs) index.index({ id: doc.id, version: 1, seqNo: seqNo++, routing: null, source: doc.source, parsed: doc.parsed }, false);
      indexMs += cpuMsSince(cpu);
    }
    cpu = process.cpuUsage();
    index.refresh();
    // The copy commits about every fifth refresh (5 s of one-second refreshes): that writes the refreshed segments.
    if (++refreshes % refreshesPerCommit === 0) index.commit();
    refreshMs += cpuMsSince(cpu);
    cpu = process.cpuUsage();
    index.maybeMerge();
    mergeMs += cpuMsSince(cpu);
  }
  const cpu = process.cpuUsage();
  index.refresh();
  refreshMs += cpuMsSince(cpu);
  const wallMs = performance.now() - wall;
  const perDoc = (ms: number): string => ((ms * 1000) / docCount).toFixed(1);
  const engineMs = indexMs + refreshMs + mergeMs;
  totals.push(engineMs);
  console.log(
    [
      String(run).padStart(3),
      perDoc(parseMs).padStart(13),
      perDoc(indexMs).padStart(13),
      perDoc(refreshMs).padStart(15),
      perDoc(mergeMs).padStart(13),
      perDoc(parseMs + engineMs).padStart(13),
      Math.round(docCount / (wallMs / 1000)).toString().padStart(8),
      String(index.segmentCount).padStart(9),
      (process.memoryUsage().rss / 2 ** 20).toFixed(0).padStart(7),
    ].join(' '),
  );
  index.close();
  rmSync(dir, { recursive: true, force: true });
}
totals.sort((a, b) => a - b);
console.log(`median index+refresh+merge: ${((totals[Math.floor(totals.length / 2)] * 1000) / docCount).toFixed(1)} µs/doc CPU`);
