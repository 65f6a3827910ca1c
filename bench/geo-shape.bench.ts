/**
 * geo_shape: the cost of keeping shapes in the segment files and of the
 * geo_shape query over them. Builds one segment of `docs` shapes over Europe
 * (60% points, 25% polygons of 8-64 vertices, some with a hole, 15% lines of
 * 2-20 vertices) with the segment builder, writes it to files and opens it
 * through the memory map as a shard does after a commit, then times the
 * query leaf (geo-shape-leaves.ts) per relation and query shape:
 *
 *   - box:     a 0.5-degree envelope (a city)
 *   - circle:  a 50 km circle (a 64-sided polygon)
 *   - country: a 1,000-vertex polygon about 8 degrees wide
 *
 * Prints per query p50/p99 (ms) and matches, bytes per shape in `.dvd`, the
 * time to build and write the segment, and RSS.
 *
 *   node --expose-gc --import tsx bench/geo-shape.bench.ts [docs=200000] [iterations=30]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnalysisRegistry } from '../shared/engine/analysis/registry.ts';
import { prepareShape } from '../shared/engine/geo-shape/prepared-shape.ts';
import { DEFAULT_SHAPE_OPTIONS, parseShape } from '../shared/engine/geo-shape/shape-parser.ts';
import { geoShapeValues } from '../shared/engine/geo-shape/shape-values.ts';
import type { FieldMapping } from '../shared/engine/mapping/types.ts';
import { geoShapeBits } from '../shared/engine/search/geo-shape-leaves.ts';
import type { GeoShapeQuery } from '../shared/engine/search/query.ts';
import { MappedSegment } from '../shared/engine/segment/mapped-segment.ts';
import { SegmentBuilder } from '../shared/engine/segment/segment-builder.ts';
import { writeSegment } from '../shared/engine/segment/segment-writer.ts';
import { fieldMapping } from '../test/helpers/field-mapping.ts';
import { prng } from './pass-records.ts';
import { percentile, printTable } from './report.ts';

const docCount = Number(process.argv[2] ?? 200_000);
const iterations = Number(process.argv[3] ?? 30);
const rnd = prng(20);

const AREA: FieldMapping = fieldMapping('area', 'geo_shape', {
  docValues: false,
  geoShape: { right: true, coerce: false, ignoreZValue: true, ignoreMalformed: false, pointsOnly: false, strategy: 'recursive' },
});

const lon = () => -10 + rnd() * 40;
const lat = () => 36 + rnd() * 24;

/** A star-shaped polygon of n vertices around (x, y), radius r degrees, counterclockwise. */
function polygon(x: number, y: number, r: number, n: number): number[][] {
  const ring: number[][] = [];
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * i) / n;
    const rr = r * (0.6 + 0.4 * rnd());
    ring.push([x + rr * Math.cos(a), y + rr * Math.sin(a)]);
  }
  ring.push(ring[0]!);
  return ring;
}

function shapeOf(i: number): unknown {
  const k = i % 20;
  if (k < 12) return { type: 'point', coordinates: [lon(), lat()] };
  if (k < 17) {
    const x = lon();
    const y = lat();
    const r = 0.01 + rnd() * 0.2;
    const shell = polygon(x, y, r, 8 + Math.floor(rnd() * 57));
    if (k === 16) return { type: 'polygon', coordinates: [shell, polygon(x, y, r / 5, 6).reverse()] };
    return { type: 'polygon', coordinates: [shell] };
  }
  const pts: number[][] = [[lon(), lat()]];
  for (let j = 1, n = 2 + Math.floor(rnd() * 19); j < n; j++) pts.push([pts[j - 1]![0]! + (rnd() - 0.5) * 0.1, pts[j - 1]![1]! + (rnd() - 0.5) * 0.1]);
  return { type: 'linestring', coordinates: pts };
}

const rssMb = () => (process.memoryUsage().rss / 1048576).toFixed(0);

const dir = await mkdtemp(join(tmpdir(), 'geo-shape-bench-'));
const t0 = performance.now();
const builder = new SegmentBuilder(AnalysisRegistry.fromIndexSettings(undefined, {}));
for (let i = 0; i < docCount; i++) {
  const values = geoShapeValues(AREA, shapeOf(i));
  builder.add({ id: String(i), version: 1, seqNo: i, routing: null, source: Buffer.from('{}'), parsed: { fields: [{ mapping: AREA, values }], dynamicUpdate: null } });
}
const heap = builder.build(1);
const written = writeSegment(dir, 1, [{ segment: heap, liveDocs: null }], { sync: false })!;
const buildMs = performance.now() - t0;
const seg = MappedSegment.open(dir, 1);
const pv = seg.points.get('area')!;
const bytesPerShape = (pv.values.byteLength + pv.starts.byteLength) / docCount;
(globalThis as { gc?: () => void }).gc?.();

const queries: [string, string][] = [
  ['box', 'BBOX (4.6, 5.1, 52.6, 52.1)'],
  ['circle', JSON.stringify({ type: 'circle', coordinates: [4.9, 52.37], radius: '50km' })],
  ['country', JSON.stringify({ type: 'polygon', coordinates: [polygon(10, 50, 4, 1000)] })],
];
const rows: string[][] = [['query', 'relation', 'p50 ms', 'p99 ms', 'matches']];
for (const [name, text] of queries) {
  const raw = text.startsWith('{') ? JSON.parse(text) : text;
  const shape = prepareShape(parseShape(raw, DEFAULT_SHAPE_OPTIONS)!);
  for (const relation of ['intersects', 'within', 'contains', 'disjoint'] as const) {
    const q: GeoShapeQuery = { kind: 'geo_shape', field: 'area', relation, shape, boost: 1 };
    const samples: number[] = [];
    let matches = 0;
    for (let it = 0; it < iterations; it++) {
      const s = performance.now();
      const bits = geoShapeBits(q, seg);
      samples.push(performance.now() - s);
      if (it === 0) for (const w of bits) for (let x = w; x !== 0; x &= x - 1) matches++;
    }
    rows.push([name, relation, percentile(samples, 50).toFixed(2), percentile(samples, 99).toFixed(2), String(matches)]);
  }
}
printTable(`geo_shape query leaf over ${docCount} shapes in one mapped segment (${iterations} runs each)`, rows);
process.stdout.write(
  `\nbuild + write: ${(buildMs / 1000).toFixed(1)} s; shapes column: ${bytesPerShape.toFixed(1)} bytes/shape (${((pv.values.byteLength + pv.starts.byteLength) / 1048576).toFixed(1)} MB of .dvd ${(written.info.files.dvd / 1048576).toFixed(1)} MB); RSS ${rssMb()} MB\n`,
);
seg.close();
await rm(dir, { recursive: true, force: true });
