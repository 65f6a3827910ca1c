import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keyCodes, mergeKeys } from '../../../shared/engine/aggs/key-merge.ts';
import { rng } from './fixtures.ts';

/** The union of the lists, ascending by JS `<`: what the merge must identify and order. */
function union(lists: readonly (readonly (string | number)[])[]): (string | number)[] {
  return [...new Set(lists.flat())].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function check(lists: readonly (readonly (string | number)[])[], withCodes: boolean): void {
  const codes = lists.map((l) => (withCodes && typeof l[0] === 'string' ? keyCodes(l as string[]) : null));
  const { keys, positions, compare } = mergeKeys(lists, codes);
  const ids = keys.map((_, i) => i).sort(compare);
  assert.deepEqual(
    ids.map((i) => keys[i]),
    union(lists),
  );
  lists.forEach((list, s) => list.forEach((key, i) => assert.equal(keys[positions[s]![i]!], key)));
}

describe('merging shards bucket keys', () => {
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
      const lists = Array.from({ length: 1 + Math.floor(r() * 5) }, () => [...new Set(Array.from({ length: Math.floor(r() * 60) }, word))]);
      check(lists, round % 2 === 0);
    }
  });

  it('numbers (longs and doubles together) and empty lists', () => {
    check([[-5, 0, 3.5, 1e15], [0, 2, 3.5], [], [-7, 1e15, 2 ** 60]], false);
    check([], false);
    check([[], []], true);
  });
});
