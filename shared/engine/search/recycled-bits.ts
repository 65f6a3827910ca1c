/**
 * Match bitsets of a thread's query phases used again: a search allocated a
 * new bitset per segment for its term or its filters' conjunction (a few KB
 * each, ~65 a request on the pass records' 1M index), which cost a malloc,
 * an ArrayBuffer, and a free when the collector swept it; the sweeps, and
 * the major collections the buffers' external memory brought on, ran on
 * V8's helper threads. A bitset the query phase owns and no longer needs (it
 * was not kept for aggregations nor in the filter cache) is given back here,
 * and the next evaluation of a segment with as many words takes it again.
 *
 * Only whole buffers are kept, at most MAX_BYTES per thread: a merge changes
 * the segments' sizes, and the sizes no search asks for any more go when the
 * budget is reached (everything kept is dropped then, and kept anew).
 */

/** Bytes of bitsets kept per thread; a shard worker's segments of a 1M index need ~100 KB. */
export const MAX_BYTES = 2 * 1024 * 1024;

/** Bitsets kept, by length: `sizes[i]` words each in `lists[i]` (a few dozen sizes, scanned: cheaper than a Map lookup per take). */
const sizes: number[] = [];
const lists: Uint32Array[][] = [];
let bytes = 0;

function listOf(words: number): Uint32Array[] | undefined {
  for (let i = 0; i < sizes.length; i++) if (sizes[i] === words) return lists[i];
  return undefined;
}

/** A bitset of `words` words, all zero: one given back, or a new one. */
export function takeBits(words: number): Uint32Array {
  const a = listOf(words)?.pop();
  if (a === undefined) return new Uint32Array(words);
  bytes -= a.byteLength;
  a.fill(0);
  return a;
}

/** A copy of `bits` (to be changed by the caller), in a bitset given back when there is one. */
export function copyBits(bits: Uint32Array): Uint32Array {
  const a = listOf(bits.length)?.pop();
  if (a === undefined) return bits.slice();
  bytes -= a.byteLength;
  a.set(bits);
  return a;
}

/**
 * Gives back a bitset nothing will read or change again: the caller owned it
 * alone (a DocSet's `mutable` bits, not kept by the filter cache, a match
 * set or another set).
 */
export function giveBits(bits: Uint32Array): void {
  if (bits.byteOffset !== 0 || bits.byteLength !== bits.buffer.byteLength || bits.length === 0) return;
  if (bytes + bits.byteLength > MAX_BYTES) {
    if (bits.byteLength > MAX_BYTES) return;
    sizes.length = 0;
    lists.length = 0;
    bytes = 0;
  }
  let list = listOf(bits.length);
  if (list === undefined) {
    list = [];
    sizes.push(bits.length);
    lists.push(list);
  }
  list.push(bits);
  bytes += bits.byteLength;
}

/** Bytes of the bitsets kept (tests, memory figures). */
export function recycledBitsBytes(): number {
  return bytes;
}
