/**
 * The tokens of a suggestion's text: analyzed with the suggestion's
 * `analyzer` or the field's search analyzer (SuggestionBuilder's
 * populateCommonFields); a keyword field takes the whole text as one token.
 */
import { illegalArgument } from '../../errors/es-errors.ts';
import type { Analyzer, AnalyzerLookup } from '../analysis/types.ts';
import type { FieldMapping, MappingLookup } from '../mapping/types.ts';

export interface TextToken {
  readonly term: string;
  readonly start: number;
  readonly end: number;
  readonly position: number;
  readonly type: string;
}

/** The field a suggestion reads, or Elasticsearch's error for an unmapped one. */
export function suggestField(mapping: MappingLookup, field: string): FieldMapping {
  const fm = mapping.field(field);
  if (fm === undefined || fm.type === 'object') throw illegalArgument(`no mapping found for field [${field}]`);
  // A completion field's dictionary holds encoded inputs (completion-terms.ts), not words to correct.
  if (fm.type === 'completion') throw illegalArgument(`field [${field}] is a completion field: use the completion suggester`);
  return fm;
}

/** The analyzer a suggestion's text goes through; null = the whole text is one token (keyword fields). */
export function suggestAnalyzer(fm: FieldMapping, analyzers: AnalyzerLookup, name: string | null): Analyzer | null {
  if (name !== null) {
    const a = analyzers.get(name);
    if (a === undefined) throw illegalArgument(`analyzer [${name}] doesn't exists`);
    return a;
  }
  if (fm.type === 'text') {
    const n = fm.searchAnalyzer ?? fm.analyzer ?? 'standard';
    return analyzers.get(n) ?? analyzers.get('standard') ?? null;
  }
  return null;
}

export function textTokens(text: string, analyzer: Analyzer | null): TextToken[] {
  if (analyzer === null) return text === '' ? [] : [{ term: text, start: 0, end: text.length, position: 0, type: 'word' }];
  return analyzer.analyze(text).map((t) => ({ term: t.token, start: t.start_offset, end: t.end_offset, position: t.position, type: t.type }));
}
