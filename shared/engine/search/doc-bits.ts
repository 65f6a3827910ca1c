/**
 * Dense per-segment doc bitsets (bit d of word d >>> 5), the search layer's
 * working representation of a set of docs. Length ceil(maxDoc / 32), the same
 * layout as `SegmentView.liveDocs` and `MatchSet.bits`. The bit operations
 * are the segment layer's (`segment/bitset.ts`), under the names the query
 * evaluation reads best with; only what that module lacks is defined here.
 */
import { andInPlace, andNotInPlace, bitsetWords, cardinality, hasBit, orInPlace, setBit } from '../segment/bitset.ts';

export { cardinality, hasBit, setBit };
export const wordsFor = bitsetWords;
export const andInto = andInPlace;
export const orInto = orInPlace;
export const andNotInto = andNotInPlace;

/** Sets docs 0..maxDoc-1 in `out` (a reused arena buffer, or a new one). */
export function allBits(maxDoc: number, out: Uint32Array = new Uint32Array(wordsFor(maxDoc))): Uint32Array {
  out.fill(0xffffffff);
  const tail = maxDoc & 31;
  if (tail !== 0) out[out.length - 1] = (1 << tail) - 1;
  return out;
}

export function isEmpty(bits: Uint32Array): boolean {
  for (let i = 0; i < bits.length; i++) if (bits[i] !== 0) return false;
  return true;
}

/** Index (0..31) of the lowest set bit of a non-zero word. */
export function lowestBit(w: number): number {
  return 31 - Math.clz32(w & -w);
}
