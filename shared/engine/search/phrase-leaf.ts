/**
 * Phrase queries over positions: exact (ExactPhraseScorer) and sloppy
 * (SloppyPhraseScorer), scored with BM25 over the summed idf of the terms.
 */
import { BM25_K1, bm25Idf, bm25Score, bm25WeightValue } from './bm25.ts';
import { wordsFor } from './doc-bits.ts';
import type { DocSet, SegmentEvalContext } from './doc-set.ts';
import { termRange } from './postings-leaves.ts';
import type { PhraseQuery } from './query.ts';

const f = Math.fround;

/** Exact phrase frequency (ExactPhraseScorer): occurrences of all terms at their offsets. */
function exactPhraseFreq(
  positions: Int32Array,
  starts: number[],
  ends: number[],
  offsets: readonly number[],
): number {
  let freq = 0;
  const n = starts.length;
  const cursor = starts.slice();
  outer: for (let i = starts[0]!; i < ends[0]!; i++) {
    const base = positions[i]! - offsets[0]!;
    for (let t = 1; t < n; t++) {
      const want = base + offsets[t]!;
      let c = cursor[t]!;
      while (c < ends[t]! && positions[c]! < want) c++;
      cursor[t] = c;
      if (c === ends[t]!) break outer;
      if (positions[c]! !== want) continue outer;
    }
    freq++;
  }
  return freq;
}

/**
 * Sloppy phrase frequency (SloppyPhraseScorer without the repeating-terms
 * special case): sum over minimal matches of 1 / (1 + matchLength).
 */
function sloppyPhraseFreq(
  positions: Int32Array,
  starts: number[],
  ends: number[],
  offsets: readonly number[],
  slop: number,
): number {
  const n = starts.length;
  const cur = starts.slice();
  const pos = new Array<number>(n);
  let end = -Infinity;
  for (let t = 0; t < n; t++) {
    pos[t] = positions[cur[t]!]! - offsets[t]!;
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
    if (cur[pp]! >= ends[pp]!) break;
    pos[pp] = positions[cur[pp]!]! - offsets[pp]!;
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
  if (inv === undefined || inv.positions === null || inv.positionStarts === null || q.terms.length === 0) return empty;
  const n = q.terms.length;
  const pStart: number[] = [];
  const pEnd: number[] = [];
  for (const term of q.terms) {
    const [s, e] = termRange(inv, term);
    if (s === e) return empty;
    pStart.push(s);
    pEnd.push(e);
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
  const docs = inv.postingDocs;
  const cursor = pStart.slice();
  const posStarts: number[] = new Array<number>(n);
  const posEnds: number[] = new Array<number>(n);
  for (let p0 = pStart[0]!; p0 < pEnd[0]!; p0++) {
    const d = docs[p0]!;
    let all = true;
    for (let t = 1; t < n; t++) {
      let c = cursor[t]!;
      while (c < pEnd[t]! && docs[c]! < d) c++;
      cursor[t] = c;
      if (c === pEnd[t]! || docs[c]! !== d) {
        all = false;
        break;
      }
    }
    if (!all) continue;
    posStarts[0] = inv.positionStarts[p0]!;
    posEnds[0] = inv.positionStarts[p0 + 1]!;
    for (let t = 1; t < n; t++) {
      posStarts[t] = inv.positionStarts[cursor[t]!]!;
      posEnds[t] = inv.positionStarts[cursor[t]! + 1]!;
    }
    const freq =
      q.slop === 0
        ? exactPhraseFreq(inv.positions, posStarts, posEnds, q.positions)
        : sloppyPhraseFreq(inv.positions, posStarts, posEnds, q.positions, q.slop);
    if (freq <= 0) continue;
    bits[d >>> 5]! |= 1 << (d & 31);
    if (scores !== null) scores[d] = bm25Score(wv, freq, inv.norms === null ? BM25_K1 : normCache[inv.norms[d]!]!);
  }
  return { bits, scores, constant: 0, mutable: true };
}
