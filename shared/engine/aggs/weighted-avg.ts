/**
 * `weighted_avg` (WeightedAvgAggregator of Elasticsearch 6.4+): Σ value ×
 * weight / Σ weight over the docs that have a weight (or `weight.missing`);
 * each of a doc's values counts with the doc's one weight. A doc with more
 * than one weight is Elasticsearch's error.
 */
import { EsError } from '../../errors/es-errors.ts';
import type { NumericDocValues } from '../segment/types.ts';
import type { Aggregator, SegmentContext } from './aggregator.ts';
import { growF64 } from './aggregator.ts';
import type { ReducedSimpleValue } from './reduced.ts';
import type { AggPathElement, WeightedAvgSpec } from './spec.ts';
import type { AggState, WeightedAvgState } from './state.ts';
import { numericValues, type ResolvedSource } from './value-source.ts';
import { RAW_FORMAT } from './value-format.ts';

function tooManyWeights(): EsError {
  return new EsError(
    'aggregation_execution_exception',
    'Encountered more than one weight for a single document. Use a script to combine multiple weights-per-doc into a single value.',
    500,
  );
}

export class WeightedAvgAggregator implements Aggregator {
  readonly name: string;
  private sums = new Float64Array(16);
  private weights = new Float64Array(16);
  private valuesDv: NumericDocValues | null = null;
  private weightsDv: NumericDocValues | null = null;

  constructor(
    spec: WeightedAvgSpec,
    private readonly value: ResolvedSource,
    private readonly weight: ResolvedSource,
  ) {
    this.name = spec.name;
  }

  setSegment(seg: SegmentContext): void {
    this.valuesDv = this.value.kind === 'numeric' ? numericValues(seg.view.segment, this.value.field) : null;
    this.weightsDv = this.weight.kind === 'numeric' ? numericValues(seg.view.segment, this.weight.field) : null;
  }

  /** The doc's one weight, or NaN. */
  private weightOf(doc: number): number {
    const dv = this.weightsDv;
    const missing = this.weight.kind === 'numeric' ? this.weight.missing : null;
    if (dv === null) return missing ?? NaN;
    if (dv.starts === null) {
      const w = dv.values[doc]!;
      return w === w ? w : (missing ?? NaN);
    }
    const n = dv.starts[doc + 1]! - dv.starts[doc]!;
    if (n > 1) throw tooManyWeights();
    return n === 1 ? dv.values[dv.starts[doc]!]! : (missing ?? NaN);
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    if (this.value.kind !== 'numeric' || this.weight.kind !== 'numeric') return;
    const dv = this.valuesDv;
    const missing = this.value.missing;
    for (let i = 0; i < n; i++) {
      const doc = docs[i]!;
      const w = this.weightOf(doc);
      if (w !== w) continue;
      const b = owners[i]!;
      if (b >= this.sums.length) {
        this.sums = growF64(this.sums, b + 1);
        this.weights = growF64(this.weights, b + 1);
      }
      if (dv === null || dv.starts === null) {
        let v = dv === null ? NaN : dv.values[doc]!;
        if (v !== v) {
          if (missing === null) continue;
          v = missing;
        }
        this.sums[b]! += v * w;
        this.weights[b]! += w;
      } else {
        const from = dv.starts[doc]!;
        const to = dv.starts[doc + 1]!;
        if (from === to && missing !== null) {
          this.sums[b]! += missing * w;
          this.weights[b]! += w;
        }
        for (let j = from; j < to; j++) {
          this.sums[b]! += dv.values[j]! * w;
          this.weights[b]! += w;
        }
      }
    }
  }

  build(owner: number): AggState {
    const live = owner < this.sums.length;
    const state: WeightedAvgState = {
      kind: 'weighted_avg',
      format: this.value.kind === 'numeric' ? this.value.format : RAW_FORMAT,
      sum: live ? this.sums[owner]! : 0,
      weight: live ? this.weights[owner]! : 0,
    };
    return state;
  }

  sortValue(owner: number, path: readonly AggPathElement[], at: number): number {
    if (at !== path.length - 1 || owner >= this.sums.length || this.weights[owner] === 0) return NaN;
    return this.sums[owner]! / this.weights[owner]!;
  }
}

/** InternalWeightedAvg.doReduce; the value prints null when the weights sum to 0. */
export function reduceWeightedAvg(spec: WeightedAvgSpec, states: readonly WeightedAvgState[]): ReducedSimpleValue {
  let sum = 0;
  let weight = 0;
  for (const s of states) {
    sum += s.sum;
    weight += s.weight;
  }
  const format = states.find((s) => s.format.kind !== 'raw')?.format ?? RAW_FORMAT;
  return { kind: 'simple_value', typeName: 'weighted_avg', name: spec.name, meta: spec.meta, value: weight === 0 ? NaN : sum / weight, format };
}
