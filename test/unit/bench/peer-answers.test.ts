import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareAnswers, type Answer } from '../../../bench/peers/answers.ts';

const top = (total: number, hits: [string, number][]): Answer => ({ kind: 'top', total, hits: hits.map(([id, key]) => ({ id, key })) });

test('top-10 lists agree when tied passes inside the list come in another order', () => {
  const a = top(50, [['a', 9], ['b', 8], ['c', 8], ['d', 7]]);
  const b = top(50, [['a', 9], ['c', 8], ['b', 8], ['d', 7]]);
  assert.deepEqual(compareAnswers(a, b), []);
});

test('top-10 lists disagree when a tie group inside the list holds other passes', () => {
  const a = top(50, [['a', 9], ['b', 8], ['c', 8], ['d', 7]]);
  const b = top(50, [['a', 9], ['b', 8], ['x', 8], ['d', 7]]);
  assert.match(compareAnswers(a, b).join('\n'), /hits 1\.\.2 \(key 8\): b,c vs b,x/);
});

test('a cut list may keep different passes of its last tie group, a complete one may not', () => {
  const a = [['a', 9], ['b', 8], ['c', 8]] as [string, number][];
  const b = [['a', 9], ['b', 8], ['z', 8]] as [string, number][];
  assert.deepEqual(compareAnswers(top(40, a), top(40, b)), []);
  assert.notDeepEqual(compareAnswers(top(3, a), top(3, b)), []);
});

test('top-10 lists disagree on another sort key, total or length', () => {
  assert.match(compareAnswers(top(5, [['a', 9], ['b', 8]]), top(5, [['a', 9], ['b', 7]])).join(), /hit 1: sort key 8 \(b\) vs 7 \(b\)/);
  assert.match(compareAnswers(top(5, [['a', 9]]), top(6, [['a', 9]])).join(), /total 5 vs 6/);
  assert.match(compareAnswers(top(5, [['a', 9]]), top(5, [['a', 9], ['b', 8]])).join(), /1 hits vs 2/);
});

test('an id twice in a tie group is a disagreement even when the groups have equal sets', () => {
  assert.notDeepEqual(compareAnswers(top(9, [['a', 8], ['a', 8], ['b', 8]]), top(9, [['a', 8], ['b', 8], ['b', 8]])), []);
});

test('grouped counts compare as maps whatever their order, naming a missing or different group', () => {
  const a: Answer = { kind: 'rows', rows: [['L1', 3], ['L2', 5]] };
  assert.deepEqual(compareAnswers(a, { kind: 'rows', rows: [['L2', 5], ['L1', 3]] }), []);
  assert.match(compareAnswers(a, { kind: 'rows', rows: [['L2', 5], ['L1', 4]] }).join(), /group L1: 3 vs 4/);
  assert.match(compareAnswers(a, { kind: 'rows', rows: [['L2', 5]] }).join(), /group L1: 3 vs missing/);
  assert.match(compareAnswers({ kind: 'rows', rows: [['L2', 5]] }, a).join(), /group L1: missing vs 3/);
});

test('full ordered lists must match position by position', () => {
  const a: Answer = { kind: 'list', total: 3, ids: ['a', 'b', 'c'] };
  assert.deepEqual(compareAnswers(a, { kind: 'list', total: 3, ids: ['a', 'b', 'c'] }), []);
  assert.match(compareAnswers(a, { kind: 'list', total: 3, ids: ['a', 'c', 'b'] }).join(), /position 1: b vs c/);
});

test('counts and answer kinds must match', () => {
  assert.deepEqual(compareAnswers({ kind: 'count', count: 4 }, { kind: 'count', count: 4 }), []);
  assert.match(compareAnswers({ kind: 'count', count: 4 }, { kind: 'count', count: 5 }).join(), /count 4 vs 5/);
  assert.match(compareAnswers({ kind: 'count', count: 4 }, { kind: 'rows', rows: [] }).join(), /kinds differ/);
});
