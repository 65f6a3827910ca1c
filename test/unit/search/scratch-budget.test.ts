/**
 * Scratch arrays kept by a thread between searches have a budget
 * (scratch-arena.ts SCRATCH_KEEP_BYTES, counting-loops.ts
 * COUNTING_SCRATCH_KEEP_BYTES): the arena's arrays beyond it go once no
 * search used it for SCRATCH_IDLE_MS (searches in a row reuse them), the
 * counts table sized to a large dictionary goes with its search; smaller
 * ones are reused, and what a later search takes still works.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SCRATCH_IDLE_MS, SCRATCH_KEEP_BYTES, acquireArena, releaseArena, sharedArenaBytes } from '../../../shared/engine/search/scratch-arena.ts';
import { COUNTING_SCRATCH_KEEP_BYTES, countOrdinalsBySegment, countingScratchBytes, releaseCountingScratch } from '../../../shared/engine/aggs/counting-loops.ts';
import { MonotonicOrds } from '../../../shared/engine/aggs/monotonic-ords.ts';

test('the shared arena keeps arrays within its budget, and larger ones only while searches follow each other', async () => {
  const small = 100_000; // 800 KB of scores
  let arena = acquireArena();
  const scores = arena.takeScores(small);
  const counts = arena.takeCounts(small);
  releaseArena(arena);
  arena = acquireArena();
  assert.equal(arena.takeScores(small), scores, 'a small array is reused');
  assert.equal(arena.takeCounts(small), counts);
  // A search over a segment of 3M docs: 24 MB of scores, twice, and counts.
  const large = 3_000_000;
  const big = arena.takeScores(large);
  arena.takeScores(large);
  arena.takeCounts(large);
  big[large - 1] = 1.5;
  assert.ok(sharedArenaBytes() > 2 * SCRATCH_KEEP_BYTES);
  releaseArena(arena);
  // The next search right after reuses them.
  arena = acquireArena();
  arena.takeScores(small);
  assert.equal(arena.takeScores(large), big);
  releaseArena(arena);
  assert.ok(sharedArenaBytes() > 2 * SCRATCH_KEEP_BYTES);
  await new Promise((resolve) => setTimeout(resolve, SCRATCH_IDLE_MS + 400));
  assert.ok(sharedArenaBytes() <= SCRATCH_KEEP_BYTES, `${sharedArenaBytes()} bytes kept once idle`);
  // The next search still gets arrays of the size it asks for, counters zeroed.
  arena = acquireArena();
  assert.ok(arena.takeScores(large).length >= large);
  const c = arena.takeCounts(large);
  assert.ok(c.length >= large && c.every((v) => v === 0));
  releaseArena(arena);
});

test('the per-segment ordinal counts table goes after a search that grew it past its budget', () => {
  const dictSize = 2_000_000; // 8 MB of int32 counts
  const segOrds = new Int32Array(10).map((_, i) => i * 100_000);
  const counts = new Int32Array(dictSize + 1);
  const docs = Int32Array.from({ length: 10 }, (_, i) => i);
  countOrdinalsBySegment(docs, docs.length, segOrds, dictSize, MonotonicOrds.identity(dictSize), -1, counts);
  for (let i = 0; i < 10; i++) assert.equal(counts[i * 100_000], 1);
  assert.ok(countingScratchBytes() > COUNTING_SCRATCH_KEEP_BYTES);
  releaseCountingScratch();
  assert.ok(countingScratchBytes() <= COUNTING_SCRATCH_KEEP_BYTES, `${countingScratchBytes()} bytes kept`);
  // Counted again after the release: the same counts added.
  countOrdinalsBySegment(docs, docs.length, segOrds, dictSize, MonotonicOrds.identity(dictSize), -1, counts);
  for (let i = 0; i < 10; i++) assert.equal(counts[i * 100_000], 2);
});
