/**
 * Lucene 7's NGramTokenizer and EdgeNGramTokenizer (Elasticsearch's `ngram`
 * and `edge_ngram` tokenizers).
 *
 * The text is split into runs of token characters (the whole text when no
 * `token_chars` are given); within a run, for each start code point in order,
 * grams of min_gram..max_gram code points are emitted by increasing length,
 * each one position further (NGramTokenizer.incrementToken). Edge n-grams only
 * start at the beginning of a run. Grams count code points, offsets are UTF-16.
 *
 * This is the indexing hot path for plate numbers: no allocation per token but
 * the term string itself, and not even that through tokenizeRanges.
 */

import type { CharClassSet } from './char-classes.ts';
import type { TokenConsumer, Tokenizer } from './token-stream.ts';

/** NGramTokenizer.DEFAULT_MIN_NGRAM_SIZE / DEFAULT_MAX_NGRAM_SIZE (Elasticsearch uses them for edge_ngram too). */
export const DEFAULT_MIN_GRAM = 1;
export const DEFAULT_MAX_GRAM = 2;

const TYPE_WORD = 'word';

export class NGramTokenizer implements Tokenizer {
  readonly name: string;
  readonly minGram: number;
  readonly maxGram: number;
  readonly edgesOnly: boolean;
  readonly caseIndependent: boolean;
  /** Token characters, or null when every character is one. */
  private readonly tokenChars: CharClassSet | null;
  private readonly bmp: Uint8Array | null;
  /** UTF-16 offsets of the code points of a run that has surrogate pairs (reused). */
  private cpOffsets = new Int32Array(64);

  constructor(name: string, minGram: number, maxGram: number, edgesOnly: boolean, tokenChars: CharClassSet | null) {
    this.name = name;
    this.minGram = minGram;
    this.maxGram = maxGram;
    this.edgesOnly = edgesOnly;
    this.tokenChars = tokenChars;
    this.bmp = tokenChars === null ? null : tokenChars.bmp;
    this.caseIndependent = tokenChars === null || tokenChars.caseIndependent;
  }

  tokenize(text: string, out: TokenConsumer): void {
    this.forEachRun(text, (start, end, surrogates) => this.emitRun(text, start, end, surrogates, out));
  }

  tokenizeRanges(text: string, emit: (start: number, end: number, posInc: number) => void): void {
    this.forEachRun(text, (start, end, surrogates) => this.emitRunRanges(start, end, surrogates, text, emit));
  }

  /** Calls `run` for each run of token characters, with whether it holds surrogate pairs. */
  private forEachRun(text: string, run: (start: number, end: number, surrogates: boolean) => void): void {
    const n = text.length;
    const bmp = this.bmp;
    if (bmp === null) {
      run(0, n, hasSurrogate(text, 0, n));
      return;
    }
    const set = this.tokenChars!;
    let i = 0;
    while (i < n) {
      // Skip characters that are not token characters.
      let c = text.charCodeAt(i);
      if (c < 0xd800 || c > 0xdbff) {
        if (bmp[c] !== 1) {
          i++;
          continue;
        }
      } else {
        const cp = text.codePointAt(i)!;
        if (!set.has(cp)) {
          i += cp > 0xffff ? 2 : 1;
          continue;
        }
      }
      const start = i;
      let surrogates = false;
      while (i < n) {
        c = text.charCodeAt(i);
        if (c < 0xd800 || c > 0xdbff) {
          if (bmp[c] !== 1) break;
          i++;
        } else {
          const cp = text.codePointAt(i)!;
          if (!set.has(cp)) break;
          if (cp > 0xffff) {
            surrogates = true;
            i += 2;
          } else {
            i++;
          }
        }
      }
      run(start, i, surrogates);
    }
  }

  /** The grams of one run as ranges, in emitRun's order. */
  private emitRunRanges(start: number, end: number, surrogates: boolean, text: string, emit: (start: number, end: number, posInc: number) => void): void {
    const min = this.minGram;
    const max = this.maxGram;
    if (!surrogates) {
      const lastStart = this.edgesOnly ? Math.min(start, end - min) : end - min;
      for (let s = start; s <= lastStart; s++) {
        const last = s + max < end ? s + max : end;
        for (let e = s + min; e <= last; e++) emit(s, e, 1);
      }
      return;
    }
    const count = this.codePointOffsets(text, start, end);
    const offs = this.cpOffsets;
    const lastStart = this.edgesOnly ? Math.min(0, count - min) : count - min;
    for (let s = 0; s <= lastStart; s++) {
      const last = s + max < count ? s + max : count;
      for (let e = s + min; e <= last; e++) emit(offs[s]!, offs[e]!, 1);
    }
  }

  /** Fills cpOffsets with the UTF-16 offsets of the run's code points (and `end` after them); returns their number. */
  private codePointOffsets(text: string, start: number, end: number): number {
    let count = 0;
    let offs = this.cpOffsets;
    for (let i = start; i < end; ) {
      if (count + 2 > offs.length) {
        const grown = new Int32Array(offs.length * 2);
        grown.set(offs);
        offs = grown;
        this.cpOffsets = grown;
      }
      offs[count++] = i;
      const c = text.charCodeAt(i);
      i += c >= 0xd800 && c <= 0xdbff && i + 1 < end ? 2 : 1;
    }
    offs[count] = end;
    return count;
  }

  private emitRun(text: string, start: number, end: number, surrogates: boolean, out: TokenConsumer): void {
    const min = this.minGram;
    const max = this.maxGram;
    if (!surrogates) {
      const lastStart = this.edgesOnly ? Math.min(start, end - min) : end - min;
      for (let s = start; s <= lastStart; s++) {
        const last = s + max < end ? s + max : end;
        for (let e = s + min; e <= last; e++) out.token(text.substring(s, e), 1, s, e, TYPE_WORD);
      }
      return;
    }
    // Grams count code points: index the run's code point boundaries first.
    const count = this.codePointOffsets(text, start, end);
    const offs = this.cpOffsets;
    const lastStart = this.edgesOnly ? Math.min(0, count - min) : count - min;
    for (let s = 0; s <= lastStart; s++) {
      const last = s + max < count ? s + max : count;
      const from = offs[s]!;
      for (let e = s + min; e <= last; e++) {
        const to = offs[e]!;
        out.token(text.substring(from, to), 1, from, to, TYPE_WORD);
      }
    }
  }
}

function hasSurrogate(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) return true;
  }
  return false;
}
