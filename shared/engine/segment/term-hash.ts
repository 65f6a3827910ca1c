/**
 * A term → slot hash table whose terms live as UTF-16 code units in one pool.
 *
 * An n-gram field has about as many distinct terms as postings (200k plates
 * → 1.9M terms): a JS Map would hold a string and a map entry per term and
 * keep the collector busy, and sorting 1.9M strings with Array#sort takes
 * seconds. Here each term costs its code units plus three ints, lookups hash
 * the incoming string without keeping it, and the pool sorts by packed
 * code-unit prefixes (the order of JS `<`).
 */

import { runSteps } from '../../steps/run-steps.ts';
import { PackedStrings, fnvHash } from './packed-strings.ts';

const EMPTY = 0;
/** Tie groups up to this size are insertion-sorted in place. */
const INSERTION_SORT_MAX = 16;
/** Table size (entries) from which growth doubles rather than quadruples. */
const LARGE_TABLE_ENTRIES = 1 << 20;
/** Keys a step of sortedSlotsInSteps encodes, distributes or sorts (a native sort of 131,072 keys: about 10 ms); fewer sort at once. */
const STEP_KEYS = 1 << 17;
/** Buckets (the top 16 bits of a key) a sort of more than STEP_KEYS keys distributes them into. */
const BUCKETS = 1 << 16;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export class TermHash {
  private chars = new Uint16Array(4096);
  private charCount = 0;
  /** Code units of slot s are chars[starts[s]..starts[s+1]). */
  private starts = new Int32Array(1025);
  private hashes = new Int32Array(1024);
  /**
   * Open addressing, linear probing. An entry is one int: slot + 1 in the low
   * `slotBits` bits (EMPTY when free) and the top bits of the term's hash above
   * them, so most probes that miss never touch the term's characters, and the
   * table stays half the size of (hash, slot) pairs (fewer cache and TLB misses).
   */
  private table: Int32Array;
  private mask: number;
  /** log2(table entries): slot + 1 < entries / 2 + 2 always fits below it. */
  private slotBits: number;
  private slotMask: number;
  private count = 0;

  /** `expectedTerms` sizes the table up front when the number of terms is known (a merge knows it). */
  constructor(expectedTerms = 0) {
    let entries = 2048;
    while (entries < 2 * expectedTerms) entries *= 2;
    this.table = new Int32Array(entries);
    this.mask = entries - 1;
    this.slotBits = 31 - Math.clz32(entries);
    this.slotMask = entries - 1;
    if (expectedTerms > 1024) {
      this.starts = new Int32Array(expectedTerms + 1);
      this.hashes = new Int32Array(expectedTerms);
    }
  }

  /** Forgets every term, keeping the arrays for reuse (the next segment's terms). */
  clear(): void {
    this.rangeText = '';
    this.rangeStart = -1;
    this.table.fill(EMPTY);
    this.count = 0;
    this.charCount = 0;
  }

  /** Number of distinct terms. */
  get size(): number {
    return this.count;
  }

  /** The slot of `term`, adding it (as slot `size`) when new. Slots number terms by first appearance. */
  add(term: string): number {
    return this.addRange(term, 0, term.length);
  }

  /**
   * The last addRange's text, start, end and hash before its final mix: an
   * n-gram tokenizer's grams of one start come by increasing length, and
   * each one's hash continues the previous one's (1-8 grams of a plate hash
   * 28 code units instead of 84).
   */
  private rangeText = '';
  private rangeStart = -1;
  private rangeEnd = -1;
  private rangeState = 0;

  /** add() of `text.substring(start, end)`, reading the characters in place: no string is made for the term. */
  addRange(text: string, start: number, end: number): number {
    let h: number;
    let from: number;
    if (start === this.rangeStart && end > this.rangeEnd && text === this.rangeText) {
      h = this.rangeState;
      from = this.rangeEnd;
    } else {
      h = FNV_OFFSET;
      from = start;
    }
    for (let k = from; k < end; k++) h = Math.imul(h ^ text.charCodeAt(k), FNV_PRIME);
    this.rangeText = text;
    this.rangeStart = start;
    this.rangeEnd = end;
    this.rangeState = h;
    const hash = finishHash(h);
    const table = this.table;
    const shift = this.slotBits;
    const tag = hash >>> shift;
    let i = hash & this.mask;
    for (;;) {
      const entry = table[i];
      if (entry === EMPTY) break;
      if (entry >>> shift === tag) {
        const slot = (entry & this.slotMask) - 1;
        if (this.equalsRange(slot, text, start, end)) return slot;
      }
      i = (i + 1) & this.mask;
    }
    const slot = this.count++;
    this.append(slot, text, start, end, hash);
    table[i] = (tag << shift) | (slot + 1);
    if (this.count * 2 > this.mask + 1) this.grow();
    return slot;
  }

  /** Adds a term known not to be present yet (terms of a merged, already distinct dictionary). */
  addDistinct(term: string): number {
    const hash = hashOf(term);
    const table = this.table;
    let i = hash & this.mask;
    while (table[i] !== EMPTY) i = (i + 1) & this.mask;
    const slot = this.count++;
    this.append(slot, term, 0, term.length, hash);
    table[i] = ((hash >>> this.slotBits) << this.slotBits) | (slot + 1);
    if (this.count * 2 > this.mask + 1) this.grow();
    return slot;
  }

  /** The slot of `term`, or -1. */
  find(term: string): number {
    const hash = hashOf(term);
    const table = this.table;
    const shift = this.slotBits;
    const tag = hash >>> shift;
    let i = hash & this.mask;
    for (;;) {
      const entry = table[i];
      if (entry === EMPTY) return -1;
      if (entry >>> shift === tag) {
        const slot = (entry & this.slotMask) - 1;
        if (this.equals(slot, term)) return slot;
      }
      i = (i + 1) & this.mask;
    }
  }

  /** The terms of `slots`, in that order, packed into one list. */
  packedTerms(slots: Int32Array): PackedStrings {
    const starts = this.starts;
    let total = 0;
    for (let i = 0; i < slots.length; i++) total += starts[slots[i] + 1] - starts[slots[i]];
    const out = new Uint16Array(total);
    const outStarts = new Int32Array(slots.length + 1);
    const chars = this.chars;
    let at = 0;
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i];
      for (let k = starts[slot], end = starts[slot + 1]; k < end; k++) out[at++] = chars[k];
      outStarts[i + 1] = at;
    }
    return new PackedStrings(out, outStarts);
  }

  /**
   * Slots in ascending term order (UTF-16 code units, a shorter prefix first).
   *
   * Each term becomes a 64-bit key: its first code units, each replaced by its
   * rank among the code units in use (so a plate alphabet needs 7 bits a
   * character, not 16), then its slot in the low bits. A native sort of the keys
   * orders the terms; only terms that share every encoded code unit are then
   * compared as strings.
   */
  sortedSlots(): Int32Array {
    return runSteps(this.sortedSlotsInSteps());
  }

  /**
   * sortedSlots(), yielding every STEP_KEYS keys: a refresh of a large buffer
   * sorted a field's terms in one piece of its shard worker (issue 11). Up to
   * STEP_KEYS terms sort natively at once; more are distributed into buckets
   * by their keys' top bits and each bucket sorted natively, about STEP_KEYS
   * keys a step. Nothing may be added until the last step.
   */
  *sortedSlotsInSteps(): Generator<void, Int32Array> {
    const n = this.count;
    const slots = new Int32Array(n);
    if (n === 0) return slots;
    const chars = this.chars;
    const starts = this.starts;

    const inUse = new Uint8Array(65536);
    for (let i = 0; i < this.charCount; i++) inUse[chars[i]] = 1;
    // Rank 0 means "past the end of the term", which sorts before every code unit.
    const rank = new Int32Array(65536);
    let ranks = 0;
    for (let c = 0; c < 65536; c++) if (inUse[c] === 1) rank[c] = ++ranks;
    const charBits = Math.max(1, 32 - Math.clz32(ranks));
    const slotBits = Math.max(1, 32 - Math.clz32(n - 1));
    const encodedChars = Math.floor((64 - slotBits) / charBits);

    const keys = new BigUint64Array(n);
    let words = new Uint32Array(keys.buffer);
    const low = LITTLE_ENDIAN ? 0 : 1;
    const high = 1 - low;
    const encoding = { chars, starts, rank, charBits, slotBits, encodedChars, low, high };
    for (let from = 0; from < n; from += STEP_KEYS) {
      if (from > 0) yield;
      encodeKeys(words, from, Math.min(n, from + STEP_KEYS), encoding);
    }
    if (n <= STEP_KEYS) {
      keys.sort();
    } else {
      // Distributed by the top 16 bits of the key (a counting pass, then a scatter), then each
      // bucket sorted natively, buckets of about STEP_KEYS keys a step: one native sort's order.
      const ends = new Int32Array(BUCKETS);
      for (let from = 0; from < n; from += STEP_KEYS) {
        yield;
        countBuckets(words, from, Math.min(n, from + STEP_KEYS), high, ends);
      }
      for (let b = 1; b < BUCKETS; b++) ends[b]! += ends[b - 1]!;
      const fill = new Int32Array(BUCKETS);
      fill.set(ends.subarray(0, BUCKETS - 1), 1);
      const sorted = new BigUint64Array(n);
      const out = new Uint32Array(sorted.buffer);
      for (let from = 0; from < n; from += STEP_KEYS) {
        yield;
        scatter(words, out, from, Math.min(n, from + STEP_KEYS), high, fill);
      }
      let since = 0;
      for (let b = 0; b < BUCKETS; b++) {
        const lo = b === 0 ? 0 : ends[b - 1]!;
        const hi = ends[b]!;
        if (hi - lo > 1) sorted.subarray(lo, hi).sort();
        since += hi - lo;
        if (since >= STEP_KEYS) {
          since = 0;
          yield;
        }
      }
      words = out;
    }

    const slotMask = slotBits === 32 ? 0xffffffff : 2 ** slotBits - 1;
    for (let i = 0; i < n; i++) slots[i] = words[2 * i + low] & slotMask;
    yield;
    // Equal keys above the slot bits: terms that share their first `encodedChars` code units.
    let groupStart = 0;
    let sinceStep = 0;
    for (let i = 1; i <= n; i++) {
      const same =
        i < n &&
        words[2 * i + high] === words[2 * groupStart + high] &&
        words[2 * i + low] - (words[2 * i + low] & slotMask) === words[2 * groupStart + low] - (words[2 * groupStart + low] & slotMask);
      if (same) continue;
      if (i - groupStart > 1) {
        this.sortGroup(slots, groupStart, i, encodedChars);
        sinceStep += i - groupStart;
        if (sinceStep >= STEP_KEYS / 4) {
          sinceStep = 0;
          yield;
        }
      }
      groupStart = i;
    }
    return slots;
  }

  /** Sorts slots[lo..hi), terms that share their first `depth` code units. */
  private sortGroup(slots: Int32Array, lo: number, hi: number, depth: number): void {
    if (hi - lo > INSERTION_SORT_MAX) {
      const part = Array.from(slots.subarray(lo, hi));
      part.sort((a, b) => this.compareFrom(a, b, depth));
      slots.set(part, lo);
      return;
    }
    for (let i = lo + 1; i < hi; i++) {
      const slot = slots[i];
      let j = i - 1;
      while (j >= lo && this.compareFrom(slots[j], slot, depth) > 0) {
        slots[j + 1] = slots[j];
        j--;
      }
      slots[j + 1] = slot;
    }
  }

  private compareFrom(a: number, b: number, depth: number): number {
    const chars = this.chars;
    let i = this.starts[a] + depth;
    let j = this.starts[b] + depth;
    const endA = this.starts[a + 1];
    const endB = this.starts[b + 1];
    while (i < endA && j < endB) {
      const d = chars[i++] - chars[j++];
      if (d !== 0) return d;
    }
    return endA - i - (endB - j);
  }

  private equals(slot: number, term: string): boolean {
    return this.equalsRange(slot, term, 0, term.length);
  }

  private equalsRange(slot: number, text: string, from: number, to: number): boolean {
    const start = this.starts[slot];
    if (this.starts[slot + 1] - start !== to - from) return false;
    const chars = this.chars;
    for (let k = from, at = start; k < to; k++, at++) if (chars[at] !== text.charCodeAt(k)) return false;
    return true;
  }

  private append(slot: number, text: string, from: number, to: number, hash: number): void {
    const needed = this.charCount + (to - from);
    if (needed > this.chars.length) {
      const grown = new Uint16Array(Math.max(needed, this.chars.length * 2));
      grown.set(this.chars.subarray(0, this.charCount));
      this.chars = grown;
    }
    const chars = this.chars;
    let at = this.charCount;
    for (let k = from; k < to; k++) chars[at++] = text.charCodeAt(k);
    this.charCount = at;
    if (slot === this.hashes.length) {
      const grownHashes = new Int32Array(slot * 2);
      grownHashes.set(this.hashes);
      this.hashes = grownHashes;
      const grownStarts = new Int32Array(slot * 2 + 1);
      grownStarts.set(this.starts);
      this.starts = grownStarts;
    }
    this.starts[slot + 1] = at;
    this.hashes[slot] = hash;
  }

  /** Rehashing is random access over the whole table: grow fourfold while that is cheap in memory, then double. */
  private grow(): void {
    const entries = this.mask + 1;
    this.rehash(entries < LARGE_TABLE_ENTRIES ? 4 * entries : 2 * entries);
  }

  private rehash(entries: number): void {
    const table = new Int32Array(entries);
    const mask = entries - 1;
    const shift = 31 - Math.clz32(entries);
    for (let slot = 0; slot < this.count; slot++) {
      const hash = this.hashes[slot];
      let i = hash & mask;
      while (table[i] !== EMPTY) i = (i + 1) & mask;
      table[i] = ((hash >>> shift) << shift) | (slot + 1);
    }
    this.table = table;
    this.mask = mask;
    this.slotBits = shift;
    this.slotMask = mask;
  }
}

function hashOf(term: string): number {
  return fnvHash(term);
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** The final avalanche of FNV-1a over UTF-16 code units (see fnvHash), so the low bits index the table well. */
function finishHash(state: number): number {
  let h = state ^ (state >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  return h ^ (h >>> 13);
}

interface KeyEncoding {
  readonly chars: Uint16Array;
  readonly starts: Int32Array;
  readonly rank: Int32Array;
  readonly charBits: number;
  readonly slotBits: number;
  readonly encodedChars: number;
  readonly low: number;
  readonly high: number;
}

/** The 64-bit sort keys of slots [from, to) (see TermHash.sortedSlots), as two 32-bit words each. */
function encodeKeys(words: Uint32Array, from: number, to: number, e: KeyEncoding): void {
  const { chars, starts, rank, charBits, slotBits, encodedChars, low, high } = e;
  for (let s = from; s < to; s++) {
    const start = starts[s]!;
    const end = starts[s + 1]!;
    let hi = 0;
    let lo = 0;
    for (let k = 0; k < encodedChars; k++) {
      const code = start + k < end ? rank[chars[start + k]!]! : 0;
      hi = ((hi << charBits) | (lo >>> (32 - charBits))) >>> 0;
      lo = ((lo << charBits) | code) >>> 0;
    }
    hi = ((hi << slotBits) | (lo >>> (32 - slotBits))) >>> 0;
    lo = ((lo << slotBits) | s) >>> 0;
    words[2 * s + low] = lo;
    words[2 * s + high] = hi;
  }
}

/** Counts keys [from, to) into their bucket (top 16 bits), each count at the bucket's index. */
function countBuckets(words: Uint32Array, from: number, to: number, high: number, counts: Int32Array): void {
  for (let i = from; i < to; i++) counts[words[2 * i + high]! >>> 16]!++;
}

/** Moves keys [from, to) to their bucket's next place (`fill`) in `out`. */
function scatter(words: Uint32Array, out: Uint32Array, from: number, to: number, high: number, fill: Int32Array): void {
  for (let i = from; i < to; i++) {
    const at = fill[words[2 * i + high]! >>> 16]!++;
    out[2 * at] = words[2 * i]!;
    out[2 * at + 1] = words[2 * i + 1]!;
  }
}
