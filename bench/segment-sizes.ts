/**
 * segment-sizes — where a data directory's segment bytes go: per file kind,
 * and per field within `.tim` (term text and postings metadata apart),
 * `.dvd` (each column; a section fields share counts for the first of
 * them). Reads the files only (safe on a kept bench:scale directory while
 * no node runs on it).
 *
 *   npx tsx bench/segment-sizes.ts /tmp/scale-1m
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FOOTER_BYTES, HEADER_BYTES } from '../shared/engine/codec/file-format.ts';
import { ByteReader } from '../shared/engine/codec/byte-reader.ts';
import { skipTermMeta } from '../shared/engine/codec/postings-format.ts';
import { skipTermText, type DictionaryLayout } from '../shared/engine/codec/front-coded.ts';
import type { ColumnLayout } from '../shared/engine/codec/typed-columns.ts';
import type { SegmentInfo } from '../shared/engine/segment/segment-info.ts';
import { printTable } from './report.ts';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: segment-sizes <data dir>');

const ELEMENT: Record<string, number> = { i8: 1, u8: 1, i16: 2, u16: 2, i32: 4, u32: 4, f32: 4, f64: 8 };
/** `.dvd` offsets counted in the current segment: a section two fields share (shared-sections.ts) counts once, for the first. */
const counted = new Set<number>();
const col = (c: ColumnLayout | null | undefined): number => {
  if (c === null || c === undefined || counted.has(c.at)) return 0;
  counted.add(c.at);
  return c.length * ELEMENT[c.kind]!;
};

const byKind = new Map<string, number>();
const byField = new Map<string, number>();
const add = (m: Map<string, number>, k: string, n: number) => m.set(k, (m.get(k) ?? 0) + n);

function segmentDirs(root: string): string[] {
  const out: string[] = [];
  const indices = join(root, 'indices');
  for (const uuid of readdirSync(indices)) for (const shard of readdirSync(join(indices, uuid))) out.push(join(indices, uuid, shard, 'segments'));
  return out;
}

/** Term text and metadata bytes of a dictionary. */
function dictBytes(tim: Uint8Array, d: DictionaryLayout, positions: boolean): { text: number; meta: number; index: number } {
  const r = new ByteReader(tim.subarray(d.at, d.blocksAt));
  let meta = 0;
  let tails = false;
  for (let i = 0; i < d.count; i++) {
    if (i % (d.blockSize ?? 16) === 0) tails = r.byte() === 1;
    skipTermText(r, tails);
    if (d.withMeta) {
      const at = r.pos;
      skipTermMeta(r, positions);
      meta += r.pos - at;
    }
  }
  const blocks = Math.ceil(d.count / (d.blockSize ?? 16)) + 1;
  return { text: d.blocksAt - d.at - meta, meta, index: blocks * 4 };
}

let docs = 0;
for (const segs of segmentDirs(dir)) {
  for (const name of readdirSync(segs)) {
    const kind = name.slice(name.lastIndexOf('.') + 1);
    add(byKind, kind, statSync(join(segs, name)).size);
    if (kind !== 'si') continue;
    const si = readFileSync(join(segs, name));
    const info = JSON.parse(si.subarray(HEADER_BYTES, si.length - FOOTER_BYTES).toString('utf8')) as SegmentInfo;
    docs += info.maxDoc;
    const tim = readFileSync(join(segs, name.replace('.si', '.tim')));
    counted.clear();
    add(byField, 'dvd _version', col(info.versions));
    add(byField, 'dvd _seq_no', col(info.seqNos));
    add(byField, 'fdt stored index', info.stored.blocks * 8);
    const seen = new Set<number>();
    for (const f of info.fields) {
      for (const d of [f.inverted?.dict, f.docValues?.kind === 'sorted' ? f.docValues.dict : undefined]) {
        if (d === undefined || seen.has(d.at)) continue;
        seen.add(d.at);
        const b = dictBytes(tim, d, f.inverted?.positions ?? false);
        add(byField, `tim ${f.path} text`, b.text);
        add(byField, `tim ${f.path} meta`, b.meta);
        add(byField, `tim ${f.path} block index`, b.index);
      }
      add(byField, `dvd ${f.path} norms`, col(f.inverted?.norms));
      const dv = f.docValues;
      if (dv !== null) {
        add(byField, `dvd ${f.path} ${dv.kind === 'numeric' ? `values ${dv.values.kind}` : `ords ${dv.ords.kind}`}`, dv.kind === 'numeric' ? col(dv.values) : col(dv.ords));
        add(byField, `dvd ${f.path} starts`, col(dv.starts));
      }
      if (f.points) {
        add(byField, `dvd ${f.path} points`, col(f.points.values) + col(f.points.starts));
        if (f.points.tree) add(byField, `dvd ${f.path} point tree`, col(f.points.tree.boxes) + col(f.points.tree.docs) + col(f.points.tree.coords));
      }
      if (f.present !== null && !counted.has(f.present.at)) {
        counted.add(f.present.at);
        add(byField, `dvd ${f.path} present`, f.present.words * 4);
      }
    }
  }
}
const mb = (n: number) => (n / 2 ** 20).toFixed(1);
const total = [...byKind.values()].reduce((a, b) => a + b, 0);
printTable(`segment files of ${dir} (${docs} docs incl. deleted), MiB`, [
  ['kind', 'MiB', 'bytes/doc'],
  ...[...byKind].sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, mb(n), (n / docs).toFixed(1)]),
  ['total', mb(total), (total / docs).toFixed(1)],
]);
printTable('by field (tim, dvd), MiB', [
  ['part', 'MiB', 'bytes/doc'],
  ...[...byField].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, mb(n), (n / docs).toFixed(1)]),
]);
