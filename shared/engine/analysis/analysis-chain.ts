/**
 * Running a chain of char filters, a tokenizer and token filters over one
 * text: the steps every analyzer (and the synonym filter, which analyzes its
 * rules with the chain before it) shares.
 */

import { IDENTITY_CORRECTION, composeCorrections, type OffsetCorrection } from './offset-correction.ts';
import type { CharFilter, PrecedingChain, TokenConsumer, TokenFilterFactory, Tokenizer } from './token-stream.ts';

/** Applies char filters in order; the correction maps offsets in the result back to `text`. */
export function applyCharFilters(text: string, charFilters: readonly CharFilter[]): { text: string; correction: OffsetCorrection } {
  if (charFilters.length === 0) return { text, correction: IDENTITY_CORRECTION };
  const corrections: OffsetCorrection[] = [];
  let current = text;
  for (const f of charFilters) {
    const r = f.apply(current);
    current = r.text;
    corrections.push(r.correction);
  }
  return { text: current, correction: composeCorrections(corrections) };
}

/** New stages for `filters` (in order) feeding `terminal`; returns the first stage. */
export function buildStages(filters: readonly TokenFilterFactory[], terminal: TokenConsumer): TokenConsumer {
  let head = terminal;
  for (let i = filters.length - 1; i >= 0; i--) head = filters[i]!.create(head);
  return head;
}

/** Tokenizes already char-filtered text through `head` (begin, tokens, end). */
export function runTokenizer(text: string, tokenizer: Tokenizer, head: TokenConsumer): void {
  head.begin();
  tokenizer.tokenize(text, head);
  head.end(0);
}

class TermCollector implements TokenConsumer {
  readonly terms: string[] = [];
  begin(): void {}
  token(term: string): void {
    this.terms.push(term);
  }
  end(): void {}
}

/** The terms a chain produces for `text` (for rule analysis, not for the hot path). */
export function chainTerms(chain: PrecedingChain, text: string): string[] {
  const collector = new TermCollector();
  const filtered = applyCharFilters(text, chain.charFilters).text;
  runTokenizer(filtered, chain.tokenizer, buildStages(chain.filters, collector));
  return collector.terms;
}
