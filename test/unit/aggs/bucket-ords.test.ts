import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BucketOrds } from '../../../shared/engine/aggs/bucket-ords.ts';

/** Sizes of the Int32Arrays built while `run` runs (the global constructor, swapped for the call). */
function int32Allocations(run: () => void): number[] {
  const sizes: number[] = [];
  const Original = globalThis.Int32Array;
  const Counting = new Proxy(Original, {
    construct(target, args: unknown[]) {
      if (typeof args[0] === 'number') sizes.push(args[0]);
      return Reflect.construct(target, args) as object;
    },
  });
  globalThis.Int32Array = Counting;
  try {
    run();
  } finally {
    globalThis.Int32Array = Original;
  }
  return sizes;
}

describe('BucketOrds under another bucket aggregation', () => {
  it('numbers (owner, key) pairs densely in first-seen order, and lists each owner\'s buckets', () => {
    const ords = new BucketOrds(false);
    const pairs: [number, number][] = [];
    for (let o = 0; o < 300; o++) for (let k = 0; k < 40; k += 1 + (o % 3)) pairs.push([o, (k * 7919 + o) % 5000]);
    const ids = pairs.map(([o, k]) => ords.add(o, k));
    assert.deepEqual(ids, pairs.map((_, i) => i));
    // Seen again: the same ids.
    assert.deepEqual(pairs.map(([o, k]) => ords.add(o, k)), ids);
    assert.equal(ords.bucketCount, pairs.length);
    const owner5 = pairs.map((p, i) => [p, i] as const).filter(([p]) => p[0] === 5).map(([, i]) => i);
    assert.deepEqual([...ords.bucketsOf(5)], owner5);
    assert.equal(ords.keyIdOf(ids[17]!), pairs[17]![1]);
  });

  it('a new key of one owner grows that owner\'s row only, not an owner × key table (terms × terms held a worker copying 16 MB)', () => {
    const ords = new BucketOrds(false);
    // 1,000 owners with small keys, then every owner a key 200 times wider.
    for (let o = 0; o < 1000; o++) ords.add(o, o % 16);
    const sizes = int32Allocations(() => {
      for (let o = 0; o < 1000; o++) ords.add(o, 3000 + o);
    });
    // Before: each wider key re-built the whole table (rows × width cells, 1024 × 4096 = 4M here).
    const largest = Math.max(...sizes);
    assert.ok(largest <= 8192, `largest single allocation ${largest} cells`);
    // The pairs still resolve to their ids.
    assert.equal(ords.add(999, 3999), ords.add(999, 3999));
    assert.equal(ords.bucketsOf(999).length, 2);
  });
});

describe('BucketOrds with keys spread wide under each owner', () => {
  it('drops the dense rows for the hash once they hold under one pair per 8 cells (terms × terms allocated millions of cells a request)', () => {
    const ords = new BucketOrds(false);
    // 1,000 groups × a field of 100,000 values, each value in one group: 100 keys per owner, spread over 0..99,999.
    const sizes = int32Allocations(() => {
      for (let k = 0; k < 100_000; k++) ords.add(k % 1000, k);
    });
    const cells = sizes.reduce((a, b) => a + b, 0);
    // The pair hash alone allocates about 4 × 131,072 + 2 × 262,144 cells as it doubles; the rows stop at about 65,536.
    assert.ok(cells < 2_000_000, `${cells} cells allocated`);
    assert.equal(ords.bucketCount, 100_000);
    assert.equal(ords.add(7, 7007), 7007);
    assert.deepEqual([...ords.bucketsOf(7)].slice(0, 3), [7, 1007, 2007]);
  });
});
