/**
 * Elasticsearch's `synonym` / `synonym_graph` token filters with Solr-format
 * rules (Lucene's SolrSynonymParser + SynonymFilter):
 *   "a, b, c"   equivalent terms (expand: each maps to all others and is kept;
 *               expand false: each is replaced by the first)
 *   "a, b => c" explicit mapping (inputs replaced by the outputs)
 * Rule terms are analyzed by the chain before the filter (Elasticsearch's
 * chain-aware synonym factory), so a multi-token term matches a token
 * sequence. Matching is greedy, longest input first. Replacement tokens have
 * type SYNONYM and occupy consecutive positions from the match start.
 */

import { EsError, illegalArgument, javaCause } from '../../errors/es-errors.ts';
import { chainTerms } from './analysis-chain.ts';
import { CharTokenizer } from './char-tokenizer.ts';
import { FilterStage, type PrecedingChain, type TokenConsumer, type TokenFilterFactory } from './token-stream.ts';

/** Lucene's SynonymFilter.TYPE_SYNONYM. */
export const TYPE_SYNONYM = 'SYNONYM';

/** Joins the terms of a multi-token rule entry (Lucene's SynonymMap.WORD_SEPARATOR). */
const WORD_SEPARATOR = '\u0000';

interface SynonymEntry {
  keepOrig: boolean;
  /** Each output is a token sequence. */
  readonly outputs: string[][];
  readonly outputKeys: Set<string>;
}

interface SynonymMap {
  readonly entries: ReadonlyMap<string, SynonymEntry>;
  readonly maxInputLength: number;
}

export interface SynonymOptions {
  readonly rules: readonly string[];
  readonly expand: boolean;
  readonly lenient: boolean;
  readonly ignoreCase: boolean;
}

/** Splits on `sep` not preceded by a backslash; unescapes the pieces and trims them. */
function splitUnescaped(s: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && i + 1 < s.length) {
      cur += s[i + 1];
      i++;
    } else if (s.startsWith(sep, i)) {
      out.push(cur.trim());
      cur = '';
      i += sep.length - 1;
    } else {
      cur += s[i];
    }
  }
  out.push(cur.trim());
  return out;
}

function buildSynonymMap(options: SynonymOptions, analyze: (text: string) => string[]): SynonymMap {
  const entries = new Map<string, SynonymEntry>();
  let maxInputLength = 0;
  const add = (input: string[], output: string[], keepOrig: boolean): void => {
    const key = input.join(WORD_SEPARATOR);
    let entry = entries.get(key);
    if (entry === undefined) {
      entry = { keepOrig: false, outputs: [], outputKeys: new Set() };
      entries.set(key, entry);
    }
    entry.keepOrig ||= keepOrig;
    const outKey = output.join(WORD_SEPARATOR);
    if (!entry.outputKeys.has(outKey)) {
      entry.outputKeys.add(outKey);
      entry.outputs.push(output);
    }
    maxInputLength = Math.max(maxInputLength, input.length);
  };
  const analyzeEntry = (text: string): string[] => {
    const terms = analyze(options.ignoreCase ? text.toLowerCase() : text);
    if (terms.length === 0 || terms.some((t) => t.length === 0)) {
      throw new Error(`term: ${text} analyzed to a zero-length token`);
    }
    return terms;
  };
  let lineNo = 0;
  for (const rule of options.rules) {
    lineNo++;
    const line = rule.trim();
    if (line.length === 0 || line.startsWith('#')) continue;
    try {
      if (line.includes('=>')) {
        const sides = splitUnescaped(line, '=>');
        if (sides.length !== 2) throw new Error('more than one explicit mapping specified on the same line');
        const inputs = splitUnescaped(sides[0]!, ',').map(analyzeEntry);
        const outputs = splitUnescaped(sides[1]!, ',').map(analyzeEntry);
        for (const input of inputs) for (const output of outputs) add(input, output, false);
      } else {
        const inputs = splitUnescaped(line, ',').map(analyzeEntry);
        if (options.expand) {
          for (let i = 0; i < inputs.length; i++) {
            for (let j = 0; j < inputs.length; j++) if (i !== j) add(inputs[i]!, inputs[j]!, true);
          }
        } else {
          for (const input of inputs) add(input, inputs[0]!, false);
        }
      }
    } catch (err) {
      if (options.lenient) continue;
      // Lucene's java.text.ParseException, caused by the parser's own complaint.
      const parse = new EsError('parse_exception', `Invalid synonym rule at line ${lineNo}`, 400, {}, javaCause('illegal_argument_exception', (err as Error).message));
      parse.javaException = true;
      throw illegalArgument('failed to build synonyms', parse);
    }
  }
  return { entries, maxInputLength };
}

export class SynonymFilterFactory implements TokenFilterFactory {
  readonly name: string;
  readonly normalizerSafe = false;
  private readonly options: SynonymOptions;
  private map: SynonymMap | null = null;

  constructor(name: string, options: SynonymOptions, map: SynonymMap | null = null) {
    this.name = name;
    this.options = options;
    this.map = map;
  }

  withPrecedingChain(chain: PrecedingChain): TokenFilterFactory {
    return new SynonymFilterFactory(this.name, this.options, buildSynonymMap(this.options, (text) => chainTerms(chain, text)));
  }

  create(next: TokenConsumer): TokenConsumer {
    if (this.map === null) {
      // Outside a chain, rules are split on whitespace (SolrSynonymParser with a whitespace analyzer).
      const whitespace = new CharTokenizer('whitespace', 'whitespace');
      this.map = buildSynonymMap(this.options, (text) => chainTerms({ tokenizer: whitespace, charFilters: [], filters: [] }, text));
    }
    return new SynonymStage(next, this.map, this.options.ignoreCase);
  }
}

interface PendingToken {
  readonly term: string;
  readonly posInc: number;
  readonly start: number;
  readonly end: number;
  readonly type: string;
}

interface OutputWord {
  readonly term: string;
  readonly start: number;
  readonly end: number;
}

/**
 * Lucene's SynonymFilter emission, slot by slot: a slot is one input
 * position; it emits its original token (when kept or unmatched), then its
 * synonym words stacked on it. Input positions a match consumed without output
 * disappear; output words beyond the match's length stack on the positions
 * that follow it.
 */
class SynonymStage extends FilterStage {
  private readonly map: SynonymMap;
  private readonly ignoreCase: boolean;
  private readonly pending: PendingToken[] = [];
  /** Output words waiting for the following slots (index 0 = next slot). */
  private readonly spill: OutputWord[][] = [];

  constructor(next: TokenConsumer, map: SynonymMap, ignoreCase: boolean) {
    super(next);
    this.map = map;
    this.ignoreCase = ignoreCase;
  }

  override begin(): void {
    this.pending.length = 0;
    this.spill.length = 0;
    super.begin();
  }

  token(term: string, posInc: number, start: number, end: number, type: string): void {
    this.pending.push({ term, posInc, start, end, type });
    while (this.pending.length >= Math.max(1, this.map.maxInputLength)) this.step();
  }

  override end(trailingPosInc: number): void {
    while (this.pending.length > 0) this.step();
    while (this.spill.length > 0) this.emitSlot(null, []);
    this.next.end(trailingPosInc);
  }

  /** One position: the original (or null), this slot's synonym words, then words spilled onto it. */
  private emitSlot(original: PendingToken | null, words: readonly OutputWord[]): void {
    let emitted = false;
    if (original !== null) {
      this.next.token(original.term, original.posInc, original.start, original.end, original.type);
      emitted = true;
    }
    const spilled = this.spill.shift() ?? [];
    for (const w of [...words, ...spilled]) {
      this.next.token(w.term, emitted ? 0 : 1, w.start, w.end, TYPE_SYNONYM);
      emitted = true;
    }
  }

  /** Matches at the head of the pending tokens (longest input first) and emits what replaces it. */
  private step(): void {
    const pending = this.pending;
    const maxLen = Math.min(this.map.maxInputLength, pending.length);
    for (let len = maxLen; len > 0; len--) {
      let key = '';
      for (let k = 0; k < len; k++) {
        const t = pending[k]!.term;
        key += (k > 0 ? WORD_SEPARATOR : '') + (this.ignoreCase ? t.toLowerCase() : t);
      }
      const entry = this.map.entries.get(key);
      if (entry === undefined) continue;
      this.emitMatch(pending.splice(0, len), entry);
      return;
    }
    this.emitSlot(pending.shift()!, []);
  }

  private emitMatch(input: readonly PendingToken[], entry: SynonymEntry): void {
    const n = input.length;
    const last = input[n - 1]!;
    let slots = n;
    for (const o of entry.outputs) slots = Math.max(slots, o.length);
    for (let k = 0; k < slots; k++) {
      const at = input[Math.min(k, n - 1)]!;
      const words: OutputWord[] = [];
      for (const output of entry.outputs) {
        if (k >= output.length) continue;
        words.push({ term: output[k]!, start: at.start, end: k === output.length - 1 ? last.end : at.end });
      }
      if (k < n) {
        const original = entry.keepOrig ? at : null;
        if (original !== null || words.length > 0 || this.spill.length > 0) this.emitSlot(original, words);
      } else {
        const j = k - n;
        while (this.spill.length <= j) this.spill.push([]);
        this.spill[j]!.push(...words);
      }
    }
  }
}
