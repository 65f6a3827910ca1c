/**
 * bench:geo — geo filters over the points column of segment files: pass
 * records placed at their checkpoint's location (2,000 checkpoints on a
 * 20 km city map around 52.37N 4.90E), written as segment files and read
 * back through the memory maps, then a 2 km geo_distance, a 1 km x 1 km
 * geo_bounding_box and a polygon filter run over every point (no point
 * index yet: this is the scan's cost). Prints p50/p99 per filter, the
 * matched count, bytes per point on disk and the process RSS.
 *
 *   node --import tsx bench/geo.bench.ts [records=5000000] [segments=5] [runs=30]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnalysisRegistry } from '../shared/engine/analysis/registry.ts';
import { MappedSegment } from '../shared/engine/segment/mapped-segment.ts';
import { SegmentBuilder } from '../shared/engine/segment/segment-builder.ts';
import { writeSegment } from '../shared/engine/segment/segment-writer.ts';
import { geoBits } from '../shared/engine/search/geo-leaves.ts';
import type { GeoQuery } from '../shared/engine/search/query.ts';
import { fieldMapping } from '../test/helpers/field-mapping.ts';
import { prng } from './pass-records.ts';
import { percentile, printTable } from './report.ts';

const records = Number(process.argv[2] ?? 5_000_000);
const segmentCount = Number(process.argv[3] ?? 5);
const runs = Number(process.argv[4] ?? 30);

const CHECKPOINTS = 2000;
const CENTER = [52.37, 4.9] as const;
/** Degrees of latitude and longitude per 10 km around the centre. */
const DLAT = 10 / 111.2;
const DLON = 10 / (111.2 * Math.cos((CENTER[0] * Math.PI) / 180));

function main(): void {
  const rand = prng(7);
  const spots: [number, number][] = [];
  for (let i = 0; i < CHECKPOINTS; i++) spots.push([CENTER[0] + (rand() * 2 - 1) * DLAT, CENTER[1] + (rand() * 2 - 1) * DLON]);
  const loc = fieldMapping('location', 'geo_point', { docValues: true });
  const dir = mkdtempSync(join(tmpdir(), 'geo-bench-'));
  const segments: MappedSegment[] = [];
  const t0 = performance.now();
  const perSegment = Math.ceil(records / segmentCount);
  const builder = new SegmentBuilder(AnalysisRegistry.fromIndexSettings(undefined));
  const source = Buffer.from('{}');
  let written = 0;
  for (let s = 0; s < segmentCount; s++) {
    builder.reset();
    const n = Math.min(perSegment, records - written);
    for (let i = 0; i < n; i++) {
      const [lat, lon] = spots[Math.floor(rand() * CHECKPOINTS)]!;
      builder.add({ id: String(written + i), version: 1, seqNo: written + i, routing: null, source, parsed: { fields: [{ mapping: loc, values: [lat, lon] }], dynamicUpdate: null } });
    }
    written += n;
    const seg = builder.build(s);
    writeSegment(dir, s, [{ segment: seg, liveDocs: null }], { sync: false });
    segments.push(MappedSegment.open(dir, s));
  }
  const buildSecs = (performance.now() - t0) / 1000;
  const pointBytes = segments.reduce((n, s) => n + (s.points.get('location')!.values.byteLength + s.points.get('location')!.starts.byteLength), 0);

  const q = (filter: GeoQuery['filter']): GeoQuery => ({ kind: 'geo', field: 'location', filter, boost: 1 });
  const queries: [string, GeoQuery][] = [
    ['geo_distance 2 km', q({ type: 'distance', lat: CENTER[0], lon: CENTER[1], meters: 2000, plane: false })],
    ['geo_bounding_box 1x1 km', q({ type: 'box', minLat: CENTER[0], maxLat: CENTER[0] + DLAT / 10, minLon: CENTER[1], maxLon: CENTER[1] + DLON / 10 })],
    ['geo_polygon (5 vertices)', q({ type: 'polygon', lats: [52.36, 52.38, 52.39, 52.37, 52.35], lons: [4.88, 4.87, 4.9, 4.93, 4.91] })],
  ];
  const rows: string[][] = [['filter', 'matched', 'p50 ms', 'p99 ms']];
  for (const [name, query] of queries) {
    const samples: number[] = [];
    let matched = 0;
    for (let r = 0; r < runs + 3; r++) {
      const t = performance.now();
      matched = 0;
      for (const seg of segments) {
        const bits = geoBits(query, seg);
        for (let w = 0; w < bits.length; w++) {
          let x = bits[w]!;
          while (x !== 0) {
            x &= x - 1;
            matched++;
          }
        }
      }
      if (r >= 3) samples.push(performance.now() - t);
    }
    rows.push([name, String(matched), percentile(samples, 50).toFixed(1), percentile(samples, 99).toFixed(1)]);
  }
  const rss = process.memoryUsage().rss / 2 ** 20;
  printTable(`geo filters over ${records.toLocaleString('en')} points in ${segmentCount} mapped segments (built and written in ${buildSecs.toFixed(1)} s)`, rows);
  process.stdout.write(`points column: ${(pointBytes / records).toFixed(1)} bytes per point; RSS ${rss.toFixed(0)} MB\n`);
  for (const s of segments) s.close();
  rmSync(dir, { recursive: true, force: true });
}

main();
