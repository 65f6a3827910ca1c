/** Sizes and times as Elasticsearch prints them (ByteSizeValue, TimeValue, Strings.format1Decimals). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { byteSizeIn, format1Decimals, formatByteSize } from '../../../shared/engine/mapping/byte-size-value.ts';
import { formatTimeValue, timeValueIn } from '../../../shared/engine/mapping/time-value.ts';

test('one decimal, cut rather than rounded, .0 left out', () => {
  assert.equal(format1Decimals(1.99, 'kb'), '1.9kb');
  assert.equal(format1Decimals(2, 'kb'), '2kb');
  assert.equal(format1Decimals(1023, 'b'), '1023b');
});

test('byte sizes take the largest unit they reach', () => {
  assert.deepEqual(
    [0, 1023, 1024, 1535, 5 * 1024 ** 2 + 1, 3 * 1024 ** 3].map(formatByteSize),
    ['0b', '1023b', '1kb', '1.4kb', '5mb', '3gb'],
  );
  assert.equal(byteSizeIn(5 * 1024 ** 2 + 1, 'kb'), 5120);
  assert.equal(byteSizeIn(5 * 1024 ** 2 + 1, 'm'), 5);
  assert.equal(byteSizeIn(5, 'zb'), null);
});

test('durations: 0s, milliseconds, and days, hours, minutes, seconds with one decimal', () => {
  assert.deepEqual(
    [0, 0.5, 850, 1250, 90_000, 5_400_000, 25 * 3_600_000].map(formatTimeValue),
    ['0s', '500micros', '850ms', '1.2s', '1.5m', '1.5h', '1d'],
  );
  assert.equal(timeValueIn(90_000, 'm'), 1);
  assert.equal(timeValueIn(1.5, 'micros'), 1500);
  assert.equal(timeValueIn(1, 'weeks'), null);
});
