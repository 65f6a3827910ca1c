import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boundedEditDistance } from '../../../shared/engine/search/fuzzy-terms.ts';
import { maxEditsFor } from '../../../shared/dsl/query/field-queries.ts';

const cps = (s: string) => [...s].map((c) => c.codePointAt(0)!);
const ed = (a: string, b: string, max = 2, tr = true) => boundedEditDistance(cps(a), cps(b), max, tr);

test('edit distance: substitutions, insertions, deletions, and a swap as one edit only with transpositions', () => {
  assert.equal(ed('kitten', 'sitten'), 1);
  assert.equal(ed('kitten', 'kitte'), 1);
  assert.equal(ed('kitten', 'kittens'), 1);
  assert.equal(ed('quick', 'quikc'), 1);
  assert.equal(ed('quick', 'quikc', 2, false), 2);
  assert.equal(ed('京A12345', '京A12354'), 1);
  assert.equal(ed('abc', 'xyz'), 3, 'beyond the bound: bound + 1');
  assert.equal(ed('a', 'abcdef'), 3, 'lengths alone rule it out');
});

test('AUTO fuzziness: no edit below 3 characters, one below 6, two from 6; AUTO:low,high; numbers capped at 2', () => {
  assert.equal(maxEditsFor('AUTO', 'ab'), 0);
  assert.equal(maxEditsFor('AUTO', 'abc'), 1);
  assert.equal(maxEditsFor('auto', 'abcde'), 1);
  assert.equal(maxEditsFor('AUTO', 'abcdef'), 2);
  assert.equal(maxEditsFor('AUTO:2,4', 'ab'), 1);
  assert.equal(maxEditsFor('AUTO:2,4', 'abcd'), 2);
  assert.equal(maxEditsFor('1', 'a'), 1);
  assert.equal(maxEditsFor('5', 'abc'), 2);
  assert.throws(() => maxEditsFor('lots', 'abc'), /failed to parse \[fuzziness\]/);
  assert.throws(() => maxEditsFor('AUTO:x', 'abc'), /low and high distance/);
});
