/**
 * What the node tells about one shard copy for stats, `_segments` and the
 * `_cat` pages: where it is, its state, and the figures its shard worker
 * reported (SegmentStats). Plain data, so a node can send it to another
 * (NODE_ADMIN) and a coordinator sums copies without knowing where they are.
 */
import type { SegmentStats, WireSegment } from '../shard-worker/protocol.ts';

export interface CopyStatsView {
  readonly index: string;
  readonly uuid: string;
  readonly shard: number;
  readonly primary: boolean;
  readonly nodeId: string;
  readonly state: 'INITIALIZING' | 'STARTED';
  /** The index's mapping type (indexing stats per type). */
  readonly typeName: string | null;
  /** Offset of the next record the copy applies: ops in its partition it has applied. */
  readonly appliedOffset: number;
  /** The copy's directory on its node. */
  readonly dataPath: string;
  readonly stats: SegmentStats;
}

/** A copy's segments as `_segments` lists them, with the copy they belong to. */
export interface CopySegmentsView {
  readonly index: string;
  readonly uuid: string;
  readonly shard: number;
  readonly primary: boolean;
  readonly nodeId: string;
  readonly state: 'INITIALIZING' | 'STARTED';
  readonly committedOffset: number;
  readonly segments: readonly WireSegment[];
}
