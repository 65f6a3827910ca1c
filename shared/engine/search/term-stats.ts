/**
 * Shard-level term and collection statistics for BM25, aggregated over the
 * segments of one searcher snapshot the way Lucene's IndexSearcher does:
 * docFreq and docCount are summed over segments, deleted docs included.
 */
import type { InvertedField, SearcherSnapshot, Segment } from '../segment/types.ts';
import { bm25AvgFieldLength, bm25NormCache } from './bm25.ts';
import { expandFuzzy, type FuzzySpec, type FuzzyTerm } from './fuzzy-terms.ts';

export interface FieldStats {
  /** Docs with the field (Terms.getDocCount), summed. */
  readonly docCount: number;
  /** -1 when the field is indexed without frequencies (no norms: keyword). */
  readonly sumTotalTermFreq: number;
  readonly hasNorms: boolean;
  /** BM25 denominators per norm byte. */
  readonly normCache: Float32Array;
}

export class ShardTermStats {
  private readonly snapshot: SearcherSnapshot;
  private readonly fields = new Map<string, FieldStats>();

  constructor(snapshot: SearcherSnapshot) {
    this.snapshot = snapshot;
  }

  field(field: string): FieldStats {
    let stats = this.fields.get(field);
    if (stats !== undefined) return stats;
    let docCount = 0;
    let sumTtf = 0;
    let hasNorms = false;
    for (const view of this.snapshot.views) {
      const inv = view.segment.inverted.get(field);
      if (inv === undefined) continue;
      docCount += inv.docCount;
      sumTtf += inv.sumTotalTermFreq;
      if (inv.norms !== null) hasNorms = true;
    }
    const sumTotalTermFreq = hasNorms ? sumTtf : -1;
    stats = { docCount, sumTotalTermFreq, hasNorms, normCache: bm25NormCache(bm25AvgFieldLength(sumTotalTermFreq, docCount)) };
    this.fields.set(field, stats);
    return stats;
  }

  /**
   * Per field, by term: its id in each segment and its docFreq summed over them.
   * Each segment's dictionary is searched once per term a query asks for, for
   * the statistics and the postings both (Lucene's TermStates): a query over
   * many segments would otherwise search every dictionary twice per term.
   */
  private readonly terms = new Map<string, Map<string, TermState>>();
  private segmentIndex: Map<Segment, number> | null = null;

  private readonly fuzzy = new Map<string, FuzzyTerm[]>();

  /** A fuzzy term's expansion on this shard, computed once per query and snapshot. */
  fuzzyTerms(spec: FuzzySpec): FuzzyTerm[] {
    const key = JSON.stringify(spec);
    let terms = this.fuzzy.get(key);
    if (terms === undefined) this.fuzzy.set(key, (terms = expandFuzzy(this.snapshot, spec)));
    return terms;
  }

  /** Docs containing `term` in `field`, summed over segments. */
  docFreq(field: string, term: string): number {
    return this.state(field, term).docFreq;
  }

  /** The id of `term` in `segment`'s dictionary of `field` (-1: absent). */
  termId(segment: Segment, field: string, term: string): number {
    this.segmentIndex ??= new Map(this.snapshot.views.map((v, i) => [v.segment, i]));
    const i = this.segmentIndex.get(segment);
    if (i === undefined) {
      // Not of this snapshot (a caller's own segment): looked up directly.
      const inv = segment.inverted.get(field);
      return inv === undefined ? -1 : inv.terms.find(term);
    }
    return this.state(field, term).ids[i]!;
  }

  private state(field: string, term: string): TermState {
    let byTerm = this.terms.get(field);
    if (byTerm === undefined) {
      byTerm = new Map();
      this.terms.set(field, byTerm);
    }
    let state = byTerm.get(term);
    if (state !== undefined) return state;
    const views = this.snapshot.views;
    const ids = new Int32Array(views.length);
    let docFreq = 0;
    for (let i = 0; i < views.length; i++) {
      const inv = views[i]!.segment.inverted.get(field);
      const t = inv === undefined ? -1 : recentTermId(inv, term);
      ids[i] = t;
      if (t >= 0) docFreq += inv!.docFreq(t);
    }
    state = { docFreq, ids };
    byTerm.set(term, state);
    return state;
  }
}

/**
 * Per segment field, the ids of the terms searched for last. A segment's
 * dictionary never changes, and the seed's fragment search looked up its 5
 * n-grams in each of 45 segments' dictionaries per request (a block search
 * and a walk of front-coded entries each, about 7% of its query phase);
 * queries repeat their terms. A few entries a field, whatever the segment's size.
 */
const RECENT_TERM_IDS = 64;
const recentIds = new WeakMap<InvertedField, Map<string, number>>();

function recentTermId(inv: InvertedField, term: string): number {
  let ids = recentIds.get(inv);
  if (ids === undefined) recentIds.set(inv, (ids = new Map()));
  let id = ids.get(term);
  if (id !== undefined) return id;
  id = inv.terms.find(term);
  if (ids.size >= RECENT_TERM_IDS) ids.delete(ids.keys().next().value!);
  ids.set(term, id);
  return id;
}

interface TermState {
  readonly docFreq: number;
  /** By the snapshot's view index. */
  readonly ids: Int32Array;
}
