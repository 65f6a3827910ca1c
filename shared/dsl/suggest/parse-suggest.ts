/**
 * The `suggest` section of a search body (SuggestBuilder.fromXContent and
 * the term, phrase and completion builders of Elasticsearch 6.8), with their
 * errors: a global `text`, then one object per suggestion holding its own
 * `text` (`prefix`, `regex` for completion) and one suggester.
 */
import { elasticsearchParseException, illegalArgument, namedObjectNotFound } from '../../errors/es-errors.ts';
import {
  DEFAULT_SPELLCHECK,
  type CompletionFuzzySpec,
  type CompletionSuggestSpec,
  type DirectGeneratorSpec,
  type PhraseSuggestSpec,
  type SmoothingSpec,
  type SpellcheckSettings,
  type StringDistanceName,
  type SuggestMode,
  type SuggestRequest,
  type SuggestSpec,
  type TermSuggestSpec,
} from '../../engine/suggest/types.ts';
import { DslReader, isScalar, tokenName } from '../query/dsl-reader.ts';
import type { Json, JsonMap } from '../query/json-source.ts';

const DEFAULT_SIZE = 5;

interface Common {
  field: string | null;
  analyzer: string | null;
  size: number;
  shardSize: number | null;
}

function positive(v: number, what: string): number {
  if (v <= 0) throw illegalArgument(`${what} must be positive`);
  return v;
}

/** Common options of every suggester (SuggestionBuilder); true when `key` was one. */
function readCommon(r: DslReader, m: JsonMap, key: string, c: Common): boolean {
  switch (key) {
    case 'field':
      c.field = r.text(m, key);
      return true;
    case 'analyzer':
      c.analyzer = r.text(m, key);
      return true;
    case 'size':
      c.size = positive(r.int(m, key), 'size');
      return true;
    case 'shard_size':
      c.shardSize = positive(r.int(m, key), 'shardSize');
      return true;
    default:
      return false;
  }
}

function suggestMode(v: string): SuggestMode {
  const m = v.toLowerCase();
  if (m === 'missing' || m === 'popular' || m === 'always') return m;
  throw illegalArgument(`No enum constant org.elasticsearch.search.suggest.term.TermSuggestionBuilder.SuggestMode.${v.toUpperCase()}`);
}

function stringDistanceName(v: string): StringDistanceName {
  const d = v.toLowerCase();
  if (d === 'internal' || d === 'damerau_levenshtein' || d === 'levenshtein' || d === 'jaro_winkler' || d === 'ngram') return d;
  throw illegalArgument(`Illegal distance option ${v}`);
}

/** DirectSpellcheckerSettings keys shared by `term` and `direct_generator`; true when `key` was one. */
function readSpellcheck(r: DslReader, m: JsonMap, key: string, s: { -readonly [K in keyof SpellcheckSettings]: SpellcheckSettings[K] }): boolean {
  switch (key) {
    case 'suggest_mode':
      s.suggestMode = suggestMode(r.text(m, key));
      return true;
    case 'accuracy': {
      const a = r.float(m, key);
      if (a < 0 || a > 1) throw illegalArgument('accuracy must be between 0 and 1');
      s.accuracy = a;
      return true;
    }
    case 'sort': {
      const v = r.text(m, key).toLowerCase();
      if (v !== 'score' && v !== 'frequency') throw illegalArgument(`No enum constant org.elasticsearch.search.suggest.SortBy.${v.toUpperCase()}`);
      s.sort = v;
      return true;
    }
    case 'string_distance':
      s.stringDistance = stringDistanceName(r.text(m, key));
      return true;
    case 'max_edits': {
      const e = r.int(m, key);
      if (e < 1 || e > 2) throw illegalArgument('maxEdits must be between 1 and 2');
      s.maxEdits = e;
      return true;
    }
    case 'max_inspections': {
      const v = r.int(m, key);
      if (v < 0) throw illegalArgument('maxInspections must be positive');
      s.maxInspections = v;
      return true;
    }
    case 'max_term_freq': {
      const v = r.float(m, key);
      if (v < 0) throw illegalArgument('maxTermFreq must be positive');
      if (v > 1 && v !== Math.floor(v)) throw illegalArgument('if maxTermFreq is greater than 1, it must not be a fraction');
      s.maxTermFreq = v;
      return true;
    }
    case 'prefix_length':
    case 'prefix_len': {
      const v = r.int(m, key);
      if (v < 0) throw illegalArgument('prefixLength must be positive');
      s.prefixLength = v;
      return true;
    }
    case 'min_word_length':
    case 'min_word_len': {
      const v = r.int(m, key);
      if (v < 1) throw illegalArgument('minWordLength must be greater or equal to 1');
      s.minWordLength = v;
      return true;
    }
    case 'min_doc_freq': {
      const v = r.float(m, key);
      if (v < 0) throw illegalArgument('minDocFreq must be positive');
      if (v > 1 && v !== Math.floor(v)) throw illegalArgument('if minDocFreq is greater than 1, it must not be a fraction');
      s.minDocFreq = v;
      return true;
    }
    default:
      return false;
  }
}

function requireField(c: Common): string {
  if (c.field === null) throw elasticsearchParseException('the required field option [field] is missing');
  return c.field;
}

function parseTerm(r: DslReader, m: JsonMap, name: string, text: string | null): TermSuggestSpec {
  const c: Common = { field: null, analyzer: null, size: DEFAULT_SIZE, shardSize: null };
  const s = { ...DEFAULT_SPELLCHECK };
  for (const key of Object.keys(m)) {
    const v = m[key];
    if (!isScalar(v) && v !== null) throw r.errorAt(m, key, `suggester[term] parsing failed on [${key}]`);
    if (!readCommon(r, m, key, c) && !readSpellcheck(r, m, key, s)) throw r.errorAt(m, key, `suggester[term] doesn't support field [${key}]`);
  }
  return { type: 'term', name, field: requireField(c), text, analyzer: c.analyzer, size: c.size, shardSize: c.shardSize, settings: s };
}

function parseGenerator(r: DslReader, m: JsonMap): DirectGeneratorSpec {
  let field: string | null = null;
  let size = DEFAULT_SIZE;
  let preFilter: string | null = null;
  let postFilter: string | null = null;
  const s = { ...DEFAULT_SPELLCHECK };
  for (const key of Object.keys(m)) {
    if (key === 'field') field = r.text(m, key);
    else if (key === 'size') size = positive(r.int(m, key), 'size');
    else if (key === 'pre_filter') preFilter = r.text(m, key);
    else if (key === 'post_filter') postFilter = r.text(m, key);
    else if (!readSpellcheck(r, m, key, s)) throw r.errorAtKey(m, key, `[direct_generator] unknown field [${key}], parser not found`);
  }
  if (field === null) throw illegalArgument('Required [field]');
  if (preFilter !== null || postFilter !== null) {
    // Refused rather than ignored: a filter that is not applied changes which corrections come back.
    throw illegalArgument('[direct_generator] pre_filter and post_filter are not supported by this engine');
  }
  return { field, size, settings: s, preFilter, postFilter };
}

function parseSmoothing(r: DslReader, m: JsonMap): SmoothingSpec {
  const keys = Object.keys(m);
  let model: SmoothingSpec | null = null;
  for (const type of keys) {
    const v = m[type];
    if (!r.isMap(v)) throw r.errorAt(m, type, `suggester[phrase] doesn't support field [${type}]`);
    const num = (k: string, dflt: number): number => (v[k] === undefined ? dflt : Number(r.float(v, k)));
    for (const k of Object.keys(v)) {
      const allowed = type === 'stupid_backoff' ? ['discount'] : type === 'laplace' ? ['alpha'] : ['trigram_lambda', 'bigram_lambda', 'unigram_lambda'];
      if (!allowed.includes(k)) throw r.errorAtKey(v, k, `suggester[phrase][smoothing][${type}] doesn't support field [${k}]`);
    }
    if (type === 'stupid_backoff') model = { type, discount: num('discount', 0.4) };
    else if (type === 'laplace') model = { type, alpha: num('alpha', 0.5) };
    else if (type === 'linear_interpolation') {
      const t = { type, trigramLambda: num('trigram_lambda', 0), bigramLambda: num('bigram_lambda', 0), unigramLambda: num('unigram_lambda', 0) } as const;
      if (Math.abs(t.trigramLambda + t.bigramLambda + t.unigramLambda - 1) > 0.001) throw illegalArgument('linear smoothing lambdas must sum to 1');
      model = t;
    } else throw r.errorAtKey(m, type, `suggester[phrase] doesn't support object field [${type}]`);
  }
  if (model === null) throw r.errorOf(m, 'suggester[phrase] no smoothing model defined');
  return model;
}

function parsePhrase(r: DslReader, m: JsonMap, name: string, text: string | null): PhraseSuggestSpec {
  const c: Common = { field: null, analyzer: null, size: DEFAULT_SIZE, shardSize: null };
  let gramSize: number | null = null;
  let realWordErrorLikelihood = 0.95;
  let confidence = 1;
  let maxErrors = 1;
  let separator = ' ';
  let forceUnigrams = true;
  let tokenLimit = 10;
  let highlight: PhraseSuggestSpec['highlight'] = null;
  let smoothing: SmoothingSpec = { type: 'stupid_backoff', discount: 0.4 };
  const generators: DirectGeneratorSpec[] = [];
  for (const key of Object.keys(m)) {
    const v = m[key];
    if (isScalar(v) || v === null) {
      if (readCommon(r, m, key, c)) continue;
      switch (key) {
        case 'gram_size':
          gramSize = r.int(m, key);
          if (gramSize < 1) throw illegalArgument('gramSize must be >= 1');
          break;
        case 'real_word_error_likelihood':
          realWordErrorLikelihood = r.float(m, key);
          if (realWordErrorLikelihood <= 0) throw illegalArgument('real_word_error_likelihood must be > 0.0');
          break;
        case 'confidence':
          confidence = r.float(m, key);
          if (confidence < 0) throw illegalArgument('confidence must be >= 0.0');
          break;
        case 'max_errors':
          maxErrors = r.float(m, key);
          if (maxErrors <= 0) throw illegalArgument('max_error must be > 0.0');
          break;
        case 'separator':
          separator = r.text(m, key);
          break;
        case 'force_unigrams':
          forceUnigrams = r.bool(m, key);
          break;
        case 'token_limit':
          tokenLimit = r.int(m, key);
          if (tokenLimit <= 0) throw illegalArgument('token_limit must be >= 1');
          break;
        default:
          throw r.errorAt(m, key, `suggester[phrase] doesn't support field [${key}]`);
      }
    } else if (Array.isArray(v)) {
      if (key !== 'direct_generator') throw r.errorAt(m, key, `suggester[phrase]  doesn't support array field [${key}]`);
      v.forEach((g, i) => {
        if (!r.isMap(g)) throw r.errorAt(v, i, `suggester[phrase] direct_generator must hold objects, not [${tokenName(g)}]`);
        generators.push(parseGenerator(r, g));
      });
    } else if (key === 'smoothing') {
      smoothing = parseSmoothing(r, v);
    } else if (key === 'highlight') {
      let pre: string | null = null;
      let post: string | null = null;
      for (const k of Object.keys(v)) {
        if (k === 'pre_tag') pre = r.text(v, k);
        else if (k === 'post_tag') post = r.text(v, k);
        else throw r.errorAt(v, k, `suggester[phrase][highlight] doesn't support field [${k}]`);
      }
      if ((pre === null) !== (post === null)) throw illegalArgument('Pre and post tag must both be null or both not be null.');
      highlight = pre === null ? null : { preTag: pre, postTag: post! };
    } else if (key === 'collate') {
      // Collate runs a template query per correction: refused rather than ignored (this engine has no search templates).
      throw illegalArgument('[collate] of the phrase suggester is not supported by this engine (it needs search templates)');
    } else {
      throw r.errorAt(m, key, `suggester[phrase] doesn't support field [${key}]`);
    }
  }
  const field = requireField(c);
  if (generators.length === 0) generators.push({ field, size: DEFAULT_SIZE, settings: DEFAULT_SPELLCHECK, preFilter: null, postFilter: null });
  return {
    type: 'phrase',
    name,
    field,
    text,
    analyzer: c.analyzer,
    size: c.size,
    shardSize: c.shardSize,
    gramSize,
    realWordErrorLikelihood,
    confidence,
    maxErrors,
    separator,
    forceUnigrams,
    tokenLimit,
    highlight,
    smoothing,
    generators,
  };
}

function parseFuzzy(r: DslReader, m: JsonMap, key: string): CompletionFuzzySpec | null {
  const v = m[key];
  const fuzzy = { fuzziness: 'AUTO', transpositions: true, minLength: 3, prefixLength: 1, unicodeAware: false };
  if (typeof v === 'boolean') return v ? fuzzy : null;
  if (!r.isMap(v)) throw r.errorAt(m, key, `[completion] fuzzy doesn't support values of type: ${tokenName(v)}`);
  for (const k of Object.keys(v)) {
    switch (k) {
      case 'fuzziness': {
        const f = String(r.text(v, k));
        if (!/^(AUTO(:\d+,\d+)?|[012](\.0)?)$/i.test(f)) throw illegalArgument(`fuzziness must be one of [0, 1, 2, AUTO], was [${f}]`);
        fuzzy.fuzziness = f.toUpperCase();
        break;
      }
      case 'transpositions':
        fuzzy.transpositions = r.bool(v, k);
        break;
      case 'min_length':
        fuzzy.minLength = r.int(v, k);
        if (fuzzy.minLength < 0) throw illegalArgument('minLength must not be negative');
        break;
      case 'prefix_length':
        fuzzy.prefixLength = r.int(v, k);
        if (fuzzy.prefixLength < 0) throw illegalArgument('prefixLength must not be negative');
        break;
      case 'unicode_aware':
        fuzzy.unicodeAware = r.bool(v, k);
        break;
      case 'max_determinized_states':
        r.int(v, k);
        break;
      default:
        throw r.errorAtKey(v, k, `[fuzzy] unknown field [${k}], parser not found`);
    }
  }
  return fuzzy;
}

function parseCompletion(r: DslReader, m: JsonMap, name: string, text: string | null, prefix: string | null, regex: string | null): CompletionSuggestSpec {
  const c: Common = { field: null, analyzer: null, size: DEFAULT_SIZE, shardSize: null };
  let skipDuplicates = false;
  let fuzzy: CompletionFuzzySpec | null = null;
  for (const key of Object.keys(m)) {
    if (readCommon(r, m, key, c)) continue;
    if (key === 'skip_duplicates') skipDuplicates = r.bool(m, key);
    else if (key === 'fuzzy') fuzzy = parseFuzzy(r, m, key);
    else if (key === 'regex') {
      // Regex options (`flags`, `max_determinized_states`): the pattern itself is the suggestion's `regex`.
      const v = m[key];
      if (!r.isMap(v)) throw r.errorAt(m, key, `[completion] regex doesn't support values of type: ${tokenName(v)}`);
      for (const k of Object.keys(v)) {
        if (k !== 'flags' && k !== 'max_determinized_states') throw r.errorAtKey(v, k, `[regexp] unknown field [${k}], parser not found`);
      }
    } else if (key === 'contexts') {
      throw illegalArgument('[contexts] of the completion suggester are not supported by this engine (completion fields take no context mappings)');
    } else throw r.errorAtKey(m, key, `[completion] unknown field [${key}], parser not found`);
  }
  if (fuzzy !== null && regex !== null) throw illegalArgument('[completion] cannot combine [fuzzy] with [regex]');
  return {
    type: 'completion',
    name,
    field: requireField(c),
    text: regex !== null ? null : (prefix ?? text),
    analyzer: c.analyzer,
    size: c.size,
    shardSize: c.shardSize,
    regex,
    skipDuplicates,
    fuzzy,
  };
}

/** One named suggestion (SuggestionBuilder.fromXContent). */
function parseSuggestion(r: DslReader, container: JsonMap, name: string): SuggestSpec {
  const m = container[name];
  if (!r.isMap(m)) throw r.errorAt(container, name, `unexpected token [${tokenName(m)}] after [${name}]`);
  let text: string | null = null;
  let prefix: string | null = null;
  let regex: string | null = null;
  let type: string | null = null;
  for (const key of Object.keys(m)) {
    const v: Json = m[key];
    if (isScalar(v) || v === null) {
      if (key === 'text') text = r.textOrNull(m, key);
      else if (key === 'prefix') prefix = r.textOrNull(m, key);
      else if (key === 'regex') regex = r.textOrNull(m, key);
      else throw r.errorAt(m, key, `suggestion does not support [${key}]`);
    } else if (r.isMap(v)) {
      if (key !== 'term' && key !== 'phrase' && key !== 'completion') {
        const l = r.loc(m, key);
        throw namedObjectNotFound(`unable to parse SuggestionBuilder with name [${key}]: parser not found`, l.line, l.col);
      }
      type = key;
    } else {
      throw r.errorAt(m, key, `suggestion does not support [${key}]`);
    }
  }
  if (type === null) throw elasticsearchParseException('missing suggestion object');
  const body = m[type] as JsonMap;
  if (type === 'completion') return parseCompletion(r, body, name, text, prefix, regex);
  const own = text ?? prefix ?? regex;
  return type === 'term' ? parseTerm(r, body, name, own) : parsePhrase(r, body, name, own);
}

/** SuggestBuilder.fromXContent. */
export function parseSuggest(r: DslReader, container: JsonMap, key: string): SuggestRequest {
  const v = container[key];
  if (!r.isMap(v)) throw r.errorAt(container, key, `Unknown key for a ${tokenName(v)} in [${key}].`);
  let globalText: string | null = null;
  const suggestions: SuggestSpec[] = [];
  for (const name of Object.keys(v)) {
    const item = v[name];
    if (isScalar(item) || item === null) {
      if (name !== 'text') throw illegalArgument(`[suggest] does not support [${name}]`);
      globalText = r.textOrNull(v, name);
    } else if (r.isMap(item)) {
      suggestions.push(parseSuggestion(r, v, name));
    } else {
      throw r.errorAt(v, name, `unexpected token [${tokenName(item)}] after [${name}]`);
    }
  }
  return { globalText, suggestions };
}

/** The text a suggestion runs on: its own, else the global one (SuggestBuilder.build). */
export function suggestionText(req: SuggestRequest, spec: SuggestSpec): string {
  const own = spec.type === 'completion' && spec.regex !== null ? spec.regex : spec.text;
  const text = own ?? req.globalText;
  if (text === null) throw illegalArgument('The required text option is missing');
  return text;
}

