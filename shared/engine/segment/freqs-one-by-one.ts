import type { PostingsCursor } from './types.ts';

/**
 * PostingsCursor.freqsOf as one freqOf a target: for the cursors and terms
 * that have no faster way (an in-memory field, a term without a bitset).
 */
export function freqsOneByOne(cursor: Pick<PostingsCursor, 'freqOf'>, targets: Int32Array, n: number, out: Int32Array): void {
  let k = 0;
  for (; k < n; k++) {
    const fr = cursor.freqOf(targets[k]!);
    if (fr < 0) break;
    out[k] = fr;
  }
  out.fill(0, k, n);
}
