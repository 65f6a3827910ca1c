/**
 * The least and greatest value of a single-valued numeric column over each
 * run of 32 docs (one word of a match bitset): a top-N by that column skips a
 * word of matches whose values cannot enter a full queue without reading
 * them, as Lucene's doc-values skipper skips blocks by their min/max. Made
 * once per column (a segment's columns never change) and kept beside it;
 * 0.5 bytes per doc.
 */
import type { NumericArray } from '../segment/types.ts';

export interface WordBounds {
  /** Least value of docs [32w, 32w + 32); -Infinity when one of them has no value. */
  readonly min: Float64Array;
  /** Greatest value of those docs; +Infinity when one of them has no value. */
  readonly max: Float64Array;
}

const boundsOf = new WeakMap<NumericArray, WordBounds>();

export function wordBounds(values: NumericArray): WordBounds {
  let b = boundsOf.get(values);
  if (b === undefined) {
    b = computeWordBounds(values);
    boundsOf.set(values, b);
  }
  return b;
}

function computeWordBounds(values: NumericArray): WordBounds {
  const words = (values.length + 31) >>> 5;
  const min = new Float64Array(words);
  const max = new Float64Array(words);
  for (let w = 0; w < words; w++) {
    const end = Math.min(values.length, (w + 1) << 5);
    let lo = Infinity;
    let hi = -Infinity;
    for (let d = w << 5; d < end; d++) {
      const v = values[d]!;
      // A doc without a value sorts by the request's `missing`: the word cannot be skipped.
      if (v !== v) {
        lo = -Infinity;
        hi = Infinity;
        break;
      }
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    min[w] = lo;
    max[w] = hi;
  }
  return { min, max };
}
