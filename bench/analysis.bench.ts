/**
 * Indexing-path analysis of licence plates: 1,000,000 plates like `京A12345`
 * through the plate analyzer (ngram tokenizer, min_gram 1, max_gram 8,
 * token_chars letter+digit: 28 grams a plate), with and without a lowercase
 * filter. Prints median and worst round wall time, median CPU time, tokens/s,
 * plates/s (from the median wall time) and RSS.
 *
 *   npx tsx bench/analysis.bench.ts [plates] [rounds]
 */

import { AnalysisRegistry } from '../shared/engine/analysis/registry.ts';
import type { Analyzer } from '../shared/engine/analysis/types.ts';

const PLATES = Number(process.argv[2] ?? 1_000_000);
const ROUNDS = Number(process.argv[3] ?? 5);

const PROVINCES = '京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼';
const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const ALNUM = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ';

/** Deterministic plates (a small LCG, so every run analyzes the same text). */
function makePlates(n: number): string[] {
  let seed = 12345;
  const next = (m: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % m;
  };
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    let p = PROVINCES[next(PROVINCES.length)]! + LETTERS[next(LETTERS.length)]!;
    for (let k = 0; k < 5; k++) p += ALNUM[next(ALNUM.length)]!;
    out[i] = p;
  }
  return out;
}

const registry = AnalysisRegistry.fromIndexSettings(
  {
    tokenizer: { plate_ngram: { type: 'ngram', min_gram: 1, max_gram: 8, token_chars: ['letter', 'digit'] } },
    analyzer: {
      plate_ngram: { type: 'custom', tokenizer: 'plate_ngram' },
      plate_ngram_lowercase: { type: 'custom', tokenizer: 'plate_ngram', filter: ['lowercase'] },
    },
  },
  { maxNgramDiff: 7 },
);

/** Wall time, and CPU time of this process (steadier when other work shares the cores). */
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

const plates = makePlates(PLATES);
const rows: string[][] = [['analyzer', 'median ms', 'max ms', 'cpu ms', 'tokens/s', 'plates/s', 'tokens/plate', 'RSS MB']];
for (const name of ['plate_ngram', 'plate_ngram_lowercase']) {
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
