/**
 * Boolean combinations of term queries evaluated term at a time: postings are
 * walked one term after the other, scores accumulate per doc in a reusable
 * array and a per-doc counter tracks how many clauses matched. This is how a
 * `match` query (a bool of its analyzed terms) runs.
 */
import type { InvertedField, PostingsCursor } from '../segment/types.ts';
import { BM25_K1, bm25Score } from './bm25.ts';
import { lowestBit, wordsFor } from './doc-bits.ts';
import { emptySet, roundScores } from './doc-set.ts';
import type { DocSet, SegmentEvalContext } from './doc-set.ts';
import { termWeightValue } from './postings-leaves.ts';
import { singleNorm } from './single-norm.ts';
import { takeBits } from './recycled-bits.ts';
import type { Query, TermQuery } from './query.ts';

const f = Math.fround;

export function isPostingsLeaf(q: Query): q is TermQuery {
  return q.kind === 'term';
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
  const ranges: TermRange[] = [];
  for (const q of terms) {
    const inv = seg.inverted.get(q.field);
    const termId = inv === undefined ? -1 : ctx.stats.termId(seg, q.field, q.term);
    if (termId < 0) return emptySet(ctx);
    ranges.push({ q, inv: inv!, termId, docFreq: inv!.docFreq(termId) });
  }
  ranges.sort((a, b) => a.docFreq - b.docFreq);
  const cursors = ranges.map((r) => r.inv.postings(r.termId));
  try {
    return conjunctionOf(ranges, cursors, ctx, boost, needScores, restrict);
  } finally {
    for (let r = 0; r < ranges.length; r++) ranges[r]!.inv.release?.(cursors[r]!);
  }
}

/**
 * One term's score by freq when every doc has the same norm: BM25 is then a
 * function of the freq alone, and a candidate's score a table read instead of
 * a division (the same float operations, done once per freq and segment).
 */
const BY_FREQ = 32;
const byFreq = new Float64Array(BY_FREQ);

function fillByFreq(wv: number, norm: number): void {
  for (let fr = 1; fr < BY_FREQ; fr++) byFreq[fr] = f(f(wv * fr) / f(fr + norm));
}

interface TermRange {
  readonly q: TermQuery;
  readonly inv: InvertedField;
  readonly termId: number;
  readonly docFreq: number;
}

/**
 * Whether range r (not the lead) is the term of range r - 1 again with the same boost: an
 * n-gram fragment with a repeated character or gram ("c00": the clauses c, 0, 0, c0, 00, c00)
 * makes the same clause twice, and ranked by doc freq the two are neighbours.
 */
function repeats(ranges: readonly TermRange[], r: number): boolean {
  if (r < 2) return false;
  const a = ranges[r - 1]!;
  const b = ranges[r]!;
  return a.inv === b.inv && a.termId === b.termId && a.q.field === b.q.field && a.q.boost === b.q.boost;
}

function conjunctionOf(
  ranges: readonly TermRange[],
  cursors: readonly PostingsCursor[],
  ctx: SegmentEvalContext,
  boost: number,
  needScores: boolean,
  restrict: Uint32Array | null,
): DocSet {
  const seg = ctx.segment;
  const lead = ranges[0]!;
  // Candidates and their running sums live in the arena: a query over 60 segments allocated them 60 times.
  const cand = ctx.arena.takeDocs(lead.docFreq);
  const acc = needScores ? ctx.arena.takeScores(lead.docFreq) : null;
  let n = 0;
  {
    const { q, inv } = lead;
    const norms = inv.norms;
    const { wv, normCache, constScore } = termScoring(ctx, q, norms, boost, acc !== null);
    // A segment whose docs all have the field's length (every plate 7 characters) reads no norm per candidate.
    const constNorm = acc === null || norms === null ? -1 : singleNorm(norms);
    if (constNorm >= 0) fillByFreq(wv, normCache![constNorm]!);
    const cursor = cursors[0]!;
    while (cursor.nextBlock()) {
      const docs = cursor.docs;
      const count = cursor.count;
      if (acc === null) {
        for (let i = 0; i < count; i++) {
          const d = docs[i]!;
          if (restrict !== null && (restrict[d >>> 5]! & (1 << (d & 31))) === 0) continue;
          cand[n++] = d;
        }
        continue;
      }
      const freqs = cursor.freqs;
      for (let i = 0; i < count; i++) {
        const d = docs[i]!;
        if (restrict !== null && (restrict[d >>> 5]! & (1 << (d & 31))) === 0) continue;
        cand[n] = d;
        const fr = freqs[i]!;
        if (norms === null) acc[n] = constScore;
        else if (constNorm >= 0 && fr < BY_FREQ) acc[n] = byFreq[fr]!;
        else acc[n] = f(f(wv * fr) / f(fr + normCache![constNorm >= 0 ? constNorm : norms[d]!]!));
        n++;
      }
    }
    if (n === 0) return emptySet(ctx);
  }
  // Common terms (a plate's single characters) keep a bitset: candidates are tested a bit each, before
  // any block of theirs is decoded, and only the survivors are looked up for their freqs.
  for (let r = 1; r < ranges.length; r++) {
    const bits = cursors[r]!.bits;
    // A repeated term's bitset keeps what the same bitset just kept.
    if (bits === null || repeats(ranges, r)) continue;
    let kept = 0;
    for (let k = 0; k < n; k++) {
      const d = cand[k]!;
      if ((bits[d >>> 5]! & (1 << (d & 31))) === 0) continue;
      cand[kept] = d;
      if (acc !== null) acc[kept] = acc[k]!;
      kept++;
    }
    n = kept;
    if (n === 0) return emptySet(ctx);
  }
  let freqs: Int32Array | null = null;
  for (let r = 1; r < ranges.length; r++) {
    const { q, inv } = ranges[r]!;
    const cursor = cursors[r]!;
    // Filtered by its bitset above; without scores there is nothing more to learn from it.
    if (cursor.bits !== null && acc === null) continue;
    const norms = inv.norms;
    const { wv, normCache, constScore } = termScoring(ctx, q, norms, boost, acc !== null);
    const constNorm = acc === null || norms === null ? -1 : singleNorm(norms);
    if (constNorm >= 0) fillByFreq(wv, normCache![constNorm]!);
    // Probing the candidates skips the blocks of a long list that hold none of them, and decodes
    // of the others only the gaps up to each candidate and its one freq. A term repeated in the
    // query (the two 0s of the fragment "c00") is the term just probed: its freqs are still there
    // for the candidates left (every one has it), and its clause adds the same score again.
    freqs ??= ctx.arena.takeDocs(lead.docFreq);
    if (!repeats(ranges, r)) cursor.freqsOf(cand, n, freqs);
    let kept = 0;
    for (let k = 0; k < n; k++) {
      const fr = freqs[k]!;
      if (fr <= 0) continue;
      const d = cand[k]!;
      cand[kept] = d;
      freqs[kept] = fr;
      if (acc !== null) {
        let s: number;
        if (norms === null) s = constScore;
        else if (constNorm >= 0 && fr < BY_FREQ) s = byFreq[fr]!;
        else s = f(f(wv * fr) / f(fr + normCache![constNorm >= 0 ? constNorm : norms[d]!]!));
        acc[kept] = acc[k]! + s;
      }
      kept++;
    }
    n = kept;
    if (n === 0) return emptySet(ctx);
  }
  const bits = takeBits(wordsFor(seg.maxDoc));
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
    const termId = inv === undefined ? -1 : ctx.stats.termId(seg, q.field, q.term);
    if (termId < 0) continue;
    const norms = inv!.norms;
    const wv = needScores ? termWeightValue(ctx, q.field, q.term, f(boost * q.boost)) : 0;
    const normCache = ctx.stats.field(q.field).normCache;
    const constScore = norms === null ? bm25Score(wv, 1, BM25_K1) : 0;
    const cursor = inv!.postings(termId);
    while (cursor.nextBlock()) {
      const docs = cursor.docs;
      const freqs = cursor.freqs;
      for (let i = 0, count = cursor.count; i < count; i++) {
        const d = docs[i]!;
        const w = d >>> 5;
        const m = 1 << (d & 31);
        const seen = (bits[w]! & m) !== 0;
        if (counts !== null) counts[d] = seen ? counts[d]! + 1 : 1;
        if (scores !== null) {
          const s = norms === null ? constScore : f(f(wv * freqs[i]!) / f(freqs[i]! + normCache[norms[d]!]!));
          scores[d] = seen ? scores[d]! + s : s;
        }
        bits[w]! |= m;
      }
    }
    inv!.release?.(cursor);
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
