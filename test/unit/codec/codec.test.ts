import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { FrontCodedDictionary, FrontCodedWriter, MemorySink } from '../../../shared/engine/codec/front-coded.ts';
import { MappedPostingsCursor, PostingsWriter, TermMetaReader, skipTermMeta, type TermPostingsMeta } from '../../../shared/engine/codec/postings-format.ts';
import { MappedStoredFields, StoredFieldsWriter, sampleDictionary } from '../../../shared/engine/codec/stored-fields.ts';
import { narrowestKind } from '../../../shared/engine/codec/typed-columns.ts';
import { CorruptSegmentError, FOOTER_BYTES, checkOnStartup, type SegmentFileKind } from '../../../shared/engine/codec/file-format.ts';
import { generatePassRecords, prng } from '../../../services/passinfo/pass-record-generator.ts';
import { SegmentBuilder } from '../../../shared/engine/segment/segment-builder.ts';
import { writeSegment } from '../../../shared/engine/segment/segment-writer.ts';
import { MappedSegment } from '../../../shared/engine/segment/mapped-segment.ts';
import { verifySegmentFiles } from '../../../shared/engine/segment/verify-segment-files.ts';
import { segmentFileName } from '../../../shared/engine/segment/segment-info.ts';
import { analyzers, bufferedDoc, fieldMapping, tempSegmentDir } from '../segment/fixtures.ts';
import { docRecord } from '../segment/segment-views.ts';

/** Sorted distinct terms with shared prefixes, wide (CJK) and long ones among them. */
function someTerms(n: number, seed: number): string[] {
  const r = prng(seed);
  const set = new Set<string>();
  while (set.size < n) {
    const kind = r();
    if (kind < 0.3) set.add(`http://img.example/land/${Math.floor(r() * 200)}/${Math.floor(r() * 100000)}.jpg`);
    else if (kind < 0.6) set.add('京津沪'[Math.floor(r() * 3)]! + String.fromCharCode(65 + Math.floor(r() * 26)) + Math.floor(r() * 1000));
    else set.add(Math.floor(r() * 1e6).toString(36));
  }
  return [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

test('a front-coded dictionary reads back every term, finds each one and bounds the rest', () => {
  const terms = someTerms(2000, 3);
  const sink = new MemorySink();
  const w = new FrontCodedWriter(sink, false);
  for (const t of terms) w.add(t);
  const layout = w.finish();
  const dict = new FrontCodedDictionary(sink.buffer.view(), layout);
  assert.equal(dict.length, terms.length);
  // In order, backwards, and at random: the reader's place is only a shortcut.
  for (let i = 0; i < terms.length; i++) assert.equal(dict.get(i), terms[i]);
  for (let i = terms.length - 1; i >= 0; i -= 7) assert.equal(dict.get(i), terms[i]);
  const r = prng(9);
  for (let k = 0; k < 500; k++) {
    const i = Math.floor(r() * terms.length);
    assert.equal(dict.find(terms[i]!), i);
    const probe = terms[i]! + '\u0000';
    const expected = terms.findIndex((t) => t >= probe);
    assert.equal(dict.lowerBound(probe), expected < 0 ? terms.length : expected);
  }
  assert.equal(dict.find('absent term'), -1);
  assert.equal(dict.lowerBound(''), 0);
  assert.equal(dict.lowerBound('\uffff'), terms.length);
});

test('unitsOf gives every entry\'s UTF-16 units, in order, backwards and at random, beside get', () => {
  // Terms with shared prefixes and suffixes (a block written with tails), wide units, long ones.
  const terms = [...someTerms(1500, 7), ...Array.from({ length: 300 }, (_, i) => `evt-${String(i % 17).padStart(3, '0')}-x${'ab'.repeat(i % 40)}-end`)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const unique = [...new Set(terms)];
  for (const blockSize of [16, 32]) {
    const sink = new MemorySink();
    const w = new FrontCodedWriter(sink, false, blockSize);
    for (const t of unique) w.add(t);
    const layout = w.finish();
    const dict = new FrontCodedDictionary(sink.buffer.view(), layout);
    const text = (i: number): string => {
      dict.unitsOf(i);
      return String.fromCharCode(...dict.units.subarray(0, dict.unitsLength));
    };
    for (let i = 0; i < unique.length; i++) assert.equal(text(i), unique[i], `entry ${i}`);
    for (let i = unique.length - 1; i >= 0; i -= 3) assert.equal(text(i), unique[i], `entry ${i}`);
    const r = prng(blockSize);
    for (let k = 0; k < 2000; k++) {
      const i = Math.floor(r() * unique.length);
      // get and unitsOf keep separate places: interleaved, neither disturbs the other.
      if (k % 3 === 0) assert.equal(dict.get(Math.floor(r() * unique.length)).length > 0, true);
      assert.equal(text(i), unique[i], `entry ${i}`);
    }
  }
});

test('a dictionary of 32-term blocks (a text field) reads back and finds every term', () => {
  const terms = someTerms(1500, 5);
  const sink = new MemorySink();
  const w = new FrontCodedWriter(sink, false, 32);
  for (const t of terms) w.add(t);
  const layout = w.finish();
  assert.equal(layout.blockSize, 32);
  const dict = new FrontCodedDictionary(sink.buffer.view(), layout);
  for (let i = terms.length - 1; i >= 0; i--) assert.equal(dict.get(i), terms[i]);
  for (let i = 0; i < terms.length; i += 7) assert.equal(dict.find(terms[i]!), i);
  assert.equal(dict.lowerBound('\uffff'), terms.length);
});

test('postings read back through cursors; advance lands and freqOf answers where a scan would', () => {
  const docSink = new MemorySink();
  const posSink = new MemorySink();
  const dictSink = new MemorySink();
  // A segment of 20,000 docs: lists of 1 to 1,000 docs, singletons (in the metadata), one block,
  // several blocks with a skip table; lists of 625 docs or more are dense (with a bitset).
  const maxDoc = 20_000;
  const writer = new PostingsWriter(docSink, posSink, maxDoc);
  const dict = new FrontCodedWriter(dictSink, true);
  const r = prng(5);
  const lists: { docs: number[]; freqs: number[]; positions: number[][] }[] = [];
  for (let t = 0; t < 60; t++) {
    const n = t === 0 ? 1 : Math.max(1, Math.floor(r() ** 2 * 1000));
    const docs: number[] = [];
    let d = -1;
    for (let i = 0; i < n; i++) docs.push((d += 1 + Math.floor(r() * (t % 3 === 0 ? 3 : 19))));
    const freqs = docs.map(() => 1 + Math.floor(r() ** 4 * 5));
    const positions = freqs.map((f) => {
      const p: number[] = [];
      let at = Math.floor(r() * 3);
      for (let k = 0; k < f; k++) p.push((at += Math.floor(r() * 200)));
      return p;
    });
    writer.startTerm();
    docs.forEach((doc, i) => writer.addPosting(doc, freqs[i]!, positions[i]!));
    dict.add(`t${String(t).padStart(3, '0')}`, writer.finishTerm());
    lists.push({ docs, freqs, positions });
  }
  // The writer keeps the last block until finish: the bytes are complete after it.
  const dictLayout = dict.finish();
  const reader = new FrontCodedDictionary(dictSink.buffer.view(), dictLayout, (r) => skipTermMeta(r, true));
  const meta: TermPostingsMeta = { docFreq: 0, docPointer: 0, posPointer: 0, singleDoc: -1, singleFreq: 0, singlePosition: -1, dense: false };
  const metas = new TermMetaReader(reader, true);
  lists.forEach((list, t) => {
    const cursor = () => new MappedPostingsCursor(docSink.buffer.view(), posSink.buffer.view(), true, Math.ceil(maxDoc / 32)).reset(metas.read(t, meta));
    const c = cursor();
    assert.equal(c.docFreq, list.docs.length);
    if (list.docs.length > 1 && list.docs.length * 32 >= maxDoc) {
      assert.ok(c.bits !== null, `term ${t} of ${list.docs.length} docs is dense`);
      let set = 0;
      for (const w of c.bits) for (let b = w; b !== 0; b &= b - 1) set++;
      assert.equal(set, list.docs.length);
      for (const d of list.docs) assert.ok((c.bits[d >>> 5]! & (1 << (d & 31))) !== 0);
    } else {
      assert.equal(c.bits, null);
    }
    const seen: number[] = [];
    while (c.nextBlock()) {
      for (let i = 0; i < c.count; i++) {
        const k = seen.length;
        seen.push(c.docs[i]!);
        assert.equal(c.freqs[i], list.freqs[k]);
        if (k % 5 === 0) assert.deepEqual(Array.from(c.positions(i)), list.positions[k], `term ${t} posting ${k}`);
      }
    }
    assert.deepEqual(seen, list.docs, `term ${t}`);
    // Increasing targets, some past the end.
    const a = cursor();
    let target = 0;
    for (;;) {
      target += Math.floor(r() * 400);
      const i = a.advance(target);
      const expected = list.docs.find((d) => d >= target);
      if (expected === undefined) {
        assert.equal(i, -1);
        break;
      }
      assert.equal(a.docs[i], expected, `term ${t} target ${target}`);
      const k = list.docs.indexOf(expected);
      assert.deepEqual(Array.from(a.positions(i)), list.positions[k]);
    }
    // Probing ascending targets, half of them docs of the list: the freq, 0 for a miss, -1 past the end.
    const p = cursor();
    let probe = -1;
    for (;;) {
      const onList = list.docs.find((d) => d > probe + Math.floor(r() * 300));
      probe = r() < 0.5 && onList !== undefined ? onList : probe + 1 + Math.floor(r() * 300);
      const k = list.docs.indexOf(probe);
      const expected = k >= 0 ? list.freqs[k]! : list.docs[list.docs.length - 1]! < probe ? -1 : 0;
      assert.equal(p.freqOf(probe), expected, `term ${t} probe ${probe}`);
      if (expected === -1) break;
    }
    // The same in one call (a conjunction's candidates): 0 for a miss, past the end included.
    for (const spread of [3, 40, 400]) {
      const targets: number[] = [];
      for (let d = Math.floor(r() * spread); d < maxDoc + 50; d += 1 + Math.floor(r() * spread)) {
        const onList = list.docs.find((x) => x >= d);
        targets.push(r() < 0.5 && onList !== undefined ? onList : d);
        d = targets[targets.length - 1]!;
      }
      const out = new Int32Array(targets.length + 1).fill(-7);
      cursor().freqsOf(Int32Array.from(targets), targets.length, out);
      const expected = targets.map((d) => (list.docs.includes(d) ? list.freqs[list.docs.indexOf(d)]! : 0));
      assert.deepEqual(Array.from(out.subarray(0, targets.length)), expected, `term ${t}, targets ${spread} apart`);
      assert.equal(out[targets.length], -7, 'nothing written past n');
    }
  });
});

test('stored fields read back each document, routing included, across blocks', () => {
  const sink = new MemorySink();
  const w = new StoredFieldsWriter(sink);
  const docs = Array.from({ length: 400 }, (_, i) => ({ source: JSON.stringify({ i, text: 'x'.repeat(i * 3), 中: '文' }), routing: i % 7 === 0 ? `r${i}` : null }));
  for (const d of docs) w.add(Buffer.from(d.source), d.routing);
  const layout = w.finish();
  const stored = new MappedStoredFields(sink.buffer.view(), layout);
  for (const i of [0, 399, 5, 200, 7, 398, 1]) {
    const d = stored.document(i);
    assert.equal(Buffer.from(d.source).toString('utf8'), docs[i]!.source);
    assert.equal(d.routing, docs[i]!.routing);
    assert.equal(stored.sourceLength(i), Buffer.byteLength(docs[i]!.source));
  }
});

test('stored fields read every doc right in any order, a large doc growing the reused block buffer', () => {
  const sink = new MemorySink();
  const w = new StoredFieldsWriter(sink);
  // A 40 KB doc amid small ones: its block is larger than any before it.
  const docs = Array.from({ length: 300 }, (_, i) => JSON.stringify({ i, text: (i === 150 ? 'y' : 'x').repeat(i === 150 ? 40_000 : i) }));
  for (const d of docs) w.add(Buffer.from(d), null);
  const layout = w.finish();
  assert.ok(layout.blocks > 3);
  const stored = new MappedStoredFields(sink.buffer.view(), layout);
  const r = prng(9);
  for (let k = 0; k < 600; k++) {
    const i = k === 1 ? 150 : Math.floor(r() * docs.length);
    assert.equal(Buffer.from(stored.document(i).source).toString('utf8'), docs[i], `doc ${i}`);
  }
  assert.equal(Buffer.from(stored.document(299).source).toString('utf8'), docs[299]);
});

test('stored fields know when no doc has a routing; a layout without the count may have some', () => {
  const write = (routings: (string | null)[]) => {
    const sink = new MemorySink();
    const w = new StoredFieldsWriter(sink);
    routings.forEach((r, i) => w.add(Buffer.from(`{"i":${i}}`), r));
    return { bytes: sink.buffer.view(), layout: w.finish() };
  };
  const none = write([null, null, null]);
  assert.equal(none.layout.routed, 0);
  assert.equal(new MappedStoredFields(none.bytes, none.layout).mayHaveRouting(), false);
  const some = write([null, 'r1', null]);
  assert.equal(some.layout.routed, 1);
  assert.equal(new MappedStoredFields(some.bytes, some.layout).mayHaveRouting(), true);
  const { routed, ...older } = none.layout;
  void routed;
  assert.equal(new MappedStoredFields(none.bytes, older).mayHaveRouting(), true);
});

test('doc-value columns take the narrowest type that holds every value exactly', () => {
  assert.equal(narrowestKind([20, 120, 0], 3), 'u8');
  assert.equal(narrowestKind([-1, 100], 2), 'i8');
  assert.equal(narrowestKind([70000], 1), 'u32');
  assert.equal(narrowestKind([1.5, NaN], 2), 'f32');
  assert.equal(narrowestKind([1, NaN], 2), 'f32');
  assert.equal(narrowestKind([0.1], 1), 'f64');
  assert.equal(narrowestKind([1_790_000_000_000], 1), 'f64');
  assert.equal(narrowestKind([-0], 1), 'f32');
});

function damagedSegmentDir(): string {
  const title = fieldMapping('title', 'text');
  const builder = new SegmentBuilder(analyzers);
  for (let i = 0; i < 50; i++) builder.add(bufferedDoc(`d${i}`, [[title, [`word${i % 7} other`]]]));
  const dir = tempSegmentDir();
  writeSegment(dir, 4, [{ segment: builder.build(4), liveDocs: null }], { sync: false });
  return dir;
}

/** Runs `check` with the segment's file of `kind` changed by `damage`, then puts the file back. */
function withDamaged(dir: string, kind: SegmentFileKind, damage: (bytes: Buffer) => Buffer, check: () => void): void {
  const path = join(dir, segmentFileName(4, kind));
  const original = readFileSync(path);
  writeFileSync(path, damage(Buffer.from(original)));
  try {
    check();
  } finally {
    writeFileSync(path, original);
  }
}

const flipMiddle = (b: Buffer): Buffer => {
  b[Math.floor(b.length / 2)] ^= 0x40;
  return b;
};

test('a checksum open refuses a segment with a flipped byte in any of its files, or a missing file', () => {
  const dir = damagedSegmentDir();
  const ok = MappedSegment.open(dir, 4, 'checksum');
  assert.deepEqual(docRecord(ok, 10).id, 'd10');
  ok.close();
  for (const kind of ['tim', 'doc', 'pos', 'dvd', 'fdt', 'si'] as const) {
    withDamaged(dir, kind, flipMiddle, () => assert.throws(() => MappedSegment.open(dir, 4, 'checksum'), /is corrupt: checksum [0-9a-f]+ where the footer says/, kind));
  }
  rmSync(join(dir, segmentFileName(4, 'fdt')));
  assert.throws(() => MappedSegment.open(dir, 4, 'checksum'), /fdt/);
});

test('verifySegmentFiles reads every byte of every file in blocks: a flipped byte, a cut, another version or a missing file is refused, naming the file', async () => {
  const dir = damagedSegmentDir();
  // Blocks of 50 bytes: every file (120 to 320 bytes) is read in several, none aligned with the header or footer.
  await verifySegmentFiles(dir, [4], 50);
  await verifySegmentFiles(dir, [4]);
  const cut = (b: Buffer): Buffer => b.subarray(0, b.length - 3);
  const version4 = (b: Buffer): Buffer => (b.writeUInt32LE(4, 4), b);
  for (const kind of ['tim', 'doc', 'pos', 'dvd', 'fdt', 'si'] as const) {
    const name = segmentFileName(4, kind).replace('.', '\\.');
    const path = join(dir, segmentFileName(4, kind));
    const original = readFileSync(path);
    for (const [damage, why] of [
      [flipMiddle, 'checksum [0-9a-f]+ where the footer says [0-9a-f]+'],
      [cut, kind === 'si' ? 'no footer' : '[0-9]+ bytes where the segment info says [0-9]+'],
      [version4, 'format version 4, this node reads'],
    ] as const) {
      writeFileSync(path, damage(Buffer.from(original)));
      await assert.rejects(verifySegmentFiles(dir, [4], 50), (e: unknown) => e instanceof CorruptSegmentError && new RegExp(`^segment file \\[${name}\\] is corrupt: ${why}`).test(e.message));
    }
    writeFileSync(path, original);
  }
  rmSync(join(dir, segmentFileName(4, 'fdt')));
  await assert.rejects(verifySegmentFiles(dir, [4]), (e: unknown) => e instanceof CorruptSegmentError && e.message === 'segment file [_4.fdt] is corrupt: missing');
});

test('a default open reads the .si whole and each data file at its ends: a damaged .si, a cut, header or footer is refused, a body byte is left to the checksum check', () => {
  const dir = damagedSegmentDir();
  withDamaged(dir, 'si', flipMiddle, () => assert.throws(() => MappedSegment.open(dir, 4), /\[_4\.si\] is corrupt: checksum/));
  for (const kind of ['tim', 'doc', 'pos', 'dvd', 'fdt'] as const) {
    const name = segmentFileName(4, kind);
    withDamaged(dir, kind, (b) => b.subarray(0, b.length - 3), () =>
      assert.throws(() => MappedSegment.open(dir, 4), (e: unknown) => e instanceof CorruptSegmentError && /bytes where the segment info says/.test(e.message), name),
    );
    withDamaged(dir, kind, (b) => ((b[0] ^= 0xff), b), () => assert.throws(() => MappedSegment.open(dir, 4), new RegExp(`\\[${name.replace('.', '\\.')}\\] is corrupt: no segment header`)));
    withDamaged(dir, kind, (b) => ((b[b.length - FOOTER_BYTES] ^= 0xff), b), () => assert.throws(() => MappedSegment.open(dir, 4), /is corrupt: no footer/));
    withDamaged(dir, kind, (b) => (b.writeUInt32LE(4, 4), b), () => assert.throws(() => MappedSegment.open(dir, 4), /is corrupt: format version 4, this node reads/));
    // What Lucene leaves to checkIntegrity too: the body is not read at open.
    withDamaged(dir, kind, flipMiddle, () => {
      MappedSegment.open(dir, 4).close();
      assert.throws(() => MappedSegment.open(dir, 4, 'checksum'), CorruptSegmentError);
    });
  }
  rmSync(join(dir, segmentFileName(4, 'pos')));
  assert.throws(() => MappedSegment.open(dir, 4), /pos/);
});

test('index.shard.check_on_startup: checksum, true, fix or unset check every byte at open; false the structure', () => {
  assert.equal(checkOnStartup('checksum'), 'checksum');
  assert.equal(checkOnStartup('true'), 'checksum');
  assert.equal(checkOnStartup('fix'), 'checksum');
  assert.equal(checkOnStartup(undefined), 'checksum');
  assert.equal(checkOnStartup('false'), 'structure');
  assert.equal(checkOnStartup(false), 'structure');
});

test('a dictionary whose neighbours share tails (URLs) reads back, finds every term and codes each in a few bytes', () => {
  // Sorted unique URLs: neighbours share `http://img.example/land/N/` and `.jpg`, only a few digits differ.
  const set = new Set<string>();
  for (let i = 0; i < 3000; i++) set.add(`http://img.example/land/${i % 7}/${100_000 + i * 37}.jpg`);
  // Some blocks without a common tail, a wide term and a long shared prefix (15 units or more) among them.
  for (let i = 0; i < 40; i++) set.add(`http://img.example/land/3/${100_000 + i}${'x'.repeat(i % 5)}`);
  set.add('http://img.example/文/1.jpg');
  set.add('');
  const terms = [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const sink = new MemorySink();
  const w = new FrontCodedWriter(sink, false);
  for (const t of terms) w.add(t);
  const layout = w.finish();
  const dict = new FrontCodedDictionary(sink.buffer.view(), layout);
  for (let i = 0; i < terms.length; i++) assert.equal(dict.get(i), terms[i]);
  for (let i = terms.length - 1; i >= 0; i -= 3) assert.equal(dict.find(terms[i]!), i);
  assert.equal(dict.find('http://img.example/land/3/100001.jpgx'), -1);
  // A URL is 35 bytes; with its prefix and `.jpg` shared an entry is a header, a tail length and 2-3 digits
  // (about 12.5 bytes a term without tails, with a whole first term every 16).
  const perTerm = (layout.blocksAt - layout.at) / terms.length;
  assert.ok(perTerm < 10, `${perTerm.toFixed(2)} bytes a term`);
});

test('stored fields compressed with a dictionary of the segment own docs read back every doc and take fewer bytes', () => {
  const docs = [...generatePassRecords({ count: 6000 })].map((r) => JSON.stringify(r));
  const doc = (i: number) => ({ source: Buffer.from(docs[i]!), routing: i % 500 === 0 ? `r${i}` : null });
  const write = (dictionary: Uint8Array | null) => {
    const sink = new MemorySink();
    const w = new StoredFieldsWriter(sink, dictionary);
    for (let i = 0; i < docs.length; i++) w.add(doc(i).source, doc(i).routing);
    const layout = w.finish();
    return { bytes: sink.buffer.view(), layout };
  };
  const dictionary = sampleDictionary(docs.length, doc);
  assert.ok(dictionary !== null && dictionary.length === 16 * 1024);
  const plain = write(null);
  const packed = write(dictionary);
  assert.equal(plain.layout.dictLength, 0);
  assert.equal(packed.layout.dictLength, dictionary.length);
  assert.ok(packed.bytes.length < plain.bytes.length, `${packed.bytes.length} bytes with the dictionary, ${plain.bytes.length} without`);
  const stored = new MappedStoredFields(packed.bytes, packed.layout);
  const r = prng(3);
  for (let k = 0; k < 500; k++) {
    const i = k < 2 ? k * (docs.length - 1) : Math.floor(r() * docs.length);
    const d = stored.document(i);
    assert.equal(Buffer.from(d.source).toString('utf8'), docs[i], `doc ${i}`);
    assert.equal(d.routing, doc(i).routing);
  }
});

test('a segment of a few small docs gets no stored-fields dictionary (it would cost more than it saves)', () => {
  const doc = (i: number) => ({ source: Buffer.from(`{"i":${i}}`), routing: null });
  assert.equal(sampleDictionary(0, doc), null);
  assert.equal(sampleDictionary(50, doc), null);
});

test('terms with the postings of the term before them share them, and single docs repeat no doc, yet read back whole', () => {
  const docSink = new MemorySink();
  const posSink = new MemorySink();
  const dictSink = new MemorySink();
  const writer = new PostingsWriter(docSink, posSink, 1000);
  const dict = new FrontCodedWriter(dictSink, true);
  // n-grams of two plates: runs of terms in the same docs (with their own positions), and single-doc runs.
  const lists: { docs: number[]; positions: number[] }[] = [];
  for (let t = 0; t < 70; t++) {
    const docs = t % 10 < 4 ? [3, 400, 999] : t % 10 < 7 ? [17 + Math.floor(t / 10)] : [5, 6 + (t % 3)];
    const positions = docs.map((_, k) => t + k);
    writer.startTerm();
    docs.forEach((d, k) => writer.addPosting(d, 1, [positions[k]!]));
    dict.add(`t${String(t).padStart(3, '0')}`, writer.finishTerm());
    lists.push({ docs, positions });
  }
  const layout = dict.finish();
  const reader = new FrontCodedDictionary(dictSink.buffer.view(), layout, (r) => skipTermMeta(r, true));
  const metas = new TermMetaReader(reader, true);
  const meta: TermPostingsMeta = { docFreq: 0, docPointer: 0, posPointer: 0, singleDoc: -1, singleFreq: 0, singlePosition: -1, dense: false };
  // Each distinct list is written once a dictionary block: far fewer bytes than 40 lists of three docs.
  assert.ok(docSink.buffer.length < 40 * 6, `${docSink.buffer.length} postings bytes`);
  const pointers = new Set<number>();
  for (const order of [lists.map((_, t) => t), lists.map((_, t) => lists.length - 1 - t)]) {
    for (const t of order) {
      const list = lists[t]!;
      metas.read(t, meta);
      if (list.docs.length > 1) pointers.add(meta.docPointer);
      const c = new MappedPostingsCursor(docSink.buffer.view(), posSink.buffer.view(), true, Math.ceil(1000 / 32)).reset(meta);
      const seen: number[] = [];
      const positions: number[] = [];
      while (c.nextBlock()) {
        for (let i = 0; i < c.count; i++) {
          seen.push(c.docs[i]!);
          positions.push(...c.positions(i));
        }
      }
      assert.deepEqual(seen, list.docs, `term ${t}`);
      assert.deepEqual(positions, list.positions, `term ${t} positions`);
      assert.equal(reader.get(t), `t${String(t).padStart(3, '0')}`);
    }
  }
  // 49 terms have more than one doc: the 21 of their own lists, and 7 runs of 4 terms with one list,
  // each run written once (one run twice: a dictionary block starts inside it).
  assert.equal(pointers.size, 21 + 7 + 1);
});
