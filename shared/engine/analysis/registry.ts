/**
 * The analyzers of one index, built from its `settings.index.analysis`
 * (sections `char_filter`, `tokenizer`, `filter`, `analyzer`, `normalizer`)
 * on top of the built-ins, with Elasticsearch 6.8's validation errors and
 * deprecation warnings. `AnalysisRegistry.builtins` serves `_analyze` without
 * an index.
 */

import { illegalArgument, settingsException } from '../../errors/es-errors.ts';
import { ComposedAnalyzer, DEFAULT_OFFSET_GAP, DEFAULT_POSITION_INCREMENT_GAP } from './analyzer.ts';
import { ANALYZER_TYPES, builtinAnalyzers } from './builtin-analyzers.ts';
import { ComponentSettings, expandDottedKeys, isPlainObject } from './component-settings.ts';
import { CHAR_FILTER_TYPES, DEFAULT_MAX_NGRAM_DIFF, FILTER_TYPES, TOKENIZER_TYPES, type BuildContext } from './component-types.ts';
import { KeywordTokenizer } from './keyword-tokenizer.ts';
import type { CharFilter, TokenFilterFactory, Tokenizer } from './token-stream.ts';
import type { Analyzer, AnalyzerLookup } from './types.ts';

export interface IndexAnalysisOptions {
  /** `index.max_ngram_diff` (default 1). */
  readonly maxNgramDiff?: number;
}

/** Component kinds as Elasticsearch names them in messages (AnalysisRegistry.Component). */
export type ComponentKind = 'char_filter' | 'tokenizer' | 'filter';

/** Token filters that exist only with settings: no pre-built instance of these names. */
const FILTERS_REQUIRING_SETTINGS = new Set(['synonym', 'synonym_graph']);
/** Char filters that exist only with settings. */
const CHAR_FILTERS_REQUIRING_SETTINGS = new Set(['mapping', 'pattern_replace']);

type Definitions = ReadonlyMap<string, ComponentSettings>;

function section(root: Record<string, unknown>, key: string): Definitions {
  const value = root[key];
  const out = new Map<string, ComponentSettings>();
  if (value === undefined || value === null) return out;
  const missingDot = (setting: string): never => {
    throw settingsException(
      `Failed to get setting group for [index.analysis.${key}.] setting prefix and setting [${setting}] because of a missing '.'`,
    );
  };
  if (!isPlainObject(value)) return missingDot(`index.analysis.${key}`);
  for (const [name, def] of Object.entries(value)) {
    if (!isPlainObject(def)) return missingDot(`index.analysis.${key}.${name}`);
    out.set(name, new ComponentSettings(def));
  }
  return out;
}

export class AnalysisRegistry implements AnalyzerLookup {
  /** Deprecation warnings the settings produced, each once (sent as `Warning` headers). */
  readonly warnings: string[];
  /** False only for the shared built-ins instance used by `_analyze` without an index. */
  readonly indexScoped: boolean;
  readonly maxNgramDiff: number;
  private readonly analyzers = new Map<string, ComposedAnalyzer>();
  private readonly normalizers = new Map<string, ComposedAnalyzer>();
  private readonly tokenizers = new Map<string, Tokenizer>();
  private readonly filters = new Map<string, TokenFilterFactory>();
  private readonly charFilters = new Map<string, CharFilter>();
  private readonly ctx: BuildContext;

  private static shared: AnalysisRegistry | null = null;

  private constructor(indexScoped: boolean, maxNgramDiff: number) {
    this.indexScoped = indexScoped;
    this.maxNgramDiff = maxNgramDiff;
    this.warnings = [];
    this.ctx = { maxNgramDiff, warnings: this.warnings };
  }

  /**
   * The registry of an index from its `analysis` settings object (nested or
   * with dotted keys; undefined for none). Throws the EsError index creation
   * answers with when a definition is invalid.
   */
  static fromIndexSettings(analysis: unknown, indexSettings: IndexAnalysisOptions = {}): AnalysisRegistry {
    const registry = new AnalysisRegistry(true, indexSettings.maxNgramDiff ?? DEFAULT_MAX_NGRAM_DIFF);
    let root: Record<string, unknown> = {};
    if (analysis !== undefined && analysis !== null) {
      if (!isPlainObject(analysis)) {
        throw settingsException(`Failed to get setting group for [index.analysis.] setting prefix and setting [index.analysis] because of a missing '.'`);
      }
      root = expandDottedKeys(analysis);
    }
    registry.build(root);
    return registry;
  }

  /** Built-in analyzers and components only, for `_analyze` without an index. */
  static get builtins(): AnalysisRegistry {
    if (AnalysisRegistry.shared === null) AnalysisRegistry.shared = new AnalysisRegistry(false, DEFAULT_MAX_NGRAM_DIFF);
    return AnalysisRegistry.shared;
  }

  private build(root: Record<string, unknown>): void {
    const charFilterDefs = section(root, 'char_filter');
    const tokenizerDefs = section(root, 'tokenizer');
    const filterDefs = section(root, 'filter');
    const analyzerDefs = section(root, 'analyzer');
    const normalizerDefs = section(root, 'normalizer');

    for (const [name, s] of charFilterDefs) this.charFilters.set(name, this.component('char_filter', CHAR_FILTER_TYPES, name, s));
    for (const [name, s] of tokenizerDefs) this.tokenizers.set(name, this.component('tokenizer', TOKENIZER_TYPES, name, s));
    for (const [name, s] of filterDefs) this.filters.set(name, this.component('filter', FILTER_TYPES, name, s));

    for (const [name, s] of analyzerDefs) {
      const type = s.getString('type');
      if (type === undefined && !s.has('tokenizer')) {
        throw illegalArgument(`analyzer [${name}] must specify either an analyzer type, or a tokenizer`);
      }
      if (type !== undefined && type !== 'custom' && !ANALYZER_TYPES.has(type)) {
        throw illegalArgument(`Unknown analyzer type [${type}] for [${name}]`);
      }
    }
    for (const [name, s] of analyzerDefs) {
      const type = s.getString('type') ?? 'custom';
      const analyzer = type === 'custom' ? this.customAnalyzer(name, s) : ANALYZER_TYPES.get(type)!(name, s);
      if (name.startsWith('_')) throw illegalArgument(`analyzer name must not start with '_'. got "${name}"`);
      this.analyzers.set(name, analyzer);
    }
    for (const [name, s] of normalizerDefs) {
      const type = s.getString('type');
      if (type !== undefined && type !== 'custom') throw illegalArgument(`Unknown normalizer type [${type}] for [${name}]`);
      this.normalizers.set(name, this.customNormalizer(name, s));
    }
  }

  private component<T>(
    kind: ComponentKind,
    types: ReadonlyMap<string, (name: string, s: ComponentSettings, ctx: BuildContext) => T>,
    name: string,
    s: ComponentSettings,
  ): T {
    const type = s.getString('type');
    if (type === undefined) throw illegalArgument(`${kind} [${name}] must specify either an analyzer type, or a tokenizer`);
    const build = types.get(type);
    if (build === undefined) throw illegalArgument(`Unknown ${kind} type [${type}] for [${name}]`);
    return build(name, s, this.ctx);
  }

  /** A tokenizer a custom analyzer may name: defined in the index, or pre-built. */
  private analyzerTokenizer(name: string): Tokenizer | undefined {
    return this.tokenizers.get(name) ?? this.prebuiltTokenizer(name);
  }

  private analyzerFilter(name: string): TokenFilterFactory | undefined {
    return this.filters.get(name) ?? this.prebuiltFilter(name);
  }

  private analyzerCharFilter(name: string): CharFilter | undefined {
    return this.charFilters.get(name) ?? this.prebuiltCharFilter(name);
  }

  /** The pre-built tokenizer of this name (a type with default settings), if any. */
  prebuiltTokenizer(name: string): Tokenizer | undefined {
    const build = TOKENIZER_TYPES.get(name);
    return build === undefined ? undefined : build(name, new ComponentSettings({}), this.ctx);
  }

  prebuiltFilter(name: string): TokenFilterFactory | undefined {
    const build = FILTER_TYPES.get(name);
    if (build === undefined || FILTERS_REQUIRING_SETTINGS.has(name)) return undefined;
    return build(name, new ComponentSettings({}), this.ctx);
  }

  prebuiltCharFilter(name: string): CharFilter | undefined {
    const build = CHAR_FILTER_TYPES.get(name);
    if (build === undefined || CHAR_FILTERS_REQUIRING_SETTINGS.has(name)) return undefined;
    return build(name, new ComponentSettings({}), this.ctx);
  }

  private customAnalyzer(name: string, s: ComponentSettings): ComposedAnalyzer {
    const tokenizerName = s.getString('tokenizer');
    if (tokenizerName === undefined) throw illegalArgument(`Custom Analyzer [${name}] must be configured with a tokenizer`);
    const tokenizer = this.analyzerTokenizer(tokenizerName);
    if (tokenizer === undefined) throw illegalArgument(`Custom Analyzer [${name}] failed to find tokenizer under name [${tokenizerName}]`);
    const charFilters: CharFilter[] = [];
    for (const cf of s.getList('char_filter')) {
      const f = this.analyzerCharFilter(cf);
      if (f === undefined) throw illegalArgument(`Custom Analyzer [${name}] failed to find char_filter under name [${cf}]`);
      charFilters.push(f);
    }
    const positionIncrementGap = s.getInt('position_increment_gap', DEFAULT_POSITION_INCREMENT_GAP);
    const offsetGap = s.getInt('offset_gap', -1);
    const filters: TokenFilterFactory[] = [];
    for (const fname of s.getList('filter')) {
      const f = this.analyzerFilter(fname);
      if (f === undefined) throw illegalArgument(`Custom Analyzer [${name}] failed to find filter under name [${fname}]`);
      filters.push(f.withPrecedingChain ? f.withPrecedingChain({ tokenizer, charFilters, filters: [...filters] }) : f);
    }
    return new ComposedAnalyzer(name, {
      tokenizer,
      charFilters,
      filters,
      positionIncrementGap,
      offsetGap: offsetGap < 0 ? DEFAULT_OFFSET_GAP : offsetGap,
      custom: true,
    });
  }

  private customNormalizer(name: string, s: ComponentSettings): ComposedAnalyzer {
    if (s.has('tokenizer')) throw illegalArgument(`Custom normalizer [${name}] cannot configure a tokenizer`);
    const charFilters: CharFilter[] = [];
    for (const cf of s.getList('char_filter')) {
      const f = this.analyzerCharFilter(cf);
      if (f === undefined) throw illegalArgument(`Custom normalizer [${name}] failed to find char_filter under name [${cf}]`);
      if (!f.normalizerSafe) throw illegalArgument(`Custom normalizer [${name}] may not use char filter [${cf}]`);
      charFilters.push(f);
    }
    const filters: TokenFilterFactory[] = [];
    for (const fname of s.getList('filter')) {
      const f = this.analyzerFilter(fname);
      // Elasticsearch 6.8 says "Custom Analyzer" here too.
      if (f === undefined) throw illegalArgument(`Custom Analyzer [${name}] failed to find filter under name [${fname}]`);
      if (!f.normalizerSafe) throw illegalArgument(`Custom normalizer [${name}] may not use filter [${fname}]`);
      filters.push(f);
    }
    return new ComposedAnalyzer(name, {
      tokenizer: new KeywordTokenizer('keyword'),
      charFilters,
      filters,
      positionIncrementGap: DEFAULT_POSITION_INCREMENT_GAP,
      custom: true,
    });
  }

  /** The analyzer of this name: defined in the index, else built in. */
  get(name: string): Analyzer | undefined {
    return this.analyzer(name);
  }

  /** As `get`, with the chain exposed (for `_analyze` explain). */
  analyzer(name: string): ComposedAnalyzer | undefined {
    return this.analyzers.get(name) ?? builtinAnalyzers().get(name);
  }

  /** A normalizer defined in the index's `normalizer` section. */
  normalizer(name: string): ComposedAnalyzer | undefined {
    return this.normalizers.get(name);
  }

  /** The index's `default` analyzer, else the standard analyzer. */
  defaultAnalyzer(): ComposedAnalyzer {
    return this.analyzers.get('default') ?? builtinAnalyzers().get('standard')!;
  }

  /** The index's `default_search` analyzer, else its default analyzer. */
  defaultSearchAnalyzer(): ComposedAnalyzer {
    return this.analyzers.get('default_search') ?? this.defaultAnalyzer();
  }

  /** A tokenizer defined in the index's `tokenizer` section. */
  indexTokenizer(name: string): Tokenizer | undefined {
    return this.tokenizers.get(name);
  }

  /** A token filter defined in the index's `filter` section. */
  indexFilter(name: string): TokenFilterFactory | undefined {
    return this.filters.get(name);
  }

  /** A char filter defined in the index's `char_filter` section. */
  indexCharFilter(name: string): CharFilter | undefined {
    return this.charFilters.get(name);
  }
}
