import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SlicePool } from '../../../shared/engine/segment/slice-pool.ts';

function readAll(pool: SlicePool, start: number, count: number): number[] {
  const out = new Int32Array(count);
  pool.read(start, count, out, 0);
  return Array.from(out);
}

test('interleaved streams read back in write order, across slice boundaries', () => {
  const pool = new SlicePool();
  const streams = Array.from({ length: 50 }, () => pool.newStream());
  const uptos = [...streams];
  const expected: number[][] = streams.map(() => []);
  // Stream i gets i * 7 values, written round-robin so their slices interleave in the pool.
  for (let round = 0; round < 50 * 7; round++) {
    for (let i = 0; i < streams.length; i++) {
      if (expected[i]!.length >= i * 7) continue;
      const value = i * 100_000 + round;
      uptos[i] = pool.write(uptos[i]!, value);
      expected[i]!.push(value);
    }
  }
  streams.forEach((start, i) => assert.deepEqual(readAll(pool, start, expected[i]!.length), expected[i], `stream ${i}`));
});

test('a long stream passes the largest slice size and keeps going', () => {
  const pool = new SlicePool();
  const start = pool.newStream();
  let upto = start;
  for (let v = 0; v < 10_000; v++) upto = pool.write(upto, v);
  const values = readAll(pool, start, 10_000);
  assert.deepEqual(values.slice(0, 3), [0, 1, 2]);
  assert.equal(values[9999], 9999);
  assert.ok(values.every((v, i) => v === i));
});

test('a partial read stops after the asked count and zero is a value like any other', () => {
  const pool = new SlicePool();
  const start = pool.newStream();
  let upto = start;
  for (const v of [0, 0, 5, 0]) upto = pool.write(upto, v);
  assert.deepEqual(readAll(pool, start, 4), [0, 0, 5, 0]);
  assert.deepEqual(readAll(pool, start, 2), [0, 0]);
  const out = new Int32Array(6).fill(-9);
  pool.read(start, 3, out, 2);
  assert.deepEqual(Array.from(out), [-9, -9, 0, 0, 5, -9]);
});
