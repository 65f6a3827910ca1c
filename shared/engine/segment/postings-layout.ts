/**
 * Lays postings collected in document order (one entry per term × doc, tagged
 * with the term's slot) out in the segment's term order: one sequential pass
 * that writes each posting through its term's cursor. Doc ids stay ascending
 * within each term because they were collected in doc order.
 */

export interface CollectedPostings {
  readonly count: number;
  /** Slot of the term of each posting, in collection (doc) order. */
  readonly slots: Int32Array;
  readonly docs: Int32Array;
  readonly freqs: Uint32Array;
  /** Positions of posting p follow those of posting p-1 (freqs[p] of them), or null without positions. */
  readonly positions: Int32Array | null;
  /** Per slot: number of postings (docs with the term). */
  readonly slotDocFreqs: ArrayLike<number>;
  /** Per slot: sum of the freqs of its postings (needed with positions only). */
  readonly slotTotalFreqs: ArrayLike<number> | null;
}

export interface PostingsLayout {
  readonly postingStarts: Uint32Array;
  readonly postingDocs: Int32Array;
  readonly postingFreqs: Uint32Array;
  readonly positionStarts: Uint32Array | null;
  readonly positions: Int32Array | null;
}

/** `order` lists the slots in term order (order[termId] = slot). */
export function layoutPostings(collected: CollectedPostings, order: Int32Array): PostingsLayout {
  const { count, slots, docs, freqs, positions, slotDocFreqs, slotTotalFreqs } = collected;
  const termCount = order.length;
  const withPositions = positions !== null && slotTotalFreqs !== null;

  // Per slot, where its next posting (and its next position) goes.
  const postingStarts = new Uint32Array(termCount + 1);
  const cursors = new Int32Array(withPositions ? 2 * termCount : termCount);
  const stride = withPositions ? 2 : 1;
  let postingAt = 0;
  let positionAt = 0;
  for (let t = 0; t < termCount; t++) {
    const slot = order[t];
    postingStarts[t] = postingAt;
    cursors[slot * stride] = postingAt;
    postingAt += slotDocFreqs[slot];
    if (withPositions) {
      cursors[slot * 2 + 1] = positionAt;
      positionAt += slotTotalFreqs[slot];
    }
  }
  postingStarts[termCount] = postingAt;

  const postingDocs = new Int32Array(count);
  const postingFreqs = new Uint32Array(count);
  if (!withPositions) {
    for (let p = 0; p < count; p++) {
      const o = cursors[slots[p]]++;
      postingDocs[o] = docs[p];
      postingFreqs[o] = freqs[p];
    }
    return { postingStarts, postingDocs, postingFreqs, positionStarts: null, positions: null };
  }

  const laidOut = new Int32Array(positionAt);
  let from = 0;
  for (let p = 0; p < count; p++) {
    const at = slots[p] * 2;
    const o = cursors[at]++;
    const freq = freqs[p];
    postingDocs[o] = docs[p];
    postingFreqs[o] = freq;
    // Most postings have a handful of positions: a loop beats a subarray object per posting.
    let to = cursors[at + 1];
    cursors[at + 1] = to + freq;
    const end = from + freq;
    while (from < end) laidOut[to++] = positions[from++];
  }
  const positionStarts = new Uint32Array(count + 1);
  for (let o = 0; o < count; o++) positionStarts[o + 1] = positionStarts[o] + postingFreqs[o];
  return { postingStarts, postingDocs, postingFreqs, positionStarts, positions: laidOut };
}
