/**
 * The tokenizer, token filter and char filter types that analysis settings
 * can name (`"type": "ngram"`), each built from its settings with
 * Elasticsearch 6.8's parameter names, defaults, validation and deprecation
 * warnings. A component used by name alone (`"tokenizer": "whitespace"`) is its
 * type with empty settings.
 */

import { illegalArgument } from '../../errors/es-errors.ts';
import { AsciiFoldingFilterFactory } from './ascii-folding-filter.ts';
import { lowercaseFilter, uppercaseFilter } from './case-filters.ts';
import { javaLowerCase } from './case-mapping.ts';
import { CharTokenizer, DEFAULT_MAX_WORD_LENGTH } from './char-tokenizer.ts';
import type { ComponentSettings } from './component-settings.ts';
import { HtmlStripCharFilter } from './html-strip-char-filter.ts';
import { compileJavaRegex } from './java-regex.ts';
import { KeywordTokenizer } from './keyword-tokenizer.ts';
import { DEFAULT_TRUNCATE_LENGTH, INTEGER_MAX_VALUE, LengthFilterFactory, truncateFilter } from './length-filters.ts';
import { MappingCharFilter, parseMappingRules } from './mapping-char-filter.ts';
import { NGramFilterFactory } from './ngram-filters.ts';
import { DEFAULT_MAX_GRAM, DEFAULT_MIN_GRAM, NGramTokenizer } from './ngram-tokenizer.ts';
import { PatternReplaceCharFilter } from './pattern-replace-char-filter.ts';
import { DEFAULT_PATTERN, PatternTokenizer } from './pattern-tokenizer.ts';
import { reverseFilter } from './reverse-filter.ts';
import { DEFAULT_MAX_TOKEN_LENGTH, StandardTokenizer } from './standard-tokenizer.ts';
import { porterStemFilter, snowballFilter, stemmerFilter } from './stemming-filters.ts';
import { ENGLISH_STOP_WORDS, StopFilterFactory, parseStopWords } from './stop-filter.ts';
import { SynonymFilterFactory } from './synonym-filter.ts';
import { parseTokenChars } from './token-chars.ts';
import { TermMappingFilterFactory, type CharFilter, type TokenFilterFactory, type Tokenizer } from './token-stream.ts';
import { trimFilter } from './trim-filter.ts';
import { UniqueFilterFactory } from './unique-filter.ts';

/** IndexSettings.MAX_NGRAM_DIFF_SETTING's default (`index.max_ngram_diff`). */
export const DEFAULT_MAX_NGRAM_DIFF = 1;

/** StandardTokenizer's upper bound on max_token_length (1024 * 1024). */
const MAX_TOKEN_LENGTH_LIMIT = 1024 * 1024;

export interface BuildContext {
  /** `index.max_ngram_diff` of the index the component belongs to. */
  readonly maxNgramDiff: number;
  /** Deprecation warnings (each text once), as Elasticsearch's DeprecationLogger emits them. */
  readonly warnings: string[];
}

export function addWarning(ctx: BuildContext, text: string): void {
  if (!ctx.warnings.includes(text)) ctx.warnings.push(text);
}

type Build<T> = (name: string, settings: ComponentSettings, ctx: BuildContext) => T;

function checkMaxTokenLength(length: number): number {
  if (length < 1) throw illegalArgument('maxTokenLength must be greater than zero');
  if (length > MAX_TOKEN_LENGTH_LIMIT) throw illegalArgument(`maxTokenLength may not exceed ${MAX_TOKEN_LENGTH_LIMIT}`);
  return length;
}

function checkCharTokenLength(length: number): number {
  if (length <= 0 || length > MAX_TOKEN_LENGTH_LIMIT) {
    throw illegalArgument(`maxTokenLen must be greater than 0 and less than ${MAX_TOKEN_LENGTH_LIMIT} passed: ${length}`);
  }
  return length;
}

/** Lucene's NGramTokenizer / NGramTokenFilter argument checks. */
function checkGrams(minGram: number, maxGram: number): void {
  if (minGram < 1) throw illegalArgument('minGram must be greater than zero');
  if (minGram > maxGram) throw illegalArgument('minGram must not be greater than maxGram');
}

/** Elasticsearch 6.x accepts a larger difference on indices created before 7.0, with this warning. */
function warnNgramDiff(minGram: number, maxGram: number, ctx: BuildContext): void {
  if (maxGram - minGram > ctx.maxNgramDiff) {
    addWarning(
      ctx,
      'Deprecated big difference between max_gram and min_gram in NGram Tokenizer,' +
        `expected difference must be less than or equal to: [${ctx.maxNgramDiff}]`,
    );
  }
}

const ngramTokenizer: Build<Tokenizer> = (name, s, ctx) => {
  const minGram = s.getInt('min_gram', DEFAULT_MIN_GRAM);
  const maxGram = s.getInt('max_gram', DEFAULT_MAX_GRAM);
  warnNgramDiff(minGram, maxGram, ctx);
  const tokenChars = parseTokenChars(s.getList('token_chars'));
  checkGrams(minGram, maxGram);
  return new NGramTokenizer(name, minGram, maxGram, false, tokenChars);
};

const edgeNgramTokenizer: Build<Tokenizer> = (name, s) => {
  const minGram = s.getInt('min_gram', DEFAULT_MIN_GRAM);
  const maxGram = s.getInt('max_gram', DEFAULT_MAX_GRAM);
  const tokenChars = parseTokenChars(s.getList('token_chars'));
  checkGrams(minGram, maxGram);
  return new NGramTokenizer(name, minGram, maxGram, true, tokenChars);
};

export const TOKENIZER_TYPES: ReadonlyMap<string, Build<Tokenizer>> = new Map<string, Build<Tokenizer>>([
  ['standard', (name, s) => new StandardTokenizer(name, checkMaxTokenLength(s.getInt('max_token_length', DEFAULT_MAX_TOKEN_LENGTH)))],
  [
    'keyword',
    (name, s) => {
      if (s.getInt('buffer_size', 256) <= 0) throw illegalArgument('bufferSize must be > 0');
      return new KeywordTokenizer(name);
    },
  ],
  [
    'whitespace',
    (name, s) => new CharTokenizer(name, 'whitespace', checkCharTokenLength(s.getInt('max_token_length', DEFAULT_MAX_WORD_LENGTH))),
  ],
  ['letter', (name) => new CharTokenizer(name, 'letter')],
  ['lowercase', (name) => new CharTokenizer(name, 'lowercase')],
  ['ngram', ngramTokenizer],
  ['nGram', ngramTokenizer],
  ['edge_ngram', edgeNgramTokenizer],
  ['edgeNGram', edgeNgramTokenizer],
  [
    'pattern',
    (name, s) =>
      new PatternTokenizer(name, compileJavaRegex(s.getString('pattern') ?? DEFAULT_PATTERN, s.getString('flags') ?? ''), s.getInt('group', -1)),
  ],
]);

const ngramFilter: Build<TokenFilterFactory> = (name, s, ctx) => {
  const minGram = s.getInt('min_gram', DEFAULT_MIN_GRAM);
  const maxGram = s.getInt('max_gram', DEFAULT_MAX_GRAM);
  warnNgramDiff(minGram, maxGram, ctx);
  checkGrams(minGram, maxGram);
  return new NGramFilterFactory(name, minGram, maxGram, false);
};

const edgeNgramFilter: Build<TokenFilterFactory> = (name, s) => {
  const minGram = s.getInt('min_gram', DEFAULT_MIN_GRAM);
  const maxGram = s.getInt('max_gram', DEFAULT_MAX_GRAM);
  checkGrams(minGram, maxGram);
  return new NGramFilterFactory(name, minGram, maxGram, true);
};

/** Turkish lowercasing maps dotted and dotless I as Lucene's TurkishLowerCaseFilter does. */
function turkishLowerCase(term: string): string {
  return javaLowerCase(term.replace(/I\u0307/g, 'i').replace(/I/g, '\u0131').replace(/\u0130/g, 'i'));
}

const synonymFilter: Build<TokenFilterFactory> = (name, s) => {
  if (!s.has('synonyms') && !s.has('synonyms_path')) {
    throw illegalArgument('synonym requires either `synonyms` or `synonyms_path` to be configured');
  }
  if (!s.has('synonyms')) throw illegalArgument(`IOException while reading synonyms_path: ${s.getString('synonyms_path') ?? ''}`);
  const format = s.getString('format');
  if (format !== undefined && format !== 'solr' && format !== '') {
    throw illegalArgument(`Unsupported synonyms format [${format}]: only the solr format is available here`);
  }
  return new SynonymFilterFactory(name, {
    rules: s.getEntries('synonyms'),
    expand: s.getBoolean('expand', true),
    lenient: s.getBoolean('lenient', false),
    ignoreCase: s.getBoolean('ignore_case', false),
  });
};

export const FILTER_TYPES: ReadonlyMap<string, Build<TokenFilterFactory>> = new Map<string, Build<TokenFilterFactory>>([
  [
    'lowercase',
    (name, s) => {
      const language = s.getString('language');
      if (language === undefined) return lowercaseFilter(name);
      if (language === 'turkish') return new TermMappingFilterFactory(name, true, turkishLowerCase);
      if (language === 'greek' || language === 'irish') return lowercaseFilter(name);
      throw illegalArgument(`language [${language}] not support for lower case`);
    },
  ],
  ['uppercase', (name) => uppercaseFilter(name)],
  ['asciifolding', (name, s) => new AsciiFoldingFilterFactory(name, s.getBoolean('preserve_original', false))],
  ['trim', (name) => trimFilter(name)],
  ['stop', (name, s) => new StopFilterFactory(name, parseStopWords(s, ENGLISH_STOP_WORDS), s.getBoolean('ignore_case', false))],
  ['length', (name, s) => new LengthFilterFactory(name, s.getInt('min', 0), s.getInt('max', INTEGER_MAX_VALUE))],
  ['truncate', (name, s) => truncateFilter(name, s.getInt('length', DEFAULT_TRUNCATE_LENGTH))],
  ['unique', (name, s) => new UniqueFilterFactory(name, s.getBoolean('only_on_same_position', false))],
  ['reverse', (name) => reverseFilter(name)],
  ['ngram', ngramFilter],
  ['nGram', ngramFilter],
  ['edge_ngram', edgeNgramFilter],
  ['edgeNGram', edgeNgramFilter],
  ['synonym', synonymFilter],
  ['synonym_graph', synonymFilter],
  ['snowball', snowballFilter],
  ['porter_stem', porterStemFilter],
  ['stemmer', stemmerFilter],
  [
    'standard',
    (name, _s, ctx) => {
      addWarning(ctx, 'The [standard] token filter name is deprecated and will be removed in a future version.');
      return new TermMappingFilterFactory(name, false, (term) => term);
    },
  ],
]);

export const CHAR_FILTER_TYPES: ReadonlyMap<string, Build<CharFilter>> = new Map<string, Build<CharFilter>>([
  ['html_strip', (name, s) => new HtmlStripCharFilter(name, s.getList('escaped_tags'))],
  [
    'mapping',
    (name, s) => {
      if (!s.has('mappings')) {
        if (s.has('mappings_path')) throw illegalArgument(`IOException while reading mappings_path: ${s.getString('mappings_path') ?? ''}`);
        throw illegalArgument('mapping requires either `mappings` or `mappings_path` to be configured');
      }
      return new MappingCharFilter(name, parseMappingRules(s.getEntries('mappings')));
    },
  ],
  [
    'pattern_replace',
    (name, s) => {
      const pattern = s.getString('pattern');
      if (pattern === undefined || pattern.length === 0) {
        throw illegalArgument(`pattern is missing for [${name}] char filter of type 'pattern_replace'`);
      }
      return new PatternReplaceCharFilter(name, compileJavaRegex(pattern, s.getString('flags') ?? ''), s.getString('replacement') ?? '');
    },
  ],
]);
