/**
 * Suggesters (Elasticsearch's `suggest` section of a search): what a request
 * asks for, parsed once (shared/dsl/suggest), and what each shard answers,
 * reduced by the coordinator (reduce-suggest.ts). Plain data: shard results
 * cross threads and nodes as structured clones.
 */

export type SuggestMode = 'missing' | 'popular' | 'always';
export type StringDistanceName = 'internal' | 'damerau_levenshtein' | 'levenshtein' | 'jaro_winkler' | 'ngram';

/** DirectSpellcheckerSettings: how candidates for one term are drawn from a field's term dictionary. */
export interface SpellcheckSettings {
  readonly suggestMode: SuggestMode;
  readonly accuracy: number;
  readonly sort: 'score' | 'frequency';
  readonly stringDistance: StringDistanceName;
  readonly maxEdits: number;
  readonly maxInspections: number;
  readonly maxTermFreq: number;
  readonly prefixLength: number;
  readonly minWordLength: number;
  readonly minDocFreq: number;
}

export const DEFAULT_SPELLCHECK: SpellcheckSettings = {
  suggestMode: 'missing',
  accuracy: 0.5,
  sort: 'score',
  stringDistance: 'internal',
  maxEdits: 2,
  maxInspections: 5,
  maxTermFreq: 0.01,
  prefixLength: 1,
  minWordLength: 4,
  minDocFreq: 0,
};

interface CommonSpec {
  /** The suggestion's name in the response. */
  readonly name: string;
  readonly field: string;
  /** The suggestion's own `text` (or `prefix`/`regex` for completion), else null: the global text then applies. */
  readonly text: string | null;
  readonly analyzer: string | null;
  /** Options in the reduced response (default 5). */
  readonly size: number;
  /** Options per shard; null = max(size, 5). */
  readonly shardSize: number | null;
}

export interface TermSuggestSpec extends CommonSpec {
  readonly type: 'term';
  readonly settings: SpellcheckSettings;
}

/** One `direct_generator` of a phrase suggester. */
export interface DirectGeneratorSpec {
  readonly field: string;
  readonly size: number;
  readonly settings: SpellcheckSettings;
  readonly preFilter: string | null;
  readonly postFilter: string | null;
}

export type SmoothingSpec =
  | { readonly type: 'stupid_backoff'; readonly discount: number }
  | { readonly type: 'laplace'; readonly alpha: number }
  | { readonly type: 'linear_interpolation'; readonly trigramLambda: number; readonly bigramLambda: number; readonly unigramLambda: number };

export interface PhraseSuggestSpec extends CommonSpec {
  readonly type: 'phrase';
  /** null: 1 (this engine has no shingle filter, so a field's analyzer never makes word n-grams). */
  readonly gramSize: number | null;
  readonly realWordErrorLikelihood: number;
  readonly confidence: number;
  readonly maxErrors: number;
  readonly separator: string;
  readonly forceUnigrams: boolean;
  readonly tokenLimit: number;
  readonly highlight: { readonly preTag: string; readonly postTag: string } | null;
  readonly smoothing: SmoothingSpec;
  readonly generators: readonly DirectGeneratorSpec[];
}

export interface CompletionFuzzySpec {
  /** Edits allowed: 0, 1 or 2 (`AUTO` resolved per prefix length at execution). */
  readonly fuzziness: string;
  readonly transpositions: boolean;
  readonly minLength: number;
  readonly prefixLength: number;
  readonly unicodeAware: boolean;
}

export interface CompletionSuggestSpec extends CommonSpec {
  readonly type: 'completion';
  /** `prefix` (or `text`); a `regex` suggestion has `regex` instead. */
  readonly regex: string | null;
  readonly skipDuplicates: boolean;
  readonly fuzzy: CompletionFuzzySpec | null;
}

export type SuggestSpec = TermSuggestSpec | PhraseSuggestSpec | CompletionSuggestSpec;

/** The parsed `suggest` section. */
export interface SuggestRequest {
  readonly globalText: string | null;
  readonly suggestions: readonly SuggestSpec[];
}

export interface TermOption {
  readonly text: string;
  readonly score: number;
  readonly freq: number;
}

export interface PhraseOption {
  readonly text: string;
  readonly highlighted: string | null;
  readonly score: number;
}

export interface CompletionOption {
  readonly text: string;
  readonly index: string;
  readonly type: string;
  readonly id: string;
  readonly score: number;
  /** The document's `_source` as JSON text (filtered as the request asks), or null when not fetched. */
  readonly source: string | null;
  /** Tie-break of equal scores across shards: the shard's position, then the doc. */
  readonly shardOrder: number;
  readonly doc: number;
}

export interface SuggestEntry<O> {
  readonly text: string;
  readonly offset: number;
  readonly length: number;
  /** Phrase entries: options at or below it are dropped when shards are merged. */
  readonly cutoffScore?: number;
  readonly options: O[];
}

export type ShardSuggestion =
  | { readonly type: 'term'; readonly name: string; readonly size: number; readonly sort: 'score' | 'frequency'; readonly entries: SuggestEntry<TermOption>[] }
  | { readonly type: 'phrase'; readonly name: string; readonly size: number; readonly entries: SuggestEntry<PhraseOption>[] }
  | { readonly type: 'completion'; readonly name: string; readonly size: number; readonly skipDuplicates: boolean; readonly entries: SuggestEntry<CompletionOption>[] };

/** One shard's answer: a suggestion per requested name, in request order. */
export type ShardSuggestResult = ShardSuggestion[];
