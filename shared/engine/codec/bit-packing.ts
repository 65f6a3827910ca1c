/**
 * Frame-of-reference packing of a block of non-negative ints: every value
 * takes the bit width of the largest, packed little-endian (value i starts at
 * bit i * width). A block of 128 doc-id gaps of a common term packs into a
 * few bits each, as Lucene's ForUtil does, and unpacks in one tight loop.
 */

/** Bits needed for the largest of values[0..n). */
export function bitsRequired(values: Int32Array, n: number): number {
  let or = 0;
  for (let i = 0; i < n; i++) or |= values[i]!;
  return or === 0 ? 0 : 32 - Math.clz32(or);
}

/** Bytes that n values of `bits` bits take. */
export function packedBytes(n: number, bits: number): number {
  return Math.ceil((n * bits) / 8);
}

/** Packs values[0..n) at `bits` bits into out[at..); returns the position after them. */
export function pack(values: Int32Array, n: number, bits: number, out: Uint8Array, at: number): number {
  if (bits === 0) return at;
  let acc = 0;
  let accBits = 0;
  let pos = at;
  for (let i = 0; i < n; i++) {
    const v = values[i]! >>> 0;
    if (bits + accBits <= 32) {
      acc = (acc | (v << accBits)) >>> 0;
      accBits += bits;
    } else {
      // The value straddles the 32-bit accumulator: emit what fits first.
      const low = 32 - accBits;
      acc = (acc | (v << accBits)) >>> 0;
      for (let k = 0; k < 4; k++) {
        out[pos++] = acc & 0xff;
        acc >>>= 8;
      }
      acc = low === 32 ? 0 : v >>> low;
      accBits = bits - low;
    }
    while (accBits >= 8) {
      out[pos++] = acc & 0xff;
      acc >>>= 8;
      accBits -= 8;
    }
  }
  if (accBits > 0) out[pos++] = acc & 0xff;
  return pos;
}

/** Unpacks n values of `bits` bits from src[at..) into out[0..n); returns the position after them. */
export function unpack(src: Uint8Array, at: number, bits: number, out: Int32Array, n: number): number {
  if (bits === 0) {
    out.fill(0, 0, n);
    return at;
  }
  let pos = at;
  if (bits <= 24) {
    // Each value from the four bytes that hold it: shift + bits <= 31, no carry between values.
    // Reads may run up to three bytes past the packed data (a file always ends with its footer).
    const mask = (1 << bits) - 1;
    let bit = 0;
    for (let i = 0; i < n; i++) {
      const b = at + (bit >>> 3);
      const word = src[b]! | (src[b + 1]! << 8) | (src[b + 2]! << 16) | (src[b + 3]! << 24);
      out[i] = (word >>> (bit & 7)) & mask;
      bit += bits;
    }
    return at + packedBytes(n, bits);
  }
  // Wide values (gaps over 16M docs): bit by bit through a 64-bit-safe float accumulator.
  const scale = 2 ** bits;
  let acc = 0;
  let accBits = 0;
  for (let i = 0; i < n; i++) {
    while (accBits < bits) {
      acc += src[pos++]! * 2 ** accBits;
      accBits += 8;
    }
    const v = acc % scale;
    out[i] = v | 0;
    acc = (acc - v) / scale;
    accBits -= bits;
  }
  return at + packedBytes(n, bits);
}
