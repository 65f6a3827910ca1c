/** The shard side of `percentiles` and `percentile_ranks`: one t-digest per bucket. */
import type { NumericDocValues } from '../segment/types.ts';
import type { Aggregator, SegmentContext } from './aggregator.ts';
import type { AggPathElement, PercentilesSpec } from './spec.ts';
import type { AggState, ValueFormat } from './state.ts';
import { TDigest } from './tdigest.ts';
import type { ResolvedSource } from './value-source.ts';
import { numericValues } from './value-source.ts';
import { RAW_FORMAT } from './value-format.ts';

export class PercentilesAggregator implements Aggregator {
  readonly name: string;
  private digests: (TDigest | undefined)[] = [];
  private dv: NumericDocValues | null = null;

  constructor(
    private readonly spec: PercentilesSpec,
    private readonly source: ResolvedSource,
  ) {
    this.name = spec.name;
  }

  private digest(b: number): TDigest {
    let d = this.digests[b];
    if (d === undefined) {
      d = new TDigest(this.spec.compression);
      this.digests[b] = d;
    }
    return d;
  }

  setSegment(seg: SegmentContext): void {
    this.dv = this.source.kind === 'numeric' ? numericValues(seg.view.segment, this.source.field) : null;
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    const src = this.source;
    if (src.kind !== 'numeric') return;
    const dv = this.dv;
    const missing = src.missing;
    for (let i = 0; i < n; i++) {
      const doc = docs[i]!;
      const b = owners[i]!;
      if (dv === null) {
        if (missing !== null) this.digest(b).add(missing);
      } else if (dv.starts === null) {
        const v = dv.values[doc]!;
        if (v === v) this.digest(b).add(v);
        else if (missing !== null) this.digest(b).add(missing);
      } else {
        const from = dv.starts[doc]!;
        const to = dv.starts[doc + 1]!;
        if (from === to && missing !== null) this.digest(b).add(missing);
        for (let j = from; j < to; j++) this.digest(b).add(dv.values[j]!);
      }
    }
  }

  build(owner: number): AggState {
    const d = this.digests[owner];
    const format: ValueFormat = this.source.kind === 'numeric' ? this.source.format : RAW_FORMAT;
    if (d === undefined) {
      return { kind: 'tdigest', format, compression: this.spec.compression, means: new Float64Array(0), counts: new Float64Array(0) };
    }
    d.flush();
    return { kind: 'tdigest', format, compression: this.spec.compression, means: d.means.slice(0, d.size), counts: d.counts.slice(0, d.size) };
  }

  sortValue(owner: number, path: readonly AggPathElement[], at: number, metric: string | null): number {
    if (at !== path.length - 1 || metric === null) return NaN;
    const d = this.digests[owner];
    if (d === undefined) return NaN;
    const p = Number(metric);
    return this.spec.type === 'percentiles' ? d.quantile(p / 100) : d.cdf(p) * 100;
  }
}
