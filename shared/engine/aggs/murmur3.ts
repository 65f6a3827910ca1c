/**
 * The hashes Elasticsearch's aggregations use, bit for bit:
 * - MurmurHash3 x64 128 (seed 0), first half: `cardinality` on keywords;
 * - hppc's BitMixer.mix64: `cardinality` on numbers, numeric terms partitions;
 * - MurmurHash3 x86 32 (Lucene StringHelper): string terms partitions.
 *
 * 64-bit values are carried as two unsigned 32-bit halves. Functions that
 * return a 64-bit value return the low half and leave the high half in
 * `hashHigh()` (no allocation in hot loops).
 */

let HI = 0;

/** High 32 bits of the last 64-bit result. */
export function hashHigh(): number {
  return HI;
}

/** (aHi:aLo) * (bHi:bLo) mod 2^64, in 16-bit limbs so every partial product is exact. */
function mul64(aHi: number, aLo: number, bHi: number, bLo: number): number {
  const a48 = aHi >>> 16;
  const a32 = aHi & 0xffff;
  const a16 = aLo >>> 16;
  const a00 = aLo & 0xffff;
  const b48 = bHi >>> 16;
  const b32 = bHi & 0xffff;
  const b16 = bLo >>> 16;
  const b00 = bLo & 0xffff;
  let c00 = a00 * b00;
  let c16 = c00 >>> 16;
  c00 &= 0xffff;
  c16 += a16 * b00;
  let c32 = c16 >>> 16;
  c16 &= 0xffff;
  c16 += a00 * b16;
  c32 += c16 >>> 16;
  c16 &= 0xffff;
  c32 += a32 * b00;
  let c48 = c32 >>> 16;
  c32 &= 0xffff;
  c32 += a16 * b16;
  c48 += c32 >>> 16;
  c32 &= 0xffff;
  c32 += a00 * b32;
  c48 += c32 >>> 16;
  c32 &= 0xffff;
  c48 += a48 * b00 + a32 * b16 + a16 * b32 + a00 * b48;
  c48 &= 0xffff;
  HI = ((c48 << 16) | c32) >>> 0;
  return ((c16 << 16) | c00) >>> 0;
}

function add64(aHi: number, aLo: number, bHi: number, bLo: number): number {
  const lo = aLo + bLo;
  HI = (aHi + bHi + (lo > 0xffffffff ? 1 : 0)) >>> 0;
  return lo >>> 0;
}

function rotl64(hi: number, lo: number, r: number): number {
  if (r >= 32) {
    const t = hi;
    hi = lo;
    lo = t;
    r -= 32;
  }
  if (r === 0) {
    HI = hi >>> 0;
    return lo >>> 0;
  }
  const nhi = ((hi << r) | (lo >>> (32 - r))) >>> 0;
  const nlo = ((lo << r) | (hi >>> (32 - r))) >>> 0;
  HI = nhi;
  return nlo;
}

// MurmurHash3 x64 128 constants c1 = 0x87c37b91114253d5, c2 = 0x4cf5ad432745937f
const C1_HI = 0x87c37b91;
const C1_LO = 0x114253d5;
const C2_HI = 0x4cf5ad43;
const C2_LO = 0x2745937f;

function fmix64(hi: number, lo: number): number {
  lo = (lo ^ (hi >>> 1)) >>> 0; // k ^= k >>> 33
  lo = mul64(hi, lo, 0xff51afd7, 0xed558ccd);
  hi = HI;
  lo = (lo ^ (hi >>> 1)) >>> 0;
  lo = mul64(hi, lo, 0xc4ceb9fe, 0x1a85ec53);
  hi = HI;
  lo = (lo ^ (hi >>> 1)) >>> 0;
  HI = hi;
  return lo;
}

function readLe32(bytes: Uint8Array, i: number): number {
  return (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24)) >>> 0;
}

/**
 * First 64 bits (h1) of MurmurHash3 x64 128 with seed 0 over bytes[offset, offset+length).
 * Returns the low half; the high half is in `hashHigh()`.
 */
export function murmur3x64h1(bytes: Uint8Array, offset: number, length: number): number {
  let h1Hi = 0;
  let h1Lo = 0;
  let h2Hi = 0;
  let h2Lo = 0;
  const blocks = length >>> 4;
  for (let b = 0; b < blocks; b++) {
    const i = offset + b * 16;
    let k1Lo = readLe32(bytes, i);
    let k1Hi = readLe32(bytes, i + 4);
    let k2Lo = readLe32(bytes, i + 8);
    let k2Hi = readLe32(bytes, i + 12);

    k1Lo = mul64(k1Hi, k1Lo, C1_HI, C1_LO);
    k1Hi = HI;
    k1Lo = rotl64(k1Hi, k1Lo, 31);
    k1Hi = HI;
    k1Lo = mul64(k1Hi, k1Lo, C2_HI, C2_LO);
    k1Hi = HI;
    h1Hi = (h1Hi ^ k1Hi) >>> 0;
    h1Lo = (h1Lo ^ k1Lo) >>> 0;

    h1Lo = rotl64(h1Hi, h1Lo, 27);
    h1Hi = HI;
    h1Lo = add64(h1Hi, h1Lo, h2Hi, h2Lo);
    h1Hi = HI;
    h1Lo = mul64(h1Hi, h1Lo, 0, 5);
    h1Hi = HI;
    h1Lo = add64(h1Hi, h1Lo, 0, 0x52dce729);
    h1Hi = HI;

    k2Lo = mul64(k2Hi, k2Lo, C2_HI, C2_LO);
    k2Hi = HI;
    k2Lo = rotl64(k2Hi, k2Lo, 33);
    k2Hi = HI;
    k2Lo = mul64(k2Hi, k2Lo, C1_HI, C1_LO);
    k2Hi = HI;
    h2Hi = (h2Hi ^ k2Hi) >>> 0;
    h2Lo = (h2Lo ^ k2Lo) >>> 0;

    h2Lo = rotl64(h2Hi, h2Lo, 31);
    h2Hi = HI;
    h2Lo = add64(h2Hi, h2Lo, h1Hi, h1Lo);
    h2Hi = HI;
    h2Lo = mul64(h2Hi, h2Lo, 0, 5);
    h2Hi = HI;
    h2Lo = add64(h2Hi, h2Lo, 0, 0x38495ab5);
    h2Hi = HI;
  }

  const tail = offset + blocks * 16;
  const rem = length & 15;
  if (rem > 8) {
    let k2Lo = 0;
    let k2Hi = 0;
    for (let j = rem - 1; j >= 8; j--) {
      const byte = bytes[tail + j]!;
      const shift = (j - 8) * 8;
      if (shift >= 32) k2Hi = (k2Hi | (byte << (shift - 32))) >>> 0;
      else k2Lo = (k2Lo | (byte << shift)) >>> 0;
    }
    k2Lo = mul64(k2Hi, k2Lo, C2_HI, C2_LO);
    k2Hi = HI;
    k2Lo = rotl64(k2Hi, k2Lo, 33);
    k2Hi = HI;
    k2Lo = mul64(k2Hi, k2Lo, C1_HI, C1_LO);
    k2Hi = HI;
    h2Hi = (h2Hi ^ k2Hi) >>> 0;
    h2Lo = (h2Lo ^ k2Lo) >>> 0;
  }
  if (rem > 0) {
    let k1Lo = 0;
    let k1Hi = 0;
    for (let j = Math.min(rem, 8) - 1; j >= 0; j--) {
      const byte = bytes[tail + j]!;
      const shift = j * 8;
      if (shift >= 32) k1Hi = (k1Hi | (byte << (shift - 32))) >>> 0;
      else k1Lo = (k1Lo | (byte << shift)) >>> 0;
    }
    k1Lo = mul64(k1Hi, k1Lo, C1_HI, C1_LO);
    k1Hi = HI;
    k1Lo = rotl64(k1Hi, k1Lo, 31);
    k1Hi = HI;
    k1Lo = mul64(k1Hi, k1Lo, C2_HI, C2_LO);
    k1Hi = HI;
    h1Hi = (h1Hi ^ k1Hi) >>> 0;
    h1Lo = (h1Lo ^ k1Lo) >>> 0;
  }

  // h1 ^= len; h2 ^= len (length < 2^32)
  h1Lo = (h1Lo ^ length) >>> 0;
  h2Lo = (h2Lo ^ length) >>> 0;
  h1Lo = add64(h1Hi, h1Lo, h2Hi, h2Lo);
  h1Hi = HI;
  h2Lo = add64(h2Hi, h2Lo, h1Hi, h1Lo);
  h2Hi = HI;
  h1Lo = fmix64(h1Hi, h1Lo);
  h1Hi = HI;
  h2Lo = fmix64(h2Hi, h2Lo);
  h2Hi = HI;
  h1Lo = add64(h1Hi, h1Lo, h2Hi, h2Lo);
  // h1 is final; (h2 += h1 would give the second half)
  return h1Lo;
}

/** hppc BitMixer.mix64 of the 64-bit value (hi:lo). Returns the low half; high in `hashHigh()`. */
export function mix64(hi: number, lo: number): number {
  // z = (z ^ (z >>> 32)) * 0x4cd6944c5cc20b6d
  lo = (lo ^ hi) >>> 0;
  lo = mul64(hi, lo, 0x4cd6944c, 0x5cc20b6d);
  hi = HI;
  // z = (z ^ (z >>> 29)) * 0xfc12c5b19d3259e9
  lo = (lo ^ ((lo >>> 29) | (hi << 3))) >>> 0;
  hi = (hi ^ (hi >>> 29)) >>> 0;
  lo = mul64(hi, lo, 0xfc12c5b1, 0x9d3259e9);
  hi = HI;
  // z ^ (z >>> 32)
  lo = (lo ^ hi) >>> 0;
  HI = hi;
  return lo;
}

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Java's Double.doubleToLongBits. Returns the low half; high in `hashHigh()`. */
export function doubleToLongBits(value: number): number {
  F64[0] = Number.isNaN(value) ? NaN : value;
  if (Number.isNaN(value)) {
    HI = 0x7ff80000;
    return 0;
  }
  HI = LITTLE_ENDIAN ? U32[1]! : U32[0]!;
  return LITTLE_ENDIAN ? U32[0]! : U32[1]!;
}

/** Two's complement halves of an integral double (|v| < 2^63). Returns the low half; high in `hashHigh()`. */
export function longBits(value: number): number {
  const lo = value % 4294967296;
  let hi = Math.floor(value / 4294967296);
  let l = lo < 0 ? lo + 4294967296 : lo;
  if (l === 4294967296) l = 0;
  hi = hi >>> 0;
  HI = hi;
  return l >>> 0;
}

/** Lucene StringHelper.murmurhash3_x86_32 over bytes[offset, offset+length): a signed int. */
export function murmur3x86_32(bytes: Uint8Array, offset: number, length: number, seed: number): number {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  let h1 = seed | 0;
  const roundedEnd = offset + (length & ~3);
  for (let i = offset; i < roundedEnd; i += 4) {
    let k1 = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    k1 = Math.imul(k1, c1);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, c2);
    h1 ^= k1;
    h1 = (h1 << 13) | (h1 >>> 19);
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
  }
  const rem = length & 3;
  if (rem > 0) {
    let k1 = 0;
    if (rem === 3) k1 = bytes[roundedEnd + 2]! << 16;
    if (rem >= 2) k1 |= bytes[roundedEnd + 1]! << 8;
    k1 |= bytes[roundedEnd]!;
    k1 = Math.imul(k1, c1);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, c2);
    h1 ^= k1;
  }
  h1 ^= length;
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h1 = Math.imul(h1, 0xc2b2ae35);
  h1 ^= h1 >>> 16;
  return h1 | 0;
}
