/**
 * Per-segment numbers an aggregation derives from a field (a geohash cell,
 * a distance, an address's place among range bounds) and hands to the
 * numeric terms and range aggregators as if they were doc values. They live
 * only while one segment is collected; the segment itself is untouched.
 */
import type { NumericDocValues, Segment } from '../segment/types.ts';

/** The name the derived numbers go by in a segment's doc values (no mapped path has a NUL). */
export function derivedName(agg: string): string {
  return `\u0000derived\u0000${agg}`;
}

/** The segment with one more numeric doc values field: every other field reads as before. */
export function withDerived(segment: Segment, name: string, dv: NumericDocValues): Segment {
  const docValues = new Map(segment.docValues);
  docValues.set(name, dv);
  const derived = Object.create(segment) as Segment;
  Object.defineProperty(derived, 'docValues', { value: docValues });
  return derived;
}

