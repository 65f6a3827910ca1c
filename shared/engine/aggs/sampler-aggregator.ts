/**
 * `sampler` (SamplerAggregator with BestDocsDeferringCollector): per owning
 * bucket, the shard keeps its `shard_size` best-scoring docs (equal scores:
 * the earlier doc) and only those reach the sub-aggregations, which are
 * collected once every segment was seen. The bucket's doc_count is the
 * number of docs sampled.
 */
import type { Aggregator, SegmentContext } from './aggregator.ts';
import { subAggSortValue } from './aggregator.ts';
import type { AggPathElement, SamplerSpec } from './spec.ts';
import type { AggState } from './state.ts';

interface Candidate {
  readonly seg: number;
  readonly doc: number;
  readonly score: number;
}

export class SamplerAggregator implements Aggregator {
  readonly name: string;
  private readonly segments: SegmentContext[] = [];
  private readonly perOwner = new Map<number, Candidate[]>();
  private replayed = false;

  constructor(
    private readonly spec: SamplerSpec,
    private readonly subs: readonly Aggregator[],
  ) {
    this.name = spec.name;
  }

  setSegment(seg: SegmentContext): void {
    this.segments.push(seg);
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
      list.push({ seg: segIndex, doc, score: seg.scores === null ? 1 : seg.scores[doc]! });
      // Keep the memory bounded: cut back to the best `limit` once the list doubled.
      if (list.length >= 2 * limit + 64) this.perOwner.set(owner, best(list, limit));
    }
  }

  /** Hands the sampled docs to the sub-aggregations, segment by segment in doc order. */
  private replay(): void {
    if (this.replayed) return;
    this.replayed = true;
    const bySeg: { docs: number[]; owners: number[] }[] = this.segments.map(() => ({ docs: [], owners: [] }));
    for (const [owner, list] of this.perOwner) {
      const kept = best(list, this.spec.shardSize);
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

function best(list: Candidate[], limit: number): Candidate[] {
  if (list.length <= limit) return list;
  return list.sort((a, b) => b.score - a.score || a.seg - b.seg || a.doc - b.doc).slice(0, limit);
}
