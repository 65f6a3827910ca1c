/**
 * Queries on range fields (integer_range, ..., ip_range) over their ranges'
 * ends in the points column: a document matches when one of its ranges
 * stands in the asked relation to the query's range (ShapeRelation:
 * `intersects` by default, `within` the query, `contains` the query).
 */
import { compareEnds } from '../mapping/range-values.ts';
import type { Segment } from '../segment/types.ts';
import { wordsFor } from './doc-bits.ts';
import type { RangeFieldQuery } from './query.ts';

export function rangeFieldBits(q: RangeFieldQuery, seg: Segment): Uint32Array {
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  const pv = seg.points?.get(q.field);
  if (pv === undefined) return bits;
  const w = q.lower.length;
  const dims = pv.dims;
  const { values, starts } = pv;
  const { lower, upper, relation } = q;
  for (let d = 0; d < seg.maxDoc; d++) {
    for (let i = starts[d]!, e = starts[d + 1]!; i < e; i++) {
      const lo = i * dims;
      const hi = lo + w;
      let match: boolean;
      if (relation === 'intersects') match = compareEnds(values, lo, upper, 0, w) <= 0 && compareEnds(values, hi, lower, 0, w) >= 0;
      else if (relation === 'within') match = compareEnds(values, lo, lower, 0, w) >= 0 && compareEnds(values, hi, upper, 0, w) <= 0;
      else match = compareEnds(values, lo, lower, 0, w) <= 0 && compareEnds(values, hi, upper, 0, w) >= 0;
      if (match) {
        bits[d >>> 5]! |= 1 << (d & 31);
        break;
      }
    }
  }
  return bits;
}
