/**
 * Nested documents in a segment (Lucene's block join): each value of a
 * `nested` object is a hidden document written right before its parent, a
 * nested object's own nested documents before it, the root document last.
 * A nested document carries the hidden keyword field `_nested_path` (the
 * nested object's full path); that field's presence bitset, written in the
 * segment's files like every field's, is the segment's bitset of nested
 * docs, and its complement the parent (root) bitset.
 *
 * The live docs a shard copy keeps for a segment with nested docs mark live
 * root docs only, so every search, count and aggregation sees root docs
 * without asking; a nested doc lives and dies with its root (the next root
 * after it), which is how writes and merges keep blocks whole.
 */
import type { FieldMapping } from '../mapping/types.ts';
import { bitsetWords, cardinality, hasBit, newBitset } from './bitset.ts';
import type { Segment } from './types.ts';

/** The hidden field naming a nested document's path (Elasticsearch 6.8 uses `_type` = `__<path>`). */
export const NESTED_PATH_FIELD = '_nested_path';

export const NESTED_PATH_MAPPING: FieldMapping = {
  path: NESTED_PATH_FIELD,
  type: 'keyword',
  index: true,
  docValues: false,
  analyzer: null,
  searchAnalyzer: null,
  ignoreAbove: null,
  dateFormat: null,
  scalingFactor: null,
  nullValue: null,
  boost: 1,
  parent: null,
};

/** Bit d set = doc d is a nested doc; null when the segment has none. */
export function nestedDocs(segment: Segment): Uint32Array | null {
  return segment.fieldDocs.get(NESTED_PATH_FIELD) ?? null;
}

export function isNestedDoc(segment: Segment, doc: number): boolean {
  const nested = nestedDocs(segment);
  return nested !== null && hasBit(nested, doc);
}

const roots = new WeakMap<Segment, Uint32Array>();

/** Bit d set = doc d is a root document; null when every doc is one (no nested docs). Cached per segment. */
export function rootDocs(segment: Segment): Uint32Array | null {
  const nested = nestedDocs(segment);
  if (nested === null) return null;
  let bits = roots.get(segment);
  if (bits === undefined) {
    bits = newBitset(segment.maxDoc);
    for (let w = 0; w < bits.length; w++) bits[w] = ~(nested[w] ?? 0);
    const tail = segment.maxDoc & 31;
    if (tail !== 0) bits[bits.length - 1]! &= (1 << tail) - 1;
    roots.set(segment, bits);
  }
  return bits;
}

/** Root documents of a segment (its maxDoc when it has no nested docs). */
export function rootCount(segment: Segment): number {
  const nested = nestedDocs(segment);
  return nested === null ? segment.maxDoc : segment.maxDoc - cardinality(nested);
}

/**
 * The live docs a shard copy starts a segment with: every root (a copy of
 * the root bitset; the copy edits it as it deletes), or null (every doc)
 * when the segment has no nested docs.
 */
export function initialLiveDocs(segment: Segment): Uint32Array | null {
  const r = rootDocs(segment);
  return r === null ? null : r.slice();
}

/**
 * The docs a write keeps of a source segment: its live roots and the nested
 * docs of each (a block stays whole or goes whole). null: every doc.
 */
export function keptDocs(segment: Segment, liveDocs: Uint32Array | null): Uint32Array | null {
  const nested = nestedDocs(segment);
  if (liveDocs === null || nested === null) return liveDocs;
  const kept = new Uint32Array(bitsetWords(segment.maxDoc));
  let parentKept = false;
  // Backwards: a nested doc's root is the first root after it.
  for (let d = segment.maxDoc - 1; d >= 0; d--) {
    const keep: boolean = hasBit(nested, d) ? parentKept : hasBit(liveDocs, d);
    if (!hasBit(nested, d)) parentKept = keep;
    if (keep) kept[d >>> 5]! |= 1 << (d & 31);
  }
  return kept;
}

/** Counted live Lucene docs per live-docs bitset (bitsets are replaced, never changed, once a segment holds them). */
const luceneCounts = new WeakMap<Uint32Array, number>();

/** Live docs of a segment with their nested docs (`numDocs` live roots). */
export function liveLuceneDocs(segment: Segment, liveDocs: Uint32Array | null, numDocs: number): number {
  if (liveDocs === null || nestedDocs(segment) === null) return numDocs;
  let n = luceneCounts.get(liveDocs);
  if (n === undefined) {
    n = cardinality(keptDocs(segment, liveDocs)!);
    luceneCounts.set(liveDocs, n);
  }
  return n;
}
