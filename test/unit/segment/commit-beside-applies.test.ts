/**
 * Issue 12's bulk row: a shard worker applies ops while a commit writes the
 * segments refreshes kept in memory (copy-engine.ts commitNow). The commit
 * covers what was refreshed when it began; indexing, deletes and refreshes
 * between its steps stay searchable at once and go to the next commit.
 * Reopened from each commit point (a restart), the copy holds exactly the
 * documents of that moment.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ShardIndex, type PreparedCommit } from '../../../shared/engine/segment/shard-index.ts';
import { runSteps } from '../../../shared/steps/run-steps.ts';
import { analyzers, bufferedDoc, fieldMapping, newShardIndex } from './fixtures.ts';
import { idsWithTerm, liveIds } from './segment-views.ts';

const title = fieldMapping('title', 'text');
const sorted = (ids: string[]) => [...ids].sort((a, b) => Number(a) - Number(b));
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => String(from + i));

/** Runs a commit's steps, calling `between` after the first step (the commit's writing has begun). */
function commitWith(index: ShardIndex, between: () => void): PreparedCommit {
  const steps = index.prepareCommitInSteps();
  let step = steps.next();
  assert.equal(step.done, false, 'the commit writes in steps');
  between();
  while (step.done !== true) step = steps.next();
  return step.value;
}

test('ops applied and refreshed while a commit writes are searchable and left to the next commit', async () => {
  const index = newShardIndex();
  // On disk: 0-99. In memory (two refreshes): 100-299.
  for (const id of range(0, 100)) index.index(bufferedDoc(id, [[title, [`word ${id}`]]]));
  index.refresh();
  const first = runSteps(index.prepareCommitInSteps());
  await index.syncCommit(first);
  for (const id of range(100, 200)) index.index(bufferedDoc(id, [[title, [`word ${id}`]]]));
  index.refresh();
  for (const id of range(200, 300)) index.index(bufferedDoc(id, [[title, [`word ${id}`]]]));
  index.delete('5');
  index.refresh();
  const dir = (index as unknown as { dir: string }).dir;

  const prepared = commitWith(index, () => {
    // Between the steps: new docs, a replacement and deletes in the segments being written and on disk, refreshed.
    for (const id of range(300, 350)) index.index(bufferedDoc(id, [[title, [`word ${id}`]]]));
    index.index(bufferedDoc('150', [[title, ['replaced']]], 2));
    index.delete('250');
    index.delete('7');
    index.refresh();
    // And one delete still pending when the commit ends.
    index.delete('120');
  });
  await index.syncCommit(prepared);

  // The live copy: everything, the pending delete not yet refreshed.
  const expectedNow = sorted([...range(0, 350)].filter((id) => !['5', '7', '250'].includes(id)));
  assert.deepEqual(sorted(liveIds(index.acquireSnapshot())), expectedNow);
  assert.deepEqual(idsWithTerm(index.acquireSnapshot(), 'title', 'replaced'), ['150']);
  index.refresh();
  assert.deepEqual(sorted(liveIds(index.acquireSnapshot())), expectedNow.filter((id) => id !== '120'));

  // The commit point: the docs of the moment it began (0-299 but 5), nothing applied since.
  const atCommit = ShardIndex.open(dir, analyzers, prepared.point);
  try {
    assert.deepEqual(sorted(liveIds(atCommit.acquireSnapshot())), range(0, 300).filter((id) => id !== '5'));
    assert.deepEqual(idsWithTerm(atCommit.acquireSnapshot(), 'title', '150'), ['150']);
  } finally {
    atCommit.close();
  }

  // The next commit takes the rest: reopened, the same docs as the live copy.
  const next = runSteps(index.prepareCommitInSteps());
  await index.syncCommit(next);
  index.removeUnused(next.point);
  const later = ShardIndex.open(dir, analyzers, next.point);
  try {
    assert.deepEqual(sorted(liveIds(later.acquireSnapshot())), expectedNow.filter((id) => id !== '120'));
    assert.deepEqual(idsWithTerm(later.acquireSnapshot(), 'title', 'replaced'), ['150']);
  } finally {
    later.close();
    index.close();
  }
});

test('a segment in memory whose every doc is deleted while the commit writes it is committed, then dropped', async () => {
  const index = newShardIndex();
  for (const id of range(0, 10)) index.index(bufferedDoc(id, [[title, ['a']]]));
  index.refresh();
  const dir = (index as unknown as { dir: string }).dir;
  const prepared = commitWith(index, () => {
    for (const id of range(0, 10)) index.delete(id);
    index.refresh();
  });
  await index.syncCommit(prepared);
  assert.deepEqual(liveIds(index.acquireSnapshot()), []);
  assert.equal(index.segmentCount, 0);
  const atCommit = ShardIndex.open(dir, analyzers, prepared.point);
  try {
    assert.deepEqual(sorted(liveIds(atCommit.acquireSnapshot())), range(0, 10));
  } finally {
    atCommit.close();
    index.close();
  }
});
