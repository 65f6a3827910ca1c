/**
 * Dense per-segment doc bitsets (bit d of word d >>> 5), the search layer's
 * working representation of a set of docs. Length ceil(maxDoc / 32), the same
 * layout as `SegmentView.liveDocs` and `MatchSet.bits`.
 */

export function wordsFor(maxDoc: number): number {
  return (maxDoc + 31) >>> 5;
}

export function allBits(maxDoc: number, out: Uint32Array = new Uint32Array(wordsFor(maxDoc))): Uint32Array {
  out.fill(0xffffffff);
  const tail = maxDoc & 31;
  if (tail !== 0) out[out.length - 1] = (1 << tail) - 1;
  return out;
}

export function hasBit(bits: Uint32Array, d: number): boolean {
  return (bits[d >>> 5]! & (1 << (d & 31))) !== 0;
}

export function setBit(bits: Uint32Array, d: number): void {
  bits[d >>> 5]! |= 1 << (d & 31);
}

export function andInto(target: Uint32Array, other: Uint32Array): void {
  for (let i = 0; i < target.length; i++) target[i]! &= other[i]!;
}

export function orInto(target: Uint32Array, other: Uint32Array): void {
  for (let i = 0; i < target.length; i++) target[i]! |= other[i]!;
}

export function andNotInto(target: Uint32Array, other: Uint32Array): void {
  for (let i = 0; i < target.length; i++) target[i]! &= ~other[i]!;
}

function popcount32(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

export function cardinality(bits: Uint32Array): number {
  let n = 0;
  for (let i = 0; i < bits.length; i++) {
    const w = bits[i]!;
    if (w !== 0) n += popcount32(w);
  }
  return n;
}

export function isEmpty(bits: Uint32Array): boolean {
  for (let i = 0; i < bits.length; i++) if (bits[i] !== 0) return false;
  return true;
}

/** Index (0..31) of the lowest set bit of a non-zero word. */
export function lowestBit(w: number): number {
  return 31 - Math.clz32(w & -w);
}
