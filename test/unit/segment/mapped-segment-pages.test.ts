/**
 * A segment opened with the structure check (each file's header and footer
 * read through the map) holds none of its data files' pages in the process
 * afterwards (/proc/self/smaps): the pages each end's fault mapped around it
 * would otherwise stay for the segment's life, ~90 KB a file, and a node of
 * many segments carries them all. It reads the same afterwards.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SegmentBuilder } from '../../../shared/engine/segment/segment-builder.ts';
import { MappedSegment } from '../../../shared/engine/segment/mapped-segment.ts';
import { writeSegment } from '../../../shared/engine/segment/segment-writer.ts';
import { idOf } from '../../../shared/engine/segment/types.ts';
import { analyzers, bufferedDoc, fieldMapping, tempSegmentDir } from './fixtures.ts';
import { prng } from '../../../services/passinfo/pass-record-generator.ts';

/** Resident KiB of this process's mappings of the files in `dir`, by file name (/proc/self/smaps). */
function residentKbByFile(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  let name: string | null = null;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s+(.*)$/.exec(line);
    if (header !== null) name = header[1]!.startsWith(`${dir}/`) ? header[1]!.slice(dir.length + 1) : null;
    else if (name !== null && line.startsWith('Rss:')) out.set(name, (out.get(name) ?? 0) + Number(/\d+/.exec(line)![0]));
  }
  return out;
}

test('a segment opened with the structure check keeps none of its data files resident, and reads right', (t) => {
  if (!existsSync('/proc/self/smaps')) return t.skip('no /proc/self/smaps');
  const title = fieldMapping('title', 'text');
  const tag = fieldMapping('tag', 'keyword');
  const n = fieldMapping('n', 'long');
  const r = prng(7);
  const word = () => Math.floor(r() * 2 ** 32).toString(36);
  const builder = new SegmentBuilder(analyzers);
  const count = 20_000;
  for (let i = 0; i < count; i++) {
    builder.add(bufferedDoc(`d${i}`, [[title, [Array.from({ length: 12 }, word).join(' ')]], [tag, [word()]], [n, [i]]]));
  }
  const dir = tempSegmentDir();
  assert.ok(writeSegment(dir, 3, [{ segment: builder.build(3), liveDocs: null }], { sync: false }) !== null);
  // The files were just written: in the page cache, where a fault maps the pages around it.
  const segment = MappedSegment.open(dir, 3, 'structure');
  t.after(() => segment.close());
  const resident = residentKbByFile(dir);
  const dataKb = [...resident].filter(([f]) => !f.endsWith('.si')).reduce((s, [, kb]) => s + kb, 0);
  assert.ok(resident.size >= 5, `the files are mapped: ${[...resident.keys()].join(', ')}`);
  assert.ok(dataKb <= 16, `${dataKb} KiB of the data files resident after the open: ${JSON.stringify([...resident])}`);
  assert.equal(segment.maxDoc, count);
  for (let i = 0; i < count; i += 1999) assert.equal(idOf(segment, i), `d${i}`);
});
