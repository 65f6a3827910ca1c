/** Lucene's ReverseStringFilter (Elasticsearch's `reverse` token filter): reverses each term by code point. */

import { TermMappingFilterFactory, type TokenFilterFactory } from './token-stream.ts';

function reverseCodePoints(term: string): string {
  return Array.from(term).reverse().join('');
}

export function reverseFilter(name = 'reverse'): TokenFilterFactory {
  return new TermMappingFilterFactory(name, false, reverseCodePoints);
}
