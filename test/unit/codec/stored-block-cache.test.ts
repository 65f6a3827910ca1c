/**
 * Decompressed stored blocks kept per thread (stored-fields.ts, blockCache),
 * and documents' entries copied out of them (entryCache): a document read
 * from a kept block or a kept entry is the document, whichever segment and
 * block were read in between and however often the entries' buffer wrapped
 * around; a block's entry positions are not overwritten by the next block
 * read; blocks read in file order (a scan) still read right.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemorySink } from '../../../shared/engine/codec/front-coded.ts';
import { MappedStoredFields, STORED_ENTRY_CACHE_BYTES, StoredFieldsWriter } from '../../../shared/engine/codec/stored-fields.ts';
import { prng } from '../../../services/passinfo/pass-record-generator.ts';

function segment(tag: string, count: number, width: (i: number) => number): { stored: MappedStoredFields; docs: string[]; blocks: number } {
  const sink = new MemorySink();
  const w = new StoredFieldsWriter(sink);
  const docs = Array.from({ length: count }, (_, i) => JSON.stringify({ tag, i, text: 'x'.repeat(width(i)) }));
  docs.forEach((d, i) => w.add(Buffer.from(d), i % 5 === 0 ? `${tag}${i}` : null));
  const layout = w.finish();
  return { stored: new MappedStoredFields(sink.buffer.view(), layout), docs, blocks: layout.blocks };
}

test('documents read back right from kept blocks of two segments, in random order and in file order', () => {
  // Different doc sizes: the segments' blocks hold different numbers of docs under the same block numbers.
  const a = segment('a', 600, (i) => i % 90);
  const b = segment('b', 600, (i) => 200 - (i % 150));
  assert.ok(a.blocks > 4 && b.blocks > 4);
  const r = prng(5);
  for (let k = 0; k < 3000; k++) {
    const s = r() < 0.5 ? a : b;
    const i = Math.floor(r() * s.docs.length);
    const d = s.stored.document(i);
    assert.equal(Buffer.from(d.source).toString('utf8'), s.docs[i], `doc ${i}`);
    assert.equal(d.routing, i % 5 === 0 ? `${s === a ? 'a' : 'b'}${i}` : null);
  }
  // A scan after random reads: blocks in file order, some of them kept.
  for (let i = 0; i < a.docs.length; i++) assert.equal(Buffer.from(a.stored.document(i).source).toString('utf8'), a.docs[i]);
  for (let i = b.docs.length - 1; i >= 0; i--) assert.equal(b.stored.sourceLength(i), Buffer.byteLength(b.docs[i]!));
});

test('documents read back right once the kept blocks outgrow the budget and some are evicted', () => {
  // About 12 MB of blocks over three segments (the budget is 8 MiB): random reads keep, find and evict blocks.
  const segs = ['p', 'q', 'r'].map((tag) => segment(tag, 2600, (i) => 1400 + (i % 300)));
  assert.ok(segs.every((s) => s.blocks > 400));
  const r = prng(11);
  for (let k = 0; k < 20000; k++) {
    const s = segs[Math.floor(r() * segs.length)]!;
    // Half the reads from a small hot set of docs, half anywhere.
    const i = r() < 0.5 ? Math.floor(r() * 50) * 7 : Math.floor(r() * s.docs.length);
    const d = s.stored.document(i);
    assert.equal(Buffer.from(d.source).toString('utf8'), s.docs[i], `doc ${i}`);
  }
});

test('documents read back right from kept entries after the entries\' buffer wrapped around many times', () => {
  // Docs of 60 bytes to 30 KB (with and without routing) over four segments, about 4 times the entries' budget:
  // the buffer wraps with entries of every size left at its end; a hot set is read again between the others.
  const sizes = (tag: string) => (i: number) => (i * 7919 + tag.charCodeAt(0) * 31) % (i % 9 === 0 ? 30_000 : 2_000);
  const segs = ['s', 't', 'u', 'v'].map((tag) => segment(tag, 1500, sizes(tag)));
  const total = segs.reduce((n, s) => n + s.docs.reduce((m, d) => m + d.length, 0), 0);
  assert.ok(total > 3 * STORED_ENTRY_CACHE_BYTES, `${total} bytes of docs`);
  const r = prng(23);
  for (let k = 0; k < 40000; k++) {
    const si = Math.floor(r() * segs.length);
    const s = segs[si]!;
    const i = r() < 0.3 ? Math.floor(r() * 40) * 13 : Math.floor(r() * s.docs.length);
    const d = s.stored.document(i);
    assert.equal(Buffer.from(d.source).toString('utf8'), s.docs[i], `segment ${si} doc ${i} read ${k}`);
    assert.equal(d.routing, i % 5 === 0 ? `${'stuv'[si]}${i}` : null);
    if (k % 7 === 0) assert.equal(s.stored.sourceLength(i), Buffer.byteLength(s.docs[i]!));
  }
});
