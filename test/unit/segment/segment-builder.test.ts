import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SegmentBuilder } from '../../../shared/engine/segment/segment-builder.ts';
import { intToByte4 } from '../../../shared/engine/segment/small-float.ts';
import { idOf, type InvertedField, type NumericDocValues, type Segment, type SortedDocValues } from '../../../shared/engine/segment/types.ts';
import { analyzers, bufferedDoc, fieldMapping } from './fixtures.ts';
import { docRecord, postingsOf, termsOf } from './segment-views.ts';

const title = fieldMapping('title', 'text');
const tags = fieldMapping('tags', 'keyword');
const price = fieldMapping('price', 'long');
const when = fieldMapping('when', 'date');
const plate = fieldMapping('plate', 'keyword');

function threeDocs(): Segment {
  const builder = new SegmentBuilder(analyzers);
  builder.add(bufferedDoc('a', [[title, ['The quick fox the']], [tags, ['b', 'a', 'b']], [price, [10]], [when, [1000]]]));
  builder.add(bufferedDoc('b', [[title, ['Fox', 'lazy dog']], [tags, ['a']], [price, [5, 3]]]));
  builder.add(bufferedDoc('c', [[title, ['']], [when, [2000]]]));
  assert.equal(builder.size, 3);
  return builder.build(7);
}

/** term → [doc, freq, positions][] read back through the postings cursors. */
function postingsByTerm(field: InvertedField): Record<string, [number, number, number[]][]> {
  const out: Record<string, [number, number, number[]][]> = {};
  termsOf(field.terms).forEach((term, t) => {
    out[term] = postingsOf(field, t);
  });
  return out;
}

test('text postings carry freqs and positions, with a gap of 100 between values', () => {
  const segment = threeDocs();
  const field = segment.inverted.get('title')!;
  assert.deepEqual(termsOf(field.terms), ['dog', 'fox', 'lazy', 'quick', 'the']);
  assert.deepEqual(postingsByTerm(field), {
    dog: [[1, 1, [102]]],
    fox: [
      [0, 1, [2]],
      [1, 1, [0]],
    ],
    lazy: [[1, 1, [101]]],
    quick: [[0, 1, [1]]],
    the: [[0, 2, [0, 3]]],
  });
  assert.equal(field.terms.find('lazy'), 2);
  assert.equal(field.terms.find('cat'), -1);
  assert.equal(field.docCount, 2);
  assert.equal(field.sumTotalTermFreq, 7);
});

test('text norms are the Lucene-encoded field length, 0 without tokens', () => {
  const field = threeDocs().inverted.get('title')!;
  assert.deepEqual(Array.from(field.norms!), [4, 3, 0]);
});

test('norms leave out tokens at the same position and encode long fields lossily', () => {
  const builder = new SegmentBuilder(analyzers);
  const synonyms = fieldMapping('body', 'text', { analyzer: 'upper_synonym' });
  builder.add(bufferedDoc('s', [[synonyms, ['a b']]]));
  builder.add(bufferedDoc('long', [[title, [Array.from({ length: 100 }, (_, i) => `w${i}`).join(' ')]]]));
  const segment = builder.build(0);
  const body = segment.inverted.get('body')!;
  assert.deepEqual(termsOf(body.terms), ['A', 'B', 'a', 'b']);
  assert.equal(body.norms![0], 2); // 4 tokens, 2 of them at an already used position
  assert.equal(body.sumTotalTermFreq, 4);
  assert.equal(segment.inverted.get('title')!.norms![1], 57); // intToByte4(100)
});

test('a field listed twice in one document is one multi-valued instance', () => {
  const builder = new SegmentBuilder(analyzers);
  builder.add(bufferedDoc('x', [[title, ['a b']], [title, ['a']]]));
  const field = builder.build(0).inverted.get('title')!;
  assert.deepEqual(postingsByTerm(field), { a: [[0, 2, [0, 102]]], b: [[0, 1, [1]]] });
  assert.deepEqual(Array.from(field.norms!), [3]);
});

test('keyword postings have no positions, a freq of 1 and one posting per distinct value', () => {
  const field = threeDocs().inverted.get('tags')!;
  assert.deepEqual(termsOf(field.terms), ['a', 'b']);
  assert.deepEqual(postingsByTerm(field), {
    a: [
      [0, 1, []],
      [1, 1, []],
    ],
    b: [[0, 1, []]],
  });
  assert.equal(field.hasPositions, false);
  assert.equal(field.norms, null);
  assert.equal(field.docCount, 2);
});

test('keyword doc values: multi-valued layout with distinct ascending ords', () => {
  const dv = threeDocs().docValues.get('tags') as SortedDocValues;
  assert.equal(dv.kind, 'sorted');
  assert.deepEqual(termsOf(dv.dict), ['a', 'b']);
  assert.deepEqual(Array.from(dv.starts!), [0, 2, 3, 3]);
  assert.deepEqual(Array.from(dv.ords), [0, 1, 0]);
});

test('keyword doc values: single-valued layout with -1 for missing', () => {
  const builder = new SegmentBuilder(analyzers);
  builder.add(bufferedDoc('1', [[plate, ['B222']]]));
  builder.add(bufferedDoc('2', []));
  builder.add(bufferedDoc('3', [[plate, ['A111', 'A111']]]));
  const dv = builder.build(0).docValues.get('plate') as SortedDocValues;
  assert.deepEqual(termsOf(dv.dict), ['A111', 'B222']);
  assert.equal(dv.starts, null);
  assert.deepEqual(Array.from(dv.ords), [1, -1, 0]);
});

test('numeric doc values: multi-valued sorted per doc, single-valued with NaN for missing', () => {
  const segment = threeDocs();
  const priceDv = segment.docValues.get('price') as NumericDocValues;
  assert.deepEqual(Array.from(priceDv.starts!), [0, 1, 3, 3]);
  assert.deepEqual(Array.from(priceDv.values), [10, 3, 5]);
  const whenDv = segment.docValues.get('when') as NumericDocValues;
  assert.equal(whenDv.starts, null);
  assert.deepEqual(Array.from(whenDv.values), [1000, NaN, 2000]);
  assert.equal(segment.inverted.has('price'), false);
});

test('booleans are 0/1 and floats keep 32-bit precision as Elasticsearch stores them', () => {
  const builder = new SegmentBuilder(analyzers);
  const flag = fieldMapping('flag', 'boolean');
  const ratio = fieldMapping('ratio', 'float');
  const scaled = fieldMapping('scaled', 'scaled_float', { scalingFactor: 100 });
  const half = fieldMapping('half', 'half_float');
  builder.add(bufferedDoc('1', [[flag, [true]], [ratio, [0.1]], [scaled, [1.2345]], [half, [0.1]]]));
  builder.add(bufferedDoc('2', [[flag, [false]], [half, [65519]]]));
  const segment = builder.build(0);
  assert.deepEqual(Array.from((segment.docValues.get('flag') as NumericDocValues).values), [1, 0]);
  assert.equal((segment.docValues.get('ratio') as NumericDocValues).values[0], 0.10000000149011612);
  assert.equal((segment.docValues.get('scaled') as NumericDocValues).values[0], 1.23);
  const halfValues = (segment.docValues.get('half') as NumericDocValues).values;
  assert.equal(halfValues[0], 0.0999755859375); // nearest binary16 to 0.1
  assert.equal(halfValues[1], 65504);
});

test('fieldDocs and fieldsPresent say which docs have each field; "" is no text token', () => {
  const segment = threeDocs();
  assert.deepEqual([...segment.fieldsPresent].sort(), ['price', 'tags', 'title', 'when']);
  assert.deepEqual(Array.from(segment.fieldDocs.get('title')!), [0b011]);
  assert.deepEqual(Array.from(segment.fieldDocs.get('tags')!), [0b011]);
  assert.deepEqual(Array.from(segment.fieldDocs.get('price')!), [0b011]);
  assert.deepEqual(Array.from(segment.fieldDocs.get('when')!), [0b101]);
});

test('fields neither indexed nor with doc values are only recorded as present', () => {
  const builder = new SegmentBuilder(analyzers);
  const notes = fieldMapping('notes', 'text', { index: false });
  builder.add(bufferedDoc('1', []));
  builder.add(bufferedDoc('2', [[notes, ['hello']]]));
  const segment = builder.build(0);
  assert.equal(segment.inverted.has('notes'), false);
  assert.deepEqual(Array.from(segment.fieldDocs.get('notes')!), [0b10]);
});

test('ids, versions, seq_nos, routings and source bytes round-trip', () => {
  const builder = new SegmentBuilder(analyzers);
  const sources = ['{"a":1}', '{}', '{"plate":"京A12345","ü":"ß"}'];
  sources.forEach((json, i) => {
    const source = Buffer.from(json);
    builder.add({ id: `id${i}`, version: i + 1, seqNo: 100 + i, routing: i === 1 ? 'r' : null, source, parsed: { fields: [], dynamicUpdate: null } });
    source.fill(0); // the builder must have copied the bytes
  });
  const segment = builder.build(3);
  assert.equal(segment.id, 3);
  assert.equal(segment.maxDoc, 3);
  assert.deepEqual([0, 1, 2].map((d) => idOf(segment, d)), ['id0', 'id1', 'id2']);
  assert.deepEqual(Array.from(segment.versions), [1, 2, 3]);
  assert.deepEqual(Array.from(segment.seqNos), [100, 101, 102]);
  assert.deepEqual([0, 1, 2].map((d) => segment.stored.document(d).routing), [null, 'r', null]);
  sources.forEach((json, d) => assert.equal(Buffer.from(segment.stored.document(d).source).toString('utf8'), json));
});

test('an unknown analyzer is a mapper_parsing_exception naming it', () => {
  const builder = new SegmentBuilder(analyzers);
  const odd = fieldMapping('odd', 'text', { analyzer: 'nope' });
  assert.throws(() => builder.add(bufferedDoc('1', [[odd, ['x']]])), /analyzer \[nope\] not found for field \[odd\]/);
});

test('terms sort by UTF-16 code units, as JS < does', () => {
  const builder = new SegmentBuilder(analyzers);
  builder.add(bufferedDoc('1', [[plate, ['b', 'B', '京', '😀', 'ａ', 'a']]]));
  const field = builder.build(0).inverted.get('plate')!;
  assert.deepEqual(termsOf(field.terms), ['B', 'a', 'b', '京', '😀', 'ａ']);
});

test('text postings of many random docs match a plain recount', () => {
  let seed = 7;
  const next = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  const vocabulary = Array.from({ length: 300 }, (_, i) => `w${i.toString(36)}`);
  const builder = new SegmentBuilder(analyzers);
  const expected = new Map<string, [number, number, number[]][]>();
  const lengths: number[] = [];
  for (let doc = 0; doc < 400; doc++) {
    const values: string[] = [];
    let position = -1;
    let length = 0;
    const valueCount = 1 + next(3);
    for (let v = 0; v < valueCount; v++) {
      if (v > 0) position += 100;
      const words = Array.from({ length: next(12) }, () => vocabulary[next(doc % 2 === 0 ? 20 : 300)]!);
      for (const word of words) {
        position++;
        length++;
        const list = expected.get(word) ?? [];
        const last = list[list.length - 1];
        if (last !== undefined && last[0] === doc) {
          last[1]++;
          last[2].push(position);
        } else {
          list.push([doc, 1, [position]]);
        }
        expected.set(word, list);
      }
      values.push(words.join(' '));
    }
    lengths.push(length);
    builder.add(bufferedDoc(`d${doc}`, [[title, values]]));
  }
  const field = builder.build(0).inverted.get('title')!;
  const sorted = Object.fromEntries([...expected.keys()].sort().map((term) => [term, expected.get(term)!]));
  assert.deepEqual(postingsByTerm(field), sorted);
  assert.equal(field.sumTotalTermFreq, lengths.reduce((a, b) => a + b, 0));
  assert.equal(field.docCount, lengths.filter((n) => n > 0).length);
  assert.deepEqual(Array.from(field.norms!), lengths.map((n) => intToByte4(n)));
});

test('a builder reset after build() builds the next segment exactly as a new builder would', () => {
  const words = ['red', 'blue', 'fox', 'dog', 'car', 'plate', 'night', 'day'];
  // Varied lengths, so the reused position pool's slices end at other places than before.
  // Segments alternate between many terms with short position streams and few terms with long ones,
  // so the reused pool's slices end where earlier ones did not (an old slice-end marker must not end a new slice).
  const doc = (n: number, s: number) =>
    bufferedDoc(
      `d${n}`,
      [
        [title, [Array.from({ length: s % 2 === 0 ? 1 + (n % 3) : 60 }, (_, k) => (s % 2 === 0 ? `${words[(n + k) % 8]}${n % 37}` : words[(n + k) % 3])).join(' ')]],
        [tags, n % 3 === 0 ? ['a', 'b'] : [`t${n % 5}`]],
        ...(n % 4 === 0 ? [] : ([[price, [n]]] as const)),
      ],
      1,
    );
  const reused = new SegmentBuilder(analyzers);
  let n = 0;
  for (let s = 0; s < 4; s++) {
    const fresh = new SegmentBuilder(analyzers);
    for (let k = 0; k < 150 - s * 40; k++) {
      const d = doc(n++, s);
      reused.add(d);
      fresh.add(d);
    }
    const a = reused.build(s);
    reused.reset();
    const b = fresh.build(s);
    for (let d = 0; d < b.maxDoc; d++) assert.deepEqual(docRecord(a, d), docRecord(b, d), `segment ${s} doc ${d}`);
    assert.deepEqual(postingsByTerm(a.inverted.get('title')!), postingsByTerm(b.inverted.get('title')!));
    assert.deepEqual([...a.inverted.keys()].sort(), [...b.inverted.keys()].sort());
  }
});
