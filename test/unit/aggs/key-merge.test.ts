import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeSortedKeys } from '../../../shared/engine/aggs/key-merge.ts';
import { rng } from './fixtures.ts';

/** The union of the lists, ascending by JS `<`: what the merge must produce. */
function union(lists: readonly (readonly (string | number)[])[]): (string | number)[] {
  return [...new Set(lists.flat())].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function sortedDistinct<T extends string | number>(xs: readonly T[]): T[] {
  return [...new Set(xs)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function check(lists: readonly (readonly (string | number)[])[]): void {
  const { keys, positions } = mergeSortedKeys(lists);
  assert.deepEqual(keys, union(lists));
  lists.forEach((list, s) => list.forEach((key, i) => assert.equal(keys[positions[s]![i]!], key)));
}

describe('merging shards key lists', () => {
  it('strings that agree on their first six units, differ in length, or hold two-byte and surrogate characters', () => {
    const r = rng(9);
    const alphabet = ['a', 'b', '', '\u0000', '京', '沪', 'Z', '😀', 'é'];
    const word = (): string => {
      let w = r() < 0.5 ? 'prefix' : '';
      const n = Math.floor(r() * 9);
      for (let i = 0; i < n; i++) w += alphabet[Math.floor(r() * alphabet.length)];
      return w;
    };
    for (let round = 0; round < 20; round++) {
      const lists = Array.from({ length: 1 + Math.floor(r() * 5) }, () => sortedDistinct(Array.from({ length: Math.floor(r() * 60) }, word)));
      check(lists);
    }
  });

  it('numbers (longs and doubles together) and empty lists', () => {
    check([[-5, 0, 3.5, 1e15], [0, 2, 3.5], [], [-7, 1e15, 2 ** 60]]);
    check([]);
    check([[], []]);
  });
});
