/**
 * Lucene 7's one-byte norm encoding (org.apache.lucene.util.SmallFloat):
 * BM25Similarity stores a document's field length as `intToByte4(length)`,
 * so scores only see lengths at this precision. Ported exactly so BM25 scores
 * match Elasticsearch 6.8 (Lucene 7.7).
 */

/**
 * Float-like encoding for non-negative integers that keeps ordering and the 4
 * most significant bits (Lucene's `longToInt4`). Values 0..7 are "subnormal"
 * and encode as themselves; above that, the low 3 bits are the 3 bits after the
 * implicit leading 1, the rest is the shift plus one.
 */
export function longToInt4(value: number): number {
  if (value < 0 || !Number.isInteger(value)) {
    throw new RangeError(`longToInt4 only supports non-negative integers, got ${value}`);
  }
  const numBits = bitLength(value);
  if (numBits < 4) return value;
  const shift = numBits - 4;
  // Keep the 4 most significant bits and drop the leading one, which is implicit.
  const encoded = Math.floor(value / 2 ** shift) & 0x07;
  return encoded | ((shift + 1) << 3);
}

/** Inverse of `longToInt4` (Lucene's `int4ToLong`), exact for values with at most 4 significant bits. */
export function int4ToLong(encoded: number): number {
  const bits = encoded & 0x07;
  const shift = (encoded >>> 3) - 1;
  return shift === -1 ? bits : (bits | 0x08) * 2 ** shift;
}

const INT32_MAX = 0x7fffffff;
/** longToInt4(Integer.MAX_VALUE) = 231, so 255 - 231 = 24 byte values are free to encode 0..23 exactly. */
const MAX_INT4 = longToInt4(INT32_MAX);
const NUM_FREE_VALUES = 255 - MAX_INT4;

/** Lucene's `SmallFloat.intToByte4`, returned as the unsigned byte 0..255. */
export function intToByte4(value: number): number {
  if (value < 0 || value > INT32_MAX || !Number.isInteger(value)) {
    throw new RangeError(`intToByte4 only supports integers in [0, 2^31-1], got ${value}`);
  }
  if (value < NUM_FREE_VALUES) return value;
  return NUM_FREE_VALUES + longToInt4(value - NUM_FREE_VALUES);
}

/** Lucene's `SmallFloat.byte4ToInt` for an unsigned byte 0..255: the field length BM25 sees. */
export function byte4ToInt(byte: number): number {
  const b = byte & 0xff;
  if (b < NUM_FREE_VALUES) return b;
  return NUM_FREE_VALUES + int4ToLong(b - NUM_FREE_VALUES);
}

/** Number of bits needed to write a non-negative integer up to 2^53 (64 - Long.numberOfLeadingZeros). */
function bitLength(value: number): number {
  if (value <= 0xffffffff) return 32 - Math.clz32(value);
  return 32 + (32 - Math.clz32(Math.floor(value / 0x100000000)));
}
