/**
 * Executes an engine query over one segment view, term at a time: every node
 * yields a dense bitset of matching local docs (live docs not yet applied) and,
 * when scores are needed and the node scores, a per-doc score array filled only
 * where a bit is set. No object per posting or per doc.
 *
 * Boosts multiply down the tree as Lucene's createWeight(boost) propagates them,
 * so a leaf's BM25 weight is idf × (product of boosts), rounded as floats.
 */
import type { Segment } from '../segment/types.ts';
import { allBits, andInto, andNotInto, lowestBit, orInto, wordsFor } from './doc-bits.ts';
import { constantSet, emptySet, mutableCopy, scoreAt } from './doc-set.ts';
import { giveBits } from './recycled-bits.ts';
import type { DocSet, SegmentEvalContext } from './doc-set.ts';
import { existsBits, idsBits, keepNumericRange, numericRangeBits, numericSetBits } from './doc-values-leaves.ts';
import { cardinality } from '../segment/bitset.ts';
import { phraseSet } from './phrase-leaf.ts';
import { geoBits } from './geo-leaves.ts';
import { ipRangeBits } from './ip-leaves.ts';
import { rangeFieldBits } from './range-field-leaves.ts';
import { geoShapeBits } from './geo-shape-leaves.ts';
import { synonymSet, termDocFreq, termSet, unionPostings } from './postings-leaves.ts';
import { filterKey, isCacheableFilter } from './query.ts';
import type { BoolQuery, DisMaxQuery, FuzzyQuery, NestedQuery, NumericRangeQuery, Query, TermQuery } from './query.ts';
import { nestedDocs } from '../segment/nested-blocks.ts';
import { joinToParents, nestedPathDocs, parentLevelDocs } from './nested-join.ts';
import { BM25_K1, bm25Idf, bm25Score, bm25WeightValue } from './bm25.ts';
import { isPostingsLeaf, termConjunction, termDisjunction } from './term-at-a-time.ts';
import { compileWildcard, termIdsForPrefix, termIdsForRange, termIdsMatching, termIdsWhere } from './term-scan.ts';
import { luceneRegex } from '../regex/lucene-regex.ts';

export type { DocSet, SegmentEvalContext } from './doc-set.ts';

const f = Math.fround;

/**
 * Evaluates `q` on one segment. `boost` is the product of the ancestors' boosts;
 * `needScores` false evaluates in filter context (no scores, cacheable leaves
 * consult the filter cache). `restrict`, when given, is a set the caller ANDs
 * the result with: docs outside it may be left out (a bool's filters narrow
 * the term conjunctions of its required clauses before they are probed).
 */
export function evaluate(q: Query, ctx: SegmentEvalContext, needScores: boolean, boost = 1, restrict: Uint32Array | null = null): DocSet {
  if (!needScores && ctx.filterCache !== null && q.kind === 'term') {
    // The term is looked up once, for the caching decision and the postings both.
    const inv = ctx.segment.inverted.get(q.field);
    const t = inv === undefined ? -1 : ctx.stats.termId(ctx.segment, q.field, q.term);
    if (t < 0 || inv!.docFreq(t) < Math.max(MIN_CACHED_TERM_DOCS, ctx.segment.maxDoc >>> 6)) return termSet(q, ctx, false, f(boost * q.boost), t);
  }
  if (!needScores && ctx.filterCache !== null && isCacheableFilter(q) && worthCaching(q, ctx)) {
    const key = filterKey(q);
    const cached = ctx.filterCache.get(ctx.segment, key);
    if (cached !== undefined) return constantSet(cached, false, 0, false);
    const fresh = evaluateUncached(q, ctx, false, boost);
    ctx.filterCache.put(ctx.segment, key, fresh.bits);
    return constantSet(fresh.bits, false, 0, false);
  }
  if (restrict !== null && q.kind === 'bool') return boolSet(q, ctx, needScores, f(boost * q.boost), restrict);
  return evaluateUncached(q, ctx, needScores, boost);
}

/**
 * Term filters with short postings are cheaper to rebuild than to keep (Lucene
 * never caches a TermQuery for the same reason); doc-value scans and
 * multi-term expansions always are worth it.
 */
function worthCaching(q: Query, ctx: SegmentEvalContext): boolean {
  if (q.kind !== 'term') return true;
  const seg = ctx.segment;
  return termDocFreq(ctx, q.field, q.term) >= Math.max(MIN_CACHED_TERM_DOCS, seg.maxDoc >>> 6);
}

/** Postings shorter than this are never cached. */
const MIN_CACHED_TERM_DOCS = 1024;

/** Every doc of a segment, one shared (read-only) bitset per segment: `match_all` allocates nothing per request. */
const fullBitsOf = new WeakMap<Segment, Uint32Array>();

function fullBits(seg: Segment): Uint32Array {
  let bits = fullBitsOf.get(seg);
  if (bits === undefined) {
    bits = allBits(seg.maxDoc);
    fullBitsOf.set(seg, bits);
  }
  return bits;
}

function evaluateUncached(q: Query, ctx: SegmentEvalContext, needScores: boolean, boost: number): DocSet {
  const seg = ctx.segment;
  switch (q.kind) {
    case 'match_all':
      return constantSet(fullBits(seg), needScores, f(boost * q.boost), false);
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
          const id = inv.terms.find(t);
          if (id >= 0) ids.push(id);
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
    case 'regexp': {
      const inv = seg.inverted.get(q.field);
      const re = luceneRegex(q.pattern);
      const ids = inv === undefined ? [] : termIdsWhere(inv.terms, (t) => re.matches(t));
      return constantSet(unionPostings(seg, inv, ids), needScores, f(boost * q.boost));
    }
    case 'fuzzy':
      return fuzzySet(q, ctx, needScores, f(boost * q.boost));
    case 'numeric_range':
      return constantSet(numericRangeBits(q, seg), needScores, f(boost * q.boost));
    case 'numeric_set':
      return constantSet(numericSetBits(q, seg), needScores, f(boost * q.boost));
    case 'phrase':
      return phraseSet(q, ctx, needScores, f(boost * q.boost));
    case 'exists':
      return constantSet(existsBits(q, seg), needScores, f(boost * q.boost));
    case 'geo':
      return constantSet(geoBits(q, seg), needScores, f(boost * q.boost));
    case 'ip_range':
      return constantSet(ipRangeBits(q, seg), needScores, f(boost * q.boost));
    case 'range_field':
      return constantSet(rangeFieldBits(q, seg), needScores, f(boost * q.boost));
    case 'geo_shape':
      return constantSet(geoShapeBits(q, seg), needScores, f(boost * q.boost));
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
    case 'nested':
      return nestedSet(q, ctx, needScores, f(boost * q.boost));
  }
}

/** Parents with a nested doc of `q.path` matching the inner query (the boost applies to the children's scores, as Lucene's weights pass it down). */
function nestedSet(q: NestedQuery, ctx: SegmentEvalContext, needScores: boolean, boost: number): DocSet {
  const seg = ctx.segment;
  if (nestedDocs(seg) === null) return emptySet(ctx);
  const scoring = needScores && q.scoreMode !== 'none';
  const children = evaluate(q.query, ctx, scoring, boost);
  const childDocs = nestedPathDocs(seg, q.path);
  const parents = parentLevelDocs(seg, q.parentPath);
  // The children's scores may sit in the arena: the parents' go to an array of their own.
  const scores = needScores ? new Float64Array(seg.maxDoc) : null;
  return joinToParents(children, childDocs, parents, seg.maxDoc, q.scoreMode, needScores, scores);
}

function boolSet(q: BoolQuery, ctx: SegmentEvalContext, needScores: boolean, boost: number, restrict: Uint32Array | null = null): DocSet {
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
  // Filters first (usually cached bitsets), so a term conjunction only probes the docs they keep.
  let filterBits: Uint32Array | null = null;
  for (const c of rangesLast(q.filter)) {
    if (c.kind === 'numeric_range' && filterBits !== null && checkRangeOnKept(filterBits, c, ctx)) continue;
    const s = evaluate(c, ctx, false);
    if (filterBits === null) filterBits = mutableCopy(s);
    else {
      andInto(filterBits, s.bits);
      // This clause's own bits are read no more.
      if (s.mutable) giveBits(s.bits);
    }
  }
  if (filterBits !== null && restrict !== null) andInto(filterBits, restrict);
  const narrow = filterBits ?? restrict;
  let bits: Uint32Array | null = filterBits;

  // Required scoring clauses: term-at-a-time conjunction when they are all terms.
  if (q.must.length > 0) {
    if (q.must.length > 1 && q.must.every(isPostingsLeaf)) {
      const conj = termConjunction(q.must as readonly TermQuery[], ctx, needScores, boost, narrow);
      scoring.push(conj);
      bits = conj.bits;
    } else {
      for (const c of q.must) {
        const s = evaluate(c, ctx, needScores, boost, narrow);
        scoring.push(s);
        if (bits === null) bits = mutableCopy(s);
        else andInto(bits, s.bits);
      }
    }
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
      // Required clauses sum in double (ConjunctionScorer), optional ones too
      // (DisjunctionSumScorer); ReqOptSumScorer adds the two as floats.
      let req = 0;
      for (let i = 0; i < scoring.length; i++) req += scoreAt(scoring[i]!, d);
      let opt = 0;
      let anyOpt = false;
      for (let i = 0; i < shouldSets.length; i++) {
        const s = shouldSets[i]!;
        if ((s.bits[w]! & (1 << (d & 31))) !== 0) {
          opt += scoreAt(s, d);
          anyOpt = true;
        }
      }
      if (scoring.length === 0) scores[d] = f(opt);
      else scores[d] = anyOpt ? f(f(req) + f(opt)) : f(req);
    }
  }
  return { bits, scores, constant: 0, mutable: true };
}

/** A bool's filters with the numeric ranges after the others (checkRangeOnKept), in their order otherwise. */
function rangesLast(filters: readonly Query[]): readonly Query[] {
  let ranges = 0;
  for (const c of filters) if (c.kind === 'numeric_range') ranges++;
  if (ranges === 0 || ranges === filters.length) return filters;
  return [...filters.filter((c) => c.kind !== 'numeric_range'), ...filters.filter((c) => c.kind === 'numeric_range')];
}

/** Kept docs at most this fraction of the segment (a shift) are checked one by one against a range. */
const SPARSE_SHIFT = 4;

/**
 * A range filter after filters that kept few docs: the range is checked on
 * those docs' values (Lucene's IndexOrDocValuesQuery verifies a range by doc
 * values when another clause leads), not scanned over the whole segment and
 * cached. A look-up per plate over a time window (the pass-record
 * application's first entries: 200 such filters a request, each with its own
 * bounds) scanned the segment's column per filter and filled the filter
 * cache with bitsets no request asks for again. Returns false when the range
 * is evaluated as usual (the kept docs are many).
 */
function checkRangeOnKept(kept: Uint32Array, q: NumericRangeQuery, ctx: SegmentEvalContext): boolean {
  if (cardinality(kept) > ctx.segment.maxDoc >>> SPARSE_SHIFT) return false;
  keepNumericRange(kept, q, ctx.segment);
  return true;
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

/**
 * A fuzzy query's expanded terms on this segment, summed as Lucene's
 * TopTermsBlendedFreqScoringRewrite builds them: every term scored with the
 * largest docFreq among the terms (so a rare misspelling does not outscore
 * the right word), times its similarity boost.
 */
function fuzzySet(q: FuzzyQuery, ctx: SegmentEvalContext, needScores: boolean, boost: number): DocSet {
  const seg = ctx.segment;
  const inv = seg.inverted.get(q.field);
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  const terms = ctx.stats.fuzzyTerms(q);
  if (inv === undefined || terms.length === 0) return { bits, scores: null, constant: 0, mutable: true };
  const ids: number[] = [];
  const termBoosts: number[] = [];
  for (const t of terms) {
    const id = inv.terms.find(t.term);
    if (id >= 0) {
      ids.push(id);
      termBoosts.push(t.boost);
    }
  }
  if (!needScores) return { bits: unionPostings(seg, inv, ids), scores: null, constant: 0, mutable: true };
  let blendedDf = 0;
  for (const t of terms) blendedDf = Math.max(blendedDf, ctx.stats.docFreq(q.field, t.term));
  const fieldStats = ctx.stats.field(q.field);
  const idf = bm25Idf(blendedDf, fieldStats.docCount);
  const scores = ctx.arena.takeScores(seg.maxDoc);
  const norms = inv.norms;
  ids.forEach((id, k) => {
    const wv = bm25WeightValue(f(boost * termBoosts[k]!), idf);
    const cursor = inv.postings(id);
    while (cursor.nextBlock()) {
      for (let i = 0, n = cursor.count; i < n; i++) {
        const d = cursor.docs[i]!;
        const norm = norms === null ? BM25_K1 : fieldStats.normCache[norms[d]!]!;
        const s = bm25Score(wv, norms === null ? 1 : cursor.freqs[i]!, norm);
        const w = d >>> 5;
        const bit = 1 << (d & 31);
        if ((bits[w]! & bit) === 0) {
          bits[w]! |= bit;
          scores[d] = s;
        } else scores[d] = scores[d]! + s;
      }
    }
  });
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    while (word !== 0) {
      const d = (w << 5) + lowestBit(word);
      word &= word - 1;
      scores[d] = f(scores[d]!);
    }
  }
  return { bits, scores, constant: 0, mutable: true };
}
