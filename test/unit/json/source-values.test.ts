import { test } from 'node:test';
import assert from 'node:assert/strict';
import { valuesAtPath } from '../../../shared/json/source-values.ts';

test('values at a dotted path: through objects and arrays, leaves only, nulls and objects left out', () => {
  const src = JSON.parse('{"a":{"b":[1,{"c":"x"},null,[true,"y"]]},"d":[{"e":1},{"e":[2,3]},{"e":null}],"f":{"g":1}}');
  assert.deepEqual(valuesAtPath(src, 'a.b'), [1, true, 'y']);
  assert.deepEqual(valuesAtPath(src, 'd.e'), [1, 2, 3]);
  assert.deepEqual(valuesAtPath(src, 'f'), []);
  assert.deepEqual(valuesAtPath(src, 'missing.x'), []);
});

test('a key holding dots is a field name; the shorter key comes first, as extractRawValues reads them', () => {
  const src = JSON.parse('{"a.b":{"c":2},"a":{"b.c":1,"b":{"c":0}}}');
  // a (then b, then b.c) before a.b
  assert.deepEqual(valuesAtPath(src, 'a.b.c'), [0, 1, 2]);
});

test('__proto__ and constructor are ordinary keys of the source', () => {
  const src = JSON.parse('{"__proto__":{"p":"y"},"constructor":{"name":"z"}}');
  assert.deepEqual(valuesAtPath(src, '__proto__.p'), ['y']);
  assert.deepEqual(valuesAtPath(src, 'constructor.name'), ['z']);
  assert.deepEqual(valuesAtPath({}, 'constructor.name'), []);
});

test('a path of 200,000 dots costs what the source holds, not what the path is', () => {
  const started = performance.now();
  assert.deepEqual(valuesAtPath({ a: { b: 1 } }, 'a.'.repeat(200_000) + 'b'), []);
  assert.ok(performance.now() - started < 1000);
});
