/**
 * The one norm byte every doc with a value in a segment's text field has, or
 * -1: Lucene stores such norms as a constant (Lucene70NormsFormat), and a
 * scorer then reads no per-doc byte. A pass record's plate is always seven
 * characters, so its n-gram field has one length per segment, and reading
 * each candidate's norm from the mapped file was the conjunction's costliest
 * load (a cache miss per candidate and segment). Found by one scan of the
 * column the first time a query scores on it; the column is immutable.
 */
const known = new WeakMap<Uint8Array, number>();

export function singleNorm(norms: Uint8Array): number {
  let v = known.get(norms);
  if (v !== undefined) return v;
  v = scan(norms);
  known.set(norms, v);
  return v;
}

/** 0 is "no value" (a doc without the field never matches one of its terms), so it does not count. */
function scan(norms: Uint8Array): number {
  let one = -1;
  for (let d = 0; d < norms.length; d++) {
    const b = norms[d]!;
    if (b === 0 || b === one) continue;
    if (one >= 0) return -1;
    one = b;
  }
  return one;
}
