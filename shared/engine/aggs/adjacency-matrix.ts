/**
 * `adjacency_matrix` (AdjacencyMatrixAggregator and InternalAdjacencyMatrix
 * of Elasticsearch 6.8): for filters A, B, C (sorted by name) the buckets
 * A, B, C, A&B, A&C, B&C, each the docs matching all its filters; buckets
 * without docs are left out, the reduce sorts them by key. Bucket id =
 * owner × width + cell, cells numbered singles first, then pairs row by row.
 */
import { EsError } from '../../errors/es-errors.ts';
import type { Aggregator, SegmentContext } from './aggregator.ts';
import { countInBucket, DocOwnerBuffer, flushToChildren, subAggSortValue, type ShardScope } from './aggregator.ts';
import { EMPTY_OWNER } from './histogram-aggregator.ts';
import type { ReducedBucket, ReducedFilters } from './reduced.ts';
import type { LevelReducer } from './reduce-terms.ts';
import type { AdjacencyMatrixSpec, AggPathElement } from './spec.ts';
import type { AdjacencyState, AggState, BucketState } from './state.ts';

/** IndexSettings.MAX_ADJACENCY_MATRIX_FILTERS_SETTING's default. */
export const DEFAULT_MAX_ADJACENCY_MATRIX_FILTERS = 100;

export class AdjacencyMatrixAggregator implements Aggregator {
  readonly name: string;
  private counts = new Int32Array(16);
  private readonly buf = new DocOwnerBuffer();
  private bits: Uint32Array[] = [];
  private readonly n: number;
  private readonly width: number;
  private readonly keys: string[];
  private readonly matched: Int32Array;

  constructor(
    private readonly spec: AdjacencyMatrixSpec,
    private readonly subs: readonly Aggregator[],
    private readonly scope: ShardScope,
  ) {
    this.name = spec.name;
    const max = scope.ctx.maxAdjacencyMatrixFilters ?? DEFAULT_MAX_ADJACENCY_MATRIX_FILTERS;
    const n = spec.filters.length;
    if (n > max) {
      throw new EsError(
        'query_phase_execution_exception',
        `Number of filters is too large, must be less than or equal to: [${max}] but was [${n}].This limit can be set by changing the [index.max_adjacency_matrix_filters] index level setting.`,
        500,
      );
    }
    this.n = n;
    this.width = n + (n * (n - 1)) / 2;
    this.keys = spec.filters.map((f) => f.key);
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) this.keys.push(`${spec.filters[i]!.key}${spec.separator}${spec.filters[j]!.key}`);
    this.matched = new Int32Array(n);
  }

  setSegment(seg: SegmentContext): void {
    this.bits = this.spec.filters.map((f) => seg.agg.filterBits(f.query, seg.view));
    for (const s of this.subs) s.setSegment(seg);
  }

  collect(docs: Int32Array, owners: Int32Array, count: number): void {
    const n = this.n;
    const hasSubs = this.subs.length > 0;
    for (let d = 0; d < count; d++) {
      const doc = docs[d]!;
      let m = 0;
      for (let f = 0; f < n; f++) if ((this.bits[f]![doc >>> 5]! & (1 << (doc & 31))) !== 0) this.matched[m++] = f;
      if (m === 0) continue;
      const base = owners[d]! * this.width;
      if (hasSubs) this.buf.ensure(m + (m * (m - 1)) / 2);
      for (let a = 0; a < m; a++) {
        const i = this.matched[a]!;
        this.count(doc, base + i, hasSubs);
        // pair (i, j) sits after the singles and the rows of every i' < i
        const row = n + (i * (2 * n - i - 1)) / 2 - i - 1;
        for (let b = a + 1; b < m; b++) this.count(doc, base + row + this.matched[b]!, hasSubs);
      }
      if (hasSubs && this.buf.n >= 4096) flushToChildren(this.subs, this.buf);
    }
    flushToChildren(this.subs, this.buf);
  }

  private count(doc: number, b: number, hasSubs: boolean): void {
    this.counts = countInBucket(this.counts, this.buf, doc, b, hasSubs);
  }

  build(owner: number): AggState {
    const buckets: BucketState[] = [];
    if (owner !== EMPTY_OWNER) {
      for (let c = 0; c < this.width; c++) {
        const b = owner * this.width + c;
        const docCount = b < this.counts.length ? this.counts[b]! : 0;
        if (docCount === 0) continue;
        buckets.push({ key: this.keys[c]!, docCount, subs: this.subs.map((s) => s.build(b)) });
      }
    }
    this.scope.budget?.consume(buckets.length);
    const state: AdjacencyState = { kind: 'adjacency', buckets };
    return state;
  }

  sortValue(owner: number, path: readonly AggPathElement[], at: number, metric: string | null): number {
    const el = path[at];
    const c = el === undefined || el.key === null ? -1 : this.keys.indexOf(el.key);
    if (c < 0) return NaN;
    const b = owner * this.width + c;
    if (at === path.length - 1) return metric === null || metric === '_count' ? (b < this.counts.length ? this.counts[b]! : 0) : NaN;
    return subAggSortValue(this.subs, b, path, at + 1, metric);
  }
}

/** InternalAdjacencyMatrix.doReduce: buckets of the same key merged, sorted by key. */
export function reduceAdjacencyMatrix(spec: AdjacencyMatrixSpec, states: readonly AdjacencyState[], reduceLevel: LevelReducer): ReducedFilters {
  const byKey = new Map<string, { docCount: number; subs: (readonly AggState[])[] }>();
  for (const s of states) {
    for (const b of s.buckets) {
      const key = String(b.key);
      let m = byKey.get(key);
      if (m === undefined) {
        m = { docCount: 0, subs: [] };
        byKey.set(key, m);
      }
      m.docCount += b.docCount;
      m.subs.push(b.subs);
    }
  }
  const keys = [...byKey.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const buckets: ReducedBucket[] = keys.map((key) => {
    const m = byKey.get(key)!;
    return { key, keyAsString: null, docCount: m.docCount, aggs: reduceLevel(spec.subs, m.subs) };
  });
  return { kind: 'filters', typeName: 'adjacency_matrix', name: spec.name, meta: spec.meta, keyed: false, buckets };
}
