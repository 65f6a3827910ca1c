/**
 * Java's view of characters (java.lang.Character), which Lucene's tokenizers
 * and Elasticsearch's `token_chars` are written against: general categories,
 * `isLetter`, `isDigit`, `isWhitespace`.
 *
 * Categories of the BMP come from one precomputed table (built on first use
 * from Unicode property escapes); code points above the BMP are classified on
 * demand and cached.
 */

/** Java's general category numbers (Character.UPPERCASE_LETTER = 1, ...). */
export const JavaCategory = {
  Unassigned: 0,
  UppercaseLetter: 1,
  LowercaseLetter: 2,
  TitlecaseLetter: 3,
  ModifierLetter: 4,
  OtherLetter: 5,
  NonSpacingMark: 6,
  EnclosingMark: 7,
  CombiningSpacingMark: 8,
  DecimalDigitNumber: 9,
  LetterNumber: 10,
  OtherNumber: 11,
  SpaceSeparator: 12,
  LineSeparator: 13,
  ParagraphSeparator: 14,
  Control: 15,
  Format: 16,
  PrivateUse: 18,
  Surrogate: 19,
  DashPunctuation: 20,
  StartPunctuation: 21,
  EndPunctuation: 22,
  ConnectorPunctuation: 23,
  OtherPunctuation: 24,
  MathSymbol: 25,
  CurrencySymbol: 26,
  ModifierSymbol: 27,
  OtherSymbol: 28,
  InitialQuotePunctuation: 29,
  FinalQuotePunctuation: 30,
} as const;

export type JavaCategory = (typeof JavaCategory)[keyof typeof JavaCategory];

/** Unicode short category name → Java category number. */
const CATEGORY_BY_PROPERTY: ReadonlyArray<readonly [string, JavaCategory]> = [
  ['Lu', JavaCategory.UppercaseLetter],
  ['Ll', JavaCategory.LowercaseLetter],
  ['Lt', JavaCategory.TitlecaseLetter],
  ['Lm', JavaCategory.ModifierLetter],
  ['Lo', JavaCategory.OtherLetter],
  ['Mn', JavaCategory.NonSpacingMark],
  ['Me', JavaCategory.EnclosingMark],
  ['Mc', JavaCategory.CombiningSpacingMark],
  ['Nd', JavaCategory.DecimalDigitNumber],
  ['Nl', JavaCategory.LetterNumber],
  ['No', JavaCategory.OtherNumber],
  ['Zs', JavaCategory.SpaceSeparator],
  ['Zl', JavaCategory.LineSeparator],
  ['Zp', JavaCategory.ParagraphSeparator],
  ['Cc', JavaCategory.Control],
  ['Cf', JavaCategory.Format],
  ['Co', JavaCategory.PrivateUse],
  ['Pd', JavaCategory.DashPunctuation],
  ['Ps', JavaCategory.StartPunctuation],
  ['Pe', JavaCategory.EndPunctuation],
  ['Pc', JavaCategory.ConnectorPunctuation],
  ['Po', JavaCategory.OtherPunctuation],
  ['Sm', JavaCategory.MathSymbol],
  ['Sc', JavaCategory.CurrencySymbol],
  ['Sk', JavaCategory.ModifierSymbol],
  ['So', JavaCategory.OtherSymbol],
  ['Pi', JavaCategory.InitialQuotePunctuation],
  ['Pf', JavaCategory.FinalQuotePunctuation],
];

const PROPERTY_REGEXES: ReadonlyArray<readonly [RegExp, JavaCategory]> = CATEGORY_BY_PROPERTY.map(
  ([p, c]) => [new RegExp(`^\\p{${p}}$`, 'u'), c] as const,
);

let bmpCategories: Uint8Array | null = null;
const supplementaryCategories = new Map<number, JavaCategory>();

function classifyByRegex(cp: number): JavaCategory {
  const s = String.fromCodePoint(cp);
  for (const [re, cat] of PROPERTY_REGEXES) if (re.test(s)) return cat;
  return JavaCategory.Unassigned;
}

let bmpText: string | null = null;

/**
 * Every BMP code unit in order (index = code unit), surrogates replaced by a
 * space so that no two of them pair up: tables over the BMP are built with one
 * regex pass over this string instead of 65,536 single-character tests.
 */
export function allBmpCharacters(): string {
  if (bmpText === null) {
    const units = new Uint16Array(0x10000);
    for (let i = 0; i < 0x10000; i++) units[i] = i >= 0xd800 && i <= 0xdfff ? 0x20 : i;
    let all = '';
    for (let i = 0; i < 0x10000; i += 4096) all += String.fromCharCode(...units.subarray(i, i + 4096));
    bmpText = all;
  }
  return bmpText;
}

/** Sets `table[c] = value` for every BMP code unit c matching `re` (a global, Unicode-mode regex of one code point). */
export function markBmpMatches(table: Uint8Array, re: RegExp, value: number): void {
  allBmpCharacters().replace(re, (_m: string, offset: number) => {
    table[offset] = value;
    return '';
  });
}

function buildBmpCategories(): Uint8Array {
  const table = new Uint8Array(0x10000);
  for (const [p, cat] of CATEGORY_BY_PROPERTY) markBmpMatches(table, new RegExp(`\\p{${p}}`, 'gu'), cat);
  for (let i = 0xd800; i <= 0xdfff; i++) table[i] = JavaCategory.Surrogate;
  return table;
}

/** The BMP category table (index = UTF-16 code unit). */
export function bmpCategoryTable(): Uint8Array {
  if (bmpCategories === null) bmpCategories = buildBmpCategories();
  return bmpCategories;
}

/** Java's Character.getType(cp). */
export function javaCategory(cp: number): JavaCategory {
  if (cp < 0x10000) return bmpCategoryTable()[cp] as JavaCategory;
  let cat = supplementaryCategories.get(cp);
  if (cat === undefined) {
    cat = classifyByRegex(cp);
    supplementaryCategories.set(cp, cat);
  }
  return cat;
}

/** Bit for a category in a category mask. */
export function categoryBit(cat: JavaCategory): number {
  return 1 << cat;
}

export const LETTER_MASK =
  categoryBit(JavaCategory.UppercaseLetter) |
  categoryBit(JavaCategory.LowercaseLetter) |
  categoryBit(JavaCategory.TitlecaseLetter) |
  categoryBit(JavaCategory.ModifierLetter) |
  categoryBit(JavaCategory.OtherLetter);

const CASED_LETTER_MASK =
  categoryBit(JavaCategory.UppercaseLetter) | categoryBit(JavaCategory.LowercaseLetter) | categoryBit(JavaCategory.TitlecaseLetter);

export const DIGIT_MASK = categoryBit(JavaCategory.DecimalDigitNumber);

export const PUNCTUATION_MASK =
  categoryBit(JavaCategory.ConnectorPunctuation) |
  categoryBit(JavaCategory.DashPunctuation) |
  categoryBit(JavaCategory.StartPunctuation) |
  categoryBit(JavaCategory.EndPunctuation) |
  categoryBit(JavaCategory.InitialQuotePunctuation) |
  categoryBit(JavaCategory.FinalQuotePunctuation) |
  categoryBit(JavaCategory.OtherPunctuation);

export const SYMBOL_MASK =
  categoryBit(JavaCategory.MathSymbol) |
  categoryBit(JavaCategory.CurrencySymbol) |
  categoryBit(JavaCategory.ModifierSymbol) |
  categoryBit(JavaCategory.OtherSymbol);

const SEPARATOR_MASK =
  categoryBit(JavaCategory.SpaceSeparator) |
  categoryBit(JavaCategory.LineSeparator) |
  categoryBit(JavaCategory.ParagraphSeparator);

/** Java's Character.isWhitespace: separators except no-break spaces, plus the ASCII controls \t..\r and \x1c..\x1f. */
export function isJavaWhitespace(cp: number): boolean {
  if (cp <= 0x20) return cp === 0x20 || (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x1f);
  if (cp === 0xa0 || cp === 0x2007 || cp === 0x202f) return false;
  return (SEPARATOR_MASK & categoryBit(javaCategory(cp))) !== 0;
}

/** Java's Character.isLetter. */
export function isJavaLetter(cp: number): boolean {
  return (LETTER_MASK & categoryBit(javaCategory(cp))) !== 0;
}

/** Java's Character.isDigit. */
export function isJavaDigit(cp: number): boolean {
  return javaCategory(cp) === JavaCategory.DecimalDigitNumber;
}

/**
 * A set of code points given as a category mask plus Java whitespace, with a
 * precomputed BMP membership table for hot loops.
 */
export class CharClassSet {
  readonly categoryMask: number;
  readonly whitespace: boolean;
  /** 1 where the BMP code unit is a member. Surrogate code units are never members. */
  readonly bmp: Uint8Array;
  /** Membership never changes when a letter changes case (all of Lu, Ll, Lt are in, or none). */
  readonly caseIndependent: boolean;

  constructor(categoryMask: number, whitespace: boolean) {
    this.categoryMask = categoryMask;
    this.whitespace = whitespace;
    const cased = categoryMask & CASED_LETTER_MASK;
    this.caseIndependent = cased === 0 || cased === CASED_LETTER_MASK;
    const cats = bmpCategoryTable();
    const bmp = new Uint8Array(0x10000);
    for (let i = 0; i < 0x10000; i++) {
      if (i >= 0xd800 && i <= 0xdfff) continue;
      if ((categoryMask & (1 << cats[i]!)) !== 0 || (whitespace && isJavaWhitespace(i))) bmp[i] = 1;
    }
    this.bmp = bmp;
  }

  has(cp: number): boolean {
    if (cp < 0x10000) return this.bmp[cp] === 1;
    return (this.categoryMask & categoryBit(javaCategory(cp))) !== 0 || (this.whitespace && isJavaWhitespace(cp));
  }
}

let letterSet: CharClassSet | null = null;

/** Java letters (Character.isLetter), shared by the letter and lowercase tokenizers. */
export function javaLetters(): CharClassSet {
  if (letterSet === null) letterSet = new CharClassSet(LETTER_MASK, false);
  return letterSet;
}
