import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MonotonicOrds, MonotonicOrdsWriter } from '../../../shared/engine/aggs/monotonic-ords.ts';
import { rng } from './fixtures.ts';

/** Ascending values: each of 0..universe-1 taken with probability `share`. */
function sample(seed: number, universe: number, share: number): Int32Array {
  const r = rng(seed);
  const out: number[] = [];
  for (let g = 0; g < universe; g++) if (r() < share) out.push(g);
  return Int32Array.from(out);
}

describe('monotonic ordinal maps (segment → global ordinals, packed in blocks)', () => {
  it('give back every value, whatever the density, the length and the gaps', () => {
    const cases: Int32Array[] = [
      new Int32Array(0),
      Int32Array.of(0),
      Int32Array.of(2 ** 31 - 1),
      Int32Array.of(0, 2 ** 31 - 1),
      Int32Array.from({ length: 65 }, (_, i) => i * i * 1000),
      Int32Array.from({ length: 130 }, (_, i) => (i < 64 ? i : 2 ** 30 + i)),
      sample(1, 200_000, 0.9),
      sample(2, 200_000, 0.3),
      sample(3, 1_000_000, 0.01),
      sample(4, 50_000_000, 0.0003),
    ];
    for (const values of cases) {
      const m = MonotonicOrds.pack(values);
      assert.equal(m.length, values.length);
      for (let i = 0; i < values.length; i++) if (m.get(i) !== values[i]) assert.fail(`value ${i} of ${values.length}: ${m.get(i)}, expected ${values[i]}`);
    }
    const id = MonotonicOrds.identity(100_000);
    for (let i = 0; i < id.length; i++) if (id.get(i) !== i) assert.fail(`identity ${i}: ${id.get(i)}`);
  });

  it('take far fewer bytes than 4 a value: under 7 bits for a segment holding half the values, under 12 for one holding 1%', () => {
    const half = MonotonicOrds.pack(sample(5, 1_500_000, 0.5));
    assert.ok((half.byteLength * 8) / half.length < 7, `${(half.byteLength * 8) / half.length} bits a value`);
    const small = MonotonicOrds.pack(sample(6, 1_500_000, 0.01));
    assert.ok((small.byteLength * 8) / small.length < 12, `${(small.byteLength * 8) / small.length} bits a value`);
    // one dictionary's identity map: the per-block line alone
    assert.ok(MonotonicOrds.identity(1_000_000).byteLength < 250_000);
  });

  it('refuse more or fewer values than announced', () => {
    const w = new MonotonicOrdsWriter(2);
    w.add(1);
    assert.throws(() => w.finish(), RangeError);
    w.add(5);
    assert.throws(() => w.add(9), RangeError);
    assert.equal(w.finish().get(1), 5);
  });
});
