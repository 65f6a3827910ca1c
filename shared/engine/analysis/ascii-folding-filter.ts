/**
 * Elasticsearch's `asciifolding` token filter (Lucene's ASCIIFoldingFilter):
 * letters, digits and common punctuation outside Basic Latin become their
 * ASCII equivalents (é → e, ß → ss, Æ → AE, ① → 1, “ → "); characters with
 * no ASCII equivalent are left alone.
 *
 * Lucene's table has thousands of entries; this covers it through Unicode
 * compatibility decomposition (NFKD without the combining marks, used only
 * when the result is pure ASCII) plus an explicit table for the Latin letters
 * and punctuation that do not decompose.
 */

import { JavaCategory, javaCategory } from './char-classes.ts';
import { FilterStage, type TokenConsumer, type TokenFilterFactory } from './token-stream.ts';
import { getOwn } from '../../json/own-keys.ts';

const EXPLICIT: Readonly<Record<string, string>> = {
  Æ: 'AE', æ: 'ae', Ð: 'D', ð: 'd', Ø: 'O', ø: 'o', Þ: 'TH', þ: 'th', ß: 'ss', Đ: 'D', đ: 'd',
  Ħ: 'H', ħ: 'h', ı: 'i', ĸ: 'q', Ŀ: 'L', ŀ: 'l', Ł: 'L', ł: 'l', ŉ: "'n", Ŋ: 'N', ŋ: 'n',
  Œ: 'OE', œ: 'oe', ſ: 's', Ŧ: 'T', ŧ: 't', ƀ: 'b', Ɓ: 'B', Ƃ: 'B', ƃ: 'b', Ƈ: 'C', ƈ: 'c',
  Ɖ: 'D', Ɗ: 'D', Ƌ: 'D', ƌ: 'd', Ɛ: 'E', Ƒ: 'F', ƒ: 'f', Ɠ: 'G', Ɨ: 'I', Ƙ: 'K', ƙ: 'k',
  ƚ: 'l', Ɲ: 'N', ƞ: 'n', Ƥ: 'P', ƥ: 'p', Ƭ: 'T', ƭ: 't', Ʈ: 'T', Ʋ: 'V', Ƴ: 'Y', ƴ: 'y',
  Ƶ: 'Z', ƶ: 'z', Ǥ: 'G', ǥ: 'g', ȡ: 'd', Ȥ: 'Z', ȥ: 'z', ȴ: 'l', ȵ: 'n', ȶ: 't', ȷ: 'j',
  ȸ: 'db', ȹ: 'qp', Ⱥ: 'A', Ȼ: 'C', ȼ: 'c', Ƚ: 'L', Ⱦ: 'T', ȿ: 's', ɀ: 'z', Ƀ: 'B', Ʉ: 'U',
  Ɇ: 'E', ɇ: 'e', Ɉ: 'J', ɉ: 'j', Ɍ: 'R', ɍ: 'r', Ɏ: 'Y', ɏ: 'y', ɓ: 'b', ɕ: 'c', ɖ: 'd',
  ɗ: 'd', ɛ: 'e', ɟ: 'j', ɠ: 'g', ɡ: 'g', ɢ: 'G', ɦ: 'h', ɧ: 'h', ɨ: 'i', ɪ: 'I', ɫ: 'l',
  ɬ: 'l', ɭ: 'l', ɱ: 'm', ɲ: 'n', ɳ: 'n', ɴ: 'N', ɶ: 'OE', ɼ: 'r', ɽ: 'r', ɾ: 'r', ʀ: 'R',
  ʂ: 's', ʈ: 't', ʉ: 'u', ʋ: 'v', ʏ: 'Y', ʐ: 'z', ʑ: 'z', ʙ: 'B', ʛ: 'G', ʜ: 'H', ʝ: 'j',
  ʟ: 'L', ʠ: 'q', ʣ: 'dz', ʥ: 'dz', ʦ: 'ts', ʪ: 'ls', ʫ: 'lz', ẜ: 's', ẝ: 's', ẞ: 'SS',
  '\u2018': "'", '\u2019': "'", '\u201a': "'", '\u201b': "'", '\u2032': "'", '\u2035': "'",
  '\u2039': "'", '\u203a': "'", '\u201c': '"', '\u201d': '"', '\u201e': '"', '\u201f': '"',
  '\u2033': '"', '\u2036': '"', '\u00ab': '"', '\u00bb': '"', '\u2010': '-', '\u2011': '-',
  '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u207b': '-', '\u208b': '-', '\u00a1': '!',
  '\u00bf': '?', '\u2026': '...', '\u2044': '/',
};

const COMBINING_MARKS = /\p{M}/gu;
const foldCache = new Map<number, string | null>();

function foldsByDecomposition(cp: number): boolean {
  const cat = javaCategory(cp);
  return (
    cat === JavaCategory.UppercaseLetter ||
    cat === JavaCategory.LowercaseLetter ||
    cat === JavaCategory.TitlecaseLetter ||
    cat === JavaCategory.ModifierLetter ||
    cat === JavaCategory.OtherLetter ||
    cat === JavaCategory.DecimalDigitNumber ||
    cat === JavaCategory.LetterNumber ||
    cat === JavaCategory.OtherNumber
  );
}

function isAsciiString(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** The ASCII folding of one code point above 0x7F, or null when it has none. */
function foldCodePoint(cp: number): string | null {
  let cached = foldCache.get(cp);
  if (cached !== undefined) return cached;
  const ch = String.fromCodePoint(cp);
  cached = getOwn(EXPLICIT, ch) ?? null;
  if (cached === null && foldsByDecomposition(cp)) {
    const decomposed = ch.normalize('NFKD').replace(COMBINING_MARKS, '');
    if (decomposed.length > 0 && isAsciiString(decomposed)) cached = decomposed;
  }
  foldCache.set(cp, cached);
  return cached;
}

/** ASCIIFoldingFilter.foldToASCII over a whole term. */
export function foldToAscii(term: string): string {
  if (isAsciiString(term)) return term;
  let out = '';
  for (let i = 0; i < term.length; ) {
    const cp = term.codePointAt(i)!;
    const len = cp > 0xffff ? 2 : 1;
    if (cp <= 0x7f) out += term[i];
    else out += foldCodePoint(cp) ?? term.slice(i, i + len);
    i += len;
  }
  return out;
}

export class AsciiFoldingFilterFactory implements TokenFilterFactory {
  readonly name: string;
  readonly normalizerSafe = true;
  private readonly preserveOriginal: boolean;

  constructor(name: string, preserveOriginal: boolean) {
    this.name = name;
    this.preserveOriginal = preserveOriginal;
  }

  create(next: TokenConsumer): TokenConsumer {
    return new AsciiFoldingStage(next, this.preserveOriginal);
  }
}

class AsciiFoldingStage extends FilterStage {
  private readonly preserveOriginal: boolean;

  constructor(next: TokenConsumer, preserveOriginal: boolean) {
    super(next);
    this.preserveOriginal = preserveOriginal;
  }

  token(term: string, posInc: number, start: number, end: number, type: string): void {
    const folded = foldToAscii(term);
    if (this.preserveOriginal && folded !== term) {
      // Lucene emits the folded term first, then the original stacked on it.
      this.next.token(folded, posInc, start, end, type);
      this.next.token(term, 0, start, end, type);
      return;
    }
    this.next.token(folded, posInc, start, end, type);
  }
}
