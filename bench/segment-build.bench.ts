/**
 * Segment build throughput for the pass-record shape: a 7-character plate
 * indexed with a 1–8 n-gram analyzer (28 tokens) plus ten keyword, numeric
 * and date fields. Prints docs/s for add() and build() and the heap held by
 * the finished segment.
 *
 *   node --expose-gc --import tsx bench/segment-build.bench.ts [docs=200000] [runs=3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeSegment } from '../shared/engine/segment/segment-writer.ts';
import { AnalysisRegistry } from '../shared/engine/analysis/registry.ts';
import type { FieldMapping, FieldType, ParsedField } from '../shared/engine/mapping/types.ts';
import { SegmentBuilder, type BufferedDoc } from '../shared/engine/segment/segment-builder.ts';
import type { Segment } from '../shared/engine/segment/types.ts';
import { fieldMapping } from '../test/helpers/field-mapping.ts';
import { prng as random } from '../shared/random/prng.ts';

const docCount = Number(process.argv[2] ?? 200_000);
const runs = Number(process.argv[3] ?? 3);

const analyzers = AnalysisRegistry.fromIndexSettings(
  {
    tokenizer: { plate_ngram: { type: 'ngram', min_gram: 1, max_gram: 8, token_chars: ['letter', 'digit'] } },
    analyzer: { plate_ngram: { type: 'custom', tokenizer: 'plate_ngram' } },
  },
  { maxNgramDiff: 7 },
);

function mapping(path: string, type: FieldType, analyzer: string | null = null): FieldMapping {
  return fieldMapping(path, type, { docValues: type !== 'text', analyzer });
}

const fields = {
  plate: mapping('plate', 'text', 'plate_ngram'),
  plateKeyword: mapping('plate.keyword', 'keyword'),
  plateColor: mapping('plateColor', 'keyword'),
  vehicleType: mapping('vehicleType', 'keyword'),
  deviceId: mapping('deviceId', 'keyword'),
  direction: mapping('direction', 'keyword'),
  regionCode: mapping('regionCode', 'keyword'),
  lane: mapping('lane', 'integer'),
  speed: mapping('speed', 'float'),
  cameraId: mapping('cameraId', 'long'),
  passTime: mapping('passTime', 'date'),
};

const PROVINCES = '京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼';
const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const ALNUM = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const COLORS = ['blue', 'yellow', 'green', 'white', 'black'];
const TYPES = ['car', 'truck', 'bus', 'van', 'motorcycle'];


/**
 * Pass records made one at a time, as the indexer receives them: holding all
 * of them would make every major GC mark 300 MB of input the indexer never has.
 */
function passRecords(seed: number): (i: number) => BufferedDoc {
  const rnd = random(seed);
  const pick = (s: string): string => s[Math.floor(rnd() * s.length)]!;
  const start = Date.UTC(2024, 0, 1);
  return (i) => {
    let plate = pick(PROVINCES) + pick(LETTERS);
    for (let k = 0; k < 5; k++) plate += pick(ALNUM);
    const record = {
      plate,
      plateColor: COLORS[Math.floor(rnd() * COLORS.length)]!,
      vehicleType: TYPES[Math.floor(rnd() * TYPES.length)]!,
      deviceId: `dev-${Math.floor(rnd() * 2000)}`,
      direction: rnd() < 0.5 ? 'in' : 'out',
      regionCode: `R${Math.floor(rnd() * 300)}`,
      lane: Math.floor(rnd() * 6),
      speed: Math.round(rnd() * 1200) / 10,
      cameraId: Math.floor(rnd() * 100_000),
      passTime: start + Math.floor(rnd() * 30 * 86_400_000),
    };
    const parsedFields: ParsedField[] = [
      { mapping: fields.plate, values: [plate] },
      { mapping: fields.plateKeyword, values: [plate] },
      { mapping: fields.plateColor, values: [record.plateColor] },
      { mapping: fields.vehicleType, values: [record.vehicleType] },
      { mapping: fields.deviceId, values: [record.deviceId] },
      { mapping: fields.direction, values: [record.direction] },
      { mapping: fields.regionCode, values: [record.regionCode] },
      { mapping: fields.lane, values: [record.lane] },
      { mapping: fields.speed, values: [record.speed] },
      { mapping: fields.cameraId, values: [record.cameraId] },
      { mapping: fields.passTime, values: [record.passTime] },
    ];
    return {
      id: `pass-${i}`,
      version: 1,
      seqNo: i,
      routing: null,
      source: Buffer.from(JSON.stringify(record)),
      parsed: { fields: parsedFields, dynamicUpdate: null },
    };
  };
}

const gc = (globalThis as { gc?: () => void }).gc;
/** JS heap used (strings, arrays of ids and terms), after a GC when exposed. */
function heapMb(): number {
  gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

/** Bytes the built segment takes in its files (written once to measure them). */
function columnMb(segment: Segment): number {
  const dir = mkdtempSync(join(tmpdir(), 'segment-build-'));
  try {
    const written = writeSegment(dir, segment.id, [{ segment, liveDocs: null }], { sync: false });
    let bytes = 0;
    if (written !== null) for (const n of Object.values(written.info.files)) bytes += n;
    return bytes / 2 ** 20;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** CPU time of this process (all its threads, GC helpers included) since `start`: steadier than wall time on shared cores. */
function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function postingsOf(segment: Segment): number {
  let n = 0;
  for (const field of segment.inverted.values()) for (let t = 0; t < field.terms.length; t++) n += field.docFreq(t);
  return n;
}

console.log(
  `segment build: ${docCount} pass records, plate 1-8 n-grams + 10 keyword/numeric/date fields` +
    (gc ? '' : ' (run with --expose-gc for exact heap figures)'),
);
console.log('add ms excludes making the records (gen ms), timed in a separate pass');
console.log('run  gen ms  add ms  build ms  add+build ms  cpu ms   docs/s  segment: heap MB  columns MB  rss MB  postings');
const totals: number[] = [];
/** The last segment, held so its heap is measured; dropped before the next run. */
const kept: { segment: Segment | null } = { segment: null };
for (let run = 1; run <= runs; run++) {
  kept.segment = null;
  let t = performance.now();
  let cpu = process.cpuUsage();
  const makeOnly = passRecords(run);
  let sink = 0;
  for (let i = 0; i < docCount; i++) sink += makeOnly(i).source.length;
  const genMs = performance.now() - t;
  const genCpuMs = cpuMsSince(cpu);

  const heapBefore = heapMb();
  const make = passRecords(run);
  t = performance.now();
  cpu = process.cpuUsage();
  const builder = new SegmentBuilder(analyzers);
  for (let i = 0; i < docCount; i++) builder.add(make(i));
  const addMs = performance.now() - t - genMs;
  t = performance.now();
  const segment = builder.build(run);
  const buildMs = performance.now() - t;
  const cpuMs = cpuMsSince(cpu) - genCpuMs;
  kept.segment = segment;
  const heapSegment = heapMb() - heapBefore;
  totals.push(addMs + buildMs);
  console.log(
    [
      String(run).padStart(3),
      genMs.toFixed(0).padStart(7),
      addMs.toFixed(0).padStart(7),
      buildMs.toFixed(0).padStart(9),
      (addMs + buildMs).toFixed(0).padStart(13),
      cpuMs.toFixed(0).padStart(7),
      Math.round(docCount / ((addMs + buildMs) / 1000)).toString().padStart(8),
      heapSegment.toFixed(1).padStart(16),
      columnMb(segment).toFixed(1).padStart(11),
      (process.memoryUsage().rss / 2 ** 20).toFixed(0).padStart(7),
      String(postingsOf(segment)).padStart(9),
    ].join(' '),
  );
  if (sink < 0) console.log(sink);
}
totals.sort((a, b) => a - b);
const median = totals[Math.floor(totals.length / 2)]!;
console.log(
  `median add+build ${median.toFixed(0)} ms, ${Math.round(docCount / (median / 1000))} docs/s; ` +
    `distinct plate terms: ${kept.segment?.inverted.get('plate')?.terms.length}`,
);
