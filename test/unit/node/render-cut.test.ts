import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RenderCut } from '../../../services/node/shard-worker/render-cut.ts';

test('a shard renders the head of its list that can still be on the page, and a new search starts over', () => {
  const cut = new RenderCut();
  // Page of 3: the first shard has no competition yet.
  assert.equal(cut.cut('1:a', 3, [5, 4, 3]), 3);
  // Below the third best so far (3): past the page. A tie with it is kept.
  assert.equal(cut.cut('1:a', 3, [3, 2, 1]), 1);
  assert.equal(cut.cut('1:a', 3, [6, 2]), 1);
  // Another execution of the search (or the same search's shards of another index) owes nothing to these hits.
  assert.equal(cut.cut('2:a', 3, [2, 1]), 2);
  assert.equal(cut.cut('1:b', 3, [2, 1]), 2);
  // A score that does not compare cuts nothing; a big page is not cut.
  assert.equal(cut.cut('3:a', 1, [9]), 1);
  assert.equal(cut.cut('3:a', 1, [NaN, 1]), 2);
  assert.equal(cut.cut('4:a', 100, new Array<number>(100).fill(1)), 100);
  assert.equal(cut.cut('4:a', 100, [0.5]), 1);
});
