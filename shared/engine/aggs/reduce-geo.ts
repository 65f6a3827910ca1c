/**
 * The coordinator's side of the geo aggregations: geo_bounds and
 * geo_centroid merge their shards' numbers (InternalGeoBounds,
 * InternalGeoCentroid); geohash_grid and geo_distance reduce as the terms and
 * range aggregations they run as, then take their own names and keys.
 */
import type { LevelReducer } from './reduce-terms.ts';
import { reduceTerms } from './reduce-terms.ts';
import { reduceRange } from './reduce-fixed-buckets.ts';
import type { ReducedGeoBounds, ReducedGeoCentroid, ReducedRange, ReducedTerms } from './reduced.ts';
import type { GeoBoundsSpec, GeoCentroidSpec, GeoDistanceAggSpec, GeoHashGridSpec } from './spec.ts';
import type { GeoBoundsState, GeoCentroidState, RangeState, TermsState } from './state.ts';
import { cellGeohash, geoDistanceRangeSpec, geohashTermsSpec } from './geo-aggregators.ts';

const max = (a: number, b: number | null): number => (b === null ? a : Math.max(a, b));
const min = (a: number, b: number | null): number => (b === null ? a : Math.min(a, b));

export function reduceGeoBounds(spec: GeoBoundsSpec, states: readonly GeoBoundsState[]): ReducedGeoBounds {
  let top = -Infinity;
  let bottom = Infinity;
  let posLeft = Infinity;
  let posRight = -Infinity;
  let negLeft = Infinity;
  let negRight = -Infinity;
  for (const s of states) {
    top = max(top, s.top);
    bottom = min(bottom, s.bottom);
    posLeft = min(posLeft, s.posLeft);
    posRight = max(posRight, s.posRight);
    negLeft = min(negLeft, s.negLeft);
    negRight = max(negRight, s.negRight);
  }
  const base = { kind: 'geo_bounds' as const, name: spec.name, meta: spec.meta };
  if (top === -Infinity) return { ...base, box: null };
  // InternalGeoBounds.resolveBoundingBox
  let left: number;
  let right: number;
  if (!Number.isFinite(posLeft)) [left, right] = [negLeft, negRight];
  else if (!Number.isFinite(negLeft)) [left, right] = [posLeft, posRight];
  else if (spec.wrapLongitude) {
    const unwrappedWidth = posRight - negLeft;
    const wrappedWidth = 180 - posLeft - (-180 - negRight);
    [left, right] = unwrappedWidth <= wrappedWidth ? [negLeft, posRight] : [posLeft, negRight];
  } else [left, right] = [negLeft, posRight];
  return { ...base, box: { top, left, bottom, right } };
}

export function reduceGeoCentroid(spec: GeoCentroidSpec, states: readonly GeoCentroidState[]): ReducedGeoCentroid {
  let latSum = 0;
  let lonSum = 0;
  let count = 0;
  for (const s of states) {
    latSum += s.latSum;
    lonSum += s.lonSum;
    count += s.count;
  }
  return { kind: 'geo_centroid', name: spec.name, meta: spec.meta, location: count === 0 ? null : [latSum / count, lonSum / count], count };
}

export function reduceGeoHashGrid(spec: GeoHashGridSpec, states: readonly TermsState[], reduceLevel: LevelReducer): ReducedTerms {
  const terms = reduceTerms(geohashTermsSpec(spec), states, reduceLevel);
  return {
    ...terms,
    typeName: 'geohash_grid',
    buckets: terms.buckets.map((b) => ({ ...b, key: cellGeohash(b.key as number, spec.precision), keyAsString: null })),
  };
}

export function reduceGeoDistance(spec: GeoDistanceAggSpec, states: readonly RangeState[], reduceLevel: LevelReducer): ReducedRange {
  return { ...reduceRange(geoDistanceRangeSpec(spec), states, reduceLevel), typeName: 'geo_distance' };
}
