/**
 * Ranges of addresses on an `ip` field: its terms are the addresses' 16
 * bytes in hex (ip-address.ts), so the dictionary is in address order and
 * a range is the run of terms between two binary searches, whose postings
 * are united.
 */
import type { Segment } from '../segment/types.ts';
import { unionPostings } from './postings-leaves.ts';
import type { IpRangeQuery } from './query.ts';

export function ipRangeBits(q: IpRangeQuery, seg: Segment): Uint32Array {
  const inv = seg.inverted.get(q.field);
  const ids: number[] = [];
  if (inv !== undefined) {
    const dict = inv.terms;
    for (let t = dict.lowerBound(q.lower); t < dict.length && dict.compare(t, q.upper) <= 0; t++) ids.push(t);
  }
  return unionPostings(seg, inv, ids);
}
