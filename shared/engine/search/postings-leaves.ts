/**
 * Leaves over the inverted index: a term scored with BM25 from shard-level
 * statistics, a synonym group (Lucene's SynonymQuery), and the union of the
 * postings of expanded terms (constant-score multi-term queries).
 */
import type { InvertedField, PostingsCursor, Segment } from '../segment/types.ts';
import { BM25_K1, bm25Idf, bm25Score, bm25WeightValue } from './bm25.ts';
import { lowestBit, wordsFor } from './doc-bits.ts';
import type { DocSet, SegmentEvalContext } from './doc-set.ts';
import type { SynonymQuery, TermQuery } from './query.ts';
import { takeBits } from './recycled-bits.ts';

const f = Math.fround;

/** Docs containing `term` in this segment (0 when none). */
export function termDocFreq(ctx: SegmentEvalContext, field: string, term: string): number {
  const inv = ctx.segment.inverted.get(field);
  const t = inv === undefined ? -1 : ctx.stats.termId(ctx.segment, field, term);
  return t < 0 ? 0 : inv!.docFreq(t);
}

/** The BM25 numerator factor of a term, from shard-level statistics. */
export function termWeightValue(ctx: SegmentEvalContext, field: string, term: string, boost: number): number {
  const fs = ctx.stats.field(field);
  return bm25WeightValue(boost, bm25Idf(ctx.stats.docFreq(field, term), fs.docCount));
}

/** `termId`: the term's id in this segment when the caller looked it up already (-1: absent). */
export function termSet(q: TermQuery, ctx: SegmentEvalContext, needScores: boolean, boost: number, termId?: number): DocSet {
  const seg = ctx.segment;
  const inv = seg.inverted.get(q.field);
  const bits = takeBits(wordsFor(seg.maxDoc));
  const t = termId ?? (inv === undefined ? -1 : ctx.stats.termId(seg, q.field, q.term));
  if (t < 0) return { bits, scores: null, constant: 0, mutable: true };
  // The cursor goes back to its field once read: a new one per segment and request cost two buffers each.
  const cursor = inv!.postings(t);
  if (!needScores) {
    if (cursor.bits !== null) bits.set(cursor.bits);
    else {
      while (cursor.nextBlock()) {
        const docs = cursor.docs;
        for (let i = 0, n = cursor.count; i < n; i++) {
          const d = docs[i]!;
          bits[d >>> 5]! |= 1 << (d & 31);
        }
      }
    }
    inv!.release?.(cursor);
    return { bits, scores: null, constant: 0, mutable: true };
  }
  const scores = ctx.arena.takeScores(seg.maxDoc);
  const wv = termWeightValue(ctx, q.field, q.term, boost);
  scoreTermInto(inv!, cursor, wv, ctx.stats.field(q.field).normCache, bits, scores);
  inv!.release?.(cursor);
  return { bits, scores, constant: 0, mutable: true };
}

/** Sets and scores the docs of a term's postings. */
function scoreTermInto(
  inv: InvertedField,
  cursor: PostingsCursor,
  wv: number,
  normCache: Float32Array,
  bits: Uint32Array,
  scores: Float64Array,
): void {
  const norms = inv.norms;
  if (norms === null) {
    const s = bm25Score(wv, 1, BM25_K1);
    while (cursor.nextBlock()) {
      const docs = cursor.docs;
      for (let i = 0, n = cursor.count; i < n; i++) {
        const d = docs[i]!;
        bits[d >>> 5]! |= 1 << (d & 31);
        scores[d] = s;
      }
    }
    return;
  }
  while (cursor.nextBlock()) {
    const docs = cursor.docs;
    const freqs = cursor.freqs;
    for (let i = 0, n = cursor.count; i < n; i++) {
      const d = docs[i]!;
      bits[d >>> 5]! |= 1 << (d & 31);
      scores[d] = f(f(wv * freqs[i]!) / f(freqs[i]! + normCache[norms[d]!]!));
    }
  }
}

export function synonymSet(q: SynonymQuery, ctx: SegmentEvalContext, needScores: boolean, boost: number): DocSet {
  const seg = ctx.segment;
  const inv = seg.inverted.get(q.field);
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  if (inv === undefined) return { bits, scores: null, constant: 0, mutable: true };
  const freqSum = needScores ? ctx.arena.takeScores(seg.maxDoc) : null;
  for (const term of q.terms) {
    const t = ctx.stats.termId(seg, q.field, term);
    if (t < 0) continue;
    const cursor = inv.postings(t);
    while (cursor.nextBlock()) {
      const docs = cursor.docs;
      const freqs = cursor.freqs;
      for (let i = 0, n = cursor.count; i < n; i++) {
        const d = docs[i]!;
        const w = d >>> 5;
        const m = 1 << (d & 31);
        if (freqSum !== null) {
          const fr = inv.norms === null ? 1 : freqs[i]!;
          if ((bits[w]! & m) === 0) freqSum[d] = fr;
          else freqSum[d] = freqSum[d]! + fr;
        }
        bits[w]! |= m;
      }
    }
  }
  if (freqSum === null) return { bits, scores: null, constant: 0, mutable: true };
  // SynonymWeight: one pseudo-term with the largest docFreq of its terms.
  let df = 0;
  for (const term of q.terms) df = Math.max(df, ctx.stats.docFreq(q.field, term));
  const fs = ctx.stats.field(q.field);
  const wv = bm25WeightValue(boost, bm25Idf(df, fs.docCount));
  const norms = inv.norms;
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    while (word !== 0) {
      const d = (w << 5) + lowestBit(word);
      word &= word - 1;
      const fr = inv.norms === null ? 1 : freqSum[d]!;
      freqSum[d] = bm25Score(wv, fr, norms === null ? BM25_K1 : fs.normCache[norms[d]!]!);
    }
  }
  return { bits, scores: freqSum, constant: 0, mutable: true };
}

export function unionPostings(seg: Segment, inv: InvertedField | undefined, termIds: readonly number[]): Uint32Array {
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  if (inv === undefined) return bits;
  let cursor: PostingsCursor | undefined;
  for (const t of termIds) {
    cursor = inv.postings(t, cursor);
    const dense = cursor.bits;
    if (dense !== null) {
      for (let w = 0; w < bits.length; w++) bits[w]! |= dense[w]!;
      continue;
    }
    while (cursor.nextBlock()) {
      const docs = cursor.docs;
      for (let i = 0, n = cursor.count; i < n; i++) {
        const d = docs[i]!;
        bits[d >>> 5]! |= 1 << (d & 31);
      }
    }
  }
  if (cursor !== undefined) inv.release?.(cursor);
  return bits;
}
