import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findMerges, type MergeCandidate } from '../../../shared/engine/segment/merge-policy.ts';

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
