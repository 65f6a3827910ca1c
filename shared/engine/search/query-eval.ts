/**
 * Executes an engine query over one segment view, term at a time: every node
 * yields a dense bitset of matching local docs (live docs not yet applied) and,
 * when scores are needed and the node scores, a per-doc score array filled only
 * where a bit is set. No object per posting or per doc.
 *
 * Boosts multiply down the tree as Lucene's createWeight(boost) propagates them,
 * so a leaf's BM25 weight is idf × (product of boosts), rounded as floats.
 */
import type { InvertedField, NumericDocValues, Segment, SegmentView, SortedDocValues } from '../segment/types.ts';
import { BM25_K1, bm25Idf, bm25Score, bm25WeightValue } from './bm25.ts';
import { allBits, andInto, andNotInto, lowestBit, orInto, wordsFor } from './doc-bits.ts';
import type { FilterCache } from './filter-cache.ts';
import { filterKey, isCacheableFilter } from './query.ts';
import type {
  BoolQuery,
  DisMaxQuery,
  ExistsQuery,
  IdsQuery,
  NumericRangeQuery,
  NumericSetQuery,
  PhraseQuery,
  Query,
  SynonymQuery,
  TermQuery,
} from './query.ts';
import type { ScratchArena } from './scratch-arena.ts';
import type { ShardTermStats } from './term-stats.ts';
import { compileWildcard, termIdsForPrefix, termIdsForRange, termIdsMatching } from './term-scan.ts';

const f = Math.fround;

export interface DocSet {
  readonly bits: Uint32Array;
  /** Score per local doc where `bits` is set, or null for a constant score. */
  readonly scores: Float64Array | null;
  /** The score of every doc when `scores` is null (0 when not scoring). */
  readonly constant: number;
  /** False when `bits` is shared (filter cache): copy before mutating. */
  readonly mutable: boolean;
}

export interface SegmentEvalContext {
  readonly view: SegmentView;
  readonly segment: Segment;
  readonly stats: ShardTermStats;
  readonly filterCache: FilterCache | null;
  /** Working arrays; those handed out stay valid until the arena is reset after this segment. */
  readonly arena: ScratchArena;
}

function emptySet(ctx: SegmentEvalContext): DocSet {
  return { bits: new Uint32Array(wordsFor(ctx.segment.maxDoc)), scores: null, constant: 0, mutable: true };
}

function constantSet(bits: Uint32Array, needScores: boolean, boost: number, mutable = true): DocSet {
  return { bits, scores: null, constant: needScores ? f(boost) : 0, mutable };
}

function mutableCopy(s: DocSet): Uint32Array {
  return s.mutable ? s.bits : s.bits.slice();
}

/**
 * Evaluates `q` on one segment. `boost` is the product of the ancestors' boosts;
 * `needScores` false evaluates in filter context (no scores, cacheable leaves
 * consult the filter cache).
 */
export function evaluate(q: Query, ctx: SegmentEvalContext, needScores: boolean, boost = 1): DocSet {
  if (!needScores && ctx.filterCache !== null && isCacheableFilter(q) && worthCaching(q, ctx.segment)) {
    const key = filterKey(q);
    const cached = ctx.filterCache.get(ctx.segment, key);
    if (cached !== undefined) return constantSet(cached, false, 0, false);
    const fresh = evaluateUncached(q, ctx, false, boost);
    ctx.filterCache.put(ctx.segment, key, fresh.bits);
    return constantSet(fresh.bits, false, 0, false);
  }
  return evaluateUncached(q, ctx, needScores, boost);
}

/**
 * Term filters with short postings are cheaper to rebuild than to keep (Lucene
 * never caches a TermQuery for the same reason); doc-value scans and
 * multi-term expansions always are worth it.
 */
function worthCaching(q: Query, seg: Segment): boolean {
  if (q.kind !== 'term') return true;
  const inv = seg.inverted.get(q.field);
  const [start, end] = termRange(inv, q.term);
  return end - start >= Math.max(MIN_CACHED_TERM_DOCS, seg.maxDoc >>> 6);
}

/** Postings shorter than this are never cached. */
const MIN_CACHED_TERM_DOCS = 1024;

function evaluateUncached(q: Query, ctx: SegmentEvalContext, needScores: boolean, boost: number): DocSet {
  const seg = ctx.segment;
  switch (q.kind) {
    case 'match_all':
      return constantSet(allBits(seg.maxDoc), needScores, f(boost * q.boost));
    case 'match_none':
      return emptySet(ctx);
    case 'term':
      return termSet(q, ctx, needScores, f(boost * q.boost));
    case 'synonym':
      return synonymSet(q, ctx, needScores, f(boost * q.boost));
    case 'term_set': {
      const inv = seg.inverted.get(q.field);
      const ids: number[] = [];
      if (inv !== undefined) {
        for (const t of q.terms) {
          const id = inv.termIds.get(t);
          if (id !== undefined) ids.push(id);
        }
      }
      return constantSet(unionPostings(seg, inv, ids), needScores, f(boost * q.boost));
    }
    case 'term_range': {
      const inv = seg.inverted.get(q.field);
      const ids = inv === undefined ? [] : termIdsForRange(inv.terms, q.lower, q.upper, q.includeLower, q.includeUpper);
      return constantSet(unionPostings(seg, inv, ids), needScores, f(boost * q.boost));
    }
    case 'prefix': {
      const inv = seg.inverted.get(q.field);
      const ids = inv === undefined ? [] : termIdsForPrefix(inv.terms, q.prefix);
      return constantSet(unionPostings(seg, inv, ids), needScores, f(boost * q.boost));
    }
    case 'wildcard': {
      const inv = seg.inverted.get(q.field);
      const ids = inv === undefined ? [] : termIdsMatching(inv.terms, compileWildcard(q.pattern));
      return constantSet(unionPostings(seg, inv, ids), needScores, f(boost * q.boost));
    }
    case 'numeric_range':
      return constantSet(numericRangeBits(q, seg), needScores, f(boost * q.boost));
    case 'numeric_set':
      return constantSet(numericSetBits(q, seg), needScores, f(boost * q.boost));
    case 'phrase':
      return phraseSet(q, ctx, needScores, f(boost * q.boost));
    case 'exists':
      return constantSet(existsBits(q, seg), needScores, f(boost * q.boost));
    case 'ids':
      return constantSet(idsBits(q, seg), needScores, f(boost * q.boost));
    case 'constant_score': {
      const inner = evaluate(q.filter, ctx, false, 1);
      return { bits: inner.bits, scores: null, constant: needScores ? f(boost * q.boost) : 0, mutable: inner.mutable };
    }
    case 'bool':
      return boolSet(q, ctx, needScores, f(boost * q.boost));
    case 'dis_max':
      return disMaxSet(q, ctx, needScores, f(boost * q.boost));
  }
}

// ---- postings leaves ----------------------------------------------------------------

function termRange(inv: InvertedField | undefined, term: string): [number, number] {
  if (inv === undefined) return [0, 0];
  const t = inv.termIds.get(term);
  if (t === undefined) return [0, 0];
  return [inv.postingStarts[t]!, inv.postingStarts[t + 1]!];
}

/** The BM25 numerator factor of a term, from shard-level statistics. */
function termWeightValue(ctx: SegmentEvalContext, field: string, term: string, boost: number): number {
  const fs = ctx.stats.field(field);
  return bm25WeightValue(boost, bm25Idf(ctx.stats.docFreq(field, term), fs.docCount));
}

function termSet(q: TermQuery, ctx: SegmentEvalContext, needScores: boolean, boost: number): DocSet {
  const seg = ctx.segment;
  const inv = seg.inverted.get(q.field);
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  const [start, end] = termRange(inv, q.term);
  if (inv === undefined || start === end) return { bits, scores: null, constant: 0, mutable: true };
  const docs = inv.postingDocs;
  if (!needScores) {
    for (let p = start; p < end; p++) {
      const d = docs[p]!;
      bits[d >>> 5]! |= 1 << (d & 31);
    }
    return { bits, scores: null, constant: 0, mutable: true };
  }
  const scores = ctx.arena.takeScores(seg.maxDoc);
  const wv = termWeightValue(ctx, q.field, q.term, boost);
  scoreTermInto(inv, start, end, wv, ctx.stats.field(q.field).normCache, bits, scores);
  return { bits, scores, constant: 0, mutable: true };
}

/** Sets and scores the docs of postings [start, end). */
function scoreTermInto(
  inv: InvertedField,
  start: number,
  end: number,
  wv: number,
  normCache: Float32Array,
  bits: Uint32Array,
  scores: Float64Array,
): void {
  const docs = inv.postingDocs;
  const norms = inv.norms;
  if (norms === null) {
    const s = bm25Score(wv, 1, BM25_K1);
    for (let p = start; p < end; p++) {
      const d = docs[p]!;
      bits[d >>> 5]! |= 1 << (d & 31);
      scores[d] = s;
    }
    return;
  }
  const freqs = inv.postingFreqs;
  for (let p = start; p < end; p++) {
    const d = docs[p]!;
    bits[d >>> 5]! |= 1 << (d & 31);
    scores[d] = f(f(wv * freqs[p]!) / f(freqs[p]! + normCache[norms[d]!]!));
  }
}

function synonymSet(q: SynonymQuery, ctx: SegmentEvalContext, needScores: boolean, boost: number): DocSet {
  const seg = ctx.segment;
  const inv = seg.inverted.get(q.field);
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  if (inv === undefined) return { bits, scores: null, constant: 0, mutable: true };
  const freqSum = needScores ? ctx.arena.takeScores(seg.maxDoc) : null;
  for (const term of q.terms) {
    const [start, end] = termRange(inv, term);
    for (let p = start; p < end; p++) {
      const d = inv.postingDocs[p]!;
      const w = d >>> 5;
      const m = 1 << (d & 31);
      if (freqSum !== null) {
        const fr = inv.norms === null ? 1 : inv.postingFreqs[p]!;
        if ((bits[w]! & m) === 0) freqSum[d] = fr;
        else freqSum[d] = freqSum[d]! + fr;
      }
      bits[w]! |= m;
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

function unionPostings(seg: Segment, inv: InvertedField | undefined, termIds: readonly number[]): Uint32Array {
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  if (inv === undefined) return bits;
  const docs = inv.postingDocs;
  for (const t of termIds) {
    const end = inv.postingStarts[t + 1]!;
    for (let p = inv.postingStarts[t]!; p < end; p++) {
      const d = docs[p]!;
      bits[d >>> 5]! |= 1 << (d & 31);
    }
  }
  return bits;
}

// ---- doc values leaves ----------------------------------------------------------------

function numericRangeBits(q: NumericRangeQuery, seg: Segment): Uint32Array {
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  const dv = seg.docValues.get(q.field);
  if (dv === undefined || dv.kind !== 'numeric') return bits;
  const { min, max } = q;
  const values = dv.values;
  if (dv.starts === null) {
    const n = seg.maxDoc;
    for (let d = 0; d < n; d++) {
      const v = values[d]!;
      if (v >= min && v <= max) bits[d >>> 5]! |= 1 << (d & 31);
    }
  } else {
    const starts = dv.starts;
    for (let d = 0; d < seg.maxDoc; d++) {
      for (let i = starts[d]!, e = starts[d + 1]!; i < e; i++) {
        const v = values[i]!;
        if (v >= min && v <= max) {
          bits[d >>> 5]! |= 1 << (d & 31);
          break;
        }
      }
    }
  }
  return bits;
}

function numericSetBits(q: NumericSetQuery, seg: Segment): Uint32Array {
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  const dv = seg.docValues.get(q.field);
  if (dv === undefined || dv.kind !== 'numeric' || q.values.length === 0) return bits;
  const set = new Set(q.values);
  const single = q.values.length === 1 ? q.values[0]! : NaN;
  const values = dv.values;
  if (dv.starts === null) {
    for (let d = 0; d < seg.maxDoc; d++) {
      const v = values[d]!;
      if (v === single || (q.values.length > 1 && set.has(v))) bits[d >>> 5]! |= 1 << (d & 31);
    }
  } else {
    const starts = dv.starts;
    for (let d = 0; d < seg.maxDoc; d++) {
      for (let i = starts[d]!, e = starts[d + 1]!; i < e; i++) {
        if (set.has(values[i]!)) {
          bits[d >>> 5]! |= 1 << (d & 31);
          break;
        }
      }
    }
  }
  return bits;
}

function docValuesPresence(dv: NumericDocValues | SortedDocValues, maxDoc: number, bits: Uint32Array): void {
  if (dv.starts !== null) {
    const starts = dv.starts;
    for (let d = 0; d < maxDoc; d++) if (starts[d + 1]! > starts[d]!) bits[d >>> 5]! |= 1 << (d & 31);
  } else if (dv.kind === 'numeric') {
    const values = dv.values;
    for (let d = 0; d < maxDoc; d++) if (!Number.isNaN(values[d]!)) bits[d >>> 5]! |= 1 << (d & 31);
  } else {
    const ords = dv.ords;
    for (let d = 0; d < maxDoc; d++) if (ords[d]! >= 0) bits[d >>> 5]! |= 1 << (d & 31);
  }
}

function existsBits(q: ExistsQuery, seg: Segment): Uint32Array {
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  for (const field of q.fields) {
    if (!seg.fieldsPresent.has(field)) continue;
    // The segment records which docs have each field, as Elasticsearch's `exists` decides it.
    const present = seg.fieldDocs.get(field);
    if (present !== undefined) {
      orInto(bits, present);
      continue;
    }
    const dv = seg.docValues.get(field);
    if (dv !== undefined) {
      docValuesPresence(dv, seg.maxDoc, bits);
      continue;
    }
    const inv = seg.inverted.get(field);
    if (inv === undefined) continue;
    const docs = inv.postingDocs;
    for (let p = 0; p < docs.length; p++) {
      const d = docs[p]!;
      bits[d >>> 5]! |= 1 << (d & 31);
    }
  }
  return bits;
}

function idsBits(q: IdsQuery, seg: Segment): Uint32Array {
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  if (q.ids.length === 0) return bits;
  const wanted = new Set(q.ids);
  const ids = seg.ids;
  for (let d = 0; d < seg.maxDoc; d++) if (wanted.has(ids[d]!)) bits[d >>> 5]! |= 1 << (d & 31);
  return bits;
}

// ---- phrases ----------------------------------------------------------------------------

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

function phraseSet(q: PhraseQuery, ctx: SegmentEvalContext, needScores: boolean, boost: number): DocSet {
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

// ---- compound ---------------------------------------------------------------------------

function isPostingsLeaf(q: Query): q is TermQuery {
  return q.kind === 'term';
}

/**
 * Conjunction of term queries, term at a time: rarest term first, then each
 * further term keeps only docs that matched every earlier one (a per-doc
 * counter) and adds its score. Returns bits and summed scores.
 */
function termConjunction(terms: readonly TermQuery[], ctx: SegmentEvalContext, needScores: boolean, boost: number): DocSet {
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

/** Lucene sums clause scores in double and returns a float. */
function roundScores(bits: Uint32Array, scores: Float64Array): void {
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    while (word !== 0) {
      const d = (w << 5) + lowestBit(word);
      word &= word - 1;
      scores[d] = f(scores[d]!);
    }
  }
}

/**
 * Disjunction of term queries, term at a time, with an optional minimum number
 * of matching clauses: scores accumulate per doc, a counter per doc counts
 * matching clauses.
 */
function termDisjunction(
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

function scoreAt(s: DocSet, d: number): number {
  return s.scores === null ? s.constant : s.scores[d]!;
}

function boolSet(q: BoolQuery, ctx: SegmentEvalContext, needScores: boolean, boost: number): DocSet {
  const seg = ctx.segment;
  const maxDoc = seg.maxDoc;
  const hasRequired = q.must.length > 0 || q.filter.length > 0;
  // Lucene: with nothing required, at least one should clause must match.
  let msm = q.minimumShouldMatch;
  if (!hasRequired && msm === 0 && q.should.length > 0) msm = 1;
  if (msm > q.should.length) return emptySet(ctx);
  if (!hasRequired && q.should.length === 0) {
    // Only must_not (pure negative): Elasticsearch adds a match_all filter, score 0.
    const bits = allBits(maxDoc);
    for (const c of q.mustNot) andNotInto(bits, evaluate(c, ctx, false).bits);
    return { bits, scores: null, constant: 0, mutable: true };
  }

  const scoring: DocSet[] = [];
  let bits: Uint32Array | null = null;

  // Required scoring clauses: term-at-a-time conjunction when they are all terms.
  if (q.must.length > 0) {
    if (q.must.length > 1 && q.must.every(isPostingsLeaf)) {
      const conj = termConjunction(q.must as readonly TermQuery[], ctx, needScores, boost);
      scoring.push(conj);
      bits = conj.bits;
    } else {
      for (const c of q.must) {
        const s = evaluate(c, ctx, needScores, boost);
        scoring.push(s);
        if (bits === null) bits = mutableCopy(s);
        else andInto(bits, s.bits);
      }
    }
  }
  for (const c of q.filter) {
    const s = evaluate(c, ctx, false);
    if (bits === null) bits = mutableCopy(s);
    else andInto(bits, s.bits);
  }

  // Optional clauses.
  const shouldSets: DocSet[] = [];
  if (q.should.length > 0) {
    if (q.should.every(isPostingsLeaf) && (msm > 0 || needScores)) {
      const disj = termDisjunction(q.should as readonly TermQuery[], ctx, needScores, boost, msm);
      if (msm > 0) {
        if (bits === null) bits = disj.bits;
        else andInto(bits, disj.bits);
      }
      shouldSets.push(disj);
    } else if (msm > 0 || needScores) {
      for (const c of q.should) shouldSets.push(evaluate(c, ctx, needScores, boost));
      if (msm > 0) {
        let matched: Uint32Array;
        if (msm === 1) {
          matched = shouldSets[0]!.bits.slice();
          for (let i = 1; i < shouldSets.length; i++) orInto(matched, shouldSets[i]!.bits);
        } else {
          matched = new Uint32Array(wordsFor(maxDoc));
          const counts = ctx.arena.takeCounts(maxDoc);
          for (const s of shouldSets) {
            const sb = s.bits;
            for (let w = 0; w < sb.length; w++) {
              let word = sb[w]!;
              while (word !== 0) {
                const d = (w << 5) + lowestBit(word);
                word &= word - 1;
                if (++counts[d]! === msm) matched[d >>> 5]! |= 1 << (d & 31);
              }
            }
          }
        }
        if (bits === null) bits = matched;
        else andInto(bits, matched);
      }
    }
  }
  if (bits === null) bits = new Uint32Array(wordsFor(maxDoc));
  for (const c of q.mustNot) andNotInto(bits, evaluate(c, ctx, false).bits);

  if (!needScores) return { bits, scores: null, constant: 0, mutable: true };
  if (scoring.length === 0 && shouldSets.length === 0) return { bits, scores: null, constant: 0, mutable: true };
  if (scoring.length === 1 && shouldSets.length === 0 && scoring[0]!.scores !== null) {
    return { bits, scores: scoring[0]!.scores, constant: 0, mutable: true };
  }
  const scores = ctx.arena.takeScores(maxDoc);
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    while (word !== 0) {
      const d = (w << 5) + lowestBit(word);
      word &= word - 1;
      let sum = 0;
      for (let i = 0; i < scoring.length; i++) sum += scoreAt(scoring[i]!, d);
      for (let i = 0; i < shouldSets.length; i++) {
        const s = shouldSets[i]!;
        if ((s.bits[w]! & (1 << (d & 31))) !== 0) sum += scoreAt(s, d);
      }
      scores[d] = f(sum);
    }
  }
  return { bits, scores, constant: 0, mutable: true };
}

function disMaxSet(q: DisMaxQuery, ctx: SegmentEvalContext, needScores: boolean, boost: number): DocSet {
  const sets = q.queries.map((c) => evaluate(c, ctx, needScores, boost));
  const bits = new Uint32Array(wordsFor(ctx.segment.maxDoc));
  for (const s of sets) orInto(bits, s.bits);
  if (!needScores) return { bits, scores: null, constant: 0, mutable: true };
  const scores = ctx.arena.takeScores(ctx.segment.maxDoc);
  const tie = f(q.tieBreaker);
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    while (word !== 0) {
      const d = (w << 5) + lowestBit(word);
      word &= word - 1;
      // DisjunctionMaxScorer: max + tieBreaker * (sum - max), in float.
      let max = 0;
      let sum = 0;
      for (const s of sets) {
        if ((s.bits[w]! & (1 << (d & 31))) === 0) continue;
        const sc = scoreAt(s, d);
        sum = f(sum + sc);
        if (sc > max) max = sc;
      }
      scores[d] = f(max + f(f(sum - max) * tie));
    }
  }
  return { bits, scores, constant: 0, mutable: true };
}

