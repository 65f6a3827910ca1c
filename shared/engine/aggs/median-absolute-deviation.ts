/**
 * `median_absolute_deviation` (Elasticsearch 6.6+, InternalMedianAbsoluteDeviation):
 * the shards' t-digests of the values are merged, the median taken, and the
 * median of |median − centroid mean| (each centroid weighted by its count)
 * read from a second digest of the same compression.
 */
import type { ReducedSimpleValue } from './reduced.ts';
import type { MedianAbsoluteDeviationSpec } from './spec.ts';
import type { TDigestState } from './state.ts';
import { TDigest } from './tdigest.ts';
import { RAW_FORMAT } from './value-format.ts';

/** MedianAbsoluteDeviationAggregationBuilder's default compression. */
export const DEFAULT_MAD_COMPRESSION = 1000;

export function medianAbsoluteDeviation(values: TDigest): number {
  values.flush();
  if (values.size === 0) return NaN;
  const median = values.quantile(0.5);
  const order = Array.from({ length: values.size }, (_, i) => i).sort((a, b) => Math.abs(median - values.means[a]!) - Math.abs(median - values.means[b]!));
  const deviations = new TDigest(values.compression);
  deviations.addCentroids(
    Float64Array.from(order, (i) => Math.abs(median - values.means[i]!)),
    Float64Array.from(order, (i) => values.counts[i]!),
  );
  return deviations.quantile(0.5);
}

export function reduceMedianAbsoluteDeviation(spec: MedianAbsoluteDeviationSpec, states: readonly TDigestState[]): ReducedSimpleValue {
  const digest = new TDigest(spec.compression);
  for (const s of states) if (s.means.length > 0) digest.addCentroids(s.means, s.counts);
  const format = states.find((s) => s.format.kind !== 'raw')?.format ?? RAW_FORMAT;
  return { kind: 'simple_value', typeName: 'median_absolute_deviation', name: spec.name, meta: spec.meta, value: medianAbsoluteDeviation(digest), format };
}
