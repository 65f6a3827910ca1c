/**
 * Issue 11, item 6: a shard worker's commit fsyncs its files off the thread
 * (libuv's pool): no fsyncSync runs while the copy commits, and the thread
 * takes turns until the files are durable. The commit point is the same, and
 * the segment counts as committed only once its files are synced.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { test } from 'node:test';
import { runSteps } from '../../../shared/steps/run-steps.ts';
import { bufferedDoc, fieldMapping, newShardIndex } from './fixtures.ts';
import { liveIds } from './segment-views.ts';

const title = fieldMapping('title', 'text');

/** Counts fsyncSync calls while `run` runs (the named import of node:fs follows the default export once synced). */
async function countSyncFsyncs(run: () => Promise<void>): Promise<number> {
  const original = fs.fsyncSync;
  let calls = 0;
  fs.fsyncSync = (fd: number) => {
    calls++;
    original(fd);
  };
  syncBuiltinESMExports();
  try {
    await run();
  } finally {
    fs.fsyncSync = original;
    syncBuiltinESMExports();
  }
  return calls;
}

test('syncCommit makes a commit durable with no fsync on the thread, the thread taking turns meanwhile', async () => {
  const index = newShardIndex();
  for (let i = 0; i < 50; i++) index.index(bufferedDoc(String(i), [[title, [`word ${i}`]]]));
  index.refresh();
  index.commit();
  // A second commit with deletes in the committed segment: a new live-docs file to sync as well.
  index.delete('3');
  index.index(bufferedDoc('60', [[title, ['sixty']]]));
  index.refresh();
  let turns = 0;
  let point: unknown;
  const calls = await countSyncFsyncs(async () => {
    const prepared = runSteps(index.prepareCommitInSteps());
    assert.ok(prepared.files.some((f) => f.endsWith('.liv')), `files: ${prepared.files.join(', ')}`);
    assert.ok(prepared.files.length > 6, `files: ${prepared.files.join(', ')}`);
    // Written, not yet durable: the new segment is not reported committed.
    assert.deepEqual(index.describeSegments().map((s) => s.committed), [true, false]);
    const ticking = setInterval(() => turns++, 0);
    try {
      point = await index.syncCommit(prepared);
    } finally {
      clearInterval(ticking);
    }
    assert.deepEqual(point, prepared.point);
  });
  assert.equal(calls, 0);
  assert.ok(turns > 0, 'no turn of the thread while the files were synced');
  assert.deepEqual(index.describeSegments().map((s) => s.committed), [true, true]);
  assert.equal(liveIds(index.acquireSnapshot()).length, 50);
});

test('commit() still syncs on the thread, and records the same point', async () => {
  const index = newShardIndex();
  index.index(bufferedDoc('1', [[title, ['one']]]));
  index.refresh();
  let point: unknown;
  const calls = await countSyncFsyncs(async () => {
    point = index.commit();
  });
  assert.ok(calls > 6, `${calls} fsyncs`);
  // The refresh's segment (id 0, in memory) is written as segment 1.
  assert.deepEqual(point, { segments: [{ id: 1, liveGen: 0 }], nextSegmentId: 2 });
});
