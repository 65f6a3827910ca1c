/**
 * Lucene 7's StandardTokenizer (Elasticsearch 6.8's `standard` tokenizer):
 * UAX#29 word boundaries with Lucene's token types.
 *
 * The JFlex grammar is emulated by a hand-written scanner over Word_Break
 * classes: a word runs as long as UAX#29 forbids a break (WB4-WB13b), must
 * contain a letter, digit or katakana, and is typed <NUM> when it has no
 * letters, <HANGUL>/<KATAKANA> when it is only Hangul/Katakana, else
 * <ALPHANUM>. Han and Hiragana characters are single tokens; runs of
 * South-East Asian scripts stay whole; emoji sequences are <EMOJI>. Words
 * longer than `max_token_length` are split as Lucene's fixed scanner buffer
 * splits them: at the last place a token could end within the limit.
 */

import type { TokenConsumer, Tokenizer } from './token-stream.ts';
import { WordBreak, isEmojiStart, supplementaryWordBreak, wordBreakTable } from './word-break.ts';

/** StandardAnalyzer.DEFAULT_MAX_TOKEN_LENGTH. */
export const DEFAULT_MAX_TOKEN_LENGTH = 255;

export const TYPE_ALPHANUM = '<ALPHANUM>';
export const TYPE_NUM = '<NUM>';
export const TYPE_SOUTHEAST_ASIAN = '<SOUTHEAST_ASIAN>';
export const TYPE_IDEOGRAPHIC = '<IDEOGRAPHIC>';
export const TYPE_HIRAGANA = '<HIRAGANA>';
export const TYPE_KATAKANA = '<KATAKANA>';
export const TYPE_HANGUL = '<HANGUL>';
export const TYPE_EMOJI = '<EMOJI>';

const ZWJ = 0x200d;
const KEYCAP = 0x20e3;
const VS16 = 0xfe0f;

function isAHLetter(c: number): boolean {
  return c === WordBreak.ALetter || c === WordBreak.HangulLetter || c === WordBreak.HebrewLetter;
}

function startsWord(c: number): boolean {
  return isAHLetter(c) || c === WordBreak.Numeric || c === WordBreak.Katakana || c === WordBreak.ExtendNumLet;
}

export class StandardTokenizer implements Tokenizer {
  readonly name: string;
  readonly maxTokenLength: number;
  /** Case pairs share their Word_Break class, and terms are slices of the text. */
  readonly caseIndependent = true;
  private readonly table: Uint8Array;

  constructor(name = 'standard', maxTokenLength = DEFAULT_MAX_TOKEN_LENGTH) {
    this.name = name;
    this.maxTokenLength = maxTokenLength;
    this.table = wordBreakTable();
  }

  private classAt(text: string, i: number): number {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) return supplementaryWordBreak(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000);
    }
    return this.table[c]!;
  }

  /** Index after any Extend/Format/ZWJ characters at `i`. */
  private skipExtend(text: string, i: number): number {
    const n = text.length;
    while (i < n && this.classAt(text, i) === WordBreak.Extend) i += unitLength(text, i);
    return i;
  }

  tokenize(text: string, out: TokenConsumer): void {
    const n = text.length;
    const max = this.maxTokenLength;
    let i = 0;
    while (i < n) {
      const cls = this.classAt(text, i);
      if (startsWord(cls)) {
        i = this.word(text, i, out);
        continue;
      }
      const cp = text.codePointAt(i)!;
      const len = cp > 0xffff ? 2 : 1;
      switch (cls) {
        case WordBreak.Han:
        case WordBreak.Hiragana: {
          const end = Math.min(this.skipExtend(text, i + len), i + max);
          out.token(text.slice(i, end), 1, i, end, cls === WordBreak.Han ? TYPE_IDEOGRAPHIC : TYPE_HIRAGANA);
          i = end;
          continue;
        }
        case WordBreak.ComplexContext: {
          let end = i + len;
          while (end < n && end - i < max) {
            const c = this.classAt(text, end);
            if (c !== WordBreak.ComplexContext && c !== WordBreak.Extend) break;
            end += unitLength(text, end);
          }
          out.token(text.slice(i, end), 1, i, end, TYPE_SOUTHEAST_ASIAN);
          i = end;
          continue;
        }
        case WordBreak.RegionalIndicator: {
          const second = this.skipExtend(text, i + len);
          if (second < n && this.classAt(text, second) === WordBreak.RegionalIndicator) {
            const end = this.skipExtend(text, second + 2);
            out.token(text.slice(i, end), 1, i, end, TYPE_EMOJI);
            i = end;
          } else {
            i = second;
          }
          continue;
        }
        default:
          break;
      }
      if (cls === WordBreak.Other) {
        const emojiEnd = this.emoji(text, i, cp);
        if (emojiEnd > i) {
          out.token(text.slice(i, emojiEnd), 1, i, emojiEnd, TYPE_EMOJI);
          i = emojiEnd;
          continue;
        }
      }
      i += len;
    }
  }

  /** End of an emoji sequence starting at `i`, or `i` when none starts there. */
  private emoji(text: string, i: number, cp: number): number {
    const n = text.length;
    if (cp === 0x23 || cp === 0x2a) {
      // Keycap sequence [#*] FE0F? 20E3 (digits take the <NUM> path first, see word()).
      return this.keycapEnd(text, i);
    }
    if (!isEmojiStart(cp)) return i;
    let p = i + (cp > 0xffff ? 2 : 1);
    while (p < n) {
      const c = text.codePointAt(p)!;
      if (c === ZWJ) {
        const after = p + 1;
        const next = after < n ? text.codePointAt(after)! : -1;
        if (next >= 0 && isEmojiStart(next)) {
          p = after + (next > 0xffff ? 2 : 1);
          continue;
        }
        p = after;
        continue;
      }
      const clen = c > 0xffff ? 2 : 1;
      if (this.classAt(text, p) === WordBreak.Extend || (c >= 0x1f3fb && c <= 0x1f3ff) || (c >= 0xe0020 && c <= 0xe007f)) {
        p += clen;
        continue;
      }
      break;
    }
    return p;
  }

  private keycapEnd(text: string, i: number): number {
    let p = i + 1;
    if (p < text.length && text.charCodeAt(p) === VS16) p++;
    if (p < text.length && text.charCodeAt(p) === KEYCAP) return this.skipExtend(text, p + 1);
    return i;
  }

  /** Scans the word starting at `i` (a word-starting class), emits it, and returns where scanning resumes. */
  private word(text: string, start: number, out: TokenConsumer): number {
    const n = text.length;
    const limit = start + this.maxTokenLength;
    // A digit followed by a keycap mark is an emoji (the emoji rule wins the tie).
    const first = text.charCodeAt(start);
    if (first >= 0x30 && first <= 0x39) {
      const keycap = this.keycapEnd(text, start);
      if (keycap > start) {
        out.token(text.slice(start, keycap), 1, start, keycap, TYPE_EMOJI);
        return keycap;
      }
    }

    let prev = -1; // class of the last consumed non-Extend character
    let pos = start;
    let accept = -1;
    let acceptType = TYPE_ALPHANUM;
    let hasLetter = false;
    let hasKatakana = false;
    let hasCore = false;
    let allHangul = true;
    let allKatakana = true;

    while (pos < n) {
      const cls = this.classAt(text, pos);
      const len = unitLength(text, pos);
      let consumed: number; // index after what joins the word here, or -1 for a break
      let core = cls; // class of the character that makes the join valid
      if (prev === -1) {
        consumed = pos + len;
      } else if (joins(prev, cls)) {
        consumed = pos + len;
      } else if (isMid(prev, cls)) {
        // WB6/7 and WB11/12: a middle character joins only if the right kind of character follows.
        const after = this.skipExtend(text, pos + len);
        const next = after < n ? this.classAt(text, after) : -1;
        if (isAHLetter(prev) && isAHLetter(next) && (cls === WordBreak.MidLetter || cls === WordBreak.MidNumLet || cls === WordBreak.SingleQuote)) {
          consumed = after + unitLength(text, after);
          core = next;
        } else if (prev === WordBreak.Numeric && next === WordBreak.Numeric && cls !== WordBreak.MidLetter && cls !== WordBreak.DoubleQuote) {
          consumed = after + unitLength(text, after);
          core = next;
        } else if (prev === WordBreak.HebrewLetter && cls === WordBreak.DoubleQuote && next === WordBreak.HebrewLetter) {
          consumed = after + unitLength(text, after);
          core = next;
        } else if (prev === WordBreak.HebrewLetter && cls === WordBreak.SingleQuote) {
          consumed = pos + len; // WB7a: Hebrew_Letter × Single_Quote
        } else {
          consumed = -1;
        }
        if (consumed >= 0 && core !== cls) {
          allHangul = false;
          allKatakana = false;
        }
      } else {
        consumed = -1;
      }
      if (consumed < 0) break;
      const end = this.skipExtend(text, consumed);
      if (end > limit) break;
      pos = end;
      prev = core;
      if (core === WordBreak.Numeric) {
        hasCore = true;
      } else if (core === WordBreak.Katakana) {
        hasCore = true;
        hasKatakana = true;
      } else if (isAHLetter(core)) {
        hasCore = true;
        hasLetter = true;
      } else if (core === WordBreak.SingleQuote) {
        // After WB7a's Hebrew_Letter × Single_Quote the grammar may start a new letter or number piece.
        prev = WordBreak.ALetter;
      }
      if (core !== WordBreak.HangulLetter) allHangul = false;
      if (core !== WordBreak.Katakana) allKatakana = false;
      if (hasCore) {
        accept = pos;
        acceptType = allHangul ? TYPE_HANGUL : allKatakana ? TYPE_KATAKANA : !hasLetter && !hasKatakana ? TYPE_NUM : TYPE_ALPHANUM;
      }
    }
    if (accept < 0) return start + unitLength(text, start);
    out.token(text.slice(start, accept), 1, start, accept, acceptType);
    return accept;
  }
}

/** WB5, WB8, WB9, WB10, WB13, WB13a, WB13b: pairs that never break. */
function joins(prev: number, cls: number): boolean {
  const prevLetter = isAHLetter(prev);
  const clsLetter = isAHLetter(cls);
  if (prevLetter && (clsLetter || cls === WordBreak.Numeric)) return true;
  if (prev === WordBreak.Numeric && (clsLetter || cls === WordBreak.Numeric)) return true;
  if (prev === WordBreak.Katakana && cls === WordBreak.Katakana) return true;
  if (cls === WordBreak.ExtendNumLet) return prevLetter || prev === WordBreak.Numeric || prev === WordBreak.Katakana || prev === WordBreak.ExtendNumLet;
  if (prev === WordBreak.ExtendNumLet) return clsLetter || cls === WordBreak.Numeric || cls === WordBreak.Katakana;
  return false;
}

function isMid(prev: number, cls: number): boolean {
  if (cls === WordBreak.MidLetter || cls === WordBreak.MidNumLet || cls === WordBreak.SingleQuote || cls === WordBreak.MidNum) {
    return isAHLetter(prev) || prev === WordBreak.Numeric;
  }
  return cls === WordBreak.DoubleQuote && prev === WordBreak.HebrewLetter;
}

function unitLength(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}
