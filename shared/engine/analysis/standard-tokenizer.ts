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

/**
 * Word_Break classes as module constants: the hot loops below read them per
 * character, and an imported object's property goes through a module binding.
 */
const WB_A_LETTER = WordBreak.ALetter;
const WB_COMPLEX_CONTEXT = WordBreak.ComplexContext;
const WB_DOUBLE_QUOTE = WordBreak.DoubleQuote;
const WB_EXTEND = WordBreak.Extend;
const WB_EXTEND_NUM_LET = WordBreak.ExtendNumLet;
const WB_HAN = WordBreak.Han;
const WB_HANGUL_LETTER = WordBreak.HangulLetter;
const WB_HEBREW_LETTER = WordBreak.HebrewLetter;
const WB_HIRAGANA = WordBreak.Hiragana;
const WB_KATAKANA = WordBreak.Katakana;
const WB_MID_LETTER = WordBreak.MidLetter;
const WB_MID_NUM = WordBreak.MidNum;
const WB_MID_NUM_LET = WordBreak.MidNumLet;
const WB_NUMERIC = WordBreak.Numeric;
const WB_OTHER = WordBreak.Other;
const WB_REGIONAL_INDICATOR = WordBreak.RegionalIndicator;
const WB_SINGLE_QUOTE = WordBreak.SingleQuote;

const ZWJ = 0x200d;
const KEYCAP = 0x20e3;
const VS16 = 0xfe0f;

function isAHLetter(c: number): boolean {
  return c === WB_A_LETTER || c === WB_HANGUL_LETTER || c === WB_HEBREW_LETTER;
}

function startsWord(c: number): boolean {
  return isAHLetter(c) || c === WB_NUMERIC || c === WB_KATAKANA || c === WB_EXTEND_NUM_LET;
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
    while (i < n && this.classAt(text, i) === WB_EXTEND) i += unitLength(text, i);
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
        case WB_HAN:
        case WB_HIRAGANA: {
          const end = Math.min(this.skipExtend(text, i + len), i + max);
          out.token(text.slice(i, end), 1, i, end, cls === WB_HAN ? TYPE_IDEOGRAPHIC : TYPE_HIRAGANA);
          i = end;
          continue;
        }
        case WB_COMPLEX_CONTEXT: {
          let end = i + len;
          while (end < n && end - i < max) {
            const c = this.classAt(text, end);
            if (c !== WB_COMPLEX_CONTEXT && c !== WB_EXTEND) break;
            end += unitLength(text, end);
          }
          out.token(text.slice(i, end), 1, i, end, TYPE_SOUTHEAST_ASIAN);
          i = end;
          continue;
        }
        case WB_REGIONAL_INDICATOR: {
          const second = this.skipExtend(text, i + len);
          if (second < n && this.classAt(text, second) === WB_REGIONAL_INDICATOR) {
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
      if (cls === WB_OTHER) {
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
      if (this.classAt(text, p) === WB_EXTEND || (c >= 0x1f3fb && c <= 0x1f3ff) || (c >= 0xe0020 && c <= 0xe007f)) {
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
        if (isAHLetter(prev) && isAHLetter(next) && (cls === WB_MID_LETTER || cls === WB_MID_NUM_LET || cls === WB_SINGLE_QUOTE)) {
          consumed = after + unitLength(text, after);
          core = next;
        } else if (prev === WB_NUMERIC && next === WB_NUMERIC && cls !== WB_MID_LETTER && cls !== WB_DOUBLE_QUOTE) {
          consumed = after + unitLength(text, after);
          core = next;
        } else if (prev === WB_HEBREW_LETTER && cls === WB_DOUBLE_QUOTE && next === WB_HEBREW_LETTER) {
          consumed = after + unitLength(text, after);
          core = next;
        } else if (prev === WB_HEBREW_LETTER && cls === WB_SINGLE_QUOTE) {
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
      if (core === WB_NUMERIC) {
        hasCore = true;
      } else if (core === WB_KATAKANA) {
        hasCore = true;
        hasKatakana = true;
      } else if (isAHLetter(core)) {
        hasCore = true;
        hasLetter = true;
      } else if (core === WB_SINGLE_QUOTE) {
        // After WB7a's Hebrew_Letter × Single_Quote the grammar may start a new letter or number piece.
        prev = WB_A_LETTER;
      }
      if (core !== WB_HANGUL_LETTER) allHangul = false;
      if (core !== WB_KATAKANA) allKatakana = false;
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
  if (prevLetter && (clsLetter || cls === WB_NUMERIC)) return true;
  if (prev === WB_NUMERIC && (clsLetter || cls === WB_NUMERIC)) return true;
  if (prev === WB_KATAKANA && cls === WB_KATAKANA) return true;
  if (cls === WB_EXTEND_NUM_LET) return prevLetter || prev === WB_NUMERIC || prev === WB_KATAKANA || prev === WB_EXTEND_NUM_LET;
  if (prev === WB_EXTEND_NUM_LET) return clsLetter || cls === WB_NUMERIC || cls === WB_KATAKANA;
  return false;
}

function isMid(prev: number, cls: number): boolean {
  if (cls === WB_MID_LETTER || cls === WB_MID_NUM_LET || cls === WB_SINGLE_QUOTE || cls === WB_MID_NUM) {
    return isAHLetter(prev) || prev === WB_NUMERIC;
  }
  return cls === WB_DOUBLE_QUOTE && prev === WB_HEBREW_LETTER;
}

function unitLength(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}
