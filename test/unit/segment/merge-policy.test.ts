import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_MERGED_SEGMENT_DOCS, findDeletesMerges, findForcedMerges, findMerges, type MergeCandidate } from '../../../shared/engine/segment/merge-policy.ts';

const live = (numDocs: number): MergeCandidate => ({ maxDoc: numDocs, numDocs });

test('ten small segments are left alone, the eleventh triggers a merge of the ten smallest', () => {
  assert.deepEqual(findMerges(Array.from({ length: 10 }, () => live(100))), []);
  const sizes = [50, 900, 10, 20, 30, 40, 60, 70, 80, 90, 100];
  assert.deepEqual(findMerges(sizes.map(live)), [[0, 2, 3, 4, 5, 6, 7, 8, 9, 10]]);
});

test('segments of different tiers do not count together', () => {
  const segments = [...Array.from({ length: 6 }, () => live(100)), ...Array.from({ length: 6 }, () => live(50_000))];
  assert.deepEqual(findMerges(segments), []);
});

test('a segment with more than 30% deleted docs is rewritten on its own', () => {
  assert.deepEqual(findMerges([live(100), { maxDoc: 100, numDocs: 69 }, { maxDoc: 100, numDocs: 70 }]), [[1]]);
});

test('a forced merge to N segments merges the smallest, just enough of them', () => {
  assert.deepEqual(findForcedMerges([live(10), live(500), live(20), live(30)], 2), [[0, 2, 3]]);
  assert.deepEqual(findForcedMerges([live(10), live(500), live(20), live(30)], 1), [[0, 1, 2, 3]]);
  assert.deepEqual(findForcedMerges([live(10), live(20)], 3), []);
});

test('a forced merge within the segment count still rewrites the segments that hold deletes', () => {
  assert.deepEqual(findForcedMerges([live(10), { maxDoc: 10, numDocs: 9 }], 2), [[1]]);
  assert.deepEqual(findForcedMerges([{ maxDoc: 10, numDocs: 9 }], 1), [[0]]);
});

test('a forced merge never builds a segment beyond the size limit', () => {
  const big = MAX_MERGED_SEGMENT_DOCS / 2 + 1;
  assert.deepEqual(findForcedMerges([live(big), live(big), live(big)], 1), []);
  assert.deepEqual(findForcedMerges([live(MAX_MERGED_SEGMENT_DOCS - 5), live(10), live(20)], 1), [[1, 2]]);
});

test('only_expunge_deletes rewrites segments above 10% deleted, grouped', () => {
  assert.deepEqual(findDeletesMerges([live(100), { maxDoc: 100, numDocs: 90 }, { maxDoc: 100, numDocs: 89 }, { maxDoc: 100, numDocs: 50 }]), [[2, 3]]);
  assert.deepEqual(findDeletesMerges([live(100)]), []);
});
