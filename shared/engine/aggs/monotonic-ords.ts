/**
 * An ascending int sequence packed as Lucene's MonotonicBlockPackedWriter
 * packs OrdinalMap's segment → global ordinal maps: per block of 64 values a
 * line (first value, average step) and each value's distance above that line
 * in as many bits as the block's largest distance needs. A segment holding a
 * share 1/k of a shard's values steps about k global ordinals per term, and
 * wanders only about √64 steps off the line within a block: a 2.2M-term map
 * of 1.5M plates takes 6–10 bits a term where an Int32Array took 32
 * (issue 12: memory at 20M against 5M).
 */

const BLOCK_SHIFT = 6;
const BLOCK = 1 << BLOCK_SHIFT;

/** Bits to write `v` (≥ 0). */
function bitsFor(v: number): number {
  return v === 0 ? 0 : 32 - Math.clz32(v);
}

export class MonotonicOrds {
  /** Made by MonotonicOrdsWriter.finish. */
  constructor(
    readonly length: number,
    /** Per block: its line's value at the block's first position, less the block's smallest distance. */
    private readonly base: Int32Array,
    /** Per block: the line's step per position. */
    private readonly slope: Float32Array,
    /** Per block: bits per value (0: every value on the line). */
    private readonly bits: Uint8Array,
    /** Per block: its first word in `words` (a block of b bits takes 2b words). */
    private readonly start: Int32Array,
    private readonly words: Uint32Array,
  ) {}

  /** Packs `values` (ascending, non-negative, below 2^31). */
  static pack(values: ArrayLike<number>): MonotonicOrds {
    const w = new MonotonicOrdsWriter(values.length);
    for (let i = 0; i < values.length; i++) w.add(values[i]!);
    return w.finish();
  }

  /** Values 0, 1, …, length - 1 (one dictionary: its ordinals are the global ones), in a few bytes a block. */
  static identity(length: number): MonotonicOrds {
    const w = new MonotonicOrdsWriter(length);
    for (let i = 0; i < length; i++) w.add(i);
    return w.finish();
  }

  /** Value i (0 ≤ i < length). */
  get(i: number): number {
    const b = i >>> BLOCK_SHIFT;
    const j = i & (BLOCK - 1);
    const v = this.base[b]! + Math.floor(this.slope[b]! * j);
    const bits = this.bits[b]!;
    if (bits === 0) return v;
    const at = j * bits;
    const w = this.start[b]! + (at >>> 5);
    const shift = at & 31;
    let x = this.words[w]! >>> shift;
    if (shift + bits > 32) x |= this.words[w + 1]! << (32 - shift);
    return v + (x & ((1 << bits) - 1));
  }

  /** Bytes of its arrays. */
  get byteLength(): number {
    return this.base.byteLength + this.slope.byteLength + this.bits.byteLength + this.start.byteLength + this.words.byteLength;
  }
}

/** Packs an ascending sequence of known length, a value at a time (the global ordinals merge hands each segment's in order). */
export class MonotonicOrdsWriter {
  private readonly base: Int32Array;
  private readonly slope: Float32Array;
  private readonly bits: Uint8Array;
  private readonly start: Int32Array;
  /** Words of the blocks written; grown as needed, trimmed at the end. */
  private words: Uint32Array;
  private wordCount = 0;
  private readonly pending = new Float64Array(BLOCK);
  private n = 0;
  private count = 0;

  constructor(readonly length: number) {
    const blocks = Math.ceil(length / BLOCK);
    this.base = new Int32Array(blocks);
    this.slope = new Float32Array(blocks);
    this.bits = new Uint8Array(blocks);
    this.start = new Int32Array(blocks);
    // a first guess of 12 bits a value
    this.words = new Uint32Array(Math.max(2, Math.ceil((length * 12) / 32)));
  }

  add(value: number): void {
    if (this.count === this.length) throw new RangeError(`more than ${this.length} values`);
    this.pending[this.n++] = value;
    this.count++;
    if (this.n === BLOCK) this.flush();
  }

  private flush(): void {
    const n = this.n;
    if (n === 0) return;
    const b = ((this.count - 1) >>> BLOCK_SHIFT) | 0;
    const p = this.pending;
    const slope = Math.fround(n > 1 ? (p[n - 1]! - p[0]!) / (n - 1) : 0);
    let min = Infinity;
    for (let j = 0; j < n; j++) min = Math.min(min, p[j]! - Math.floor(slope * j));
    let max = 0;
    for (let j = 0; j < n; j++) max = Math.max(max, p[j]! - Math.floor(slope * j) - min);
    const bits = bitsFor(max);
    this.base[b] = min;
    this.slope[b] = slope;
    this.bits[b] = bits;
    this.start[b] = this.wordCount;
    if (bits > 0) {
      const need = this.wordCount + 2 * bits;
      if (need > this.words.length) {
        const grown = new Uint32Array(Math.max(need, Math.ceil(this.words.length * 1.5)));
        grown.set(this.words.subarray(0, this.wordCount));
        this.words = grown;
      }
      const words = this.words;
      const at0 = this.wordCount;
      for (let j = 0; j < n; j++) {
        const d = p[j]! - Math.floor(slope * j) - min;
        const at = j * bits;
        const w = at0 + (at >>> 5);
        const shift = at & 31;
        words[w] = (words[w]! | (d << shift)) >>> 0;
        if (shift + bits > 32) words[w + 1] = (words[w + 1]! | (d >>> (32 - shift))) >>> 0;
      }
      this.wordCount = need;
    }
    this.n = 0;
  }

  finish(): MonotonicOrds {
    if (this.count !== this.length) throw new RangeError(`${this.count} values of ${this.length}`);
    this.flush();
    const words = this.wordCount === this.words.length ? this.words : this.words.slice(0, this.wordCount);
    return new MonotonicOrds(this.length, this.base, this.slope, this.bits, this.start, words);
  }
}
