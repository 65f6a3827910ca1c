/**
 * Lucene's CharTokenizer family: a token is a maximal run of "token
 * characters", split when it reaches `max_token_length` UTF-16 units.
 *   whitespace: everything but Java whitespace
 *   letter:     Java letters
 *   lowercase:  Java letters, lowercased code point by code point
 */

import { javaLowerCase } from './case-mapping.ts';
import { isJavaWhitespace, javaLetters } from './char-classes.ts';
import type { TokenConsumer, Tokenizer } from './token-stream.ts';

/** CharTokenizer.DEFAULT_MAX_WORD_LEN. */
export const DEFAULT_MAX_WORD_LENGTH = 255;

export const TYPE_WORD = 'word';

export type CharTokenizerKind = 'whitespace' | 'letter' | 'lowercase';

let whitespaceTable: Uint8Array | null = null;

/** 1 where the BMP code unit is not Java whitespace. */
function nonWhitespaceTable(): Uint8Array {
  if (whitespaceTable === null) {
    const t = new Uint8Array(0x10000);
    for (let i = 0; i < 0x10000; i++) t[i] = isJavaWhitespace(i) ? 0 : 1;
    whitespaceTable = t;
  }
  return whitespaceTable;
}

export class CharTokenizer implements Tokenizer {
  readonly name: string;
  readonly maxTokenLength: number;
  /** Whitespace and letter tokens are slices whose bounds ignore case; lowercase tokens are not slices. */
  readonly caseIndependent: boolean;
  private readonly lowercase: boolean;
  private readonly bmp: Uint8Array;
  private readonly supplementary: (cp: number) => boolean;

  constructor(name: string, kind: CharTokenizerKind, maxTokenLength = DEFAULT_MAX_WORD_LENGTH) {
    this.name = name;
    this.maxTokenLength = maxTokenLength;
    this.lowercase = kind === 'lowercase';
    this.caseIndependent = !this.lowercase;
    if (kind === 'whitespace') {
      this.bmp = nonWhitespaceTable();
      this.supplementary = (cp) => !isJavaWhitespace(cp);
    } else {
      const letters = javaLetters();
      this.bmp = letters.bmp;
      this.supplementary = (cp) => letters.has(cp);
    }
  }

  private isTokenChar(cp: number): boolean {
    return cp < 0x10000 ? this.bmp[cp] === 1 : this.supplementary(cp);
  }

  tokenize(text: string, out: TokenConsumer): void {
    const n = text.length;
    const max = this.maxTokenLength;
    let i = 0;
    while (i < n) {
      let cp = text.charCodeAt(i);
      let len = 1;
      if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < n) {
        cp = text.codePointAt(i)!;
        if (cp > 0xffff) len = 2;
      }
      if (!this.isTokenChar(cp)) {
        i += len;
        continue;
      }
      const start = i;
      i += len;
      // Lucene checks the length after adding a character, so a token may end one unit past a surrogate pair.
      while (i < n && i - start < max) {
        let c = text.charCodeAt(i);
        let l = 1;
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
          c = text.codePointAt(i)!;
          if (c > 0xffff) l = 2;
        }
        if (!this.isTokenChar(c)) break;
        i += l;
      }
      const raw = text.slice(start, i);
      out.token(this.lowercase ? javaLowerCase(raw) : raw, 1, start, i, TYPE_WORD);
    }
  }
}
