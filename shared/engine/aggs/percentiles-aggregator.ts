/** The shard side of `percentiles` and `percentile_ranks`: one t-digest (or, with `hdr`, one HdrHistogram) per bucket. */
import type { NumericDocValues } from '../segment/types.ts';
import type { Aggregator, SegmentContext } from './aggregator.ts';
import { HdrHistogram } from './hdr-histogram.ts';
import type { AggPathElement, PercentilesSpec } from './spec.ts';
import type { AggState, ValueFormat } from './state.ts';
import { TDigest } from './tdigest.ts';
import type { ResolvedSource } from './value-source.ts';
import { numericValues } from './value-source.ts';
import { RAW_FORMAT } from './value-format.ts';

export class PercentilesAggregator implements Aggregator {
  readonly name: string;
  private digests: (TDigest | undefined)[] = [];
  private histograms: (HdrHistogram | undefined)[] = [];
  private dv: NumericDocValues | null = null;
  private readonly hdr: boolean;

  constructor(
    private readonly spec: PercentilesSpec,
    private readonly source: ResolvedSource,
  ) {
    this.name = spec.name;
    this.hdr = spec.method === 'hdr';
  }

  private add(b: number, v: number): void {
    if (this.hdr) {
      let h = this.histograms[b];
      if (h === undefined) {
        h = new HdrHistogram(this.spec.digits);
        this.histograms[b] = h;
      }
      h.recordValue(v);
      return;
    }
    let d = this.digests[b];
    if (d === undefined) {
      d = new TDigest(this.spec.compression);
      this.digests[b] = d;
    }
    d.add(v);
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
        if (missing !== null) this.add(b, missing);
      } else if (dv.starts === null) {
        const v = dv.values[doc]!;
        if (v === v) this.add(b, v);
        else if (missing !== null) this.add(b, missing);
      } else {
        const from = dv.starts[doc]!;
        const to = dv.starts[doc + 1]!;
        if (from === to && missing !== null) this.add(b, missing);
        for (let j = from; j < to; j++) this.add(b, dv.values[j]!);
      }
    }
  }

  build(owner: number): AggState {
    const format: ValueFormat = this.source.kind === 'numeric' ? this.source.format : RAW_FORMAT;
    if (this.hdr) {
      const h = this.histograms[owner] ?? new HdrHistogram(this.spec.digits);
      return { kind: 'hdr', format, ...h.snapshot() };
    }
    const d = this.digests[owner];
    if (d === undefined) {
      return { kind: 'tdigest', format, compression: this.spec.compression, means: new Float64Array(0), counts: new Float64Array(0) };
    }
    d.flush();
    return { kind: 'tdigest', format, compression: this.spec.compression, means: d.means.slice(0, d.size), counts: d.counts.slice(0, d.size) };
  }

  sortValue(owner: number, path: readonly AggPathElement[], at: number, metric: string | null): number {
    if (at !== path.length - 1 || metric === null) return NaN;
    if (this.hdr) {
      const h = this.histograms[owner];
      if (h === undefined) return NaN;
      return this.spec.type === 'percentiles' ? h.valueAtPercentile(Number(metric)) : h.percentileAtOrBelow(Number(metric));
    }
    const d = this.digests[owner];
    if (d === undefined) return NaN;
    const p = Number(metric);
    return this.spec.type === 'percentiles' ? d.quantile(p / 100) : d.cdf(p) * 100;
  }
}
