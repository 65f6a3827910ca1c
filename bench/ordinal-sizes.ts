/**
 * ordinal-sizes — what a keyword field's aggregation structures take per
 * shard of a kept data directory (issue 12's 20M / 5M memory row): its
 * segments and their dictionary sizes, the distinct values (global
 * ordinals), and the bytes of what a worker keeps in its field data cache
 * for a `terms` on it (the global ordinals: segment maps, first-segment
 * bytes, values read lately; the counts over every doc), beside what the
 * maps took as int32s and the count array a search allocates. Builds the
 * global ordinals as a search does; reads the
 * files only (safe on a kept bench:scale directory while no node runs on it).
 *
 *   npx tsx bench/ordinal-sizes.ts /tmp/scale-20m [plate.keyword]
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildGlobalOrdinals, globalOrdinalsBytes } from '../shared/engine/aggs/global-ordinals.ts';
import { sortedValues } from '../shared/engine/aggs/value-source.ts';
import { MappedSegment } from '../shared/engine/segment/mapped-segment.ts';
import { segmentIdOfFile } from '../shared/engine/segment/segment-info.ts';
import { printTable } from './report.ts';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: ordinal-sizes <data dir> [field]');
const field = process.argv[3] ?? 'plate.keyword';
const mib = (n: number) => (n / 2 ** 20).toFixed(1);

const rows: string[][] = [
  ['shard', 'segments', 'segment terms', 'global ords', 'ordinals kept MiB', 'of it maps', 'maps as int32 MiB', 'largest count', 'whole-index counts kept MiB', 'per-search counts MiB', 'build ms'],
];
const totals = { kept: 0, maps: 0, int32: 0, counts: 0 };
const indices = join(dir, 'indices');
for (const uuid of readdirSync(indices)) {
  for (const shard of readdirSync(join(indices, uuid)).sort()) {
    const segDir = join(indices, uuid, shard, 'segments');
    const ids = readdirSync(segDir)
      .filter((n) => n.endsWith('.si'))
      .map((n) => segmentIdOfFile(n)!);
    const segments = ids.map((id) => MappedSegment.open(segDir, id, 'none'));
    try {
      const dicts = segments.map((s) => sortedValues(s, field)?.dict ?? null);
      const t0 = performance.now();
      const g = buildGlobalOrdinals(dicts, null, 'sizes');
      const ms = performance.now() - t0;
      let segTerms = 0;
      let mapBytes = 0;
      const seen = new Set<object>();
      for (const m of g.segmentToGlobal) {
        if (m === null || seen.has(m)) continue;
        seen.add(m);
        segTerms += m.length;
        mapBytes += m.byteLength;
      }
      // every doc's count by global ordinal, as a terms aggregation over every doc keeps it
      const counts = new Int32Array(g.length);
      segments.forEach((s, i) => {
        const dv = sortedValues(s, field);
        const map = g.segmentToGlobal[i];
        if (dv === null || map === null || map === undefined) return;
        if (dv.starts !== null) throw new Error(`${field} has several values a doc`);
        for (let d = 0; d < s.maxDoc; d++) if (dv.ords[d]! >= 0) counts[map.get(dv.ords[d]!)]!++;
      });
      let largest = 0;
      for (const c of counts) largest = Math.max(largest, c);
      const countBytes = (largest <= 0xffff ? 2 : 4) * g.length;
      const kept = globalOrdinalsBytes(g);
      totals.kept += kept;
      totals.maps += mapBytes;
      totals.int32 += 4 * segTerms;
      totals.counts += countBytes;
      rows.push([shard, String(segments.length), String(segTerms), String(g.length), mib(kept), mib(mapBytes), mib(4 * segTerms), String(largest), mib(countBytes), mib(4 * g.length), ms.toFixed(0)]);
    } finally {
      for (const s of segments) s.close();
    }
  }
}
printTable(`${field} in ${dir}: per shard (field data cache budget 64 MiB a worker thread)`, rows);
process.stdout.write(
  `all shards: ordinals kept ${mib(totals.kept)} MiB (maps ${mib(totals.maps)}, as int32 ${mib(totals.int32)}), whole-index counts kept ${mib(totals.counts)} MiB\n`,
);
