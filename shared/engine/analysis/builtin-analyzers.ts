/**
 * Elasticsearch 6.8's built-in analyzers, usable by name or as an analyzer
 * `type` with parameters:
 *   standard   standard tokenizer, lowercase, stop (no stop words by default)
 *   simple     lowercase tokenizer (letters only, lowercased)
 *   whitespace whitespace tokenizer
 *   keyword    the whole text as one token
 *   stop       lowercase tokenizer, English stop words
 *   pattern    pattern tokenizer (\W+), lowercase, stop (none by default)
 *   snowball   standard tokenizer, English possessive, lowercase, stop
 *              (English stop words for English), Snowball stemmer (`language`)
 *   english    standard tokenizer, English possessive, lowercase, English
 *              stop words, Porter stemmer (`stem_exclusion` left unstemmed)
 */

import { ComposedAnalyzer, DEFAULT_POSITION_INCREMENT_GAP } from './analyzer.ts';
import { lowercaseFilter } from './case-filters.ts';
import { CharTokenizer } from './char-tokenizer.ts';
import { ComponentSettings } from './component-settings.ts';
import { compileJavaRegex } from './java-regex.ts';
import { KeywordTokenizer } from './keyword-tokenizer.ts';
import { DEFAULT_PATTERN, PatternTokenizer } from './pattern-tokenizer.ts';
import { DEFAULT_MAX_TOKEN_LENGTH, StandardTokenizer } from './standard-tokenizer.ts';
import { englishPossessiveFilter } from './english-possessive-filter.ts';
import { porterStem } from './porter-stemmer.ts';
import { DEFAULT_SNOWBALL_LANGUAGE, snowballStemmer, stemmingFilter } from './stemming-filters.ts';
import { ENGLISH_STOP_WORDS, StopFilterFactory, parseStopWords } from './stop-filter.ts';
import type { TokenFilterFactory } from './token-stream.ts';

type BuildAnalyzer = (name: string, settings: ComponentSettings) => ComposedAnalyzer;

function stopStage(settings: ComponentSettings, defaults: readonly string[]): TokenFilterFactory[] {
  const words = parseStopWords(settings, defaults);
  return words.length === 0 ? [] : [new StopFilterFactory('stop', words)];
}

const gap = DEFAULT_POSITION_INCREMENT_GAP;

/** Analysis.parseStemExclusion: `_none_`, or a list of terms the stemmer leaves alone. */
function stemExclusion(settings: ComponentSettings): ReadonlySet<string> {
  if (settings.getString('stem_exclusion') === '_none_') return new Set();
  return new Set(settings.getList('stem_exclusion'));
}

/**
 * Lucene runs the possessive filter before lowercasing. Only `S` lowercases to
 * `s` and no character lowercases to an apostrophe, so lowercasing first gives
 * the same terms, and lets the indexing path lowercase each text once.
 */
function englishFront(): TokenFilterFactory[] {
  return [lowercaseFilter(), englishPossessiveFilter()];
}

/** Analyzer types by name; the built-in analyzer of a name is its type with empty settings. */
export const ANALYZER_TYPES: ReadonlyMap<string, BuildAnalyzer> = new Map<string, BuildAnalyzer>([
  [
    'standard',
    (name, s) =>
      new ComposedAnalyzer(name, {
        tokenizer: new StandardTokenizer('standard', s.getInt('max_token_length', DEFAULT_MAX_TOKEN_LENGTH)),
        filters: [lowercaseFilter(), ...stopStage(s, [])],
        positionIncrementGap: gap,
      }),
  ],
  ['simple', (name) => new ComposedAnalyzer(name, { tokenizer: new CharTokenizer('lowercase', 'lowercase'), positionIncrementGap: gap })],
  ['whitespace', (name) => new ComposedAnalyzer(name, { tokenizer: new CharTokenizer('whitespace', 'whitespace'), positionIncrementGap: gap })],
  ['keyword', (name) => new ComposedAnalyzer(name, { tokenizer: new KeywordTokenizer(), positionIncrementGap: gap })],
  [
    'stop',
    (name, s) =>
      new ComposedAnalyzer(name, {
        tokenizer: new CharTokenizer('lowercase', 'lowercase'),
        filters: stopStage(s, ENGLISH_STOP_WORDS),
        positionIncrementGap: gap,
      }),
  ],
  [
    'pattern',
    (name, s) => {
      const regex = compileJavaRegex(s.getString('pattern') ?? DEFAULT_PATTERN, s.getString('flags') ?? '');
      const filters = s.getBoolean('lowercase', true) ? [lowercaseFilter()] : [];
      return new ComposedAnalyzer(name, {
        tokenizer: new PatternTokenizer('pattern', regex, -1),
        filters: [...filters, ...stopStage(s, [])],
        positionIncrementGap: gap,
      });
    },
  ],
  [
    'snowball',
    (name, s) => {
      // SnowballAnalyzerProvider takes the language as given (the filter capitalizes it); only English has default stop words.
      const language = s.getString('language') ?? s.getString('name') ?? DEFAULT_SNOWBALL_LANGUAGE;
      const stem = snowballStemmer(language);
      return new ComposedAnalyzer(name, {
        tokenizer: new StandardTokenizer('standard', DEFAULT_MAX_TOKEN_LENGTH),
        filters: [...englishFront(), ...stopStage(s, language === 'English' ? ENGLISH_STOP_WORDS : []), stemmingFilter('snowball', stem)],
        positionIncrementGap: gap,
      });
    },
  ],
  [
    'english',
    (name, s) =>
      new ComposedAnalyzer(name, {
        tokenizer: new StandardTokenizer('standard', DEFAULT_MAX_TOKEN_LENGTH),
        filters: [...englishFront(), ...stopStage(s, ENGLISH_STOP_WORDS), stemmingFilter('porter_stem', porterStem, stemExclusion(s))],
        positionIncrementGap: gap,
      }),
  ],
]);

let builtins: ReadonlyMap<string, ComposedAnalyzer> | null = null;

/** The built-in analyzers by name (`default` is the standard analyzer), built once. */
export function builtinAnalyzers(): ReadonlyMap<string, ComposedAnalyzer> {
  if (builtins === null) {
    const empty = new ComponentSettings({});
    const map = new Map<string, ComposedAnalyzer>();
    for (const [name, build] of ANALYZER_TYPES) map.set(name, build(name, empty));
    map.set('default', map.get('standard')!.renamed('default'));
    builtins = map;
  }
  return builtins;
}
