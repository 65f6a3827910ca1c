import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashHigh, longBits, mix64, murmur3x64h1, murmur3x86_32 } from '../../../shared/engine/aggs/murmur3.ts';
import { precisionFromThreshold } from '../../../shared/engine/aggs/cardinality-hll.ts';
import { javaDoubleToString } from '../../../shared/engine/aggs/java-double.ts';

describe('hashes Elasticsearch aggregations use', () => {
  it('MurmurHash3 x64 128 (seed 0), first half, of the reference sentence', () => {
    const b = Buffer.from('The quick brown fox jumps over the lazy dog');
    const lo = murmur3x64h1(b, 0, b.length);
    assert.equal(hashHigh().toString(16), 'e34bbc7b');
    assert.equal(lo.toString(16), 'bc071b6c');
    const empty = murmur3x64h1(Buffer.alloc(0), 0, 0);
    assert.equal(empty, 0);
    assert.equal(hashHigh(), 0);
  });

  it('BitMixer.mix64 agrees with a BigInt reference', () => {
    const M = (1n << 64n) - 1n;
    const ref = (z: bigint): bigint => {
      z = ((z ^ (z >> 32n)) * 0x4cd6944c5cc20b6dn) & M;
      z = ((z ^ (z >> 29n)) * 0xfc12c5b19d3259e9n) & M;
      return z ^ (z >> 32n);
    };
    for (const v of [0, 1, -1, 1234, 5678, 2 ** 40 + 7, -(2 ** 50)]) {
      const bitsLo = longBits(v);
      const lo = mix64(hashHigh(), bitsLo);
      const got = (BigInt(hashHigh()) << 32n) | BigInt(lo);
      assert.equal(got, ref(BigInt.asUintN(64, BigInt(v))), String(v));
    }
  });

  it('MurmurHash3 x86 32 with the partitioning seed', () => {
    const h = (s: string): number => murmur3x86_32(Buffer.from(s), 0, Buffer.byteLength(s), 31);
    assert.equal(((h('abc') % 2) + 2) % 2, 1);
    assert.equal(((h('bcd') % 2) + 2) % 2, 0);
  });

  it('precision from precision_threshold, Java double printing', () => {
    assert.equal(precisionFromThreshold(3000), 14);
    assert.equal(precisionFromThreshold(100), 10);
    assert.equal(precisionFromThreshold(0), 4);
    assert.deepEqual([100, 1.5, 1e7, 0.0001, -3, 123456.789].map(javaDoubleToString), ['100.0', '1.5', '1.0E7', '1.0E-4', '-3.0', '123456.789']);
  });
});
