/**
 * Segment contract (DESIGN.md section 3): an immutable, columnar view of a
 * set of documents. Two kinds stand behind it: the segment the indexing
 * buffer builds in memory at a refresh (segment-builder.ts), which is written
 * to files at once, and the segment read back from those files through memory
 * maps (mapped-segment.ts), which is what searches see. Queries, collectors
 * and aggregations are functions over this interface; no object per posting
 * and no object per document in hot loops.
 *
 * Local doc ids run 0..maxDoc-1 within a segment. A searcher (a point-in-time
 * set of segments) numbers docs globally as `docBase + localDoc`.
 */
import type { PointTree } from './point-tree.ts';

/** A sorted list of distinct strings (JS `<` order: UTF-16 code units), read by index. */
export interface TermDictionary {
  readonly length: number;
  /** Entry i as a string. */
  get(i: number): string;
  /** Entry i against `s` in JS `<` order: negative, 0 or positive. */
  compare(i: number, s: string): number;
  equals(i: number, s: string): boolean;
  startsWith(i: number, prefix: string): boolean;
  /** The first index whose entry is >= `s` (length when none). */
  lowerBound(s: string): number;
  /** The index of `s`, or -1. */
  find(s: string): number;
  /**
   * Entry i as UTF-16 units into `units[0..unitsLength)` (valid until the
   * next call), where a dictionary can do it without a string (files).
   */
  unitsOf?(i: number): void;
  readonly units?: Uint16Array;
  readonly unitsLength?: number;
}

/** Typed arrays doc values are kept in: the narrowest that holds a segment's values exactly. */
export type NumericArray = Float64Array | Float32Array | Int32Array | Uint32Array | Int16Array | Uint16Array | Int8Array | Uint8Array;
/** Ordinals: -1 marks a doc without a value in the single-valued layout. */
export type OrdArray = Int32Array | Int16Array | Int8Array | Uint16Array | Uint8Array;

/** Postings per block of a cursor (and of the postings format). */
export const POSTINGS_BLOCK = 128;

/**
 * The postings of one term, read a block of docs at a time: `docs[0..count)`
 * ascending, `freqs` beside them (all 1 for a field indexed without
 * frequencies). The arrays are the cursor's own and change with each block.
 */
export interface PostingsCursor {
  readonly docFreq: number;
  readonly docs: Int32Array;
  readonly freqs: Int32Array;
  /** Postings of the current block. */
  readonly count: number;
  /** Loads the next block; false once there is none. */
  nextBlock(): boolean;
  /**
   * Moves forward to the first posting whose doc is >= target, loading its
   * block (blocks that end before it are skipped without being read);
   * returns its index in the block, or -1 when no posting is left.
   */
  advance(target: number): number;
  /**
   * Probes for doc `target`: its freq when the term is in it, 0 when not, -1
   * once no posting at or after it is left. Targets must ascend, and a cursor
   * that is probed is read by nothing else: a mapped cursor decodes only the
   * gaps up to the target and the one freq it returns, not whole blocks (a
   * conjunction probes an n-gram's huge lists once per candidate).
   */
  freqOf(target: number): number;
  /**
   * freqOf of targets[0..n) into out[0..n), 0 for a target without the term
   * (none left included): a conjunction's candidates against one term in one
   * call, the loop over them inside the cursor (a dense term's rank counted
   * on in one pass over its bitset).
   */
  freqsOf(targets: Int32Array, n: number, out: Int32Array): void;
  /** Positions of posting i of the current block (text fields), ascending; valid until the next call. */
  positions(i: number): Int32Array;
  /**
   * The term's docs as a bitset (bit d: doc d has the term), when the segment
   * keeps one (terms in many of its docs); null otherwise. Testing a doc
   * against it needs no block decoded.
   */
  readonly bits: Uint32Array | null;
}

/** Postings of one indexed field (text or keyword). */
export interface InvertedField {
  /** Terms in ascending order; an index into it is the term id. */
  readonly terms: TermDictionary;
  /** Text fields: term frequencies and positions are kept; keyword fields index docs only. */
  readonly hasPositions: boolean;
  /** Docs that contain term t. */
  docFreq(termId: number): number;
  /**
   * A cursor over term t's postings, before its first block. `reuse`, a
   * cursor this field handed out before and its caller is done with, is reset
   * and returned instead of a new one (a merge walks millions of terms).
   */
  postings(termId: number, reuse?: PostingsCursor): PostingsCursor;
  /**
   * Hands back a cursor of this field its caller is done with and keeps no
   * reference to: a later `postings` may return it reset (a query over many
   * segments would otherwise make a cursor per term and segment each time).
   */
  release?(cursor: PostingsCursor): void;
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
   * Single-valued layout (`starts` null): values[doc]; a doc without a value
   * is NaN, so an array without NaN (an integer array) means every doc has one.
   * Multi-valued layout: values of doc d are values[starts[d]..starts[d+1]), sorted ascending.
   */
  readonly values: NumericArray;
  readonly starts: Uint32Array | null;
}

/** Keyword doc values: ordinals into a sorted per-segment dictionary. */
export interface SortedDocValues {
  readonly kind: 'sorted';
  /** Distinct values, ascending (JS `<`). */
  readonly dict: TermDictionary;
  /**
   * Single-valued layout (`starts` null): ords[doc], -1 when missing.
   * Multi-valued layout: ords of doc d are ords[starts[d]..starts[d+1]), ascending, distinct.
   */
  readonly ords: OrdArray;
  readonly starts: Uint32Array | null;
}

export type DocValues = NumericDocValues | SortedDocValues;

/**
 * Values of several dimensions per value, kept together (a geo_point's
 * encoded latitude and longitude): doc d's values are the tuples
 * [starts[d], starts[d+1]), tuple i at values[i*dims .. i*dims+dims), in the
 * order the document gave them. Apart from `docValues` because every reader
 * of those expects one number or one ordinal per value.
 */
export interface PointValues {
  readonly dims: number;
  /** Geo points: quantised integers; ranges: their ends as doubles. */
  readonly values: Int32Array | Float64Array;
  /** Length maxDoc+1. */
  readonly starts: Uint32Array;
  /** Geo points' index (point-tree.ts); absent on ranges and on segments written before it. */
  readonly tree?: PointTree;
}

/** What a segment stores of a document beside its indexed fields. */
export interface StoredDocument {
  /** `_source` bytes as the client sent them; valid until the next call on the same StoredFields. */
  readonly source: Uint8Array;
  readonly routing: string | null;
}

/** Random access to the stored part of a segment's documents. */
export interface StoredFields {
  document(doc: number): StoredDocument;
  /** Source length of a doc, for sizing a response. */
  sourceLength(doc: number): number;
  /** False when no doc has a `_routing`: a hit without `_source` then needs no stored read. */
  mayHaveRouting(): boolean;
}

/** The internal fields every segment indexes beside the mapped ones. */
export const ID_FIELD = '_id';
/** Not an indexed field: `exists` on it reads the routing stored with each source. */
export const ROUTING_FIELD = '_routing';

export interface Segment {
  /** Unique within its shard copy; higher = newer. */
  readonly id: number;
  readonly maxDoc: number;
  /** `_version` and `_seq_no` per local doc. */
  readonly versions: NumericArray;
  readonly seqNos: NumericArray;
  readonly stored: StoredFields;
  /**
   * Indexed fields by full path (`plate`, `plate.keyword`), and `_id`
   * (a keyword with doc values: the ids of a segment's docs, copies born
   * deleted included).
   */
  readonly inverted: ReadonlyMap<string, InvertedField>;
  /** Doc values by full path, `_id` included. */
  readonly docValues: ReadonlyMap<string, DocValues>;
  /** Point fields (geo_point) and range fields by full path; absent on segments without any. */
  readonly points?: ReadonlyMap<string, PointValues>;
  /** Full paths of fields that have a value in at least one doc of the segment (for `exists`). */
  readonly fieldsPresent: ReadonlySet<string>;
  /**
   * Per field in `fieldsPresent`: bit d set = doc d has the field, as Elasticsearch
   * 6.8's `exists` decides it: for an indexed text field, at least one token
   * (NormsFieldExistsQuery: `""` does not count); for every other field, at least
   * one value. Length ceil(maxDoc/32).
   */
  readonly fieldDocs: ReadonlyMap<string, Uint32Array>;
  /** Bytes the segment takes on disk (0 for one only in memory). */
  readonly sizeInBytes: number;
  /**
   * Gives the pages of the doc values (`docValues`) or term dictionaries
   * (`terms`) that this process touched back to the page cache, after a pass
   * over a whole column or dictionary whose result is kept or not needed
   * again soon; the next read maps them again. Absent on a segment in memory.
   */
  releasePages?(what: 'docValues' | 'terms'): void;
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

/** `_id` of a doc of a segment. */
export function idOf(segment: Segment, doc: number): string {
  const dv = segment.docValues.get(ID_FIELD) as SortedDocValues;
  return dv.dict.get(dv.ords[doc]!);
}
