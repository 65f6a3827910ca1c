/**
 * Postings on disk (the `.doc` and `.pos` files), a term at a time:
 *
 *   term metadata (kept in the terms dictionary entry, see front-coded.ts):
 *     vint(docFreq * 2 + same), then
 *       a single posting:  [vint(doc)]            (same: the doc of the block's previous single-doc term)
 *                          with positions: vint(position * 2 + 1) when freq is 1 (the position stays
 *                          here), else vint(freq * 2) vint(posDelta)
 *       more:              [vint(docDelta * 2 + dense)] [vint(posDelta)]
 *                          (same: the very postings of the block's previous term of more than one
 *                          doc, at its docPointer: written once)
 *     the deltas from the previous term of the dictionary block that has them
 *     (the block's first term: from 0, i.e. absolute)
 *
 *   postings at docPointer (two or more docs):
 *     [dense: pad to 4, the term's docs as a bitset of maxDoc bits (u32 words)]
 *     [more than one block: pad to 4, u32 (lastDoc, nextBlockAt, nextBlockPosAt) per block but the last]
 *     full blocks of 128: u8 bits, packed (gap); [u8 bits, packed (freq - 1)]
 *     the last block (fewer than 128): vint(gap * 2 + (freq == 1)) [vint(freq) when freq != 1]
 *                                      (without freqs: vint(gap))
 *     gap = doc - previous doc - 1 (the first: doc itself)
 *
 *   positions at posPointer: per posting, its freq positions as deltas (the first from 0)
 *
 * A term in at least one doc in DENSE_FRACTION (an n-gram of one or two
 * characters) also keeps its docs as a bitset: a conjunction tests a
 * candidate with one bit instead of decoding the block that may hold it, and
 * a filter ORs words. A term that occurs in one doc (most long n-grams, every `_id`) keeps that doc
 * (and a single position) in its metadata and writes no postings, as Lucene's
 * pulsing did. Neighbouring terms often occur in the same docs (`a1234` and
 * `a12345` come from the same plates): a term whose docs (and freqs) are
 * those of the term before it points at the same postings, and a single-doc
 * term in the doc of the one before it does not repeat the doc. The skip
 * table lets a conjunction jump over the blocks of a common term (a plate's
 * single characters) to the block that may hold the doc it looks for.
 */
import { ByteReader } from './byte-reader.ts';
import { ByteWriter } from './byte-writer.ts';
import { bitsRequired, pack, packedBytes, unpack } from './bit-packing.ts';
import type { ByteSink, FrontCodedDictionary } from './front-coded.ts';
import { TERMS_PER_BLOCK, skipTermText } from './front-coded.ts';
import { POSTINGS_BLOCK, type PostingsCursor } from '../segment/types.ts';
import { popcount32 } from '../segment/bitset.ts';
import { freqsOneByOne } from '../segment/freqs-one-by-one.ts';

const SKIP_ENTRY_INTS = 3;
/** A term in at least 1/DENSE_FRACTION of a segment's docs keeps a bitset of them too (costs maxDoc/8 bytes: at most 4 bytes a posting). */
export const DENSE_FRACTION = 32;

/** Writes one field's postings; call startTerm, addPosting per doc, finishTerm per term, in dictionary order. */
export class PostingsWriter {
  private docs: Int32Array = new Int32Array(POSTINGS_BLOCK);
  private freqs: Int32Array = new Int32Array(POSTINGS_BLOCK);
  private positions: Int32Array = new Int32Array(256);
  private count = 0;
  private positionCount = 0;
  private readonly meta = new ByteWriter(32);
  private readonly block = new ByteWriter(4096);
  private readonly posBytes = new ByteWriter(4096);
  private readonly gaps = new Int32Array(POSTINGS_BLOCK);
  private termIndex = 0;
  private lastDocPointer = 0;
  private lastPosPointer = 0;
  /** The doc of the dictionary block's last single-doc term (-1: none yet). */
  private lastSingleDoc = -1;
  /** The postings bytes of the block's last term of more than one doc, when they can be shared (one block, no bitset). */
  private readonly lastShared = new ByteWriter(256);
  private lastSharedValid = false;
  /** Totals for the field's statistics. */
  sumTotalTermFreq = 0;

  constructor(
    private readonly docOut: ByteSink,
    private readonly posOut: ByteSink | null,
    /** Docs of the segment being written (the width of dense terms' bitsets). */
    private readonly maxDoc: number,
    /** Terms a block of the dictionary the metadata goes to (pointers restart from 0 at each). */
    private readonly dictBlockSize = TERMS_PER_BLOCK,
  ) {}

  get withPositions(): boolean {
    return this.posOut !== null;
  }

  startTerm(): void {
    this.count = 0;
    this.positionCount = 0;
  }

  /**
   * The next doc of the term (ascending), with its positions (text fields;
   * `freq` of them from positions[from]: a segment in memory passes its flat
   * array rather than a view a posting).
   */
  addPosting(doc: number, freq: number, positions: ArrayLike<number> | null, from = 0): void {
    if (this.count === this.docs.length) {
      this.docs = grow(this.docs);
      this.freqs = grow(this.freqs);
    }
    this.docs[this.count] = doc;
    this.freqs[this.count] = freq;
    this.count++;
    if (this.posOut !== null && positions !== null) {
      while (this.positionCount + freq > this.positions.length) this.positions = grow(this.positions);
      for (let k = 0; k < freq; k++) this.positions[this.positionCount++] = positions[from + k]!;
    }
    this.sumTotalTermFreq += freq;
  }

  /** Writes the term's postings; returns its metadata for the dictionary (valid until the next call). */
  finishTerm(): Uint8Array {
    const n = this.count;
    if (n === 0) throw new Error('a term without postings');
    const m = this.meta;
    m.clear();
    const firstOfBlock = this.termIndex % this.dictBlockSize === 0;
    this.termIndex++;
    if (firstOfBlock) {
      this.lastDocPointer = 0;
      this.lastPosPointer = 0;
      this.lastSingleDoc = -1;
      this.lastSharedValid = false;
    }
    const withPositions = this.posOut !== null;
    if (n === 1) {
      const doc = this.docs[0]!;
      const same = doc === this.lastSingleDoc;
      m.vint(2 + (same ? 1 : 0));
      if (!same) m.vint(doc);
      this.lastSingleDoc = doc;
      if (!withPositions) return m.view();
      const freq = this.freqs[0]!;
      if (freq === 1) {
        m.vint(this.positions[0]! * 2 + 1);
        return m.view();
      }
      const posPointer = this.posOut!.position;
      this.writePositions();
      m.vint(freq * 2);
      m.vint(posPointer - this.lastPosPointer);
      this.lastPosPointer = posPointer;
      return m.view();
    }
    const posPointer = withPositions ? this.posOut!.position : 0;
    if (withPositions) this.writePositions();
    const dense = n * DENSE_FRACTION >= this.maxDoc;
    const blocks = this.encodeBlocks(withPositions);
    const b = this.block;
    const shareable = !dense && blocks === 1;
    if (shareable && this.lastSharedValid && b.length === this.lastShared.length && equalBytes(b.bytes, this.lastShared.bytes, b.length)) {
      m.vint(n * 2 + 1);
    } else {
      const docPointer = this.writeDocs(blocks, dense);
      m.vint(n * 2);
      m.vint((docPointer - this.lastDocPointer) * 2 + (dense ? 1 : 0));
      this.lastDocPointer = docPointer;
      this.lastSharedValid = shareable;
      if (shareable) {
        this.lastShared.clear();
        this.lastShared.raw(b.view());
      }
    }
    this.blockPosEnds.length = 0;
    if (withPositions) {
      m.vint(posPointer - this.lastPosPointer);
      this.lastPosPointer = posPointer;
    }
    return m.view();
  }

  /**
   * Writes the term's positions, posting after posting; also records where
   * each block's positions start.
   */
  private writePositions(): void {
    this.encodePositions();
    const p = this.posBytes;
    this.posOut!.writePrefix(p.bytes, p.length);
  }

  /**
   * writePositions' loop, ending with it: any property read after the loop
   * deopted on every call (V8 entered the loop's cached OSR code, compiled
   * before the read had run once, and kept it after each deopt).
   */
  private encodePositions(): void {
    const p = this.posBytes;
    p.clear();
    let at = 0;
    for (let i = 0; i < this.count; i++) {
      let prev = 0;
      for (let k = 0; k < this.freqs[i]!; k++) {
        const pos = this.positions[at++]!;
        p.vint(pos - prev);
        prev = pos;
      }
      if ((i + 1) % POSTINGS_BLOCK === 0) this.blockPosEnds.push(p.length);
    }
  }

  private readonly blockPosEnds: number[] = [];

  /** Encodes the term's blocks into `block` (recording where each ends); returns how many. */
  private encodeBlocks(withFreqs: boolean): number {
    const n = this.count;
    const b = this.block;
    b.clear();
    this.blockEnds.length = 0;
    let prev = -1;
    for (let start = 0; start < n; start += POSTINGS_BLOCK) {
      const end = Math.min(n, start + POSTINGS_BLOCK);
      if (end - start === POSTINGS_BLOCK) {
        const gaps = this.gaps;
        for (let i = start; i < end; i++) {
          gaps[i - start] = this.docs[i]! - prev - 1;
          prev = this.docs[i]!;
        }
        this.packInto(b, gaps);
        if (withFreqs) {
          for (let i = start; i < end; i++) gaps[i - start] = this.freqs[i]! - 1;
          this.packInto(b, gaps);
        }
      } else {
        for (let i = start; i < end; i++) {
          const gap = this.docs[i]! - prev - 1;
          prev = this.docs[i]!;
          if (withFreqs) {
            const freq = this.freqs[i]!;
            b.vint(gap * 2 + (freq === 1 ? 1 : 0));
            if (freq !== 1) b.vint(freq);
          } else {
            b.vint(gap);
          }
        }
      }
      this.blockEnds.push(b.length);
    }
    return this.blockEnds.length;
  }

  private readonly blockEnds: number[] = [];

  /** Writes bitset (dense terms), skip table and the encoded blocks; returns the docPointer. */
  private writeDocs(blocks: number, dense: boolean): number {
    const n = this.count;
    const b = this.block;
    const out = this.docOut;
    let bitsPointer = -1;
    if (dense) {
      out.align(4);
      bitsPointer = out.position;
      const bits = new Uint32Array((this.maxDoc + 31) >>> 5);
      for (let i = 0; i < n; i++) {
        const d = this.docs[i]!;
        bits[d >>> 5]! |= 1 << (d & 31);
      }
      out.writeArray(bits);
    }
    if (blocks > 1) {
      out.align(4);
      const docPointer = bitsPointer >= 0 ? bitsPointer : out.position;
      const skip = new Uint32Array((blocks - 1) * SKIP_ENTRY_INTS);
      for (let k = 0; k < blocks - 1; k++) {
        skip[k * SKIP_ENTRY_INTS] = this.docs[(k + 1) * POSTINGS_BLOCK - 1]!;
        skip[k * SKIP_ENTRY_INTS + 1] = this.blockEnds[k]!;
        skip[k * SKIP_ENTRY_INTS + 2] = this.blockPosEnds[k] ?? 0;
      }
      out.writeArray(skip);
      out.writePrefix(b.bytes, b.length);
      return docPointer;
    }
    const docPointer = bitsPointer >= 0 ? bitsPointer : out.position;
    out.writePrefix(b.bytes, b.length);
    return docPointer;
  }

  private packInto(b: ByteWriter, values: Int32Array): void {
    const bits = bitsRequired(values, POSTINGS_BLOCK);
    b.byte(bits);
    const bytes = packedBytes(POSTINGS_BLOCK, bits);
    b.reserve(bytes);
    b.length = pack(values, POSTINGS_BLOCK, bits, b.bytes, b.length);
  }
}

function equalBytes(a: Uint8Array, b: Uint8Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

function grow(a: Int32Array): Int32Array {
  const next = new Int32Array(a.length * 2);
  next.set(a);
  return next;
}

/** What a term's metadata says. */
export interface TermPostingsMeta {
  docFreq: number;
  docPointer: number;
  posPointer: number;
  /** For docFreq 1: the doc and its freq, and its position when it has one only (else -1: in the positions file). */
  singleDoc: number;
  singleFreq: number;
  singlePosition: number;
  /** The postings start with a bitset of the term's docs. */
  dense: boolean;
}

/** Moves past one term's metadata (the dictionary walks entries without reading them). */
export function skipTermMeta(r: ByteReader, withPositions: boolean): void {
  const code = r.vint();
  const same = (code & 1) === 1;
  if (code >>> 1 === 1) {
    if (!same) r.vint();
    if (withPositions && (r.vint() & 1) === 0) r.vint();
    return;
  }
  if (!same) r.vint();
  if (withPositions) r.vint();
}

/**
 * Reads terms' metadata from a dictionary with metadata. Pointers are deltas
 * within a dictionary block, so a term's are the sum over the block's entries
 * before it: the reader walks the entries' bytes without making their
 * strings, and keeps its place, so terms read in order (a merge) cost one
 * entry each.
 */
export class TermMetaReader {
  private readonly r: ByteReader;
  private lastT = -1;
  private lastEnd = 0;
  private docPointer = 0;
  private posPointer = 0;
  /** Per dictionary block, as the walk goes: whether entries have tails, the last single doc, whether the last shared postings are dense. */
  private tails = false;
  private singleDoc = -1;
  private dense = false;

  constructor(
    private readonly dict: FrontCodedDictionary,
    private readonly withPositions: boolean,
  ) {
    this.r = new ByteReader(dict.metaBytes);
  }

  read(t: number, out: TermPostingsMeta): TermPostingsMeta {
    const size = this.dict.blockSize;
    const first = t - (t % size);
    const r = this.r;
    let j: number;
    if (this.lastT >= first && this.lastT < t) {
      j = this.lastT + 1;
      r.pos = this.lastEnd;
    } else {
      j = first;
      r.pos = this.dict.blockStart(first / size);
      this.tails = r.byte() === 1;
      this.docPointer = 0;
      this.posPointer = 0;
      this.singleDoc = -1;
      this.dense = false;
    }
    const withPositions = this.withPositions;
    const tails = this.tails;
    for (; j <= t; j++) {
      skipTermText(r, tails);
      const code = r.vint();
      const docFreq = code >>> 1;
      const same = (code & 1) === 1;
      if (docFreq === 1) {
        if (!same) this.singleDoc = r.vint();
        let freq = 1;
        let position = -1;
        if (withPositions) {
          const c = r.vint();
          if ((c & 1) === 1) {
            position = c >>> 1;
          } else {
            freq = c >>> 1;
            this.posPointer += r.vint();
          }
        }
        if (j === t) {
          out.singleDoc = this.singleDoc;
          out.singleFreq = freq;
          out.singlePosition = position;
          out.dense = false;
        }
      } else {
        if (!same) {
          const c = r.vint();
          this.docPointer += Math.floor(c / 2);
          this.dense = c % 2 === 1;
        }
        if (withPositions) this.posPointer += r.vint();
        if (j === t) {
          out.singleDoc = -1;
          out.singleFreq = 0;
          out.singlePosition = -1;
          out.dense = this.dense;
        }
      }
      if (j === t) out.docFreq = docFreq;
    }
    out.docPointer = this.docPointer;
    out.posPointer = this.posPointer;
    this.lastT = t;
    this.lastEnd = r.pos;
    return out;
  }

  /** Just the doc freq of term t. */
  docFreq(t: number): number {
    const r = this.r;
    r.pos = this.dict.metaOffset(t);
    return r.vint() >>> 1;
  }
}

/** Value i of a block packed at `bits` (at most 24) bits a value from src[at..). */
function readPacked(src: Uint8Array, at: number, bits: number, i: number, mask: number): number {
  const bit = i * bits;
  const b = at + (bit >>> 3);
  const word = src[b]! | (src[b + 1]! << 8) | (src[b + 2]! << 16) | (src[b + 3]! << 24);
  return (word >>> (bit & 7)) & mask;
}

/** A cursor over one term's postings in mapped `.doc` / `.pos` bytes. */
export class MappedPostingsCursor implements PostingsCursor {
  readonly docs = new Int32Array(POSTINGS_BLOCK);
  private readonly freqBuf = new Int32Array(POSTINGS_BLOCK);
  /** A full block's packed freqs are decoded when first asked for (an advance often needs none). */
  private freqsAt = -1;
  count = 0;
  docFreq = 0;
  bits: Uint32Array | null = null;
  private readonly doc: ByteReader;
  private readonly pos: ByteReader | null;
  private positionsOut = new Int32Array(16);
  /** The field that made this cursor (it may hand it out again, reset). */
  owner: unknown = null;
  private skip: Uint32Array | null = null;
  private dataStart = 0;
  private posStart = 0;
  private block = -1;
  private blocks = 0;
  private lastDoc = -1;
  /** Position of the current block's positions, and the posting whose positions come next there. */
  private blockPosAt = 0;
  private posPosting = 0;
  private upto = 0;
  private single = false;
  /** A single posting's only position, kept in the term's metadata (-1: in the positions file). */
  private singlePosition = -1;

  constructor(
    docBytes: Uint8Array,
    posBytes: Uint8Array | null,
    private readonly withFreqs: boolean,
    /** Words of a dense term's bitset: the segment's maxDoc in 32-bit words. */
    private readonly bitsWords = 0,
  ) {
    this.doc = new ByteReader(docBytes);
    this.pos = posBytes === null ? null : new ByteReader(posBytes);
    // A field without freqs reports 1 for every posting.
    if (!withFreqs) this.freqBuf.fill(1);
  }

  get freqs(): Int32Array {
    if (this.freqsAt >= 0) {
      const src = this.doc.bytes;
      const fbits = src[this.freqsAt]!;
      unpack(src, this.freqsAt + 1, fbits, this.freqBuf, POSTINGS_BLOCK);
      for (let i = 0; i < POSTINGS_BLOCK; i++) this.freqBuf[i]! += 1;
      this.freqsAt = -1;
    }
    return this.freqBuf;
  }

  reset(meta: TermPostingsMeta): this {
    this.docFreq = meta.docFreq;
    this.block = -1;
    this.count = 0;
    this.lastDoc = -1;
    this.upto = 0;
    this.posStart = meta.posPointer;
    this.single = meta.docFreq === 1;
    this.blocks = Math.ceil(meta.docFreq / POSTINGS_BLOCK);
    this.bits = null;
    this.freqsAt = -1;
    this.probeBlock = -1;
    this.rankWord = 0;
    this.rankCount = 0;
    if (this.single) {
      this.docs[0] = meta.singleDoc;
      this.freqBuf[0] = meta.singleFreq;
      this.singlePosition = meta.singlePosition;
      this.skip = null;
      return this;
    }
    const bytes = this.doc.bytes;
    let at = meta.docPointer;
    if (meta.dense) {
      this.bits = new Uint32Array(bytes.buffer, bytes.byteOffset + at, this.bitsWords);
      at += this.bitsWords * 4;
    }
    if (this.blocks > 1) {
      this.skip = new Uint32Array(bytes.buffer, bytes.byteOffset + at, (this.blocks - 1) * SKIP_ENTRY_INTS);
      this.dataStart = at + this.skip.byteLength;
    } else {
      this.skip = null;
      this.dataStart = at;
    }
    this.doc.pos = this.dataStart;
    return this;
  }

  nextBlock(): boolean {
    if (this.block + 1 >= this.blocks) {
      this.count = 0;
      this.block = this.blocks;
      return false;
    }
    this.block++;
    this.loadBlock();
    return true;
  }

  private loadBlock(): void {
    const k = this.block;
    this.upto = 0;
    this.posPosting = 0;
    this.blockPosAt = this.posStart + (k === 0 ? 0 : this.skip![(k - 1) * SKIP_ENTRY_INTS + 2]!);
    if (this.single) {
      this.count = 1;
      return;
    }
    const n = k < this.blocks - 1 ? POSTINGS_BLOCK : this.docFreq - k * POSTINGS_BLOCK;
    const r = this.doc;
    const docs = this.docs;
    const freqs = this.freqBuf;
    this.freqsAt = -1;
    let prev = this.lastDoc;
    if (n === POSTINGS_BLOCK) {
      const bits = r.byte();
      r.pos = unpack(r.bytes, r.pos, bits, docs, POSTINGS_BLOCK);
      for (let i = 0; i < POSTINGS_BLOCK; i++) {
        prev += docs[i]! + 1;
        docs[i] = prev;
      }
      if (this.withFreqs) {
        this.freqsAt = r.pos;
        const fbits = r.byte();
        r.pos += packedBytes(POSTINGS_BLOCK, fbits);
      }
    } else if (this.withFreqs) {
      for (let i = 0; i < n; i++) {
        const code = r.vint();
        prev += Math.floor(code / 2) + 1;
        docs[i] = prev;
        freqs[i] = code % 2 === 1 ? 1 : r.vint();
      }
    } else {
      for (let i = 0; i < n; i++) {
        prev += r.vint() + 1;
        docs[i] = prev;
      }
    }
    this.lastDoc = prev;
    this.count = n;
  }

  advance(target: number): number {
    if (this.block < 0 && !this.nextBlock()) return -1;
    for (;;) {
      if (this.count === 0) return -1;
      if (this.docs[this.count - 1]! >= target) {
        let i = this.upto;
        while (this.docs[i]! < target) i++;
        this.upto = i;
        return i;
      }
      const skip = this.skip;
      if (skip !== null) {
        // Blocks k whose last doc is below the target are skipped unread.
        let k = this.block + 1;
        const last = this.blocks - 1;
        while (k < last && skip[k * SKIP_ENTRY_INTS]! < target) k++;
        if (k > this.block + 1) {
          this.doc.pos = this.dataStart + skip[(k - 1) * SKIP_ENTRY_INTS + 1]!;
          this.lastDoc = skip[(k - 1) * SKIP_ENTRY_INTS]!;
          this.block = k;
          this.loadBlock();
          continue;
        }
      }
      if (!this.nextBlock()) return -1;
    }
  }

  /*
   * Probing state: the block being probed (-1: none yet); whether it was
   * loaded whole (a partial last block, or gaps wider than 24 bits), else
   * where its packed gaps and freqs start, the gaps' width, how many are
   * decoded and the last doc decoded.
   */
  private probeBlock = -1;
  private probeWhole = false;
  private probeDocsAt = 0;
  private probeBits = 0;
  private probeFreqsAt = 0;
  private probeDecoded = 0;
  private probeDoc = -1;

  /** A dense term's rank so far: the set bits of `bits` in words [0, rankWord). */
  private rankWord = 0;
  private rankCount = 0;

  freqOf(target: number): number {
    return this.bits !== null ? this.denseFreqOf(target, this.bits) : this.probe(target);
  }

  freqsOf(targets: Int32Array, n: number, out: Int32Array): void {
    const bits = this.bits;
    if (bits === null || !this.withFreqs) {
      freqsOneByOne(this, targets, n, out);
      return;
    }
    // denseFreqOf over the targets in one loop: the rank and the block's freqs kept in locals.
    const src = this.doc.bytes;
    const skip = this.skip;
    let word = this.rankWord;
    let rank = this.rankCount;
    let block = -1;
    let freqsAt = 0;
    let fbits = 0;
    let direct = false;
    for (let k = 0; k < n; k++) {
      const d = targets[k]!;
      const w = d >>> 5;
      if (w < word) {
        word = 0;
        rank = 0;
      }
      while (word < w) rank += popcount32(bits[word++]!);
      const b = bits[w]!;
      const bit = 1 << (d & 31);
      if ((b & bit) === 0) {
        out[k] = 0;
        continue;
      }
      const i = rank + popcount32(b & (bit - 1));
      const kb = Math.floor(i / POSTINGS_BLOCK);
      if (kb !== block) {
        block = kb;
        const full = kb < this.blocks - 1 || this.docFreq - kb * POSTINGS_BLOCK === POSTINGS_BLOCK;
        const at = kb === 0 ? this.dataStart : this.dataStart + skip![(kb - 1) * SKIP_ENTRY_INTS + 1]!;
        freqsAt = full ? at + 1 + packedBytes(POSTINGS_BLOCK, src[at]!) : 0;
        fbits = full ? src[freqsAt]! : 0;
        // A partial last block is vint-coded, wide freqs are not read packed: the sequential probe reads those.
        direct = full && fbits <= 24;
      }
      out[k] = direct ? (fbits === 0 ? 0 : readPacked(src, freqsAt + 1, fbits, i - kb * POSTINGS_BLOCK, (1 << fbits) - 1)) + 1 : Math.max(0, this.probe(d));
    }
    this.rankWord = word;
    this.rankCount = rank;
  }

  /** freqOf by decoding the gaps of the target's block up to it. */
  private probe(target: number): number {
    if (this.single) {
      const d = this.docs[0]!;
      return d === target ? this.freqBuf[0]! : d > target ? 0 : -1;
    }
    const last = this.blocks - 1;
    const skip = this.skip;
    let k = this.probeBlock;
    if (k < 0 || (k < last && skip![k * SKIP_ENTRY_INTS]! < target)) {
      // The first block whose last doc reaches the target (the last block if none does).
      k = k < 0 ? 0 : k + 1;
      while (k < last && skip![k * SKIP_ENTRY_INTS]! < target) k++;
      this.enterProbeBlock(k, last);
    }
    if (this.probeWhole) {
      if (this.docs[this.count - 1]! < target) return -1;
      let i = this.upto;
      while (this.docs[i]! < target) i++;
      this.upto = i;
      return this.docs[i] === target ? this.freqs[i]! : 0;
    }
    const src = this.doc.bytes;
    const bits = this.probeBits;
    const mask = (1 << bits) - 1;
    let doc = this.probeDoc;
    let i = this.probeDecoded;
    while (doc < target && i < POSTINGS_BLOCK) {
      doc += (bits === 0 ? 0 : readPacked(src, this.probeDocsAt, bits, i, mask)) + 1;
      i++;
    }
    this.probeDoc = doc;
    this.probeDecoded = i;
    if (doc < target) return -1;
    if (doc !== target) return 0;
    if (!this.withFreqs) return 1;
    const fbits = src[this.probeFreqsAt]!;
    return (fbits === 0 ? 0 : readPacked(src, this.probeFreqsAt + 1, fbits, i - 1, (1 << fbits) - 1)) + 1;
  }

  /**
   * freqOf of a term that keeps a bitset: the target's place in the postings
   * is the number of set bits before it (counted on from the last target),
   * which names its block and slot, and a full block's freq is read from its
   * packed freqs directly, without decoding the gaps before it (a probe of an
   * n-gram's single character decoded about 64 gaps).
   */
  private denseFreqOf(target: number, bits: Uint32Array): number {
    const w = target >>> 5;
    if (w < this.rankWord) {
      this.rankWord = 0;
      this.rankCount = 0;
    }
    let rank = this.rankCount;
    for (let v = this.rankWord; v < w; v++) rank += popcount32(bits[v]!);
    this.rankWord = w;
    this.rankCount = rank;
    const bit = 1 << (target & 31);
    // Postings before the target: the set bits below it in its word too.
    const i = rank + popcount32(bits[w]! & (bit - 1));
    if ((bits[w]! & bit) === 0) return i >= this.docFreq ? -1 : 0;
    if (!this.withFreqs) return 1;
    const k = Math.floor(i / POSTINGS_BLOCK);
    const full = k < this.blocks - 1 || this.docFreq - k * POSTINGS_BLOCK === POSTINGS_BLOCK;
    // A partial last block is vint-coded: the sequential probe reads it.
    if (!full) return this.probe(target);
    const src = this.doc.bytes;
    const at = k === 0 ? this.dataStart : this.dataStart + this.skip![(k - 1) * SKIP_ENTRY_INTS + 1]!;
    const freqsAt = at + 1 + packedBytes(POSTINGS_BLOCK, src[at]!);
    const fbits = src[freqsAt]!;
    if (fbits > 24) return this.probe(target);
    return (fbits === 0 ? 0 : readPacked(src, freqsAt + 1, fbits, i - k * POSTINGS_BLOCK, (1 << fbits) - 1)) + 1;
  }

  private enterProbeBlock(k: number, last: number): void {
    const skip = this.skip;
    const at = k === 0 ? this.dataStart : this.dataStart + skip![(k - 1) * SKIP_ENTRY_INTS + 1]!;
    const base = k === 0 ? -1 : skip![(k - 1) * SKIP_ENTRY_INTS]!;
    const full = k < last || this.docFreq - k * POSTINGS_BLOCK === POSTINGS_BLOCK;
    const src = this.doc.bytes;
    this.probeBlock = k;
    if (full && src[at]! <= 24) {
      this.probeWhole = false;
      this.probeBits = src[at]!;
      this.probeDocsAt = at + 1;
      this.probeFreqsAt = this.probeDocsAt + packedBytes(POSTINGS_BLOCK, this.probeBits);
      this.probeDecoded = 0;
      this.probeDoc = base;
      return;
    }
    this.probeWhole = true;
    this.doc.pos = at;
    this.lastDoc = base;
    this.block = k;
    this.loadBlock();
  }

  positions(i: number): Int32Array {
    const r = this.pos;
    if (r === null) throw new Error('positions of a field indexed without them');
    const freq = this.freqs[i]!;
    if (this.single && this.singlePosition >= 0) {
      this.positionsOut[0] = this.singlePosition;
      return this.positionsOut.subarray(0, 1);
    }
    if (i < this.posPosting) {
      this.posPosting = 0;
      r.pos = this.blockPosAt;
    } else if (this.posPosting === 0) {
      r.pos = this.blockPosAt;
    }
    for (; this.posPosting < i; this.posPosting++) {
      for (let k = this.freqs[this.posPosting]!; k > 0; k--) r.vint();
    }
    if (this.positionsOut.length < freq) this.positionsOut = new Int32Array(Math.max(freq, 2 * this.positionsOut.length));
    const out = this.positionsOut;
    let prev = 0;
    for (let k = 0; k < freq; k++) {
      prev += r.vint();
      out[k] = prev;
    }
    this.posPosting = i + 1;
    return out.subarray(0, freq);
  }
}
