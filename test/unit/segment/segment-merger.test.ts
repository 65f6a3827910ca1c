import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newFullBitset, clearBit } from '../../../shared/engine/segment/bitset.ts';
import { SegmentBuilder, type BufferedDoc } from '../../../shared/engine/segment/segment-builder.ts';
import { mergeSegments } from '../../../shared/engine/segment/segment-merger.ts';
import type { NumericDocValues, Segment, SortedDocValues } from '../../../shared/engine/segment/types.ts';
import { analyzers, bufferedDoc, fieldMapping } from './fixtures.ts';
import { docRecord } from './segment-views.ts';

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
  assert.deepEqual(segment.ids.toArray(), ['a', 'c', 'd', 'e']);
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
      if (to >= 0) assert.deepEqual(docRecord(segment, to), docRecord(from, d), `doc ${from.ids.get(d)}`);
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
  assert.deepEqual(field.terms.toArray(), ['fox', 'panda', 'quick', 'red']);
  assert.equal(field.terms.find('dog'), -1);
  assert.equal(field.terms.find('red'), 3);
  assert.equal(field.docCount, 3);
  assert.equal(field.sumTotalTermFreq, 2 + 3 + 2);
  assert.deepEqual(Array.from(field.postingStarts), [0, 2, 3, 4, 7]);
  assert.deepEqual(Array.from(field.postingDocs), [0, 1, 2, 1, 0, 1, 2]);
  assert.deepEqual(Array.from(field.positions!.subarray(field.positionStarts![6]!, field.positionStarts![7]!)), [0]);

  const colors = segment.docValues.get('color') as SortedDocValues;
  assert.deepEqual(colors.dict.toArray(), ['orange', 'red']);
  assert.deepEqual(Array.from(colors.starts!), [0, 1, 3, 3]);
  assert.deepEqual(Array.from(colors.ords), [1, 0, 1]);
  assert.deepEqual(segment.inverted.get('color')!.terms.toArray(), ['orange', 'red']);
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
