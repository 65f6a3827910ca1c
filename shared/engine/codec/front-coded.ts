/**
 * Sorted term dictionaries on disk, front-coded in blocks of 16 terms, 32 for
 * a text field (as Lucene's
 * terms dictionaries and sorted doc-values dictionaries are): the first entry
 * of a block is stored whole, each other one as the length of the prefix it
 * shares with the entry before it and the units after that prefix. Sorted
 * neighbours share most of their text (`http://img.example/land/12/…`,
 * n-grams of one plate), so a dictionary takes a fraction of its raw code
 * units. A block may also keep, per entry, the length of the tail it shares
 * with the entry before it (`…/1203.jpg`, `…/1207.jpg`: only `7` is new);
 * the writer codes each block both ways and keeps the shorter.
 *
 *   block   = u8 flags (1: entries have tails), entry*
 *   entry   = vint(units * 16 + min(prefix, 15)), [vint(prefix - 15)], [vint(tail)], code units
 *             units = count * 2 + wide (ByteWriter.units: one byte a unit, or two when wide);
 *             the term is the previous one's first `prefix` units, these units, and its last
 *             `tail` units (the first entry of a block: prefix 0, no tail, the whole term)
 *             [meta]  (with metadata: a term's postings pointers; the reader is given the
 *                      function that skips it)
 *   section = block*, pad to 4, u32 blockStart * (blocks + 1)  (relative to the first block)
 *
 * Short suffixes (an n-gram one unit longer than the one before it, the
 * next id) take one header byte for prefix and length together. A lookup
 * binary-searches the blocks' first entries and decodes at most one block;
 * reading entries in order decodes each entry once (the reader keeps its
 * place).
 */
import { ByteReader } from './byte-reader.ts';
import { ByteWriter } from './byte-writer.ts';
import type { TermDictionary } from '../segment/types.ts';

export const TERMS_PER_BLOCK = 16;
/**
 * Terms a block of a text field's dictionary: its terms are only looked up
 * and walked in order (no doc values read them by ordinal), so the longer
 * walk within a block costs a lookup about half a microsecond, and an
 * n-gram field's dictionary (most of a pass record's `.tim`) takes 7 % less.
 */
export const TEXT_TERMS_PER_BLOCK = 32;
/** Levels of a dictionary's binary search whose terms stay decoded (searchIndex). */
const CACHED_LEVELS = 10;

/** Where a dictionary lies in its file. */
export interface DictionaryLayout {
  readonly count: number;
  /** File offset of the first entry. */
  readonly at: number;
  /** File offset of the block starts (u32, 4-aligned). */
  readonly blocksAt: number;
  readonly withMeta: boolean;
  /** Terms a block (TERMS_PER_BLOCK or TEXT_TERMS_PER_BLOCK). */
  readonly blockSize: number;
}

/** Where bytes go: a segment file, or memory. */
export interface ByteSink {
  readonly position: number;
  write(bytes: Uint8Array): void;
  /** src[0..length): a write that needs no view of its own. */
  writePrefix(src: Uint8Array, length: number): void;
  align(alignment: number): void;
  writeArray(array: ArrayBufferView): void;
}

export class FrontCodedWriter {
  /** The block being gathered: its terms and where each one's metadata ends in `metas`. */
  private readonly terms: string[] = [];
  private readonly metas = new ByteWriter(256);
  private readonly metaEnds: number[] = [];
  private readonly block = new ByteWriter(1024);
  private readonly blockStarts: number[] = [];
  private count = 0;
  private readonly at: number;

  constructor(
    private readonly out: ByteSink,
    private readonly withMeta: boolean,
    readonly blockSize = TERMS_PER_BLOCK,
  ) {
    this.at = out.position;
  }

  /** Adds the next term (ascending, distinct), with its metadata bytes when the dictionary has them. */
  add(term: string, meta: Uint8Array | null = null): void {
    if (this.withMeta) {
      if (meta === null) throw new Error('a dictionary with metadata needs it for every term');
      this.metas.raw(meta);
    }
    this.metaEnds.push(this.metas.length);
    this.terms.push(term);
    this.count++;
    if (this.terms.length === this.blockSize) this.flushBlock();
  }

  /** Per entry of the gathered block: the prefix it shares with the one before, and the tail. */
  private prefixes = new Int32Array(64);
  private tails = new Int32Array(64);

  /** Writes the gathered block, with tails when that is shorter (the sizes are counted, the block coded once). */
  private flushBlock(): void {
    const terms = this.terms;
    if (terms.length === 0) return;
    this.blockStarts.push(this.out.position - this.at);
    if (this.prefixes.length < terms.length) {
      this.prefixes = new Int32Array(2 * terms.length);
      this.tails = new Int32Array(2 * terms.length);
    }
    // Bytes tails save (the units they leave out) less what they cost (a vint each).
    let gain = 0;
    let prev = '';
    for (let k = 0; k < terms.length; k++) {
      const term = terms[k]!;
      let prefix = 0;
      let tail = 0;
      if (k > 0) {
        const n = Math.min(prev.length, term.length);
        while (prefix < n && prev.charCodeAt(prefix) === term.charCodeAt(prefix)) prefix++;
        const most = n - prefix;
        while (tail < most && prev.charCodeAt(prev.length - 1 - tail) === term.charCodeAt(term.length - 1 - tail)) tail++;
        gain += tail - (tail < 128 ? 1 : 2);
      }
      this.prefixes[k] = prefix;
      this.tails[k] = tail;
      prev = term;
    }
    const e = this.block;
    this.encode(e, gain > 0);
    this.out.writePrefix(e.bytes, e.length);
    this.terms.length = 0;
    this.metaEnds.length = 0;
    this.metas.clear();
  }

  private encode(e: ByteWriter, tails: boolean): void {
    e.clear();
    e.byte(tails ? 1 : 0);
    let metaAt = 0;
    const metas = this.metas.bytes;
    for (let k = 0; k < this.terms.length; k++) {
      const term = this.terms[k]!;
      const prefix = this.prefixes[k]!;
      const tail = tails ? this.tails[k]! : 0;
      const to = term.length - tail;
      let wide = 0;
      for (let c = prefix; c < to; c++) {
        if (term.charCodeAt(c) > 0xff) {
          wide = 1;
          break;
        }
      }
      const units = (to - prefix) * 2 + wide;
      e.vint(units * 16 + Math.min(prefix, 15));
      if (prefix >= 15) e.vint(prefix - 15);
      if (tails) e.vint(tail);
      e.unitsRaw(term, prefix, to, wide === 1);
      if (this.withMeta) {
        const metaEnd = this.metaEnds[k]!;
        e.raw(metas.subarray(metaAt, metaEnd));
        metaAt = metaEnd;
      }
    }
  }

  get size(): number {
    return this.count;
  }

  finish(): DictionaryLayout {
    this.flushBlock();
    this.blockStarts.push(this.out.position - this.at);
    this.out.align(4);
    const blocksAt = this.out.position;
    this.out.writeArray(Uint32Array.from(this.blockStarts));
    return { count: this.count, at: this.at, blocksAt, withMeta: this.withMeta, blockSize: this.blockSize };
  }
}

/** Moves past one entry's term (not its metadata). */
export function skipTermText(r: ByteReader, tails: boolean): void {
  const h = r.vint();
  if ((h & 15) === 15) r.vint();
  if (tails) r.vint();
  const units = h >>> 4;
  r.pos += (units & 1) === 1 ? units - 1 : units >>> 1;
}

/** An in-memory ByteSink (tests; small dictionaries). */
export class MemorySink implements ByteSink {
  readonly buffer = new ByteWriter(1024);
  get position(): number {
    return this.buffer.length;
  }
  write(bytes: Uint8Array): void {
    this.buffer.raw(bytes);
  }
  writePrefix(src: Uint8Array, length: number): void {
    this.buffer.raw(src.subarray(0, length));
  }
  align(alignment: number): void {
    this.buffer.align(alignment);
  }
  writeArray(array: ArrayBufferView): void {
    this.buffer.raw(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
  }
}

export class FrontCodedDictionary implements TermDictionary {
  readonly length: number;
  /** Terms a block. */
  readonly blockSize: number;
  private readonly blockStarts: Uint32Array;
  private readonly reader: ByteReader;
  private readonly skipMeta: ((r: ByteReader) => void) | null;
  /** The entry decoded last, where its bytes end and (with metadata) where its metadata starts. */
  private lastIndex = -1;
  private lastTerm = '';
  private lastEnd = 0;
  private lastMeta = 0;
  private lastTails = false;

  /**
   * `bytes` is the whole file (a mapped view); `layout` says where the
   * dictionary lies in it; `skipMeta` moves past an entry's metadata (needed
   * when the dictionary has some).
   */
  constructor(bytes: Uint8Array, layout: DictionaryLayout, skipMeta: ((r: ByteReader) => void) | null = null) {
    this.length = layout.count;
    if (layout.withMeta && skipMeta === null) throw new Error('a dictionary with metadata is read with the function that skips it');
    this.skipMeta = layout.withMeta ? skipMeta : null;
    // Absent in the first format-5 segments, written before text fields' blocks grew: 16.
    this.blockSize = layout.blockSize ?? TERMS_PER_BLOCK;
    const blocks = Math.ceil(layout.count / this.blockSize) + 1;
    this.blockStarts = new Uint32Array(bytes.buffer, bytes.byteOffset + layout.blocksAt, blocks);
    this.reader = new ByteReader(bytes.subarray(layout.at, layout.blocksAt));
  }

  /** Decodes entries up to i, from the entry decoded last when it is an earlier one of the same block. */
  private seek(i: number): void {
    if (i === this.lastIndex) return;
    if (i < 0 || i >= this.length) throw new RangeError(`term ${i} of a dictionary of ${this.length}`);
    const r = this.reader;
    let at: number;
    let term: string;
    let tails: boolean;
    const size = this.blockSize;
    if (i > this.lastIndex && this.lastIndex >= 0 && Math.floor(i / size) === Math.floor(this.lastIndex / size)) {
      at = this.lastIndex + 1;
      term = this.lastTerm;
      r.pos = this.lastEnd;
      tails = this.lastTails;
    } else {
      at = i - (i % size);
      term = '';
      r.pos = this.blockStarts[at / size]!;
      tails = r.byte() === 1;
    }
    let meta = 0;
    for (; at <= i; at++) {
      const h = r.vint();
      let prefix = h & 15;
      if (prefix === 15) prefix += r.vint();
      const tail = tails ? r.vint() : 0;
      const units = h >>> 4;
      const middle = (units & 1) === 1 ? r.wideUnits(units >>> 1) : r.narrowUnits(units >>> 1);
      if (prefix === 0 && tail === 0) term = middle;
      else term = term.slice(0, prefix) + middle + (tail === 0 ? '' : term.slice(term.length - tail));
      if (this.skipMeta !== null) {
        meta = r.pos;
        this.skipMeta(r);
      }
    }
    this.lastIndex = i;
    this.lastTerm = term;
    this.lastEnd = r.pos;
    this.lastMeta = meta;
    this.lastTails = tails;
  }

  get(i: number): string {
    this.seek(i);
    return this.lastTerm;
  }

  /** The UTF-16 units of the entry `unitsOf` decoded last (valid up to `unitsLength`, until the next call). */
  units: Uint16Array = new Uint16Array(64);
  unitsLength = 0;
  private unitsIndex = -1;
  private unitsEnd = 0;
  private unitsTails = false;

  /**
   * Entry i's UTF-16 units into `units` (its length in `unitsLength`),
   * without a string: the fetch phase writes a hit's `_id` from them, where
   * `get` would build a string per entry decoded on the way (about half of
   * what rendering a scattered hit costs besides its source). Keeps its own
   * place, apart from `get`'s: reading entries in order decodes each once.
   */
  unitsOf(i: number): void {
    if (i === this.unitsIndex) return;
    if (i < 0 || i >= this.length) throw new RangeError(`term ${i} of a dictionary of ${this.length}`);
    const r = this.reader;
    const bytes = r.bytes;
    const size = this.blockSize;
    let at: number;
    let tails: boolean;
    let len: number;
    if (i > this.unitsIndex && this.unitsIndex >= 0 && Math.floor(i / size) === Math.floor(this.unitsIndex / size)) {
      at = this.unitsIndex + 1;
      r.pos = this.unitsEnd;
      tails = this.unitsTails;
      len = this.unitsLength;
    } else {
      at = i - (i % size);
      r.pos = this.blockStarts[at / size]!;
      tails = r.byte() === 1;
      len = 0;
    }
    // Invalidated first: a failed read must not leave a half-decoded entry looking current.
    this.unitsIndex = -1;
    for (; at <= i; at++) {
      const h = r.vint();
      let prefix = h & 15;
      if (prefix === 15) prefix += r.vint();
      const tail = tails ? r.vint() : 0;
      const n = h >>> 5;
      const wide = (h & 16) !== 0;
      const next = prefix + n + tail;
      if (next > this.units.length) {
        const grown = new Uint16Array(Math.max(next, 2 * this.units.length));
        grown.set(this.units.subarray(0, len));
        this.units = grown;
      }
      const u = this.units;
      // The old term's last `tail` units move behind the new middle first: the middle may overwrite them.
      if (tail > 0) u.copyWithin(prefix + n, len - tail, len);
      let p = r.pos;
      if (wide) {
        for (let k = 0; k < n; k++, p += 2) u[prefix + k] = bytes[p]! | (bytes[p + 1]! << 8);
      } else {
        for (let k = 0; k < n; k++, p++) u[prefix + k] = bytes[p]!;
      }
      r.pos = p;
      len = next;
      if (this.skipMeta !== null) this.skipMeta(r);
    }
    this.unitsLength = len;
    this.unitsEnd = r.pos;
    this.unitsTails = tails;
    this.unitsIndex = i;
  }

  /** Offset (in the reader's bytes) of entry i's metadata; read it with `metaReader`. */
  metaOffset(i: number): number {
    this.seek(i);
    return this.lastMeta;
  }

  /** Offset (in the reader's bytes) of block b (its flags byte, then its first entry). */
  blockStart(b: number): number {
    return this.blockStarts[b]!;
  }

  get metaBytes(): Uint8Array {
    return this.reader.bytes;
  }

  compare(i: number, s: string): number {
    const t = this.get(i);
    return t === s ? 0 : t < s ? -1 : 1;
  }

  equals(i: number, s: string): boolean {
    return this.get(i) === s;
  }

  startsWith(i: number, prefix: string): boolean {
    return this.get(i).startsWith(prefix);
  }

  private indexedFirst(b: number): string {
    let first = this.searchIndex.get(b);
    if (first === undefined) {
      first = this.blockFirst(b);
      this.searchIndex.set(b, first);
    }
    return first;
  }

  /** The first entry of block b. */
  private blockFirst(b: number): string {
    return this.get(b * this.blockSize);
  }

  /**
   * The first terms of the blocks the top levels of the binary search visit
   * (at most 2^CACHED_LEVELS of them): every lookup passes through them, so
   * they are decoded once, and the heap keeps a bounded index however large
   * the dictionary.
   */
  private readonly searchIndex = new Map<number, string>();

  lowerBound(s: string): number {
    const blocks = Math.ceil(this.length / this.blockSize);
    // The last block whose first entry is <= s holds the answer (or the answer is that block's successor's first).
    let lo = 0;
    let hi = blocks - 1;
    if (blocks === 0) return 0;
    if (s <= this.indexedFirst(0)) return 0;
    for (let level = 0; lo < hi; level++) {
      const mid = (lo + hi + 1) >>> 1;
      const first = level < CACHED_LEVELS ? this.indexedFirst(mid) : this.blockFirst(mid);
      if (first <= s) lo = mid;
      else hi = mid - 1;
    }
    const end = Math.min(this.length, (lo + 1) * this.blockSize);
    for (let i = lo * this.blockSize; i < end; i++) if (this.get(i) >= s) return i;
    return end;
  }

  find(s: string): number {
    const i = this.lowerBound(s);
    return i < this.length && this.get(i) === s ? i : -1;
  }
}
