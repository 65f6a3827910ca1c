/**
 * The token pipeline inside this folder, modelled on Lucene's TokenStream
 * attributes but push-based: a tokenizer pushes each token as plain arguments
 * (no object per token) through the filter stages into a terminal consumer.
 *
 *   char filters ──text──▶ tokenizer ──token()──▶ filter ▶ filter ▶ terminal
 */

import type { OffsetCorrection } from './offset-correction.ts';

export interface TokenConsumer {
  /** Before the first token of one text value: stages reset their state. */
  begin(): void;
  /**
   * One token. `posInc` is Lucene's position increment (1 = next position,
   * 0 = stacked on the previous token, >1 = a gap); offsets are UTF-16
   * offsets into the text the tokenizer saw.
   */
  token(term: string, posInc: number, start: number, end: number, type: string): void;
  /** After the last token of one text value; `trailingPosInc` counts positions removed after it. */
  end(trailingPosInc: number): void;
}

export interface Tokenizer {
  /** Tokenizer name as `_analyze` explain reports it. */
  readonly name: string;
  /**
   * True when terms are slices of the text and token boundaries do not depend
   * on letter case: leading per-code-point case filters may then map the whole
   * text once instead of every term (the indexing hot path's fusion).
   */
  readonly caseIndependent?: boolean;
  /** Pushes every token of `text` into `out` (without begin/end: the analyzer calls those). */
  tokenize(text: string, out: TokenConsumer): void;
  /**
   * For tokenizers whose every term is `text.substring(start, end)`: the same
   * tokens as `tokenize`, as ranges with their position increments.
   */
  tokenizeRanges?(text: string, emit: (start: number, end: number, posInc: number) => void): void;
}

/** What a chain-aware filter (synonyms) needs to analyze its own rules the way the text is analyzed. */
export interface PrecedingChain {
  readonly tokenizer: Tokenizer;
  readonly charFilters: readonly CharFilter[];
  readonly filters: readonly TokenFilterFactory[];
}

export interface TokenFilterFactory {
  /** Name as `_analyze` explain reports it. */
  readonly name: string;
  /** Allowed in a normalizer (Elasticsearch's MultiTermAwareComponent). */
  readonly normalizerSafe: boolean;
  /** A new stage forwarding into `next`; a stage is used by one analysis at a time. */
  create(next: TokenConsumer): TokenConsumer;
  /** For filters whose behaviour depends on the stages before them (Elasticsearch's getChainAwareTokenFilterFactory). */
  withPrecedingChain?(chain: PrecedingChain): TokenFilterFactory;
}

export interface CharFilterResult {
  readonly text: string;
  /** Maps offsets in `text` back to offsets in the filter's input. */
  readonly correction: OffsetCorrection;
}

export interface CharFilter {
  /** Name as `_analyze` explain reports it. */
  readonly name: string;
  /** Allowed in a normalizer (Elasticsearch's MultiTermAwareComponent). */
  readonly normalizerSafe: boolean;
  apply(text: string): CharFilterResult;
}

/** Base for filter stages that pass begin/end through unchanged. */
export abstract class FilterStage implements TokenConsumer {
  protected readonly next: TokenConsumer;

  constructor(next: TokenConsumer) {
    this.next = next;
  }

  begin(): void {
    this.next.begin();
  }

  abstract token(term: string, posInc: number, start: number, end: number, type: string): void;

  end(trailingPosInc: number): void {
    this.next.end(trailingPosInc);
  }
}

/**
 * Base for stages that drop tokens (Lucene's FilteringTokenFilter): a dropped
 * token's position increment is carried to the next kept token, or to the end.
 */
export abstract class DroppingStage extends FilterStage {
  private skipped = 0;

  /** True to keep the token. */
  protected abstract accept(term: string): boolean;

  override begin(): void {
    this.skipped = 0;
    super.begin();
  }

  token(term: string, posInc: number, start: number, end: number, type: string): void {
    if (this.accept(term)) {
      this.next.token(term, posInc + this.skipped, start, end, type);
      this.skipped = 0;
    } else {
      this.skipped += posInc;
    }
  }

  override end(trailingPosInc: number): void {
    const skipped = this.skipped;
    this.skipped = 0;
    this.next.end(trailingPosInc + skipped);
  }
}

/** A filter factory whose stage is a term → term mapping (lowercase, trim, ...). */
export class TermMappingFilterFactory implements TokenFilterFactory {
  readonly name: string;
  readonly normalizerSafe: boolean;
  readonly map: (term: string) => string;
  /**
   * The mapping works code point by code point, without context, and keeps the
   * UTF-16 length: mapping a whole text then slicing equals slicing then mapping.
   */
  readonly perCodePoint: boolean;

  constructor(name: string, normalizerSafe: boolean, map: (term: string) => string, perCodePoint = false) {
    this.name = name;
    this.normalizerSafe = normalizerSafe;
    this.map = map;
    this.perCodePoint = perCodePoint;
  }

  create(next: TokenConsumer): TokenConsumer {
    return new TermMappingStage(next, this.map);
  }
}

class TermMappingStage extends FilterStage {
  private readonly map: (term: string) => string;

  constructor(next: TokenConsumer, map: (term: string) => string) {
    super(next);
    this.map = map;
  }

  token(term: string, posInc: number, start: number, end: number, type: string): void {
    this.next.token(this.map(term), posInc, start, end, type);
  }
}
