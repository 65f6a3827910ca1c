import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  andInPlace,
  andNotInPlace,
  bitsetWords,
  cardinality,
  clearBit,
  forEachSetBit,
  hasBit,
  newBitset,
  newFullBitset,
  nextSetBit,
  orInPlace,
  popcount32,
  setBit,
  setBitsToArray,
} from '../../../shared/engine/segment/bitset.ts';

function bitsOf(maxDoc: number, docs: readonly number[]): Uint32Array {
  const bits = newBitset(maxDoc);
  for (const d of docs) setBit(bits, d);
  return bits;
}

test('a bitset has one word per 32 docs', () => {
  assert.equal(bitsetWords(0), 0);
  assert.equal(bitsetWords(1), 1);
  assert.equal(bitsetWords(32), 1);
  assert.equal(bitsetWords(33), 2);
  assert.equal(newBitset(65).length, 3);
});

test('a full bitset sets exactly the docs below maxDoc', () => {
  assert.deepEqual(Array.from(newFullBitset(33)), [0xffffffff, 1]);
  assert.deepEqual(Array.from(newFullBitset(64)), [0xffffffff, 0xffffffff]);
  assert.deepEqual(Array.from(newFullBitset(0)), []);
  assert.equal(cardinality(newFullBitset(1000)), 1000);
});

test('set, clear and test single bits, including bit 31 of a word', () => {
  const bits = newBitset(100);
  setBit(bits, 31);
  setBit(bits, 32);
  setBit(bits, 99);
  assert.equal(hasBit(bits, 31), true);
  assert.equal(hasBit(bits, 30), false);
  assert.equal(hasBit(bits, 99), true);
  clearBit(bits, 32);
  assert.equal(hasBit(bits, 32), false);
  assert.deepEqual(Array.from(setBitsToArray(bits)), [31, 99]);
});

test('and, or and and-not work in place', () => {
  const a = bitsOf(70, [1, 5, 40, 69]);
  andInPlace(a, bitsOf(70, [5, 40, 41]));
  assert.deepEqual(Array.from(setBitsToArray(a)), [5, 40]);
  orInPlace(a, bitsOf(70, [0, 69]));
  assert.deepEqual(Array.from(setBitsToArray(a)), [0, 5, 40, 69]);
  andNotInPlace(a, bitsOf(70, [5, 69]));
  assert.deepEqual(Array.from(setBitsToArray(a)), [0, 40]);
});

test('popcount counts set bits of any 32-bit word', () => {
  assert.equal(popcount32(0), 0);
  assert.equal(popcount32(0xffffffff), 32);
  assert.equal(popcount32(0x80000000), 1);
  assert.equal(popcount32(0b1011), 3);
  assert.equal(cardinality(bitsOf(200, [0, 31, 32, 63, 64, 199])), 6);
});

test('nextSetBit walks set bits in order and answers -1 past the last', () => {
  const bits = bitsOf(130, [0, 31, 32, 127, 129]);
  const seen: number[] = [];
  for (let d = nextSetBit(bits, 0); d >= 0; d = nextSetBit(bits, d + 1)) seen.push(d);
  assert.deepEqual(seen, [0, 31, 32, 127, 129]);
  assert.equal(nextSetBit(bits, 130), -1);
  assert.equal(nextSetBit(bits, 1000), -1);
  assert.equal(nextSetBit(newBitset(64), 0), -1);
});

test('forEachSetBit visits set bits in ascending order', () => {
  const seen: number[] = [];
  forEachSetBit(bitsOf(100, [99, 3, 31, 64]), (d) => seen.push(d));
  assert.deepEqual(seen, [3, 31, 64, 99]);
});
