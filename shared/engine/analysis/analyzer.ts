/**
 * An analyzer as a chain: char filters → tokenizer → token filters. Built-in
 * analyzers (standard, simple, ...) and custom analyzers from index settings
 * are both instances; `custom` tells `_analyze` explain which way to report it.
 */

import { applyCharFilters, buildStages, runTokenizer } from './analysis-chain.ts';
import { IDENTITY_CORRECTION, type OffsetCorrection } from './offset-correction.ts';
import { TermMappingFilterFactory, type CharFilter, type TokenConsumer, type TokenFilterFactory, type Tokenizer } from './token-stream.ts';
import type { Analyzer, RangeSink, Token, TokenSink } from './types.ts';

/** TextFieldMapper.Defaults.POSITION_INCREMENT_GAP: positions between values of an index analyzer. */
export const DEFAULT_POSITION_INCREMENT_GAP = 100;

/** Lucene's Analyzer.getOffsetGap default. */
export const DEFAULT_OFFSET_GAP = 1;

export interface AnalyzerParts {
  readonly tokenizer: Tokenizer;
  readonly charFilters?: readonly CharFilter[];
  readonly filters?: readonly TokenFilterFactory[];
  /** Positions between the values of a multi-valued field. */
  readonly positionIncrementGap?: number;
  /** Offsets between the values of a multi-valued field. */
  readonly offsetGap?: number;
  /** A custom analyzer (explain reports its stages) rather than a built-in one. */
  readonly custom?: boolean;
}

const noSink: TokenSink = () => {};

/** Local alias: compared per token on the indexing path, cheaper than reading the import binding. */
const IDENTITY = IDENTITY_CORRECTION;

/** Terminal stage for the indexing path: absolute positions into a TokenSink. */
class SinkTerminal implements TokenConsumer {
  sink: TokenSink = noSink;
  position = -1;
  correction: OffsetCorrection = IDENTITY_CORRECTION;

  begin(): void {}

  token(term: string, posInc: number, start: number, end: number): void {
    this.position += posInc;
    const c = this.correction;
    if (c === IDENTITY) this.sink(term, this.position, start, end);
    else this.sink(term, this.position, c.correct(start), c.correct(end));
  }

  end(trailingPosInc: number): void {
    this.position += trailingPosInc;
  }
}

/**
 * Collects `_analyze` tokens; positions and offsets continue across the values
 * of a multi-valued text as TransportAnalyzeAction computes them.
 */
export class TokenCollector implements TokenConsumer {
  readonly tokens: Token[] = [];
  lastPosition = -1;
  lastOffset = 0;
  correction: OffsetCorrection = IDENTITY_CORRECTION;

  begin(): void {}

  token(term: string, posInc: number, start: number, end: number, type: string): void {
    if (posInc > 0) this.lastPosition += posInc;
    const c = this.correction;
    this.tokens.push({
      token: term,
      start_offset: this.lastOffset + c.correct(start),
      end_offset: this.lastOffset + c.correct(end),
      type,
      position: this.lastPosition,
    });
  }

  end(trailingPosInc: number): void {
    this.lastPosition += trailingPosInc;
  }

  /** After one value: its final offset (its length), then the analyzer's gaps. */
  finishValue(finalOffset: number, positionIncrementGap: number, offsetGap: number): void {
    this.lastOffset += finalOffset + offsetGap;
    this.lastPosition += positionIncrementGap;
  }
}

export class ComposedAnalyzer implements Analyzer {
  readonly name: string;
  readonly tokenizer: Tokenizer;
  readonly charFilters: readonly CharFilter[];
  readonly filters: readonly TokenFilterFactory[];
  readonly positionIncrementGap: number;
  readonly offsetGap: number;
  readonly custom: boolean;
  /**
   * Leading per-code-point filters (lowercase, uppercase) that the indexing
   * path applies to the whole text once instead of to every term, when the
   * tokenizer allows it (Tokenizer.caseIndependent); the remaining filters.
   */
  private readonly textMaps: readonly ((text: string) => string)[];
  private readonly fusedFilters: readonly TokenFilterFactory[];
  /** Every token is a slice of the (case-mapped) text: see analyzeRangesInto. */
  private readonly slicesText: boolean;
  /** Reused stages for analyzeInto (built on first use): all filters, and the fused remainder. */
  private readonly terminal = new SinkTerminal();
  private fullHead: TokenConsumer | null = null;
  private fusedHead: TokenConsumer | null = null;
  private busy = false;

  constructor(name: string, parts: AnalyzerParts) {
    this.name = name;
    this.tokenizer = parts.tokenizer;
    this.charFilters = parts.charFilters ?? [];
    this.filters = parts.filters ?? [];
    this.positionIncrementGap = parts.positionIncrementGap ?? 0;
    this.offsetGap = parts.offsetGap ?? DEFAULT_OFFSET_GAP;
    this.custom = parts.custom ?? false;
    const maps: ((text: string) => string)[] = [];
    let fused = 0;
    if (this.tokenizer.caseIndependent === true) {
      for (const f of this.filters) {
        if (!(f instanceof TermMappingFilterFactory) || !f.perCodePoint) break;
        maps.push(f.map);
        fused++;
      }
    }
    this.textMaps = maps;
    this.fusedFilters = this.filters.slice(fused);
    this.slicesText = this.charFilters.length === 0 && this.fusedFilters.length === 0 && this.tokenizer.tokenizeRanges !== undefined;
  }

  /** The same chain under another name and gaps (Elasticsearch's NamedAnalyzer around a shared analyzer). */
  renamed(name: string, positionIncrementGap = this.positionIncrementGap): ComposedAnalyzer {
    return new ComposedAnalyzer(name, {
      tokenizer: this.tokenizer,
      charFilters: this.charFilters,
      filters: this.filters,
      positionIncrementGap,
      offsetGap: this.offsetGap,
      custom: this.custom,
    });
  }

  analyzeInto(text: string, sink: TokenSink, positionBase = 0): number {
    if (this.busy) {
      // Re-entered from a sink: fresh stages rather than the shared ones.
      const terminal = new SinkTerminal();
      return this.runInto(text, sink, positionBase, terminal, buildStages(this.filters, terminal), null);
    }
    this.busy = true;
    try {
      this.fullHead ??= buildStages(this.filters, this.terminal);
      if (this.textMaps.length > 0) this.fusedHead ??= buildStages(this.fusedFilters, this.terminal);
      return this.runInto(text, sink, positionBase, this.terminal, this.fullHead, this.fusedHead);
    } finally {
      this.busy = false;
      this.terminal.sink = noSink;
    }
  }

  analyzeRangesInto(text: string, sink: RangeSink, positionBase = 0): number {
    if (!this.slicesText) return -1;
    let input = text;
    for (const map of this.textMaps) input = map(input);
    // A case mapping that changes the length (e.g. 'İ') moves offsets: the token path handles that.
    if (input.length !== text.length) return -1;
    let position = positionBase - 1;
    this.tokenizer.tokenizeRanges!(input, (start, end, posInc) => {
      position += posInc;
      sink(input, start, end, position);
    });
    return position + 1;
  }

  private runInto(
    text: string,
    sink: TokenSink,
    positionBase: number,
    terminal: SinkTerminal,
    fullHead: TokenConsumer,
    fusedHead: TokenConsumer | null,
  ): number {
    terminal.sink = sink;
    terminal.position = positionBase - 1;
    let input = text;
    terminal.correction = IDENTITY_CORRECTION;
    if (this.charFilters.length > 0) {
      const filtered = applyCharFilters(text, this.charFilters);
      input = filtered.text;
      terminal.correction = filtered.correction;
    }
    let head = fullHead;
    if (fusedHead !== null) {
      let mapped = input;
      for (const map of this.textMaps) mapped = map(mapped);
      if (mapped.length === input.length) {
        input = mapped;
        head = fusedHead;
      }
    }
    runTokenizer(input, this.tokenizer, head);
    return terminal.position + 1;
  }

  analyze(text: string): Token[] {
    const collector = new TokenCollector();
    this.collect(text, collector);
    return collector.tokens;
  }

  /**
   * Runs the chain over one value into `collector`, stopping after the first
   * `filterCount` token filters (explain shows every stage).
   */
  collect(text: string, collector: TokenCollector, filterCount = this.filters.length): void {
    const filtered = applyCharFilters(text, this.charFilters);
    collector.correction = filtered.correction;
    runTokenizer(filtered.text, this.tokenizer, buildStages(this.filters.slice(0, filterCount), collector));
  }
}
