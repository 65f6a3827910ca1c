/**
 * MurmurHash3, x86 32-bit variant (Austin Appleby's public-domain reference),
 * as Lucene's `StringHelper.murmurhash3_x86_32` computes it, and the string
 * hash Elasticsearch routes documents with (`Murmur3HashFunction.hash(String)`).
 *
 * Results are signed 32-bit integers, as Java's `int`, so that
 * `Math.floorMod`-style arithmetic on them matches Elasticsearch bit for bit.
 */

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function rotl32(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

function mixK1(k1: number): number {
  k1 = Math.imul(k1, C1);
  k1 = rotl32(k1, 15);
  return Math.imul(k1, C2);
}

function mixH1(h1: number, k1: number): number {
  h1 ^= mixK1(k1);
  h1 = rotl32(h1, 13);
  return (Math.imul(h1, 5) + 0xe6546b64) | 0;
}

function fmix32(h: number, byteLength: number): number {
  h ^= byteLength;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** murmur3_x86_32 of `bytes[offset, offset + length)`; a signed 32-bit integer. */
export function murmur3x86_32(bytes: Uint8Array, seed = 0, offset = 0, length = bytes.length - offset): number {
  let h1 = seed | 0;
  const blocksEnd = offset + (length & ~3);
  for (let i = offset; i < blocksEnd; i += 4) {
    const k1 = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    h1 = mixH1(h1, k1);
  }
  const tail = length & 3;
  if (tail > 0) {
    let k1 = bytes[blocksEnd]!;
    if (tail > 1) k1 |= bytes[blocksEnd + 1]! << 8;
    if (tail > 2) k1 |= bytes[blocksEnd + 2]! << 16;
    h1 ^= mixK1(k1);
  }
  return fmix32(h1, length);
}

/**
 * Elasticsearch's `Murmur3HashFunction.hash(String)`: murmur3_x86_32, seed 0,
 * over the string's UTF-16 code units, each as two little-endian bytes (not
 * UTF-8). Computed straight from the code units: two of them make one 4-byte
 * block, so no byte array is built.
 */
export function esMurmur3Hash(routing: string): number {
  const n = routing.length;
  let h1 = 0;
  const pairsEnd = n & ~1;
  for (let i = 0; i < pairsEnd; i += 2) {
    h1 = mixH1(h1, routing.charCodeAt(i) | (routing.charCodeAt(i + 1) << 16));
  }
  if (n & 1) {
    h1 ^= mixK1(routing.charCodeAt(n - 1));
  }
  return fmix32(h1, n * 2);
}
