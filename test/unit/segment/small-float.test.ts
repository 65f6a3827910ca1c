import assert from 'node:assert/strict';
import { test } from 'node:test';
import { byte4ToInt, int4ToLong, intToByte4, longToInt4 } from '../../../shared/engine/segment/small-float.ts';

// Expectations from Lucene's TestSmallFloat (testInt4, testByte4) and worked by hand from the algorithm.

test('longToInt4 encodes 0..16 exactly', () => {
  for (let i = 0; i <= 16; i++) assert.equal(int4ToLong(longToInt4(i)), i);
});

test('longToInt4 keeps the 4 most significant bits', () => {
  for (const value of [17, 100, 1000, 123456789, 2 ** 40 + 12345]) {
    const numBits = Math.floor(Math.log2(value)) + 1;
    const mask = 2 ** (numBits - 4);
    assert.equal(int4ToLong(longToInt4(value)), Math.floor(value / mask) * mask, `value ${value}`);
  }
});

test('every byte decodes to a strictly larger length than the previous and encodes back to itself', () => {
  let previous = -1;
  for (let b = 0; b < 256; b++) {
    const decoded = byte4ToInt(b);
    assert.ok(decoded > previous, `byte ${b}`);
    assert.equal(intToByte4(decoded), b);
    previous = decoded;
  }
});

test('Integer.MAX_VALUE encodes to 255', () => {
  assert.equal(intToByte4(2147483647), 255);
});

test('lengths below 24 encode exactly, longer ones lose precision', () => {
  assert.equal(intToByte4(0), 0);
  assert.equal(intToByte4(1), 1);
  assert.equal(intToByte4(23), 23);
  assert.equal(intToByte4(24), 24); // 24 + longToInt4(0)
  assert.equal(intToByte4(31), 31); // 24 + longToInt4(7)
  assert.equal(intToByte4(32), 32); // 24 + (8 → shift 0, 0b1000 → 0 | 1<<3)
  assert.equal(intToByte4(40), 40); // 24 + (16 → shift 1, 0b1000 → 0 | 2<<3)
  assert.equal(intToByte4(41), 40); // 17 keeps 4 bits → 16
  assert.equal(intToByte4(100), 57); // 24 + (76 = 0b1001100 → shift 3, 0b1001 → 1 | 4<<3 = 33)
  assert.equal(byte4ToInt(57), 96); // 24 + (8|1) << 3
});

test('every decoded length is the largest representable one not above the input', () => {
  for (let i = 0; i < 5000; i++) {
    const b = intToByte4(i);
    assert.ok(byte4ToInt(b) <= i);
    if (b < 255) assert.ok(byte4ToInt(b + 1) > i);
  }
});

test('negative lengths are refused', () => {
  assert.throws(() => intToByte4(-1), RangeError);
});
