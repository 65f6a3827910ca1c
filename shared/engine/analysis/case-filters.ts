/**
 * Lucene's LowerCaseFilter and UpperCaseFilter (Elasticsearch's `lowercase`
 * and `uppercase` token filters): per code point, as Java maps case.
 */

import { javaLowerCase, javaUpperCase } from './case-mapping.ts';
import { TermMappingFilterFactory } from './token-stream.ts';

export function lowercaseFilter(name = 'lowercase'): TermMappingFilterFactory {
  return new TermMappingFilterFactory(name, true, javaLowerCase, true);
}

export function uppercaseFilter(name = 'uppercase'): TermMappingFilterFactory {
  return new TermMappingFilterFactory(name, true, javaUpperCase, true);
}
