/**
 * Lucene's StopFilter (Elasticsearch's `stop` token filter and the stop step
 * of the `stop`, `standard` and `pattern` analyzers): removes stop words and
 * leaves a gap in positions where they were.
 */

import { illegalArgument } from '../../errors/es-errors.ts';
import { javaLowerCase } from './case-mapping.ts';
import type { ComponentSettings } from './component-settings.ts';
import { DroppingStage, type TokenConsumer, type TokenFilterFactory } from './token-stream.ts';
import { getOwn } from '../../json/own-keys.ts';

/** Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET (Elasticsearch's `_english_`). */
export const ENGLISH_STOP_WORDS: readonly string[] = [
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it',
  'no', 'not', 'of', 'on', 'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these',
  'they', 'this', 'to', 'was', 'will', 'with',
];

const NAMED_STOP_WORDS: Readonly<Record<string, readonly string[]>> = {
  _english_: ENGLISH_STOP_WORDS,
};

/**
 * Elasticsearch's Analysis.parseStopWords: `stopwords` is `_none_`, a named set
 * (`_english_`), or a list whose entries may themselves name sets.
 */
export function parseStopWords(settings: ComponentSettings, defaultWords: readonly string[]): readonly string[] {
  if (settings.has('stopwords')) {
    if (settings.getString('stopwords') === '_none_' && settings.getList('stopwords').length <= 1) return [];
    const out: string[] = [];
    for (const word of settings.getList('stopwords')) {
      const named = getOwn(NAMED_STOP_WORDS, word);
      if (named !== undefined) out.push(...named);
      else out.push(word);
    }
    return out;
  }
  const path = settings.getString('stopwords_path');
  if (path !== undefined) throw illegalArgument(`IOException while reading stopwords_path: ${path}`);
  return defaultWords;
}

export class StopFilterFactory implements TokenFilterFactory {
  readonly name: string;
  readonly normalizerSafe = false;
  private readonly words: ReadonlySet<string>;
  private readonly ignoreCase: boolean;

  constructor(name: string, words: readonly string[], ignoreCase = false) {
    this.name = name;
    this.ignoreCase = ignoreCase;
    this.words = new Set(ignoreCase ? words.map(javaLowerCase) : words);
  }

  create(next: TokenConsumer): TokenConsumer {
    return new StopStage(next, this.words, this.ignoreCase);
  }
}

class StopStage extends DroppingStage {
  private readonly words: ReadonlySet<string>;
  private readonly ignoreCase: boolean;

  constructor(next: TokenConsumer, words: ReadonlySet<string>, ignoreCase: boolean) {
    super(next);
    this.words = words;
    this.ignoreCase = ignoreCase;
  }

  protected accept(term: string): boolean {
    return !this.words.has(this.ignoreCase ? javaLowerCase(term) : term);
  }
}
