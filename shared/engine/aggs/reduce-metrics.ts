/** Reducing metric states: sums (Kahan, as 6.8), min/max, merged HLL++ sketches, merged t-digests, merged top hits. */
import { HyperLogLog } from './cardinality-hll.ts';
import type { ReducedCardinality, ReducedNumericMetric, ReducedPercentiles, ReducedTopHits } from './reduced.ts';
import type { CardinalitySpec, NumericMetricSpec, PercentilesSpec, TopHitsSpec } from './spec.ts';
import type { CardinalityState, HdrState, NumericStatsState, TDigestState, TopHitState, TopHitsState } from './state.ts';
import { HdrHistogram } from './hdr-histogram.ts';
import { TDigest } from './tdigest.ts';
import { RAW_FORMAT } from './value-format.ts';

function kahan(values: readonly number[]): number {
  let sum = 0;
  let comp = 0;
  for (const v of values) {
    if (!Number.isFinite(v)) sum += v;
    else if (Number.isFinite(sum)) {
      const corrected = v - comp;
      const newSum = sum + corrected;
      comp = newSum - sum - corrected;
      sum = newSum;
    }
  }
  return sum;
}

export function reduceNumericMetric(spec: NumericMetricSpec, states: readonly NumericStatsState[]): ReducedNumericMetric {
  let count = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const s of states) {
    count += s.count;
    if (s.min !== null && s.min < min) min = s.min;
    if (s.max !== null && s.max > max) max = s.max;
  }
  const format = states.find((s) => s.format.kind !== 'raw')?.format ?? RAW_FORMAT;
  return {
    kind: 'metric',
    typeName: spec.type,
    name: spec.name,
    meta: spec.meta,
    format,
    count,
    sum: kahan(states.map((s) => s.sum)),
    min,
    max,
    sumOfSquares: kahan(states.map((s) => s.sumOfSquares)),
    sigma: spec.sigma,
  };
}

export function reduceCardinality(spec: CardinalitySpec, states: readonly CardinalityState[]): ReducedCardinality {
  const p = states[0]?.precision ?? 14;
  const hll = new HyperLogLog(p);
  for (const s of states) hll.merge(s);
  return { kind: 'cardinality', name: spec.name, meta: spec.meta, value: states.length === 0 ? 0 : hll.cardinality() };
}

/** AbstractInternalHDRPercentiles.doReduce: a histogram shaped like the first shard's, every shard's buckets added to it. */
export function reduceHdrPercentiles(spec: PercentilesSpec, states: readonly HdrState[]): ReducedPercentiles {
  const first = states[0];
  const hdr = first === undefined ? new HdrHistogram(spec.digits) : new HdrHistogram(first.digits, first);
  for (const s of states) hdr.add(s);
  const format = states.find((s) => s.format.kind !== 'raw')?.format ?? RAW_FORMAT;
  return {
    kind: 'percentiles',
    typeName: spec.type === 'percentiles' ? 'hdr_percentiles' : 'hdr_percentile_ranks',
    name: spec.name,
    meta: spec.meta,
    digest: null,
    hdr,
    points: spec.points,
    keyed: spec.keyed,
    format,
  };
}

export function reducePercentiles(spec: PercentilesSpec, states: readonly TDigestState[]): ReducedPercentiles {
  const digest = new TDigest(spec.compression);
  for (const s of states) if (s.means.length > 0) digest.addCentroids(s.means, s.counts);
  const format = states.find((s) => s.format.kind !== 'raw')?.format ?? RAW_FORMAT;
  return {
    kind: 'percentiles',
    typeName: spec.type === 'percentiles' ? 'tdigest_percentiles' : 'tdigest_percentile_ranks',
    name: spec.name,
    meta: spec.meta,
    digest,
    hdr: null,
    points: spec.points,
    keyed: spec.keyed,
    format,
  };
}

function compareHits(spec: TopHitsSpec, a: TopHitState & { shard: number }, b: TopHitState & { shard: number }): number {
  if (spec.sort.length === 0) {
    const d = (b.score ?? 0) - (a.score ?? 0);
    if (d !== 0) return d;
  } else {
    for (let i = 0; i < spec.sort.length; i++) {
      const s = spec.sort[i]!;
      const x = a.sort?.[i] ?? null;
      const y = b.sort?.[i] ?? null;
      if (x === y) continue;
      if (x === null || y === null) return (x === null ? 1 : -1) * (s.kind === 'field' && s.missingFirst ? -1 : 1);
      return (x < y ? -1 : 1) * (s.asc ? 1 : -1);
    }
  }
  return a.shard - b.shard || a.doc - b.doc;
}

export function reduceTopHits(spec: TopHitsSpec, states: readonly TopHitsState[]): ReducedTopHits {
  let total = 0;
  let maxScore: number | null = null;
  const all: (TopHitState & { shard: number })[] = [];
  states.forEach((s, shard) => {
    total += s.total;
    if (s.maxScore !== null && (maxScore === null || s.maxScore > maxScore)) maxScore = s.maxScore;
    for (const h of s.hits) all.push({ ...h, shard });
  });
  all.sort((a, b) => compareHits(spec, a, b));
  return {
    kind: 'top_hits',
    name: spec.name,
    meta: spec.meta,
    total,
    maxScore,
    hits: all.slice(spec.from, spec.from + spec.size),
  };
}
