/**
 * Ranges of addresses on an `ip` field (kept as a keyword of canonical
 * addresses): the segment's dictionary is read term by term, each term's
 * address compared in order, and the postings of the terms inside the range
 * united. The cost is one pass over the field's distinct addresses per segment.
 */
import { ipHexOrNull } from '../mapping/ip-address.ts';
import type { Segment } from '../segment/types.ts';
import { unionPostings } from './postings-leaves.ts';
import type { IpRangeQuery } from './query.ts';

export function ipRangeBits(q: IpRangeQuery, seg: Segment): Uint32Array {
  const inv = seg.inverted.get(q.field);
  const ids: number[] = [];
  if (inv !== undefined) {
    const dict = inv.terms;
    for (let t = 0; t < dict.length; t++) {
      const hex = ipHexOrNull(dict.get(t));
      if (hex !== null && hex >= q.lower && hex <= q.upper) ids.push(t);
    }
  }
  return unionPostings(seg, inv, ids);
}
