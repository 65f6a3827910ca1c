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

/**
 * Conjunction of term queries, term at a time: rarest term first, then each
 * further term keeps only docs that matched every earlier one (a per-doc
 * counter) and adds its score. Returns bits and summed scores.
 */
export function termConjunction(terms: readonly TermQuery[], ctx: SegmentEvalContext, needScores: boolean, boost: number): DocSet {
  const seg = ctx.segment;
  const maxDoc = seg.maxDoc;
  const ranges: { q: TermQuery; inv: InvertedField; start: number; end: number }[] = [];
  for (const q of terms) {
    const inv = seg.inverted.get(q.field);
    const [start, end] = termRange(inv, q.term);
    if (inv === undefined || start === end) return emptySet(ctx);
    ranges.push({ q, inv, start, end });
  }
  ranges.sort((a, b) => a.end - a.start - (b.end - b.start));
  const counts = ctx.arena.takeCounts(maxDoc);
  const scores = needScores ? ctx.arena.takeScores(maxDoc) : null;
  for (let i = 0; i < ranges.length; i++) {
    const { q, inv, start, end } = ranges[i]!;
    const docs = inv.postingDocs;
    const norms = inv.norms;
    const freqs = inv.postingFreqs;
    if (scores === null) {
      for (let p = start; p < end; p++) {
        const d = docs[p]!;
        if (counts[d] === i) counts[d] = i + 1;
      }
      continue;
    }
    const wv = termWeightValue(ctx, q.field, q.term, f(boost * q.boost));
    const normCache = ctx.stats.field(q.field).normCache;
    const constScore = norms === null ? bm25Score(wv, 1, BM25_K1) : 0;
    for (let p = start; p < end; p++) {
      const d = docs[p]!;
      if (counts[d] !== i) continue;
      counts[d] = i + 1;
      const s = norms === null ? constScore : f(f(wv * freqs[p]!) / f(freqs[p]! + normCache[norms[d]!]!));
      scores[d] = i === 0 ? s : scores[d]! + s;
    }
  }
  const bits = new Uint32Array(wordsFor(maxDoc));
  const last = ranges[ranges.length - 1]!;
  const n = ranges.length;
  for (let p = last.start; p < last.end; p++) {
    const d = last.inv.postingDocs[p]!;
    if (counts[d] === n) bits[d >>> 5]! |= 1 << (d & 31);
  }
  if (scores !== null) roundScores(bits, scores);
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
