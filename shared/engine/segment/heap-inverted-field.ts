/**
 * The postings of a segment just built in memory by the indexing buffer,
 * behind the same interface as the mapped ones: flat arrays (docs and freqs
 * per posting, positions per token), read a block of 128 postings at a time
 * through subarray views. Such a segment lives only until it is written to
 * files (segment-writer.ts), and in unit tests.
 */
import type { PackedStrings } from './packed-strings.ts';
import { POSTINGS_BLOCK, type InvertedField, type PostingsCursor } from './types.ts';
import { freqsOneByOne } from './freqs-one-by-one.ts';

export interface HeapPostings {
  readonly terms: PackedStrings;
  /** Postings of term t are [postingStarts[t], postingStarts[t+1]). Length terms+1. */
  readonly postingStarts: Uint32Array;
  readonly postingDocs: Int32Array;
  /** Term frequency per posting (1 for fields indexed without them). */
  readonly postingFreqs: Int32Array;
  /** Text fields: positions of posting p are positions[positionStarts[p]..positionStarts[p+1]). */
  readonly positionStarts: Uint32Array | null;
  readonly positions: Int32Array | null;
  readonly norms: Uint8Array | null;
  readonly docCount: number;
  readonly sumTotalTermFreq: number;
}

export class HeapInvertedField implements InvertedField {
  readonly terms: PackedStrings;
  readonly hasPositions: boolean;
  readonly norms: Uint8Array | null;
  readonly docCount: number;
  readonly sumTotalTermFreq: number;

  constructor(readonly data: HeapPostings) {
    this.terms = data.terms;
    this.hasPositions = data.positions !== null;
    this.norms = data.norms;
    this.docCount = data.docCount;
    this.sumTotalTermFreq = data.sumTotalTermFreq;
  }

  docFreq(termId: number): number {
    return this.data.postingStarts[termId + 1]! - this.data.postingStarts[termId]!;
  }

  postings(termId: number, reuse?: PostingsCursor): PostingsCursor {
    const start = this.data.postingStarts[termId]!;
    const end = this.data.postingStarts[termId + 1]!;
    if (reuse instanceof HeapPostingsCursor && reuse.data === this.data) return reuse.reset(start, end);
    return new HeapPostingsCursor(this.data, start, end);
  }
}

class HeapPostingsCursor implements PostingsCursor {
  readonly bits = null;
  docFreq = 0;
  docs: Int32Array;
  freqs: Int32Array;
  count = 0;
  /** Posting index of the current block's first posting. */
  private at = 0;
  private upto = 0;
  private start = 0;
  private end = 0;

  constructor(
    readonly data: HeapPostings,
    start: number,
    end: number,
  ) {
    this.docs = data.postingDocs.subarray(0, 0);
    this.freqs = data.postingFreqs.subarray(0, 0);
    this.reset(start, end);
  }

  reset(start: number, end: number): this {
    this.start = start;
    this.end = end;
    this.docFreq = end - start;
    this.at = start - POSTINGS_BLOCK;
    this.count = 0;
    this.upto = 0;
    return this;
  }

  nextBlock(): boolean {
    const next = this.at + POSTINGS_BLOCK;
    if (next >= this.end) {
      this.at = this.end;
      this.count = 0;
      return false;
    }
    this.load(next);
    return true;
  }

  private load(at: number): void {
    this.at = at;
    const to = Math.min(this.end, at + POSTINGS_BLOCK);
    this.docs = this.data.postingDocs.subarray(at, to);
    this.freqs = this.data.postingFreqs.subarray(at, to);
    this.count = to - at;
    this.upto = 0;
  }

  advance(target: number): number {
    if (this.at < this.start && !this.nextBlock()) return -1;
    for (;;) {
      if (this.count === 0) return -1;
      if (this.docs[this.count - 1]! >= target) {
        let i = this.upto;
        while (this.docs[i]! < target) i++;
        this.upto = i;
        return i;
      }
      if (!this.nextBlock()) return -1;
    }
  }

  freqOf(target: number): number {
    const i = this.advance(target);
    if (i < 0) return -1;
    return this.docs[i] === target ? this.freqs[i]! : 0;
  }

  freqsOf(targets: Int32Array, n: number, out: Int32Array): void {
    freqsOneByOne(this, targets, n, out);
  }

  positions(i: number): Int32Array {
    const { positionStarts, positions } = this.data;
    if (positionStarts === null || positions === null) throw new Error('positions of a field indexed without them');
    const p = this.at + i;
    return positions.subarray(positionStarts[p]!, positionStarts[p + 1]!);
  }
}
