/**
 * Lucene's TrimFilter (Elasticsearch's `trim` token filter): strips leading
 * and trailing Java whitespace from each term; offsets are left unchanged.
 */

import { isJavaWhitespace } from './char-classes.ts';
import { TermMappingFilterFactory, type TokenFilterFactory } from './token-stream.ts';

function trimJavaWhitespace(term: string): string {
  let start = 0;
  let end = term.length;
  while (start < end && isJavaWhitespace(term.charCodeAt(start))) start++;
  while (end > start && isJavaWhitespace(term.charCodeAt(end - 1))) end--;
  return start === 0 && end === term.length ? term : term.slice(start, end);
}

export function trimFilter(name = 'trim'): TokenFilterFactory {
  return new TermMappingFilterFactory(name, false, trimJavaWhitespace);
}
