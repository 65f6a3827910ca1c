import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeDictionaries as mergePacked } from '../../../shared/engine/segment/dictionary-merge.ts';
import { PackedStrings } from '../../../shared/engine/segment/packed-strings.ts';

/** The merge over packed lists, with the merged terms as strings. */
function mergeDictionaries(lists: readonly string[][], keep: readonly (Uint8Array | null)[]): { terms: string[]; ordMaps: Int32Array[] } {
  const { terms, ordMaps } = mergePacked(
    lists.map((l) => PackedStrings.of(l)),
    keep,
  );
  return { terms: terms.toArray(), ordMaps };
}

/** The union of the kept terms, sorted, computed without the code under test. */
function expectedUnion(lists: readonly string[][], keep: readonly (Uint8Array | null)[]): string[] {
  const all = new Set<string>();
  lists.forEach((list, i) => list.forEach((term, t) => (keep[i] === null || keep[i]![t] === 1 ? all.add(term) : undefined)));
  return [...all].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

test('the merged dictionary is the sorted union of the lists, each term once', () => {
  const lists = [['apple', 'fig', 'pear'], ['banana', 'fig'], ['apple', 'kiwi', 'zucchini'], [], ['pear']];
  const keep = lists.map(() => null);
  const { terms } = mergeDictionaries(lists, keep);
  assert.deepEqual(terms, expectedUnion(lists, keep));
});

test('each list maps its term ids to the merged ids of the same terms', () => {
  const lists = [['a', 'c', 'e'], ['b', 'c', 'd'], ['a', 'e', 'f']];
  const { terms, ordMaps } = mergeDictionaries(lists, [null, null, null]);
  lists.forEach((list, i) => list.forEach((term, t) => assert.equal(terms[ordMaps[i][t]], term)));
});

test('terms not kept leave the dictionary and map to -1', () => {
  const lists = [['a', 'b', 'c'], ['b', 'd']];
  const keep = [Uint8Array.of(1, 0, 1), Uint8Array.of(0, 1)];
  const { terms, ordMaps } = mergeDictionaries(lists, keep);
  assert.deepEqual(terms, ['a', 'c', 'd']);
  assert.deepEqual([...ordMaps[0]], [0, -1, 1]);
  assert.deepEqual([...ordMaps[1]], [-1, 2]);
});

test('a term kept by one list stays even where another list drops it', () => {
  const { terms, ordMaps } = mergeDictionaries([['x'], ['x']], [Uint8Array.of(0), Uint8Array.of(1)]);
  assert.deepEqual(terms, ['x']);
  assert.deepEqual([...ordMaps[0]], [-1]);
  assert.deepEqual([...ordMaps[1]], [0]);
});

test('many lists of random terms merge to the sorted union (UTF-16 order, surrogates included)', () => {
  let seed = 12345;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  const alphabet = ['a', 'b', 'Z', '京', '\u{1F600}', '0'];
  const lists: string[][] = [];
  for (let i = 0; i < 11; i++) {
    const set = new Set<string>();
    for (let k = 0; k < 200; k++) {
      let term = '';
      for (let c = 1 + (next() % 4); c > 0; c--) term += alphabet[next() % alphabet.length];
      set.add(term);
    }
    lists.push([...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  }
  const keep = lists.map((list, i) => (i % 3 === 0 ? null : Uint8Array.from(list, () => next() % 2)));
  const { terms, ordMaps } = mergeDictionaries(lists, keep);
  assert.deepEqual(terms, expectedUnion(lists, keep));
  lists.forEach((list, i) =>
    list.forEach((term, t) => {
      const kept = keep[i] === null || keep[i]![t] === 1;
      assert.equal(ordMaps[i][t] >= 0 ? terms[ordMaps[i][t]] : null, kept ? term : null);
    }),
  );
});
