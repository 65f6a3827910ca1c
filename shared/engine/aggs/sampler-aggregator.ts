/**
 * `sampler` (SamplerAggregator with BestDocsDeferringCollector): per owning
 * bucket, the shard keeps its `shard_size` best-scoring docs (equal scores:
 * the earlier doc) and only those reach the sub-aggregations, which are
 * collected once every segment was seen. The bucket's doc_count is the
 * number of docs sampled.
 *
 * `diversified_sampler` is the same sample with at most `max_docs_per_value`
 * docs per value of a field (DiversifiedTopDocsCollector): the best docs are
 * taken in score order, skipping a doc whose value already has its quota.
 */
import type { Aggregator, SegmentContext } from './aggregator.ts';
import { subAggSortValue } from './aggregator.ts';
import type { AggPathElement, SamplerSpec } from './spec.ts';
import type { AggState } from './state.ts';
import { illegalArgument } from '../../errors/es-errors.ts';
import type { NumericDocValues, SortedDocValues } from '../segment/types.ts';
import { numericValues, sortedValues, type ResolvedSource } from './value-source.ts';

interface Candidate {
  readonly seg: number;
  readonly doc: number;
  readonly score: number;
  /** diversified_sampler: the doc's value of the field (null: none). */
  readonly key: string | number | null;
}

/** How many docs per value a diversified sample keeps (no limit for a plain sampler). */
interface Diversity {
  readonly maxPerValue: number;
}

export class SamplerAggregator implements Aggregator {
  readonly name: string;
  private readonly segments: SegmentContext[] = [];
  private readonly perOwner = new Map<number, Candidate[]>();
  private replayed = false;

  private readonly diversity: Diversity | null;
  private sorted: SortedDocValues | null = null;
  private numeric: NumericDocValues | null = null;

  constructor(
    private readonly spec: SamplerSpec,
    private readonly subs: readonly Aggregator[],
    private readonly diversitySource: ResolvedSource | null = null,
  ) {
    this.name = spec.name;
    this.diversity = spec.diversity === null ? null : { maxPerValue: spec.diversity.maxDocsPerValue };
  }

  setSegment(seg: SegmentContext): void {
    this.segments.push(seg);
    const src = this.diversitySource;
    const field = src === null || src.kind === 'unmapped' ? null : src.field;
    this.sorted = src?.kind === 'bytes' ? sortedValues(seg.view.segment, field) : null;
    this.numeric = src?.kind === 'numeric' ? numericValues(seg.view.segment, field) : null;
  }

  /** The doc's one value of the diversity field; a multi-valued doc is Elasticsearch's error. */
  private keyOf(doc: number): string | number | null {
    const s = this.sorted;
    if (s !== null) {
      if (s.starts === null) return s.ords[doc]! < 0 ? null : s.dict.get(s.ords[doc]!);
      const n = s.starts[doc + 1]! - s.starts[doc]!;
      if (n > 1) throw illegalArgument('Sample diversifying key must be a single valued-field');
      return n === 0 ? null : s.dict.get(s.ords[s.starts[doc]!]!);
    }
    const dv = this.numeric;
    if (dv !== null) {
      if (dv.starts === null) return dv.values[doc]! === dv.values[doc]! ? dv.values[doc]! : null;
      const n = dv.starts[doc + 1]! - dv.starts[doc]!;
      if (n > 1) throw illegalArgument('Sample diversifying key must be a single valued-field');
      return n === 0 ? null : dv.values[dv.starts[doc]!]!;
    }
    return null;
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    const segIndex = this.segments.length - 1;
    const seg = this.segments[segIndex]!;
    const limit = this.spec.shardSize;
    for (let i = 0; i < n; i++) {
      const doc = docs[i]!;
      const owner = owners[i]!;
      let list = this.perOwner.get(owner);
      if (list === undefined) this.perOwner.set(owner, (list = []));
      list.push({ seg: segIndex, doc, score: seg.scores === null ? 1 : seg.scores[doc]!, key: this.diversity === null ? null : this.keyOf(doc) });
      // Keep the memory bounded: cut back to the best `limit` once the list doubled
      // (with diversity too: a doc cut now could never make the final sample).
      if (list.length >= 2 * limit + 64) this.perOwner.set(owner, best(list, limit, this.diversity));
    }
  }

  /** Hands the sampled docs to the sub-aggregations, segment by segment in doc order. */
  private replay(): void {
    if (this.replayed) return;
    this.replayed = true;
    const bySeg: { docs: number[]; owners: number[] }[] = this.segments.map(() => ({ docs: [], owners: [] }));
    for (const [owner, list] of this.perOwner) {
      const kept = best(list, this.spec.shardSize, this.diversity);
      this.perOwner.set(owner, kept);
      for (const c of kept) {
        bySeg[c.seg]!.docs.push(c.doc);
        bySeg[c.seg]!.owners.push(owner);
      }
    }
    this.segments.forEach((seg, i) => {
      const { docs, owners } = bySeg[i]!;
      if (docs.length === 0) return;
      const order = docs.map((_, k) => k).sort((a, b) => docs[a]! - docs[b]!);
      const d = Int32Array.from(order, (k) => docs[k]!);
      const o = Int32Array.from(order, (k) => owners[k]!);
      for (const s of this.subs) {
        s.setSegment(seg);
        s.collect(d, o, d.length);
      }
    });
  }

  build(owner: number): AggState {
    this.replay();
    const docCount = this.perOwner.get(owner)?.length ?? 0;
    return { kind: 'single', docCount, subs: this.subs.map((s) => s.build(owner)) };
  }

  sortValue(owner: number, path: readonly AggPathElement[], at: number, metric: string | null): number {
    this.replay();
    if (at === path.length - 1) return metric === null || metric === '_count' || metric === 'doc_count' ? (this.perOwner.get(owner)?.length ?? 0) : NaN;
    return subAggSortValue(this.subs, owner, path, at + 1, metric);
  }
}

function best(list: Candidate[], limit: number, diversity: Diversity | null): Candidate[] {
  if (diversity === null && list.length <= limit) return list;
  list.sort((a, b) => b.score - a.score || a.seg - b.seg || a.doc - b.doc);
  if (diversity === null) return list.slice(0, limit);
  const taken = new Map<string | number | null, number>();
  const out: Candidate[] = [];
  for (const c of list) {
    if (out.length >= limit) break;
    const n = taken.get(c.key) ?? 0;
    if (n >= diversity.maxPerValue) continue;
    taken.set(c.key, n + 1);
    out.push(c);
  }
  return out;
}
