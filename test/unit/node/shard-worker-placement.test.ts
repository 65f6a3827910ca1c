import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ShardWorkers, type SlotCopy } from '../../../services/node/shard-worker/shard-workers.ts';

/** A copy as place() sees it (the real ones are EngineHandles). */
function copy(rebuildGroup: string | null): SlotCopy {
  return { rebuildGroup, onStats: () => undefined, onError: () => undefined, onWorkerLost: () => undefined };
}

let workers: ShardWorkers;

before(async () => {
  workers = await ShardWorkers.start({ count: 2 });
});
after(() => workers.close());

describe('shard worker placement', () => {
  test('copies go to the worker with the fewest; the copies of a rebuild each get a worker of their own, one more started for the third', () => {
    const placeOn = (group: string | null) => {
      const { copy: id, slot } = workers.place(group);
      slot.copies.set(id, copy(group));
      return slot.index;
    };
    // The source index's five copies: 3 and 2.
    assert.deepEqual([null, null, null, null, null].map(placeOn), [0, 1, 0, 1, 0]);
    // A rebuild into 3 shards: one copy per worker, the third on a worker started for it.
    assert.deepEqual(['v2', 'v2', 'v2'].map(placeOn), [1, 0, 2]);
    assert.equal(workers.size, 3);
    // Only one worker more: a fourth copy of the rebuild shares the least busy one.
    assert.equal(placeOn('v2'), 2);
    assert.equal(workers.size, 3);
    // Copies of other indices fill the new worker as any other.
    assert.equal(placeOn(null), 2);
  });
});
