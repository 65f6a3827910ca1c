/**
 * The `_analyze` API (Elasticsearch 6.8's RestAnalyzeAction body parsing and
 * TransportAnalyzeAction): picks an analyzer from `field`, `analyzer`,
 * `tokenizer` + `filter` + `char_filter` (names or inline definitions),
 * `normalizer`, or filters alone (a custom normalizer), and returns the
 * tokens, or with `explain` the tokens after every stage.
 */

import { actionRequestValidation, elasticsearchParseException, illegalArgument, type EsError } from '../../errors/es-errors.ts';
import { ComposedAnalyzer, TokenCollector } from './analyzer.ts';
import { applyCharFilters } from './analysis-chain.ts';
import { builtinAnalyzers } from './builtin-analyzers.ts';
import { ComponentSettings, isPlainObject, printSettings } from './component-settings.ts';
import { CHAR_FILTER_TYPES, DEFAULT_MAX_NGRAM_DIFF, FILTER_TYPES, TOKENIZER_TYPES, type BuildContext } from './component-types.ts';
import { KeywordTokenizer } from './keyword-tokenizer.ts';
import type { AnalysisRegistry } from './registry.ts';
import type { CharFilter, TokenFilterFactory, Tokenizer } from './token-stream.ts';
import type { Token } from './types.ts';
import { xContentTokenName as tokenName } from '../../json/token-names.ts';

export interface AnalyzeContext {
  /** The index's registry, or `AnalysisRegistry.builtins` when the request names no index. */
  readonly registry: AnalysisRegistry;
  /**
   * Given when the request names an index: the index analyzer of a mapped
   * field, or null when the field is not mapped. For a mapped field that is
   * not tokenized, throw `analyzeNonTokenizedField(field)`.
   */
  readonly fieldAnalyzer?: (field: string) => string | null;
  /** Whether the request names an index; defaults to "a fieldAnalyzer was given". */
  readonly indexScoped?: boolean;
  /** Receives deprecation warnings the request's inline definitions produce (for `Warning` headers). */
  readonly warnings?: string[];
  /** `index.analyze.max_token_count` of the index named, or DEFAULT_MAX_TOKEN_COUNT. */
  readonly maxTokenCount?: number;
}

/**
 * `index.analyze.max_token_count`'s default, and the limit of an `_analyze`
 * that names no index. Elasticsearch 7 has it; 6.8 answers any number of
 * tokens, and a 4 MB text (750,000 tokens, a 70 MB answer) held the thread
 * that serves HTTP for 18 s. The analysis stops at the first token over it.
 */
export const DEFAULT_MAX_TOKEN_COUNT = 10_000;

/**
 * Elasticsearch 7's message (TransportAnalyzeAction.TokenCounter). It throws
 * an IllegalStateException, a 500; the request is what is too large, so
 * here it is a 400 illegal_argument_exception (docs/compat.md).
 */
function tooManyTokens(max: number): EsError {
  return illegalArgument(
    `The number of tokens produced by calling _analyze has exceeded the allowed maximum of [${max}]. This limit can be set by changing the [index.analyze.max_token_count] index level setting.`,
  );
}

/** A collector that stops the analysis at the first token beyond `max`. */
class LimitedTokenCollector extends TokenCollector {
  constructor(private readonly max: number) {
    super();
  }

  override token(term: string, posInc: number, start: number, end: number, type: string): void {
    if (this.tokens.length >= this.max) throw tooManyTokens(this.max);
    super.token(term, posInc, start, end, type);
  }
}

/** A token of an explain response: the plain token plus Lucene's extra attributes. */
export interface ExplainToken extends Token {
  readonly bytes?: string;
  readonly positionLength?: number;
  readonly termFrequency?: number;
}

export interface AnalyzeTokenList {
  readonly name: string;
  readonly tokens: ExplainToken[];
}

export interface AnalyzeDetail {
  readonly custom_analyzer: boolean;
  readonly analyzer?: AnalyzeTokenList;
  readonly charfilters?: { readonly name: string; readonly filtered_text: string[] }[];
  readonly tokenizer?: AnalyzeTokenList;
  readonly tokenfilters?: AnalyzeTokenList[];
}

/** `{tokens}` normally, `{detail}` with `explain: true`. */
export type AnalyzeResponse = { readonly tokens: Token[]; readonly detail?: undefined } | { readonly detail: AnalyzeDetail; readonly tokens?: undefined };

type NameOrDefinition = string | Readonly<Record<string, unknown>>;

interface AnalyzeRequest {
  text: string[] | null;
  analyzer?: string;
  field?: string;
  tokenizer?: NameOrDefinition;
  filters: NameOrDefinition[];
  charFilters: NameOrDefinition[];
  explain: boolean;
  attributes: string[];
  normalizer?: string;
}

function isScalar(v: unknown): v is string | number | boolean | null {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

function unknownParameter(key: string, v: unknown): never {
  throw illegalArgument(`Unknown parameter [${key}] in request body or parameter is of the wrong type[${tokenName(v)}] `);
}

function nameOrDefinitionList(key: string, v: unknown, what: string): NameOrDefinition[] {
  if (!Array.isArray(v)) return unknownParameter(key, v);
  return v.map((item: unknown) => {
    if (typeof item === 'string') return item;
    if (isPlainObject(item)) return item;
    throw illegalArgument(`${key} array element should contain ${what}'s name or setting`);
  });
}

/** RestAnalyzeAction.buildFromContent. */
function parseRequest(body: unknown): AnalyzeRequest {
  if (body === undefined || body === null) throw elasticsearchParseException('request body or source parameter is required');
  if (!isPlainObject(body)) throw illegalArgument('Malformed content, must start with an object');
  const req: AnalyzeRequest = { text: null, filters: [], charFilters: [], explain: false, attributes: [] };
  for (const [key, v] of Object.entries(body)) {
    switch (key) {
      case 'text':
        if (typeof v === 'string') {
          req.text = [v];
        } else if (Array.isArray(v)) {
          req.text = v.map((item: unknown) => {
            if (!isScalar(item)) throw illegalArgument('text array element should only contain text');
            return String(item);
          });
        } else {
          unknownParameter(key, v);
        }
        break;
      case 'analyzer':
        if (typeof v !== 'string') unknownParameter(key, v);
        req.analyzer = v as string;
        break;
      case 'field':
        if (typeof v !== 'string') unknownParameter(key, v);
        req.field = v as string;
        break;
      case 'tokenizer':
        if (typeof v === 'string' || isPlainObject(v)) req.tokenizer = v;
        else throw illegalArgument("tokenizer should be tokenizer's name or setting");
        break;
      case 'filter':
        req.filters.push(...nameOrDefinitionList(key, v, 'filter'));
        break;
      case 'char_filter':
        req.charFilters.push(...nameOrDefinitionList(key, v, 'char filter'));
        break;
      case 'explain':
        if (v === true || v === 'true') req.explain = true;
        else if (v === false || v === 'false') req.explain = false;
        else throw illegalArgument("explain must be either 'true' or 'false'");
        break;
      case 'attributes':
        if (!Array.isArray(v)) unknownParameter(key, v);
        req.attributes = (v as unknown[]).map((item) => {
          if (!isScalar(item)) throw illegalArgument('attributes array element should only contain attribute name');
          return String(item);
        });
        break;
      case 'normalizer':
        if (typeof v !== 'string') throw illegalArgument("normalizer should be normalizer's name");
        req.normalizer = v;
        break;
      default:
        unknownParameter(key, v);
    }
  }
  return req;
}

/** AnalyzeRequest.validate. */
function validate(req: AnalyzeRequest, indexScoped: boolean): void {
  const problems: string[] = [];
  if (req.text === null || req.text.length === 0) problems.push('text is missing');
  if (!indexScoped && req.normalizer !== undefined) problems.push('index is required if normalizer is specified');
  if (req.normalizer !== undefined && (req.tokenizer !== undefined || req.analyzer !== undefined)) {
    problems.push('tokenizer/analyze should be null if normalizer is specified');
  }
  if (problems.length > 0) throw actionRequestValidation(problems);
}

/** Resolves the components a request names or defines, as TransportAnalyzeAction does. */
class ComponentResolver {
  private readonly registry: AnalysisRegistry;
  private readonly indexScoped: boolean;
  /** Inline definitions are built against "no index" settings: the default max_ngram_diff. */
  private readonly anonymous: BuildContext;

  constructor(registry: AnalysisRegistry, indexScoped: boolean, warnings: string[]) {
    this.registry = registry;
    this.indexScoped = indexScoped;
    this.anonymous = { maxNgramDiff: DEFAULT_MAX_NGRAM_DIFF, warnings };
  }

  tokenizer(nod: NameOrDefinition): { name: string; tokenizer: Tokenizer } {
    if (typeof nod !== 'string') {
      const s = new ComponentSettings(nod);
      const type = s.getString('type');
      if (type === undefined) throw illegalArgument(`Missing [type] setting for anonymous tokenizer: ${printSettings(nod)}`);
      const build = TOKENIZER_TYPES.get(type);
      if (build === undefined) throw illegalArgument(`failed to find global tokenizer under [${type}]`);
      return { name: '_anonymous_tokenizer', tokenizer: build('_anonymous_tokenizer', s, this.anonymous) };
    }
    const own = this.indexScoped ? this.registry.indexTokenizer(nod) : undefined;
    if (own !== undefined) return { name: nod, tokenizer: own };
    const build = TOKENIZER_TYPES.get(nod);
    if (build === undefined) {
      throw illegalArgument(this.indexScoped ? `failed to find tokenizer under [${nod}]` : `failed to find global tokenizer under [${nod}]`);
    }
    return { name: nod, tokenizer: build(nod, new ComponentSettings({}), this.anonymous) };
  }

  charFilters(list: readonly NameOrDefinition[], normalizer: boolean): CharFilter[] {
    return list.map((nod) => {
      const f = this.charFilter(nod);
      if (normalizer && !f.normalizerSafe) throw illegalArgument(`Custom normalizer may not use char filter [${f.name}]`);
      return f;
    });
  }

  private charFilter(nod: NameOrDefinition): CharFilter {
    if (typeof nod !== 'string') {
      const s = new ComponentSettings(nod);
      const type = s.getString('type');
      if (type === undefined) throw illegalArgument(`Missing [type] setting for anonymous char filter: ${printSettings(nod)}`);
      const build = CHAR_FILTER_TYPES.get(type);
      if (build === undefined) throw illegalArgument(`failed to find global char filter under [${type}]`);
      return build('_anonymous_charfilter', s, this.anonymous);
    }
    if (this.indexScoped) {
      const own = this.registry.indexCharFilter(nod);
      if (own !== undefined) return own;
      const build = CHAR_FILTER_TYPES.get(nod);
      if (build === undefined) throw illegalArgument(`failed to find char filter under [${nod}]`);
      return build(nod, new ComponentSettings({}), this.anonymous);
    }
    const build = CHAR_FILTER_TYPES.get(nod);
    if (build === undefined) throw illegalArgument(`failed to find global char filter under [${nod}]`);
    if (this.registry.prebuiltCharFilter(nod) === undefined) throw analysisSettingsRequired();
    return build(nod, new ComponentSettings({}), this.anonymous);
  }

  filters(list: readonly NameOrDefinition[], tokenizer: Tokenizer, charFilters: readonly CharFilter[], normalizer: boolean): TokenFilterFactory[] {
    const out: TokenFilterFactory[] = [];
    for (const nod of list) {
      let f = this.filter(nod);
      if (f.withPrecedingChain && (typeof nod !== 'string' || this.indexScoped)) {
        f = f.withPrecedingChain({ tokenizer, charFilters, filters: [...out] });
      }
      if (normalizer && !f.normalizerSafe) throw illegalArgument(`Custom normalizer may not use filter [${f.name}]`);
      out.push(f);
    }
    return out;
  }

  private filter(nod: NameOrDefinition): TokenFilterFactory {
    if (typeof nod !== 'string') {
      const s = new ComponentSettings(nod);
      const type = s.getString('type');
      if (type === undefined) throw illegalArgument(`Missing [type] setting for anonymous token filter: ${printSettings(nod)}`);
      const build = FILTER_TYPES.get(type);
      if (build === undefined) throw illegalArgument(`failed to find global token filter under [${type}]`);
      return build('_anonymous_tokenfilter', s, this.anonymous);
    }
    if (this.indexScoped) {
      const own = this.registry.indexFilter(nod);
      if (own !== undefined) return own;
      const build = FILTER_TYPES.get(nod);
      if (build === undefined) throw illegalArgument(`failed to find token filter under [${nod}]`);
      return build(nod, new ComponentSettings({}), this.anonymous);
    }
    const build = FILTER_TYPES.get(nod);
    if (build === undefined) throw illegalArgument(`failed to find global token filter under [${nod}]`);
    if (this.registry.prebuiltFilter(nod) === undefined) throw analysisSettingsRequired();
    return build(nod, new ComponentSettings({}), this.anonymous);
  }
}

function analysisSettingsRequired(): EsError {
  return illegalArgument("Analysis settings required - can't instantiate analysis factory");
}

/** BytesRef.toString of the term's UTF-8 bytes: `[74 68 69 73]`. */
function bytesOf(term: string): string {
  return `[${Array.from(Buffer.from(term, 'utf8'), (b) => b.toString(16)).join(' ')}]`;
}

function explainTokens(tokens: readonly Token[], attributes: readonly string[]): ExplainToken[] {
  const wanted = new Set(attributes.map((a) => a.toLowerCase()));
  const include = (key: string): boolean => wanted.size === 0 || wanted.has(key.toLowerCase());
  return tokens.map((t) => {
    const out: Record<string, unknown> = { ...t };
    if (include('bytes')) out.bytes = bytesOf(t.token);
    if (include('positionLength')) out.positionLength = 1;
    if (include('termFrequency')) out.termFrequency = 1;
    return out as unknown as ExplainToken;
  });
}

interface ChosenAnalyzer {
  readonly analyzer: ComposedAnalyzer;
  /** Positions between text values (0 for analyzers that are not an index's named analyzers). */
  readonly positionIncrementGap: number;
}

function chooseAnalyzer(req: AnalyzeRequest, ctx: AnalyzeContext, indexScoped: boolean): ChosenAnalyzer {
  const registry = ctx.registry;
  const resolver = new ComponentResolver(registry, indexScoped, ctx.warnings ?? []);
  const indexGap = (a: ComposedAnalyzer): ChosenAnalyzer => ({ analyzer: a, positionIncrementGap: indexScoped ? a.positionIncrementGap : 0 });
  let analyzer: ComposedAnalyzer | null = null;
  if (req.field !== undefined) {
    if (!indexScoped) {
      throw illegalArgument('No index provided, and trying to analyzer based on a specific field which requires the index parameter');
    }
    const name = ctx.fieldAnalyzer?.(req.field) ?? null;
    if (name !== null) {
      analyzer = registry.analyzer(name) ?? registry.normalizer(name) ?? null;
      if (analyzer === null) throw illegalArgument(`failed to find analyzer [${name}]`);
    }
  }
  if (analyzer === null && req.analyzer !== undefined) {
    const found = indexScoped ? registry.analyzer(req.analyzer) : builtinAnalyzers().get(req.analyzer);
    if (found === undefined) {
      throw illegalArgument(indexScoped ? `failed to find analyzer [${req.analyzer}]` : `failed to find global analyzer [${req.analyzer}]`);
    }
    return indexGap(found);
  }
  if (req.tokenizer !== undefined) {
    const { name, tokenizer } = resolver.tokenizer(req.tokenizer);
    const charFilters = resolver.charFilters(req.charFilters, false);
    const filters = resolver.filters(req.filters, tokenizer, charFilters, false);
    return { analyzer: new ComposedAnalyzer(name, { tokenizer, charFilters, filters, custom: true }), positionIncrementGap: 0 };
  }
  if (req.normalizer !== undefined) {
    const found = registry.normalizer(req.normalizer);
    if (found === undefined) throw illegalArgument(`failed to find normalizer under [${req.normalizer}]`);
    return { analyzer: found, positionIncrementGap: 0 };
  }
  if (req.filters.length > 0 || req.charFilters.length > 0) {
    const charFilters = resolver.charFilters(req.charFilters, true);
    const tokenizer = new KeywordTokenizer('keyword');
    const filters = resolver.filters(req.filters, tokenizer, charFilters, true);
    return { analyzer: new ComposedAnalyzer('keyword_for_normalizer', { tokenizer, charFilters, filters, custom: true }), positionIncrementGap: 0 };
  }
  if (analyzer !== null) return indexGap(analyzer);
  return indexGap(indexScoped ? registry.defaultAnalyzer() : builtinAnalyzers().get('standard')!);
}

function simpleAnalyze(texts: readonly string[], chosen: ChosenAnalyzer, maxTokens: number): Token[] {
  const collector = new LimitedTokenCollector(maxTokens);
  for (const text of texts) {
    chosen.analyzer.collect(text, collector);
    collector.finishValue(text.length, chosen.positionIncrementGap, chosen.analyzer.offsetGap);
  }
  return collector.tokens;
}

/** Tokens after the tokenizer and the first `filterCount` filters, across all texts. */
function stageTokens(texts: readonly string[], chosen: ChosenAnalyzer, filterCount: number, maxTokens: number): Token[] {
  const collector = new LimitedTokenCollector(maxTokens);
  for (const text of texts) {
    chosen.analyzer.collect(text, collector, filterCount);
    collector.finishValue(text.length, chosen.positionIncrementGap, chosen.analyzer.offsetGap);
  }
  return collector.tokens;
}

function detailAnalyze(texts: readonly string[], chosen: ChosenAnalyzer, attributes: readonly string[], maxTokens: number): AnalyzeDetail {
  const a = chosen.analyzer;
  if (!a.custom) {
    return { custom_analyzer: false, analyzer: { name: a.name, tokens: explainTokens(simpleAnalyze(texts, chosen, maxTokens), attributes) } };
  }
  const charfilters = a.charFilters.map((f, i) => ({
    name: f.name,
    filtered_text: texts.map((t) => applyCharFilters(t, a.charFilters.slice(0, i + 1)).text),
  }));
  return {
    custom_analyzer: true,
    charfilters,
    tokenizer: { name: a.tokenizer.name, tokens: explainTokens(stageTokens(texts, chosen, 0, maxTokens), attributes) },
    tokenfilters: a.filters.map((f, i) => ({ name: f.name, tokens: explainTokens(stageTokens(texts, chosen, i + 1, maxTokens), attributes) })),
  };
}

/**
 * Executes an `_analyze` request body. Throws EsErrors as Elasticsearch 6.8
 * answers them (validation, unknown analyzer or component, bad definitions).
 * `explain` is supported; token attributes beyond bytes, positionLength and
 * termFrequency (e.g. `keyword`) are not reported.
 */
export function runAnalyze(body: unknown, ctx: AnalyzeContext): AnalyzeResponse {
  const indexScoped = ctx.indexScoped ?? ctx.fieldAnalyzer !== undefined;
  const req = parseRequest(body);
  validate(req, indexScoped);
  const texts = req.text!;
  const chosen = chooseAnalyzer(req, ctx, indexScoped);
  const maxTokens = ctx.maxTokenCount ?? DEFAULT_MAX_TOKEN_COUNT;
  if (req.explain) return { detail: detailAnalyze(texts, chosen, req.attributes, maxTokens) };
  return { tokens: simpleAnalyze(texts, chosen, maxTokens) };
}
