/**
 * Phrase queries over positions: exact (ExactPhraseScorer) and sloppy
 * (SloppyPhraseScorer), scored with BM25 over the summed idf of the terms.
 */
import { BM25_K1, bm25Idf, bm25Score, bm25WeightValue } from './bm25.ts';
import { wordsFor } from './doc-bits.ts';
import type { DocSet, SegmentEvalContext } from './doc-set.ts';
import type { PostingsCursor } from '../segment/types.ts';
import type { PhraseQuery } from './query.ts';

const f = Math.fround;

/** Exact phrase frequency (ExactPhraseScorer): occurrences of all terms at their offsets. */
function exactPhraseFreq(positions: readonly Int32Array[], offsets: readonly number[]): number {
  let freq = 0;
  const n = positions.length;
  const cursor = new Array<number>(n).fill(0);
  const first = positions[0]!;
  outer: for (let i = 0; i < first.length; i++) {
    const base = first[i]! - offsets[0]!;
    for (let t = 1; t < n; t++) {
      const want = base + offsets[t]!;
      const list = positions[t]!;
      let c = cursor[t]!;
      while (c < list.length && list[c]! < want) c++;
      cursor[t] = c;
      if (c === list.length) break outer;
      if (list[c]! !== want) continue outer;
    }
    freq++;
  }
  return freq;
}

/**
 * Sloppy phrase frequency (SloppyPhraseScorer without the repeating-terms
 * special case): sum over minimal matches of 1 / (1 + matchLength).
 */
function sloppyPhraseFreq(positions: readonly Int32Array[], offsets: readonly number[], slop: number): number {
  const n = positions.length;
  const cur = new Array<number>(n).fill(0);
  const pos = new Array<number>(n);
  let end = -Infinity;
  for (let t = 0; t < n; t++) {
    pos[t] = positions[t]![0]! - offsets[t]!;
    if (pos[t]! > end) end = pos[t]!;
  }
  let freq = 0;
  const minIndex = (): number => {
    let best = 0;
    for (let t = 1; t < n; t++) if (pos[t]! < pos[best]!) best = t;
    return best;
  };
  const nextMin = (skip: number): number => {
    let best = Infinity;
    for (let t = 0; t < n; t++) if (t !== skip && pos[t]! < best) best = pos[t]!;
    return best;
  };
  let pp = minIndex();
  let matchLength = end - pos[pp]!;
  let next = nextMin(pp);
  while (true) {
    // advance pp
    cur[pp]!++;
    if (cur[pp]! >= positions[pp]!.length) break;
    pos[pp] = positions[pp]![cur[pp]!]! - offsets[pp]!;
    if (pos[pp]! > end) end = pos[pp]!;
    if (pos[pp]! > next) {
      if (matchLength <= slop) freq = f(freq + f(1 / (1 + matchLength)));
      pp = minIndex();
      next = nextMin(pp);
      matchLength = end - pos[pp]!;
    } else {
      const ml2 = end - pos[pp]!;
      if (ml2 < matchLength) matchLength = ml2;
    }
  }
  if (matchLength <= slop) freq = f(freq + f(1 / (1 + matchLength)));
  return freq;
}

export function phraseSet(q: PhraseQuery, ctx: SegmentEvalContext, needScores: boolean, boost: number): DocSet {
  const seg = ctx.segment;
  const inv = seg.inverted.get(q.field);
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  const empty: DocSet = { bits, scores: null, constant: 0, mutable: true };
  if (inv === undefined || !inv.hasPositions || q.terms.length === 0) return empty;
  const n = q.terms.length;
  const cursors: PostingsCursor[] = [];
  for (const term of q.terms) {
    const t = ctx.stats.termId(seg, q.field, term);
    if (t < 0) return empty;
    cursors.push(inv.postings(t));
  }
  const scores = needScores ? ctx.arena.takeScores(seg.maxDoc) : null;
  let wv = 0;
  if (needScores) {
    // PhraseWeight: the idf of a phrase is the sum of its terms' idfs.
    const fs = ctx.stats.field(q.field);
    let idf = 0;
    for (const term of q.terms) idf = f(idf + bm25Idf(ctx.stats.docFreq(q.field, term), fs.docCount));
    wv = bm25WeightValue(boost, idf);
  }
  const normCache = ctx.stats.field(q.field).normCache;
  const lead = cursors[0]!;
  const lists = new Array<Int32Array>(n);
  while (lead.nextBlock()) {
    const docs = lead.docs;
    block: for (let p0 = 0, count = lead.count; p0 < count; p0++) {
      const d = docs[p0]!;
      const at = new Array<number>(n);
      for (let t = 1; t < n; t++) {
        const i = cursors[t]!.advance(d);
        if (i < 0) break block;
        if (cursors[t]!.docs[i] !== d) continue block;
        at[t] = i;
      }
      lists[0] = lead.positions(p0);
      for (let t = 1; t < n; t++) lists[t] = cursors[t]!.positions(at[t]!);
      const freq = q.slop === 0 ? exactPhraseFreq(lists, q.positions) : sloppyPhraseFreq(lists, q.positions, q.slop);
      if (freq <= 0) continue;
      bits[d >>> 5]! |= 1 << (d & 31);
      if (scores !== null) scores[d] = bm25Score(wv, freq, inv.norms === null ? BM25_K1 : normCache[inv.norms[d]!]!);
    }
  }
  return { bits, scores, constant: 0, mutable: true };
}
