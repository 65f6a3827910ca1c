/**
 * Analysis contract: how text becomes terms. Implemented in this folder; used by
 * the segment writer (indexing), the query layer (match queries) and `_analyze`.
 */

/** One token as `_analyze` reports it. */
export interface Token {
  readonly token: string;
  readonly start_offset: number;
  readonly end_offset: number;
  readonly type: string;
  readonly position: number;
}

/**
 * Receives tokens on the indexing hot path without allocating an object per
 * token. `position` is the token's position (0-based, increments as Lucene's
 * PositionIncrementAttribute does); offsets are UTF-16 offsets into the text.
 */
export type TokenSink = (term: string, position: number, startOffset: number, endOffset: number) => void;

/**
 * Receives tokens that are slices of a text: the term is
 * `text.substring(start, end)` and its offsets are `start` and `end`. The
 * segment writer hashes the term's characters where they are, so an n-gram
 * field makes no string per gram.
 */
export type RangeSink = (text: string, start: number, end: number, position: number) => void;

export interface Analyzer {
  readonly name: string;
  /** Streams the tokens of `text` into `sink`. Returns the number of positions used (last position + 1). */
  analyzeInto(text: string, sink: TokenSink, positionBase?: number): number;
  /**
   * As analyzeInto, with every token as a slice of one text, when this
   * analyzer's tokens are slices (no char filter, no token filter but case
   * mapping folded into the text, a tokenizer that cuts ranges). Returns -1,
   * having emitted nothing, when they are not: use analyzeInto then.
   */
  analyzeRangesInto?(text: string, sink: RangeSink, positionBase?: number): number;
  /** Convenience for `_analyze` and tests: the full token objects. */
  analyze(text: string): Token[];
  /**
   * Positions to leave between the values of a multi-valued field
   * (Elasticsearch's `position_increment_gap`: 100 for index analyzers unless
   * a custom analyzer sets another). Optional for analyzers made elsewhere.
   */
  readonly positionIncrementGap?: number;
}

/** Analyzers of one index: built-ins plus the custom ones from its settings. */
export interface AnalyzerLookup {
  /** The analyzer with this name, or undefined. */
  get(name: string): Analyzer | undefined;
}
