/**
 * Block join over a segment's nested documents (nested-blocks.ts): the docs
 * of one nested path, the docs of the level above it (roots, or the
 * enclosing nested object's docs), and the join from matching nested docs to
 * their parents as Lucene's ToParentBlockJoinQuery scores it.
 */
import { NESTED_PATH_FIELD, rootDocs } from '../segment/nested-blocks.ts';
import { nextSetBit } from '../segment/bitset.ts';
import type { Segment } from '../segment/types.ts';
import { lowestBit, wordsFor } from './doc-bits.ts';
import type { DocSet } from './doc-set.ts';
import { unionPostings } from './postings-leaves.ts';
import type { NestedScoreMode } from './query.ts';

const f = Math.fround;

/** The nested docs of `path` in a segment (an empty set when it has none). */
export function nestedPathDocs(seg: Segment, path: string): Uint32Array {
  const inv = seg.inverted.get(NESTED_PATH_FIELD);
  if (inv === undefined) return new Uint32Array(wordsFor(seg.maxDoc));
  const id = inv.terms.find(path);
  return unionPostings(seg, inv, id < 0 ? [] : [id]);
}

/** The docs a join from `path` lands on: those of `parentPath`, or the roots (every doc when none is nested). */
export function parentLevelDocs(seg: Segment, parentPath: string | null): Uint32Array {
  if (parentPath !== null) return nestedPathDocs(seg, parentPath);
  const roots = rootDocs(seg);
  if (roots !== null) return roots;
  const all = new Uint32Array(wordsFor(seg.maxDoc)).fill(0xffffffff);
  const tail = seg.maxDoc & 31;
  if (tail !== 0) all[all.length - 1] = (1 << tail) - 1;
  return all;
}

/** The last set bit before `doc`, or -1. */
export function prevSetBit(bits: Uint32Array, doc: number): number {
  const d = doc - 1;
  if (d < 0) return -1;
  let w = d >>> 5;
  let word = bits[w]! & (0xffffffff >>> (31 - (d & 31)));
  while (word === 0) {
    if (--w < 0) return -1;
    word = bits[w]!;
  }
  return (w << 5) + 31 - Math.clz32(word);
}

/**
 * Joins matching child docs (`children`, already narrowed to one nested
 * path) to their parents: a parent matches when one of its children does,
 * scored from its children's scores by `scoreMode` (`none`: 0).
 */
export function joinToParents(children: DocSet, childDocs: Uint32Array, parents: Uint32Array, maxDoc: number, scoreMode: NestedScoreMode, needScores: boolean, scores: Float64Array | null): DocSet {
  const bits = new Uint32Array(wordsFor(maxDoc));
  const out = needScores ? scores : null;
  let parent = -1;
  let acc = 0;
  let count = 0;
  const flush = (): void => {
    if (parent < 0 || count === 0) return;
    bits[parent >>> 5]! |= 1 << (parent & 31);
    if (out !== null) out[parent] = scoreMode === 'avg' ? f(acc / count) : f(acc);
  };
  const cb = children.bits;
  for (let w = 0; w < cb.length; w++) {
    let word = cb[w]! & childDocs[w]!;
    while (word !== 0) {
      const c = (w << 5) + lowestBit(word);
      word &= word - 1;
      if (c >= parent) {
        flush();
        parent = nextSetBit(parents, c + 1);
        if (parent < 0) return finish();
        acc = 0;
        count = 0;
      }
      if (out !== null) {
        const s = children.scores === null ? children.constant : children.scores[c]!;
        if (count === 0) acc = scoreMode === 'none' ? 0 : s;
        else if (scoreMode === 'sum' || scoreMode === 'avg') acc += s;
        else if (scoreMode === 'max') acc = Math.max(acc, s);
        else if (scoreMode === 'min') acc = Math.min(acc, s);
      }
      count++;
    }
  }
  return finish();

  function finish(): DocSet {
    flush();
    return out === null ? { bits, scores: null, constant: 0, mutable: true } : { bits, scores: out, constant: 0, mutable: true };
  }
}
