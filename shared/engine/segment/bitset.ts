/**
 * Doc-id bitsets over Uint32Array: bit d lives in word d >>> 5 at position d & 31.
 * Bits at or above maxDoc are always zero, so cardinality and iteration need
 * no maxDoc. Used for live docs, query matches and aggregation filters.
 */

/** Number of 32-bit words for a bitset of maxDoc bits. */
export function bitsetWords(maxDoc: number): number {
  return (maxDoc + 31) >>> 5;
}

/** An empty bitset for maxDoc docs. */
export function newBitset(maxDoc: number): Uint32Array {
  return new Uint32Array(bitsetWords(maxDoc));
}

/** A bitset with docs 0..maxDoc-1 set. */
export function newFullBitset(maxDoc: number): Uint32Array {
  const bits = new Uint32Array(bitsetWords(maxDoc));
  bits.fill(0xffffffff);
  const tail = maxDoc & 31;
  if (tail !== 0) bits[bits.length - 1] = (1 << tail) - 1;
  return bits;
}

export function setBit(bits: Uint32Array, doc: number): void {
  bits[doc >>> 5] |= 1 << (doc & 31);
}

export function clearBit(bits: Uint32Array, doc: number): void {
  bits[doc >>> 5] &= ~(1 << (doc & 31));
}

export function hasBit(bits: Uint32Array, doc: number): boolean {
  return (bits[doc >>> 5] & (1 << (doc & 31))) !== 0;
}

/** a &= b. Both of the same length. */
export function andInPlace(a: Uint32Array, b: Uint32Array): void {
  for (let i = 0; i < a.length; i++) a[i] &= b[i];
}

/** a |= b. Both of the same length. */
export function orInPlace(a: Uint32Array, b: Uint32Array): void {
  for (let i = 0; i < a.length; i++) a[i] |= b[i];
}

/** a &= ~b. Both of the same length. */
export function andNotInPlace(a: Uint32Array, b: Uint32Array): void {
  for (let i = 0; i < a.length; i++) a[i] &= ~b[i];
}

/** Number of set bits. */
export function cardinality(bits: Uint32Array): number {
  let count = 0;
  for (let i = 0; i < bits.length; i++) {
    const w = bits[i];
    if (w !== 0) count += popcount32(w);
  }
  return count;
}

/** Set bits of a 32-bit word (SWAR popcount). */
export function popcount32(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** The first set bit at or after `from`, or -1. Loop with `for (let d = nextSetBit(b, 0); d >= 0; d = nextSetBit(b, d + 1))`. */
export function nextSetBit(bits: Uint32Array, from: number): number {
  let wordIndex = from >>> 5;
  if (wordIndex >= bits.length) return -1;
  let word = bits[wordIndex] & (0xffffffff << (from & 31));
  while (word === 0) {
    if (++wordIndex >= bits.length) return -1;
    word = bits[wordIndex];
  }
  return (wordIndex << 5) + (31 - Math.clz32(word & -word));
}

/** Calls `visit` with each set bit in ascending order. */
export function forEachSetBit(bits: Uint32Array, visit: (doc: number) => void): void {
  for (let i = 0; i < bits.length; i++) {
    let word = bits[i];
    const base = i << 5;
    while (word !== 0) {
      const lowest = word & -word;
      visit(base + 31 - Math.clz32(lowest));
      word ^= lowest;
    }
  }
}

/** The set bits in ascending order. */
export function setBitsToArray(bits: Uint32Array): Int32Array {
  const out = new Int32Array(cardinality(bits));
  let n = 0;
  for (let i = 0; i < bits.length; i++) {
    let word = bits[i];
    const base = i << 5;
    while (word !== 0) {
      const lowest = word & -word;
      out[n++] = base + 31 - Math.clz32(lowest);
      word ^= lowest;
    }
  }
  return out;
}
