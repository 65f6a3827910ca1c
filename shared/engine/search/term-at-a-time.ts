/**
 * Boolean combinations of term queries evaluated term at a time: postings are
 * walked one term after the other, scores accumulate per doc in a reusable
 * array and a per-doc counter tracks how many clauses matched. This is how a
 * `match` query (a bool of its analyzed terms) runs.
 */
import type { InvertedField } from '../segment/types.ts';
import { BM25_K1, bm25Score } from './bm25.ts';
import { lowestBit, wordsFor } from './doc-bits.ts';
import { emptySet, roundScores } from './doc-set.ts';
import type { DocSet, SegmentEvalContext } from './doc-set.ts';
import { termRange, termWeightValue } from './postings-leaves.ts';
import type { Query, TermQuery } from './query.ts';

const f = Math.fround;

export function isPostingsLeaf(q: Query): q is TermQuery {
  return q.kind === 'term';
}

/** First position p >= from in docs[from, end) with docs[p] >= target (galloping search). */
function advance(docs: Int32Array, from: number, end: number, target: number): number {
  if (from >= end || docs[from]! >= target) return from;
  let lo = from;
  let step = 1;
  let hi = from + 1;
  while (hi < end && docs[hi]! < target) {
    lo = hi;
    step <<= 1;
    hi = lo + step;
  }
  if (hi > end) hi = end;
  while (lo + 1 < hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid]! < target) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** What scoring one term's postings needs (zeros when not scoring). */
function termScoring(
  ctx: SegmentEvalContext,
  q: TermQuery,
  norms: Uint8Array | null,
  boost: number,
  needScores: boolean,
): { wv: number; normCache: Float32Array | null; constScore: number } {
  if (!needScores) return { wv: 0, normCache: null, constScore: 0 };
  const wv = termWeightValue(ctx, q.field, q.term, f(boost * q.boost));
  return { wv, normCache: ctx.stats.field(q.field).normCache, constScore: norms === null ? bm25Score(wv, 1, BM25_K1) : 0 };
}

/**
 * Conjunction of term queries, rarest term first: its docs are the candidates,
 * and each further term (in increasing postings length) keeps the candidates it
 * also contains, found by galloping through its postings, adding its score.
 * The cost follows the rarest term, not the commonest: an n-gram fragment's
 * single characters have huge postings but are only probed. `restrict` (the
 * bool's filters, when it has some) drops candidates before any probing: the
 * result is the conjunction ANDed with it.
 */
export function termConjunction(
  terms: readonly TermQuery[],
  ctx: SegmentEvalContext,
  needScores: boolean,
  boost: number,
  restrict: Uint32Array | null = null,
): DocSet {
  const seg = ctx.segment;
  const ranges: { q: TermQuery; inv: InvertedField; start: number; end: number }[] = [];
  for (const q of terms) {
    const inv = seg.inverted.get(q.field);
    const [start, end] = termRange(inv, q.term);
    if (inv === undefined || start === end) return emptySet(ctx);
    ranges.push({ q, inv, start, end });
  }
  ranges.sort((a, b) => a.end - a.start - (b.end - b.start));
  const lead = ranges[0]!;
  const cand = new Int32Array(lead.end - lead.start);
  const acc = needScores ? new Float64Array(lead.end - lead.start) : null;
  let n = 0;
  {
    const { q, inv, start, end } = lead;
    const docs = inv.postingDocs;
    const norms = inv.norms;
    const freqs = inv.postingFreqs;
    const { wv, normCache, constScore } = termScoring(ctx, q, norms, boost, acc !== null);
    for (let p = start; p < end; p++) {
      const d = docs[p]!;
      if (restrict !== null && (restrict[d >>> 5]! & (1 << (d & 31))) === 0) continue;
      cand[n] = d;
      if (acc !== null) acc[n] = norms === null ? constScore : f(f(wv * freqs[p]!) / f(freqs[p]! + normCache![norms[d]!]!));
      n++;
    }
    if (n === 0) return emptySet(ctx);
  }
  for (let i = 1; i < ranges.length; i++) {
    const { q, inv, start, end } = ranges[i]!;
    const docs = inv.postingDocs;
    const norms = inv.norms;
    const freqs = inv.postingFreqs;
    const { wv, normCache, constScore } = termScoring(ctx, q, norms, boost, acc !== null);
    let kept = 0;
    let p = start;
    for (let k = 0; k < n; k++) {
      const d = cand[k]!;
      p = advance(docs, p, end, d);
      if (p === end) break;
      if (docs[p] !== d) continue;
      cand[kept] = d;
      if (acc !== null) {
        const s = norms === null ? constScore : f(f(wv * freqs[p]!) / f(freqs[p]! + normCache![norms[d]!]!));
        acc[kept] = acc[k]! + s;
      }
      kept++;
      p++;
    }
    n = kept;
    if (n === 0) return emptySet(ctx);
  }
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  const scores = acc === null ? null : ctx.arena.takeScores(seg.maxDoc);
  for (let k = 0; k < n; k++) {
    const d = cand[k]!;
    bits[d >>> 5]! |= 1 << (d & 31);
    if (scores !== null) scores[d] = f(acc![k]!);
  }
  return { bits, scores, constant: 0, mutable: true };
}

/**
 * Disjunction of term queries, term at a time, with an optional minimum number
 * of matching clauses: scores accumulate per doc, a counter per doc counts
 * matching clauses.
 */
export function termDisjunction(
  terms: readonly TermQuery[],
  ctx: SegmentEvalContext,
  needScores: boolean,
  boost: number,
  minShouldMatch: number,
): DocSet {
  const seg = ctx.segment;
  const maxDoc = seg.maxDoc;
  const bits = new Uint32Array(wordsFor(maxDoc));
  const scores = needScores ? ctx.arena.takeScores(maxDoc) : null;
  const counts = minShouldMatch > 1 ? ctx.arena.takeCounts(maxDoc) : null;
  for (const q of terms) {
    const inv = seg.inverted.get(q.field);
    const [start, end] = termRange(inv, q.term);
    if (inv === undefined || start === end) continue;
    const docs = inv.postingDocs;
    const norms = inv.norms;
    const freqs = inv.postingFreqs;
    const wv = needScores ? termWeightValue(ctx, q.field, q.term, f(boost * q.boost)) : 0;
    const normCache = ctx.stats.field(q.field).normCache;
    const constScore = norms === null ? bm25Score(wv, 1, BM25_K1) : 0;
    for (let p = start; p < end; p++) {
      const d = docs[p]!;
      const w = d >>> 5;
      const m = 1 << (d & 31);
      const seen = (bits[w]! & m) !== 0;
      if (counts !== null) counts[d] = seen ? counts[d]! + 1 : 1;
      if (scores !== null) {
        const s = norms === null ? constScore : f(f(wv * freqs[p]!) / f(freqs[p]! + normCache[norms[d]!]!));
        scores[d] = seen ? scores[d]! + s : s;
      }
      bits[w]! |= m;
    }
  }
  if (counts !== null) {
    for (let w = 0; w < bits.length; w++) {
      let word = bits[w]!;
      while (word !== 0) {
        const b = lowestBit(word);
        word &= word - 1;
        if (counts[(w << 5) + b]! < minShouldMatch) bits[w]! &= ~(1 << b);
      }
    }
  }
  if (scores !== null) roundScores(bits, scores);
  return { bits, scores, constant: 0, mutable: true };
}
