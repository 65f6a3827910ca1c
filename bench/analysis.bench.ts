/**
 * Indexing-path analysis of licence plates: 1,000,000 plates like `京A12345`
 * through the seed's `plate_ngram` analyzer (bench/pass-records.ts: ngram
 * tokenizer min_gram 1, max_gram 8, token_chars letter+digit, lowercase
 * filter: 28 grams a plate), and through the same tokenizer without the
 * lowercase filter. Prints median and worst round wall time, median CPU time,
 * tokens/s, plates/s (from the median wall time) and RSS.
 *
 *   npx tsx bench/analysis.bench.ts [plates] [rounds]
 */

import { AnalysisRegistry } from '../shared/engine/analysis/registry.ts';
import type { Analyzer } from '../shared/engine/analysis/types.ts';
import { PASSINFO_INDEX_BODY, plateOf } from './pass-records.ts';

const PLATES = Number(process.argv[2] ?? 1_000_000);
const ROUNDS = Number(process.argv[3] ?? 5);

const seedAnalysis = PASSINFO_INDEX_BODY.settings.analysis;
const registry = AnalysisRegistry.fromIndexSettings(
  {
    ...seedAnalysis,
    analyzer: { ...seedAnalysis.analyzer, plate_ngram_no_lowercase: { type: 'custom', tokenizer: 'plate_ngram_tokenizer' } },
  },
  { maxNgramDiff: 7 },
);

function run(analyzer: Analyzer, plates: readonly string[]): { ms: number; cpuMs: number; tokens: number; checksum: number } {
  let tokens = 0;
  let checksum = 0;
  const sink = (term: string, position: number, start: number, end: number): void => {
    tokens++;
    checksum = (checksum + term.length + position + start + end) | 0;
  };
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  for (let i = 0; i < plates.length; i++) analyzer.analyzeInto(plates[i]!, sink, 0);
  const cpu = process.cpuUsage(c0);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, tokens, checksum };
}

const plates = Array.from({ length: PLATES }, (_, i) => plateOf(i));
const rows: string[][] = [['analyzer', 'median ms', 'max ms', 'cpu ms', 'tokens/s', 'plates/s', 'tokens/plate', 'RSS MB']];
for (const name of ['plate_ngram', 'plate_ngram_no_lowercase']) {
  const analyzer = registry.get(name)!;
  run(analyzer, plates.slice(0, 10_000)); // warm-up
  const times: number[] = [];
  const cpuTimes: number[] = [];
  let tokens = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const res = run(analyzer, plates);
    times.push(res.ms);
    cpuTimes.push(res.cpuMs);
    tokens = res.tokens;
  }
  times.sort((a, b) => a - b);
  cpuTimes.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  rows.push([
    name,
    median.toFixed(0),
    times[times.length - 1]!.toFixed(0),
    cpuTimes[Math.floor(cpuTimes.length / 2)]!.toFixed(0),
    Math.round((tokens / median) * 1000).toLocaleString('en-US'),
    Math.round((PLATES / median) * 1000).toLocaleString('en-US'),
    (tokens / PLATES).toFixed(1),
    (process.memoryUsage().rss / 1048576).toFixed(0),
  ]);
}

const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
for (const r of rows) console.log(r.map((cell, c) => cell.padStart(widths[c]!)).join('  '));
