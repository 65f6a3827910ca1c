/** Reducing aggregations whose buckets are known up front: range, date_range, filters, and the single-bucket ones. */
import type { ReducedFilters, ReducedRange, ReducedSingle } from './reduced.ts';
import type { LevelReducer } from './reduce-terms.ts';
import type { FilterSpec, FiltersSpec, GlobalSpec, MissingSpec, NestedSpec, RangeSpec, ReverseNestedSpec, SamplerSpec } from './spec.ts';
import type { AggState, FiltersState, RangeState, SingleBucketState } from './state.ts';
import { RAW_FORMAT } from './value-format.ts';

export function reduceRange(spec: RangeSpec, states: readonly RangeState[], reduceLevel: LevelReducer): ReducedRange {
  const first = states[0];
  const format = first?.format ?? RAW_FORMAT;
  const buckets = (first?.buckets ?? []).map((b, i) => {
    const subs: (readonly AggState[])[] = [];
    let docCount = 0;
    for (const s of states) {
      const sb = s.buckets[i];
      if (sb === undefined) continue;
      docCount += sb.docCount;
      subs.push(sb.subs);
    }
    return { key: b.key, keyAsString: null, docCount, from: b.from, to: b.to, aggs: reduceLevel(spec.subs, subs) };
  });
  return { kind: 'range', typeName: spec.type, name: spec.name, meta: spec.meta, keyed: spec.keyed, format, buckets };
}

export function reduceFilters(spec: FiltersSpec, states: readonly FiltersState[], reduceLevel: LevelReducer): ReducedFilters {
  const first = states[0];
  const buckets = (first?.buckets ?? []).map((b, i) => {
    const subs: (readonly AggState[])[] = [];
    let docCount = 0;
    for (const s of states) {
      const sb = s.buckets[i];
      if (sb === undefined) continue;
      docCount += sb.docCount;
      subs.push(sb.subs);
    }
    return { key: b.key, keyAsString: null, docCount, aggs: reduceLevel(spec.subs, subs) };
  });
  return { kind: 'filters', name: spec.name, meta: spec.meta, keyed: spec.keyed, buckets };
}

export function reduceSingle(
  spec: FilterSpec | MissingSpec | GlobalSpec | NestedSpec | ReverseNestedSpec | SamplerSpec,
  states: readonly SingleBucketState[],
  reduceLevel: LevelReducer,
): ReducedSingle {
  let docCount = 0;
  for (const s of states) docCount += s.docCount;
  return {
    kind: 'single',
    // a diversified sample is a sampler to clients (InternalSampler.getType)
    typeName: spec.type === 'diversified_sampler' ? 'sampler' : spec.type,
    name: spec.name,
    meta: spec.meta,
    docCount,
    aggs: reduceLevel(
      spec.subs,
      states.map((s) => s.subs),
    ),
  };
}
