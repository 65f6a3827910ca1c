/**
 * The per-segment result of evaluating one query node: a dense bitset of
 * matching local docs (live docs not yet applied) and, when the node scores,
 * per-doc scores valid where a bit is set. Also the context every node is
 * evaluated in.
 */
import type { Segment, SegmentView } from '../segment/types.ts';
import { lowestBit, wordsFor } from './doc-bits.ts';
import type { FilterCache } from './filter-cache.ts';
import type { ScratchArena } from './scratch-arena.ts';
import type { ShardTermStats } from './term-stats.ts';
import { copyBits, takeBits } from './recycled-bits.ts';

const f = Math.fround;

export interface DocSet {
  readonly bits: Uint32Array;
  /** Score per local doc where `bits` is set, or null for a constant score. */
  readonly scores: Float64Array | null;
  /** The score of every doc when `scores` is null (0 when not scoring). */
  readonly constant: number;
  /** False when `bits` is shared (filter cache): copy before mutating. */
  readonly mutable: boolean;
}

export interface SegmentEvalContext {
  readonly view: SegmentView;
  readonly segment: Segment;
  readonly stats: ShardTermStats;
  readonly filterCache: FilterCache | null;
  /** Working arrays; those handed out stay valid until the arena is reset after this segment. */
  readonly arena: ScratchArena;
}

export function emptySet(ctx: SegmentEvalContext): DocSet {
  return { bits: takeBits(wordsFor(ctx.segment.maxDoc)), scores: null, constant: 0, mutable: true };
}

export function constantSet(bits: Uint32Array, needScores: boolean, boost: number, mutable = true): DocSet {
  return { bits, scores: null, constant: needScores ? f(boost) : 0, mutable };
}

export function mutableCopy(s: DocSet): Uint32Array {
  return s.mutable ? s.bits : copyBits(s.bits);
}

export function scoreAt(s: DocSet, d: number): number {
  return s.scores === null ? s.constant : s.scores[d]!;
}

/** Lucene sums clause scores in double and returns a float. */
export function roundScores(bits: Uint32Array, scores: Float64Array): void {
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    while (word !== 0) {
      const d = (w << 5) + lowestBit(word);
      word &= word - 1;
      scores[d] = f(scores[d]!);
    }
  }
}
