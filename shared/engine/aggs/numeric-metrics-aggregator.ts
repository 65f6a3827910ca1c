/**
 * The shard side of avg, sum, min, max, stats, extended_stats and value_count:
 * per bucket count, Kahan-compensated sum (as Elasticsearch 6.8 sums), min,
 * max and sum of squares in typed arrays. value_count also counts keyword
 * values.
 */
import type { NumericDocValues, SortedDocValues } from '../segment/types.ts';
import type { Aggregator, SegmentContext } from './aggregator.ts';
import { growF64 } from './aggregator.ts';
import type { AggPathElement, NumericMetricSpec } from './spec.ts';
import type { AggState, NumericStatsState, ValueFormat } from './state.ts';
import type { ResolvedSource } from './value-source.ts';
import { numericValues, sortedValues } from './value-source.ts';
import { RAW_FORMAT } from './value-format.ts';

export class NumericMetricsAggregator implements Aggregator {
  readonly name: string;
  private count = new Float64Array(16);
  private sum = new Float64Array(16);
  private comp = new Float64Array(16);
  private min = new Float64Array(16).fill(Infinity);
  private max = new Float64Array(16).fill(-Infinity);
  private sumSq = new Float64Array(16);
  private sumSqComp = new Float64Array(16);
  private numeric: NumericDocValues | null = null;
  private sorted: SortedDocValues | null = null;
  private readonly squares: boolean;

  constructor(
    private readonly spec: NumericMetricSpec,
    private readonly source: ResolvedSource,
  ) {
    this.name = spec.name;
    this.squares = spec.type === 'extended_stats';
  }

  setSegment(seg: SegmentContext): void {
    const src = this.source;
    this.numeric = src.kind === 'numeric' ? numericValues(seg.view.segment, src.field) : null;
    this.sorted = src.kind === 'bytes' ? sortedValues(seg.view.segment, src.field) : null;
  }

  private ensure(b: number): void {
    if (b < this.count.length) return;
    const n = b + 1;
    this.count = growF64(this.count, n);
    this.sum = growF64(this.sum, n);
    this.comp = growF64(this.comp, n);
    this.min = growF64(this.min, n, Infinity);
    this.max = growF64(this.max, n, -Infinity);
    this.sumSq = growF64(this.sumSq, n);
    this.sumSqComp = growF64(this.sumSqComp, n);
  }

  private add(b: number, v: number): void {
    this.count[b]!++;
    // Kahan summation (CompensatedSum)
    const s = this.sum[b]!;
    if (Number.isFinite(v) && Number.isFinite(s)) {
      const corrected = v - this.comp[b]!;
      const newSum = s + corrected;
      this.comp[b] = newSum - s - corrected;
      this.sum[b] = newSum;
    } else {
      this.sum[b] = s + v;
    }
    if (v < this.min[b]!) this.min[b] = v;
    if (v > this.max[b]!) this.max[b] = v;
    if (this.squares) {
      const sq = v * v;
      const ss = this.sumSq[b]!;
      const corrected = sq - this.sumSqComp[b]!;
      const newSum = ss + corrected;
      this.sumSqComp[b] = newSum - ss - corrected;
      this.sumSq[b] = newSum;
    }
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    const src = this.source;
    if (src.kind === 'unmapped') return;
    if (src.kind === 'bytes') {
      // value_count on keywords: number of values per doc
      const dv = this.sorted;
      const missing = src.missing !== null;
      for (let i = 0; i < n; i++) {
        const doc = docs[i]!;
        const b = owners[i]!;
        this.ensure(b);
        let c = 0;
        if (dv !== null) c = dv.starts === null ? (dv.ords[doc]! >= 0 ? 1 : 0) : dv.starts[doc + 1]! - dv.starts[doc]!;
        if (c === 0 && missing) c = 1;
        this.count[b] = this.count[b]! + c;
      }
      return;
    }
    const dv = this.numeric;
    const missing = src.missing;
    if (dv !== null && dv.starts === null) {
      const values = dv.values;
      for (let i = 0; i < n; i++) {
        let v = values[docs[i]!]!;
        if (v !== v) {
          if (missing === null) continue;
          v = missing;
        }
        const b = owners[i]!;
        if (b >= this.count.length) this.ensure(b);
        this.add(b, v);
      }
      return;
    }
    for (let i = 0; i < n; i++) {
      const doc = docs[i]!;
      const b = owners[i]!;
      this.ensure(b);
      if (dv === null) {
        if (missing !== null) this.add(b, missing);
        continue;
      }
      const from = dv.starts![doc]!;
      const to = dv.starts![doc + 1]!;
      if (from === to) {
        if (missing !== null) this.add(b, missing);
        continue;
      }
      for (let j = from; j < to; j++) this.add(b, dv.values[j]!);
    }
  }

  build(owner: number): AggState {
    const has = owner < this.count.length;
    const count = has ? this.count[owner]! : 0;
    const format: ValueFormat = this.source.kind === 'numeric' ? this.source.format : RAW_FORMAT;
    const state: NumericStatsState = {
      kind: 'stats',
      format,
      count,
      sum: has ? this.sum[owner]! : 0,
      min: count > 0 && has && Number.isFinite(this.min[owner]!) ? this.min[owner]! : null,
      max: count > 0 && has && Number.isFinite(this.max[owner]!) ? this.max[owner]! : null,
      sumOfSquares: has ? this.sumSq[owner]! : 0,
    };
    return state;
  }

  sortValue(owner: number, path: readonly AggPathElement[], at: number, metric: string | null): number {
    if (at !== path.length - 1) return NaN;
    const has = owner < this.count.length;
    const count = has ? this.count[owner]! : 0;
    const sum = has ? this.sum[owner]! : 0;
    const min = has ? this.min[owner]! : Infinity;
    const max = has ? this.max[owner]! : -Infinity;
    const sumSq = has ? this.sumSq[owner]! : 0;
    return numericMetricValue(this.spec.type, metric, count, sum, min, max, sumSq, this.spec.sigma);
  }
}

/** The value of a (single- or multi-value) numeric metric, by metric name, as Elasticsearch's `value(name)`. */
export function numericMetricValue(
  type: NumericMetricSpec['type'],
  metric: string | null,
  count: number,
  sum: number,
  min: number,
  max: number,
  sumSq: number,
  sigma: number,
): number {
  const avg = count === 0 ? NaN : sum / count;
  switch (type) {
    case 'avg':
      return avg;
    case 'sum':
      return sum;
    case 'min':
      return min;
    case 'max':
      return max;
    case 'value_count':
      return count;
    default:
      break;
  }
  const variance = count === 0 ? NaN : (sumSq - (sum * sum) / count) / count;
  const std = Math.sqrt(variance);
  switch (metric) {
    case 'count':
      return count;
    case 'sum':
      return sum;
    case 'min':
      return min;
    case 'max':
      return max;
    case 'avg':
      return avg;
    case 'sum_of_squares':
      return type === 'extended_stats' ? sumSq : NaN;
    case 'variance':
      return type === 'extended_stats' ? variance : NaN;
    case 'std_deviation':
      return type === 'extended_stats' ? std : NaN;
    case 'std_upper':
      return type === 'extended_stats' ? avg + std * sigma : NaN;
    case 'std_lower':
      return type === 'extended_stats' ? avg - std * sigma : NaN;
    default:
      return NaN;
  }
}
