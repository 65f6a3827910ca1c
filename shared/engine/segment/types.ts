/**
 * Segment contract (DESIGN.md section 3): an immutable, in-memory, columnar
 * view of a set of documents. Plain typed arrays and a small header; queries,
 * collectors and aggregations are functions over it. No object per posting and
 * no object per document in hot loops.
 *
 * Local doc ids run 0..maxDoc-1 within a segment. A searcher (a point-in-time
 * set of segments) numbers docs globally as `docBase + localDoc`.
 */
import type { PackedStrings } from './packed-strings.ts';

/** Postings of one indexed field (text or keyword). */
export interface InvertedField {
  /** Terms in ascending UTF-16 code unit order (JS `<`); `terms.find(term)` is the term id. */
  readonly terms: PackedStrings;
  /** Postings of term t are [postingStarts[t], postingStarts[t+1]) in the arrays below. Length terms+1. */
  readonly postingStarts: Uint32Array;
  /** Local doc ids, ascending within each term. */
  readonly postingDocs: Int32Array;
  /** Term frequency per posting. */
  readonly postingFreqs: Uint32Array;
  /**
   * Positions, text fields only (null for keyword): positions of posting p are
   * [positionStarts[p], positionStarts[p+1]) in `positions`. Length postings+1.
   */
  readonly positionStarts: Uint32Array | null;
  readonly positions: Int32Array | null;
  /**
   * Text fields only: per-doc field length encoded as Lucene's
   * SmallFloat.intToByte4 (BM25 norm), 0 where the doc has no value.
   */
  readonly norms: Uint8Array | null;
  /** Documents with at least one term in this field (BM25 docCount). */
  readonly docCount: number;
  /** Sum over all docs of the number of tokens (BM25 avgdl = sumTotalTermFreq / docCount). */
  readonly sumTotalTermFreq: number;
}

/** Numeric, date (epoch millis) and boolean (0/1) doc values. */
export interface NumericDocValues {
  readonly kind: 'numeric';
  /**
   * Single-valued layout (`starts` null): values[doc], NaN when missing.
   * Multi-valued layout: values of doc d are values[starts[d]..starts[d+1]), sorted ascending.
   */
  readonly values: Float64Array;
  readonly starts: Uint32Array | null;
}

/** Keyword doc values: ordinals into a sorted per-segment dictionary. */
export interface SortedDocValues {
  readonly kind: 'sorted';
  /** Distinct values, ascending (JS `<`). */
  readonly dict: PackedStrings;
  /**
   * Single-valued layout (`starts` null): ords[doc], -1 when missing.
   * Multi-valued layout: ords of doc d are ords[starts[d]..starts[d+1]), ascending, distinct.
   */
  readonly ords: Int32Array;
  readonly starts: Uint32Array | null;
}

export type DocValues = NumericDocValues | SortedDocValues;

/** Raw `_source` bytes (UTF-8 JSON as the client sent it), concatenated. */
export interface SourceColumn {
  readonly bytes: Buffer;
  /** Source of doc d is bytes[offsets[d]..offsets[d+1]). Length maxDoc+1. */
  readonly offsets: Uint32Array;
}

export interface Segment {
  /** Unique within its shard copy; higher = newer. */
  readonly id: number;
  readonly maxDoc: number;
  /** `_id` per local doc. */
  readonly ids: PackedStrings;
  /** `_version` and `_seq_no` per local doc. */
  readonly versions: Float64Array;
  readonly seqNos: Float64Array;
  /** `_routing` per local doc (null when none was given). */
  readonly routings: readonly (string | null)[];
  readonly source: SourceColumn;
  /** Indexed fields by full path (`plate`, `plate.keyword`). */
  readonly inverted: ReadonlyMap<string, InvertedField>;
  /** Doc values by full path. */
  readonly docValues: ReadonlyMap<string, DocValues>;
  /** Full paths of fields that have a value in at least one doc of the segment (for `exists`). */
  readonly fieldsPresent: ReadonlySet<string>;
  /**
   * Per field in `fieldsPresent`: bit d set = doc d has the field, as Elasticsearch
   * 6.8's `exists` decides it: for an indexed text field, at least one token
   * (NormsFieldExistsQuery: `""` does not count); for every other field, at least
   * one value. Length ceil(maxDoc/32).
   */
  readonly fieldDocs: ReadonlyMap<string, Uint32Array>;
}

/**
 * A segment as one searcher sees it: the segment plus the live-docs bitset of
 * that point in time (copy-on-write: a later delete never changes a bitset a
 * searcher already holds).
 */
export interface SegmentView {
  readonly segment: Segment;
  /** Bit d set = doc d is live. null = every doc live. Length ceil(maxDoc/32). */
  readonly liveDocs: Uint32Array | null;
  /** Number of live docs. */
  readonly numDocs: number;
  /** Global doc id of local doc 0 within the searcher. */
  readonly docBase: number;
}

/** A point-in-time set of segments of one shard copy. */
export interface SearcherSnapshot {
  readonly views: readonly SegmentView[];
  /** Sum of maxDoc over views. */
  readonly maxDoc: number;
  /** Sum of numDocs over views. */
  readonly numDocs: number;
}
