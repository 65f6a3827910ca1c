/**
 * Lucene's EnglishPossessiveFilter (the `stemmer` filter's
 * `possessive_english` language, and the first step of the `english` and
 * `snowball` analyzers): drops a trailing 's or 'S, with the apostrophe
 * written ', ’ (U+2019) or ＇ (U+FF07).
 */

import { TermMappingFilterFactory, type TokenFilterFactory } from './token-stream.ts';

function isApostrophe(c: number): boolean {
  return c === 0x27 || c === 0x2019 || c === 0xff07;
}

export function stripPossessive(term: string): string {
  const len = term.length;
  if (len < 2) return term;
  const last = term.charCodeAt(len - 1);
  if ((last !== 0x73 && last !== 0x53) || !isApostrophe(term.charCodeAt(len - 2))) return term;
  return term.slice(0, len - 2);
}

export function englishPossessiveFilter(name = 'english_possessive'): TokenFilterFactory {
  return new TermMappingFilterFactory(name, false, stripPossessive);
}
