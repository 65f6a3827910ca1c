/**
 * Shard-level term and collection statistics for BM25, aggregated over the
 * segments of one searcher snapshot the way Lucene's IndexSearcher does:
 * docFreq and docCount are summed over segments, deleted docs included.
 */
import type { SearcherSnapshot } from '../segment/types.ts';
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

  /** Per field, docFreq by term: each segment's dictionary is searched once per term a query asks for. */
  private readonly docFreqs = new Map<string, Map<string, number>>();

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
    let byTerm = this.docFreqs.get(field);
    if (byTerm === undefined) {
      byTerm = new Map();
      this.docFreqs.set(field, byTerm);
    }
    const known = byTerm.get(term);
    if (known !== undefined) return known;
    const df = this.sumDocFreq(field, term);
    byTerm.set(term, df);
    return df;
  }

  private sumDocFreq(field: string, term: string): number {
    let df = 0;
    for (const view of this.snapshot.views) {
      const inv = view.segment.inverted.get(field);
      if (inv === undefined) continue;
      const t = inv.terms.find(term);
      if (t >= 0) df += inv.docFreq(t);
    }
    return df;
  }
}
