/**
 * The stemming token filter types, as Elasticsearch 6.8's analysis-common
 * module builds them from settings:
 *   snowball     SnowballTokenFilterFactory: `language` (or `name`), default English
 *   porter_stem  PorterStemTokenFilterFactory: no parameters
 *   stemmer      StemmerTokenFilterFactory: `language` (or `name`), default porter
 *
 * Only the English stemmers exist here. Every other language gets the error
 * Elasticsearch gives for a language Lucene has no stemmer for, so an index
 * asking for German fails at creation instead of indexing unstemmed terms.
 */

import { illegalArgument, javaCause } from '../../errors/es-errors.ts';
import type { ComponentSettings } from './component-settings.ts';
import { englishMinimalStem } from './english-minimal-stemmer.ts';
import { stripPossessive } from './english-possessive-filter.ts';
import { porterStem } from './porter-stemmer.ts';
import { snowballEnglishStem } from './snowball-english.ts';
import { TermMappingFilterFactory, type TokenFilterFactory } from './token-stream.ts';

/** A word → stem function over lowercased terms. */
export type Stemmer = (word: string) => string;

/** SnowballTokenFilterFactory's and SnowballAnalyzerProvider's default language. */
export const DEFAULT_SNOWBALL_LANGUAGE = 'English';

/** StemmerTokenFilterFactory's default language. */
const DEFAULT_STEMMER_LANGUAGE = 'porter';

/**
 * Snowball stemmers by the name Lucene's SnowballFilter loads them under
 * (`org.tartarus.snowball.ext.<name>Stemmer`, so case matters). Snowball's
 * own Porter program is served by the Porter stemmer of `porter_stem`, which
 * differs from it only in the reference implementation's three departures.
 */
const SNOWBALL_STEMMERS: ReadonlyMap<string, Stemmer> = new Map<string, Stemmer>([
  ['English', snowballEnglishStem],
  ['Porter', porterStem],
]);

/**
 * The `stemmer` filter's English languages, compared ignoring case as
 * StemmerTokenFilterFactory does. KStem (`light_english`, `kstem`) needs a
 * dictionary that is not here; those names get the Porter stemmer, which
 * strips the same inflections (-s, -ed, -ing, -ly) though more of the
 * derivational ones.
 */
const STEMMER_LANGUAGES: ReadonlyMap<string, Stemmer> = new Map<string, Stemmer>([
  ['english', porterStem],
  ['porter', porterStem],
  ['porter2', snowballEnglishStem],
  ['minimal_english', englishMinimalStem],
  ['minimalenglish', englishMinimalStem],
  ['possessive_english', stripPossessive],
  ['possessiveenglish', stripPossessive],
  ['light_english', porterStem],
  ['lightenglish', porterStem],
  ['kstem', porterStem],
]);

/** Elasticsearch's Strings.capitalize: the first character upper-cased. */
function capitalize(s: string): string {
  return s.length === 0 ? s : s.charAt(0).toUpperCase() + s.slice(1);
}

/** Lucene's SnowballFilter for a name it has no class for. */
function invalidStemmer(name: string): never {
  throw illegalArgument(
    `Invalid stemmer class specified: ${name}`,
    javaCause('class_not_found_exception', `org.tartarus.snowball.ext.${name}Stemmer`),
  );
}

/** The Snowball stemmer of this exact name (`English`, `Porter`); throws Elasticsearch's error for any other. */
export function snowballStemmer(name: string): Stemmer {
  return SNOWBALL_STEMMERS.get(name) ?? invalidStemmer(name);
}

/** A filter stemming every term not in `exclusions` (Lucene's keyword-marked terms). */
export function stemmingFilter(name: string, stem: Stemmer, exclusions: ReadonlySet<string> = new Set()): TokenFilterFactory {
  const map = exclusions.size === 0 ? stem : (term: string): string => (exclusions.has(term) ? term : stem(term));
  return new TermMappingFilterFactory(name, false, map);
}

export function snowballFilter(name: string, s: ComponentSettings): TokenFilterFactory {
  const language = capitalize(s.getString('language') ?? s.getString('name') ?? DEFAULT_SNOWBALL_LANGUAGE);
  return stemmingFilter(name, snowballStemmer(language));
}

export function porterStemFilter(name: string): TokenFilterFactory {
  return stemmingFilter(name, porterStem);
}

export function stemmerFilter(name: string, s: ComponentSettings): TokenFilterFactory {
  const language = capitalize(s.getString('language') ?? s.getString('name') ?? DEFAULT_STEMMER_LANGUAGE);
  const stem = STEMMER_LANGUAGES.get(language.toLowerCase()) ?? invalidStemmer(language);
  return stemmingFilter(name, stem);
}
