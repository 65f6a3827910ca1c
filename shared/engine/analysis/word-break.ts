/**
 * Word_Break classes of UAX#29 as Lucene's StandardTokenizer grammar uses
 * them, derived from Unicode property escapes (JavaScript has no \p{WB=...}).
 * The derivation follows the Word_Break property definitions closely enough
 * for every script in practical use; exotic edge characters may differ.
 *
 * BMP classes come from a table built on first use; supplementary code points
 * are classified on demand and cached.
 */

import { markBmpMatches } from './char-classes.ts';

export const WordBreak = {
  Other: 0,
  /** ALetter outside Hangul (WB:ALetter). */
  ALetter: 1,
  /** ALetter of the Hangul script: tokens of only these are typed <HANGUL>. */
  HangulLetter: 2,
  HebrewLetter: 3,
  Numeric: 4,
  Katakana: 5,
  /** Extend, Format and ZWJ: attach to the preceding character (WB4). */
  Extend: 6,
  MidLetter: 7,
  MidNum: 8,
  MidNumLet: 9,
  SingleQuote: 10,
  DoubleQuote: 11,
  ExtendNumLet: 12,
  /** Script=Han: one <IDEOGRAPHIC> token per character. */
  Han: 13,
  /** Script=Hiragana: one <HIRAGANA> token per character. */
  Hiragana: 14,
  /** Line_Break=Complex_Context (Thai, Lao, Myanmar, Khmer, ...): runs become <SOUTHEAST_ASIAN>. */
  ComplexContext: 15,
  RegionalIndicator: 16,
} as const;

export type WordBreak = (typeof WordBreak)[keyof typeof WordBreak];

const MID_LETTER = [0x3a, 0xb7, 0x387, 0x5f4, 0x2027, 0xfe13, 0xfe55, 0xff1a];
const MID_NUM_LET = [0x2e, 0x2018, 0x2019, 0x2024, 0xfe52, 0xff07, 0xff0e];
const MID_NUM = [0x2c, 0x3b, 0x37e, 0x589, 0x60c, 0x60d, 0x66c, 0x7f8, 0x2044, 0xfe10, 0xfe14, 0xfe50, 0xfe54, 0xff0c, 0xff1b];
/** Katakana by Word_Break though not by script (prolonged sound mark, kana repeat marks, ...). */
const KATAKANA_EXTRA = [0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x309b, 0x309c, 0x30a0, 0x30fc, 0xff70];
/** ALetter by Word_Break though not Alphabetic (modifier letters of spacing clones, ...). */
const ALETTER_EXTRA_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x2c2, 0x2c5],
  [0x2d2, 0x2d7],
  [0x2de, 0x2df],
  [0x2e5, 0x2eb],
  [0x2ed, 0x2ed],
  [0x2ef, 0x2ff],
  [0x5f3, 0x5f3],
  [0xa708, 0xa716],
  [0xa720, 0xa721],
  [0xa789, 0xa78a],
  [0xab5b, 0xab5b],
];

const RE_HAN = /^\p{Script=Han}$/u;
const RE_HIRAGANA = /^\p{Script=Hiragana}$/u;
const RE_KATAKANA = /^\p{Script=Katakana}$/u;
const RE_HANGUL = /^\p{Script=Hangul}$/u;
const RE_HEBREW_LETTER = /^(?=\p{Script=Hebrew})\p{Lo}$/u;
const RE_COMPLEX_CONTEXT =
  /^(?=[\p{Script=Thai}\p{Script=Lao}\p{Script=Myanmar}\p{Script=Khmer}\p{Script=Tai_Le}\p{Script=New_Tai_Lue}\p{Script=Tai_Tham}\p{Script=Tai_Viet}\p{Script=Ahom}])[\p{L}\p{M}]$/u;
const RE_EXTEND = /^[\p{Grapheme_Extend}\p{Mc}]$/u;
const RE_EMOJI_MODIFIER = /^\p{Emoji_Modifier}$/u;
const RE_FORMAT = /^\p{Cf}$/u;
const RE_NUMERIC = /^\p{Nd}$/u;
const RE_ALPHABETIC = /^\p{Alphabetic}$/u;
const RE_IDEOGRAPHIC = /^\p{Ideographic}$/u;
const RE_CONNECTOR = /^\p{Pc}$/u;

function classify(cp: number): WordBreak {
  if (cp === 0x27) return WordBreak.SingleQuote;
  if (cp === 0x22) return WordBreak.DoubleQuote;
  if (cp >= 0x1f1e6 && cp <= 0x1f1ff) return WordBreak.RegionalIndicator;
  if (MID_NUM_LET.includes(cp)) return WordBreak.MidNumLet;
  if (MID_LETTER.includes(cp)) return WordBreak.MidLetter;
  if (MID_NUM.includes(cp)) return WordBreak.MidNum;
  if (KATAKANA_EXTRA.includes(cp)) return WordBreak.Katakana;
  const s = String.fromCodePoint(cp);
  if (cp === 0x200c || cp === 0x200d) return WordBreak.Extend;
  if (RE_COMPLEX_CONTEXT.test(s)) return WordBreak.ComplexContext;
  if (RE_EXTEND.test(s) && !RE_EMOJI_MODIFIER.test(s)) return WordBreak.Extend;
  if (RE_FORMAT.test(s)) return cp === 0x200b ? WordBreak.Other : WordBreak.Extend;
  if (RE_NUMERIC.test(s)) return WordBreak.Numeric;
  if (RE_CONNECTOR.test(s)) return WordBreak.ExtendNumLet;
  if (RE_HAN.test(s)) return WordBreak.Han;
  if (RE_HIRAGANA.test(s)) return WordBreak.Hiragana;
  if (RE_KATAKANA.test(s)) return RE_ALPHABETIC.test(s) ? WordBreak.Katakana : WordBreak.Other;
  if (RE_HEBREW_LETTER.test(s)) return WordBreak.HebrewLetter;
  if (RE_ALPHABETIC.test(s)) {
    if (RE_IDEOGRAPHIC.test(s)) return WordBreak.Other;
    return RE_HANGUL.test(s) ? WordBreak.HangulLetter : WordBreak.ALetter;
  }
  for (const [lo, hi] of ALETTER_EXTRA_RANGES) if (cp >= lo && cp <= hi) return WordBreak.ALetter;
  return WordBreak.Other;
}

let bmpTable: Uint8Array | null = null;
const supplementary = new Map<number, WordBreak>();

/**
 * The same classification as classify(), one regex pass per rule over the
 * whole BMP, applied from the lowest-priority rule to the highest so that later
 * passes override earlier ones.
 */
function buildBmpTable(): Uint8Array {
  const t = new Uint8Array(0x10000);
  const mark = (re: RegExp, value: WordBreak): void => markBmpMatches(t, re, value);
  for (const [lo, hi] of ALETTER_EXTRA_RANGES) t.fill(WordBreak.ALetter, lo, hi + 1);
  mark(/\p{Alphabetic}/gu, WordBreak.ALetter);
  mark(/(?=\p{Script=Hangul})\p{Alphabetic}/gu, WordBreak.HangulLetter);
  mark(/(?=\p{Ideographic})\p{Alphabetic}/gu, WordBreak.Other);
  mark(/(?=\p{Script=Hebrew})\p{Lo}/gu, WordBreak.HebrewLetter);
  mark(/\p{Script=Katakana}/gu, WordBreak.Other);
  mark(/(?=\p{Script=Katakana})\p{Alphabetic}/gu, WordBreak.Katakana);
  mark(/\p{Script=Hiragana}/gu, WordBreak.Hiragana);
  mark(/\p{Script=Han}/gu, WordBreak.Han);
  mark(/\p{Pc}/gu, WordBreak.ExtendNumLet);
  mark(/\p{Nd}/gu, WordBreak.Numeric);
  mark(/\p{Cf}/gu, WordBreak.Extend);
  t[0x200b] = WordBreak.Other;
  mark(/(?!\p{Emoji_Modifier})[\p{Grapheme_Extend}\p{Mc}]/gu, WordBreak.Extend);
  mark(new RegExp(RE_COMPLEX_CONTEXT.source.slice(1, -1), 'gu'), WordBreak.ComplexContext);
  t[0x200c] = WordBreak.Extend;
  t[0x200d] = WordBreak.Extend;
  for (const cp of KATAKANA_EXTRA) t[cp] = WordBreak.Katakana;
  for (const cp of MID_NUM) t[cp] = WordBreak.MidNum;
  for (const cp of MID_LETTER) t[cp] = WordBreak.MidLetter;
  for (const cp of MID_NUM_LET) t[cp] = WordBreak.MidNumLet;
  t[0x22] = WordBreak.DoubleQuote;
  t[0x27] = WordBreak.SingleQuote;
  t.fill(WordBreak.Other, 0xd800, 0xe000);
  return t;
}

/** Per-code-point classification, for code points above the BMP (and to check the BMP table against). */
export function classifyWordBreak(cp: number): WordBreak {
  return classify(cp);
}

/** The BMP Word_Break table (index = UTF-16 code unit; surrogates are Other). */
export function wordBreakTable(): Uint8Array {
  if (bmpTable === null) bmpTable = buildBmpTable();
  return bmpTable;
}

/** Word_Break class of a code point above the BMP. */
export function supplementaryWordBreak(cp: number): WordBreak {
  let c = supplementary.get(cp);
  if (c === undefined) {
    c = classify(cp);
    supplementary.set(cp, c);
  }
  return c;
}

const RE_EMOJI_START = /^[\p{Extended_Pictographic}\p{Emoji}]$/u;
const emojiCache = new Map<number, boolean>();

/**
 * True when `cp` starts an emoji sequence in Lucene's grammar: Extended_Pictographic
 * or Emoji, except regional indicators and the keycap bases [0-9#*] (which only
 * count as emoji in their own sequences).
 */
export function isEmojiStart(cp: number): boolean {
  if (cp < 0xa9) return false;
  if (cp >= 0x1f1e6 && cp <= 0x1f1ff) return false;
  let v = emojiCache.get(cp);
  if (v === undefined) {
    v = RE_EMOJI_START.test(String.fromCodePoint(cp));
    emojiCache.set(cp, v);
  }
  return v;
}
