import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newFullBitset, clearBit } from '../../../shared/engine/segment/bitset.ts';
import { SegmentBuilder, type BufferedDoc } from '../../../shared/engine/segment/segment-builder.ts';
import { MappedSegment } from '../../../shared/engine/segment/mapped-segment.ts';
import { writeSegment, type WriteSource } from '../../../shared/engine/segment/segment-writer.ts';
import { idOf, type NumericDocValues, type Segment, type SortedDocValues } from '../../../shared/engine/segment/types.ts';
import { analyzers, bufferedDoc, fieldMapping, tempSegmentDir } from './fixtures.ts';
import { docRecord, postingsOf, termsOf } from './segment-views.ts';

/** Writes `sources` as segment `id` and reads it back through the files. */
function mergeSegments(sources: readonly WriteSource[], id: number): { segment: MappedSegment; docMaps: readonly Int32Array[] } {
  const dir = tempSegmentDir();
  const written = writeSegment(dir, id, sources, { sync: false });
  assert.ok(written !== null);
  return { segment: MappedSegment.open(dir, id), docMaps: written.docMaps };
}

const title = fieldMapping('title', 'text');
const color = fieldMapping('color', 'keyword');
const price = fieldMapping('price', 'long');

function segmentOf(id: number, docs: readonly BufferedDoc[]): Segment {
  const builder = new SegmentBuilder(analyzers);
  for (const d of docs) builder.add(d);
  return builder.build(id);
}

function without(maxDoc: number, deleted: readonly number[]): Uint32Array {
  const live = newFullBitset(maxDoc);
  for (const d of deleted) clearBit(live, d);
  return live;
}

const first = segmentOf(0, [
  bufferedDoc('a', [[title, ['red fox']], [color, ['red']], [price, [3, 1]]]),
  bufferedDoc('b', [[title, ['lazy dog']], [color, ['brown']], [price, [7]]]),
  bufferedDoc('c', [[title, ['quick red fox']], [color, ['red', 'orange']]]),
]);
const second = segmentOf(1, [
  bufferedDoc('d', [[title, ['blue whale']], [color, ['blue']], [price, [2]]]),
  bufferedDoc('e', [[title, ['red', 'panda']], [price, [5]]]),
]);

test('live docs are renumbered source by source and deleted ones dropped', () => {
  const { segment, docMaps } = mergeSegments(
    [
      { segment: first, liveDocs: without(3, [1]) },
      { segment: second, liveDocs: null },
    ],
    9,
  );
  assert.equal(segment.id, 9);
  assert.equal(segment.maxDoc, 4);
  assert.deepEqual([0, 1, 2, 3].map((d) => idOf(segment, d)), ['a', 'c', 'd', 'e']);
  assert.deepEqual(Array.from(docMaps[0]!), [0, -1, 1]);
  assert.deepEqual(Array.from(docMaps[1]!), [2, 3]);
  assert.deepEqual(Array.from(segment.seqNos), [first.seqNos[0], first.seqNos[2], second.seqNos[0], second.seqNos[1]]);
});

test('every column of a kept doc reads the same after the merge', () => {
  const sources = [
    { segment: first, liveDocs: without(3, [1]) },
    { segment: second, liveDocs: null },
  ];
  const { segment, docMaps } = mergeSegments(sources, 9);
  sources.forEach(({ segment: from }, i) => {
    docMaps[i]!.forEach((to, d) => {
      if (to >= 0) assert.deepEqual(docRecord(segment, to), docRecord(from, d), `doc ${idOf(from, d)}`);
    });
  });
});

test('terms, keyword values and statistics of deleted docs leave the merged segment', () => {
  const { segment } = mergeSegments(
    [
      { segment: first, liveDocs: without(3, [1]) },
      { segment: second, liveDocs: without(2, [0]) },
    ],
    2,
  );
  const field = segment.inverted.get('title')!;
  assert.deepEqual(termsOf(field.terms), ['fox', 'panda', 'quick', 'red']);
  assert.equal(field.terms.find('dog'), -1);
  assert.equal(field.terms.find('red'), 3);
  assert.equal(field.docCount, 3);
  assert.equal(field.sumTotalTermFreq, 2 + 3 + 2);
  assert.deepEqual(
    [0, 1, 2, 3].map((t) => postingsOf(field, t)),
    [
      [[0, 1, [1]], [1, 1, [2]]],
      [[2, 1, [101]]],
      [[1, 1, [0]]],
      [[0, 1, [0]], [1, 1, [1]], [2, 1, [0]]],
    ],
  );

  const colors = segment.docValues.get('color') as SortedDocValues;
  assert.deepEqual(termsOf(colors.dict), ['orange', 'red']);
  assert.deepEqual(Array.from(colors.starts!), [0, 1, 3, 3]);
  assert.deepEqual(Array.from(colors.ords), [1, 0, 1]);
  // One dictionary on disk for the postings and the doc values of a keyword.
  assert.equal(segment.inverted.get('color')!.terms, colors.dict);
});

test('doc values go back to the single-valued layout when no kept doc has two values', () => {
  const { segment } = mergeSegments(
    [
      { segment: first, liveDocs: without(3, [0]) },
      { segment: second, liveDocs: null },
    ],
    2,
  );
  const prices = segment.docValues.get('price') as NumericDocValues;
  assert.equal(prices.starts, null);
  assert.deepEqual(Array.from(prices.values), [7, NaN, 2, 5]);
  const colors = segment.docValues.get('color') as SortedDocValues;
  assert.notEqual(colors.starts, null); // doc c still has two colors
});

test('a field only deleted docs had disappears, with its presence', () => {
  const { segment } = mergeSegments(
    [
      { segment: first, liveDocs: without(3, [0, 1, 2]) },
      { segment: second, liveDocs: without(2, [0]) },
    ],
    2,
  );
  assert.equal(segment.maxDoc, 1);
  assert.equal(segment.docValues.has('color'), false);
  assert.equal(segment.inverted.has('color'), false);
  assert.equal(segment.fieldsPresent.has('color'), false);
  assert.deepEqual([...segment.fieldsPresent].sort(), ['price', 'title']);
});

test('a segment of many docs reads back from its files exactly as it was built', () => {
  const tags = fieldMapping('tags', 'keyword');
  const when = fieldMapping('when', 'date');
  const builder = new SegmentBuilder(analyzers);
  const words = ['alpha', 'beta', 'gamma', '京a1', 'delta'];
  for (let i = 0; i < 700; i++) {
    const text = Array.from({ length: 1 + (i % 6) }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' ');
    const fields: [typeof title, (string | number)[]][] = [[title, [text, i % 11 === 0 ? 'second value' : 'x']]];
    if (i % 3 !== 0) fields.push([tags, i % 5 === 0 ? ['t1', `u${i % 17}`] : [`u${i % 23}`]]);
    if (i % 4 !== 0) fields.push([price, i % 9 === 0 ? [i, -i] : [i * 1.25]]);
    fields.push([when, [1_700_000_000_000 + i * 1000]]);
    builder.add(bufferedDoc(`doc-${i}`, fields));
  }
  const built = builder.build(0);
  const { segment } = mergeSegments([{ segment: built, liveDocs: null }], 0);
  for (let d = 0; d < built.maxDoc; d++) assert.deepEqual(docRecord(segment, d), docRecord(built, d), `doc ${d}`);
  assert.equal(segment.inverted.get('title')!.docCount, built.inverted.get('title')!.docCount);
  assert.equal(segment.inverted.get('title')!.sumTotalTermFreq, built.inverted.get('title')!.sumTotalTermFreq);
});

test('a keyword field that repeats _id shares its dictionary and ordinals in the files, fields all docs have share one presence bitset', () => {
  const eventId = fieldMapping('event_id', 'keyword');
  const land = fieldMapping('land', 'keyword');
  const builder = new SegmentBuilder(analyzers);
  for (let i = 0; i < 500; i++) {
    const id = `E-${i.toString(36).padStart(6, '0')}`;
    // `land` is in every doc, `color` in some: their presence bitsets differ.
    const fields: [typeof eventId, (string | number)[]][] = [[eventId, [id]], [land, [`L${i % 13}`]], [price, [i]]];
    if (i % 4 === 0) fields.push([color, ['red']]);
    builder.add(bufferedDoc(id, fields));
  }
  const built = builder.build(0);
  const { segment } = mergeSegments([{ segment: built, liveDocs: null }], 3);
  const info = (path: string) => segment.info.fields.find((f) => f.path === path)!;
  assert.deepEqual(info('event_id').inverted!.dict, info('_id').inverted!.dict);
  const ords = (path: string) => (info(path).docValues as { ords: unknown }).ords;
  assert.deepEqual(ords('event_id'), ords('_id'));
  assert.notDeepEqual(info('land').inverted!.dict, info('_id').inverted!.dict);
  assert.deepEqual(info('land').present, info('price').present);
  // Every doc has a `land`: its ordinals are unsigned (no -1 to keep); `color` is missing from some docs.
  assert.equal((ords('land') as { kind: string }).kind, 'u8');
  assert.equal((ords('color') as { kind: string }).kind, 'i8');
  assert.notDeepEqual(info('color').present, info('land').present);
  for (let d = 0; d < built.maxDoc; d++) assert.deepEqual(docRecord(segment, d), docRecord(built, d), `doc ${d}`);
  const lookup = (s: Segment, path: string, term: string) => {
    const field = s.inverted.get(path)!;
    return postingsOf(field, field.terms.find(term));
  };
  assert.deepEqual(lookup(segment, 'event_id', 'E-0000a0'), [[360, 1, []]]);
  assert.deepEqual(lookup(segment, '_id', 'E-0000a0'), lookup(built, '_id', 'E-0000a0'));
  assert.deepEqual(termsOf(segment.inverted.get('land')!.terms), termsOf(built.inverted.get('land')!.terms));
});

test('a postings cursor handed back is reused, reset, for the next term: every term reads as it was built, its docFreq too', () => {
  const builder = new SegmentBuilder(analyzers);
  const words = ['alpha', 'beta', 'gamma', 'delta', 'omega'];
  // Common words span several postings blocks, rare ones hold one doc: a cursor goes from one kind to the other.
  for (let i = 0; i < 900; i++) builder.add(bufferedDoc(`doc-${i}`, [[title, [`${words[i % 5]} ${i % 2 === 0 ? 'even' : 'odd'} w${i}`]]]));
  const built = builder.build(0);
  const { segment } = mergeSegments([{ segment: built, liveDocs: null }], 0);
  const field = segment.inverted.get('title')!;
  const expected = built.inverted.get('title')!;
  const count = field.terms.length;
  let previous = field.postings(0);
  // Half read: a probe left in the middle of a block, then handed back.
  previous.freqOf(450);
  for (let t = 0; t < count; t++) {
    field.release!(previous);
    const cursor = field.postings(t);
    assert.equal(cursor, previous, `term ${t}: the cursor handed back is the one handed out`);
    assert.equal(field.docFreq(t), expected.docFreq(t), `docFreq of term ${t}`);
    assert.deepEqual(postingsOf({ ...field, postings: () => cursor } as typeof field, t), postingsOf(expected, t), `postings of ${field.terms.get(t)}`);
    previous = cursor;
  }
});
