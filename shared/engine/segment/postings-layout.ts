/**
 * Lays postings without positions (keyword fields), collected in document
 * order as one (slot, doc) entry per term × doc, out in the segment's term
 * order: one sequential pass writing each posting through its term's cursor.
 * Doc ids stay ascending within each term because they were collected in doc
 * order.
 */

export interface CollectedPostings {
  readonly count: number;
  /** Slot of the term of each posting, in collection (doc) order. */
  readonly slots: Int32Array;
  readonly docs: Int32Array;
  readonly freqs: Int32Array;
  /** Per slot: number of postings (docs with the term). */
  readonly slotDocFreqs: ArrayLike<number>;
}

export interface PostingsLayout {
  readonly postingStarts: Uint32Array;
  readonly postingDocs: Int32Array;
  readonly postingFreqs: Int32Array;
}

/** `order` lists the slots in term order (order[termId] = slot). */
export function layoutPostings(collected: CollectedPostings, order: Int32Array): PostingsLayout {
  const { count, slots, docs, freqs, slotDocFreqs } = collected;
  const termCount = order.length;
  const postingStarts = new Uint32Array(termCount + 1);
  // Per slot, where its next posting goes.
  const cursors = new Int32Array(termCount);
  let at = 0;
  for (let t = 0; t < termCount; t++) {
    const slot = order[t];
    postingStarts[t] = at;
    cursors[slot] = at;
    at += slotDocFreqs[slot];
  }
  postingStarts[termCount] = at;

  const postingDocs = new Int32Array(count);
  const postingFreqs = new Int32Array(count);
  for (let p = 0; p < count; p++) {
    const o = cursors[slots[p]]++;
    postingDocs[o] = docs[p];
    postingFreqs[o] = freqs[p];
  }
  return { postingStarts, postingDocs, postingFreqs };
}
