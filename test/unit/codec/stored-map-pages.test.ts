/**
 * Stored fields read from a memory-mapped `.fdt` (stored-fields.ts,
 * STORED_READS_PER_RELEASE): the pages a thread's reads map are dropped from
 * the process every so many block reads, so a fetch of many scattered hits
 * keeps a bounded part of the file in the process's RSS, not the whole file
 * (measured in /proc/self/smaps); documents read the same after a release.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { MemorySink } from '../../../shared/engine/codec/front-coded.ts';
import { MappedStoredFields, STORED_READS_PER_RELEASE, StoredFieldsWriter, releaseStoredPages } from '../../../shared/engine/codec/stored-fields.ts';
import { mapFile } from '../../../shared/engine/store/mapped-file.ts';
import { prng } from '../../../services/passinfo/pass-record-generator.ts';

/** Resident KiB of this process's mappings of `path` (/proc/self/smaps). */
function residentKb(path: string): number {
  let kb = 0;
  let counted = false;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s+(.*)$/.exec(line);
    if (header !== null) counted = header[1] === path;
    else if (counted && line.startsWith('Rss:')) kb += Number(/\d+/.exec(line)![0]);
  }
  return kb;
}

test('random reads of a mapped .fdt keep a bounded part of it resident in the process, and read right', async (t) => {
  if (!existsSync('/proc/self/smaps')) return t.skip('no /proc/self/smaps');
  const dir = await mkdtemp(join(tmpdir(), 'stored-map-pages-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  // Documents of random hex (compress about 2:1): a file of ~20 MB in ~5,000 blocks.
  const r = prng(3);
  const docs = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ i, text: Array.from({ length: 256 }, () => Math.floor(r() * 2 ** 32).toString(16)).join('') }));
  const sink = new MemorySink();
  const w = new StoredFieldsWriter(sink);
  for (const d of docs) w.add(Buffer.from(d), null);
  const layout = w.finish();
  const path = join(dir, '_0.fdt');
  await writeFile(path, sink.buffer.view());
  const file = mapFile(path);
  t.after(() => file.unmap());
  file.advise('random');
  const stored = new MappedStoredFields(file.bytes, layout, () => file.advise('dontneed'));
  releaseStoredPages();
  const fileKb = file.bytes.length / 1024;
  assert.ok(fileKb > 16 * 1024, `file of ${fileKb} KiB`);
  // Reads spread over the whole file, one doc a block at most once (the thread's block cache never serves them).
  const blocks = layout.blocks;
  let reads = 0;
  let peakKb = 0;
  for (let b = 0; b < blocks; b += 3) {
    const i = Math.min(docs.length - 1, Math.floor((b * docs.length) / blocks) + 1);
    assert.equal(Buffer.from(stored.document(i).source).toString('utf8'), docs[i], `doc ${i}`);
    reads++;
    if (reads % 50 === 0) peakKb = Math.max(peakKb, residentKb(path));
  }
  assert.ok(reads > 10 * STORED_READS_PER_RELEASE, `${reads} reads`);
  // At most one release interval's reads mapped at a time: each maps a block, a page of the index and the
  // pages the kernel maps around a fault (up to 64 KB each); without releases it would be most of the file.
  const boundKb = STORED_READS_PER_RELEASE * 128 + 64;
  assert.ok(peakKb <= boundKb, `at most ${peakKb} KiB of ${fileKb.toFixed(0)} KiB resident (bound ${boundKb})`);
  assert.ok(boundKb < fileKb / 2);
  // Documents read after a release are the same.
  releaseStoredPages();
  for (let i = 5; i < docs.length; i += 997) assert.equal(Buffer.from(stored.document(i).source).toString('utf8'), docs[i]);
});
