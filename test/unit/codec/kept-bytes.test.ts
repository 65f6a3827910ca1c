/**
 * KeptBytes (kept-bytes.ts): whatever an owner's map still lists holds the
 * bytes written for it, however the entries' sizes leave the end of the
 * buffer when it wraps around; entries too large are not kept.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeptBytes } from '../../../shared/engine/codec/kept-bytes.ts';
import { prng } from '../../../services/passinfo/pass-record-generator.ts';

test('every entry a map lists holds its own bytes after the buffer wrapped around many times', () => {
  const kept = new KeptBytes(64 * 1024);
  const owners = [new Map<number, number>(), new Map<number, number>(), new Map<number, number>()];
  // The bytes each (owner, key) was written with: a length and a fill derived from both.
  const written = owners.map(() => new Map<number, number>());
  const fill = (o: number, key: number) => (o * 131 + key * 7) & 0xff;
  const r = prng(9);
  let wraps = 0;
  let last = 0;
  for (let k = 0; k < 20000; k++) {
    const o = Math.floor(r() * owners.length);
    const key = Math.floor(r() * 3000);
    if (owners[o]!.has(key)) continue;
    const n = 1 + Math.floor(r() * (r() < 0.05 ? 4000 : 300));
    const at = kept.reserve(owners[o]!, key, n);
    if (n > kept.limit >>> 4) {
      assert.equal(at, -1);
      assert.equal(owners[o]!.has(key), false);
      continue;
    }
    if (at < last) wraps++;
    last = at;
    kept.bytes.fill(fill(o, key), at, at + n);
    written[o]!.set(key, n);
    if (k % 50 === 0) {
      owners.forEach((m, oi) => {
        for (const [key2, start] of m) {
          const len = written[oi]!.get(key2)!;
          const f = fill(oi, key2);
          for (let i = start; i < start + len; i++) assert.equal(kept.bytes[i], f, `owner ${oi} key ${key2} byte ${i - start} of ${len}`);
        }
      });
    }
  }
  assert.ok(wraps > 20, `${wraps} wraps`);
});
