/**
 * Sets of code points for the linear-time regex engine: a predicate with its
 * ASCII answers precomputed and its other Basic Multilingual Plane answers
 * remembered once asked, so a character class costs a table read per
 * character however it was written (`[a-z&&[^aeiou]]`, `\p{IsLatin}`).
 */

export type CodePointTest = (cp: number) => boolean;

export class CharSet {
  private readonly ascii = new Uint8Array(128);
  /** 0 not asked yet, 1 outside, 2 inside; made on the first non-ASCII question. */
  private bmp: Uint8Array | null = null;

  constructor(readonly test: CodePointTest) {
    for (let c = 0; c < 128; c++) this.ascii[c] = test(c) ? 1 : 0;
  }

  has(cp: number): boolean {
    if (cp < 128) return this.ascii[cp] === 1;
    if (cp < 0x10000) {
      this.bmp ??= new Uint8Array(0x10000);
      let v = this.bmp[cp]!;
      if (v === 0) {
        v = this.test(cp) ? 2 : 1;
        this.bmp[cp] = v;
      }
      return v === 2;
    }
    return this.test(cp);
  }
}

/** A test for one Unicode property through JavaScript's `\p{..}` on a single character (no backtracking: one character, one class). */
export function unicodeProperty(expr: string): CodePointTest | null {
  if (!/^[A-Za-z0-9_=]+$/.test(expr)) return null;
  let re: RegExp;
  try {
    re = new RegExp(`^\\p{${expr}}$`, 'u');
  } catch {
    return null;
  }
  return (cp) => re.test(String.fromCodePoint(cp));
}

export const union =
  (a: CodePointTest, b: CodePointTest): CodePointTest =>
  (cp) =>
    a(cp) || b(cp);
export const intersection =
  (a: CodePointTest, b: CodePointTest): CodePointTest =>
  (cp) =>
    a(cp) && b(cp);
export const complement =
  (a: CodePointTest): CodePointTest =>
  (cp) =>
    !a(cp);
export const range =
  (lo: number, hi: number): CodePointTest =>
  (cp) =>
    cp >= lo && cp <= hi;
export const single =
  (c: number): CodePointTest =>
  (cp) =>
    cp === c;
export const oneOf = (chars: string): CodePointTest => {
  const set = new Set(Array.from(chars, (c) => c.codePointAt(0)!));
  return (cp) => set.has(cp);
};
export const NONE: CodePointTest = () => false;
export const ALL: CodePointTest = () => true;

const gc = (name: string): CodePointTest => unicodeProperty(`gc=${name}`)!;
const LETTER = gc('L');
const DECIMAL_DIGIT = gc('Nd');

/** Java's line terminators (Pattern's `.` and `$` outside UNIX_LINES). */
export function isLineTerminator(cp: number, unixLines: boolean): boolean {
  if (unixLines) return cp === 0x0a;
  return cp === 0x0a || cp === 0x0d || cp === 0x85 || cp === 0x2028 || cp === 0x2029;
}

/** Java 8's Pattern.Bound.isWord: Character.isLetterOrDigit or `_` (Unicode, even without UNICODE_CHARACTER_CLASS). */
export function isJavaWordChar(cp: number): boolean {
  if (cp < 128) return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || cp === 0x5f;
  return LETTER(cp) || DECIMAL_DIGIT(cp);
}

const ASCII_DIGIT = range(0x30, 0x39);
const ASCII_UPPER = range(0x41, 0x5a);
const ASCII_LOWER = range(0x61, 0x7a);
const ASCII_ALPHA = union(ASCII_UPPER, ASCII_LOWER);
const ASCII_ALNUM = union(ASCII_ALPHA, ASCII_DIGIT);
const ASCII_PUNCT = oneOf('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');
const ASCII_SPACE = oneOf(' \t\n\u000b\f\r');
const ASCII_WORD = union(ASCII_ALNUM, single(0x5f));

const ALPHABETIC = unicodeProperty('Alphabetic')!;
const WHITE_SPACE = unicodeProperty('White_Space')!;
const UNICODE_WORD = (() => {
  const marks = unicodeProperty('gc=M')!;
  const connector = gc('Pc');
  const join = unicodeProperty('Join_Control')!;
  return (cp: number) => ALPHABETIC(cp) || marks(cp) || DECIMAL_DIGIT(cp) || connector(cp) || join(cp);
})();

/** `\d`, `\s`, `\w` (ASCII, or Unicode under UNICODE_CHARACTER_CLASS, as Java). */
export function predefinedClass(letter: 'd' | 's' | 'w', unicode: boolean): CodePointTest {
  switch (letter) {
    case 'd':
      return unicode ? DECIMAL_DIGIT : ASCII_DIGIT;
    case 's':
      return unicode ? WHITE_SPACE : ASCII_SPACE;
    case 'w':
      return unicode ? UNICODE_WORD : ASCII_WORD;
  }
}

/** `\h`: Java's horizontal whitespace. */
export const HORIZONTAL_SPACE = oneOf(' \t\u00a0\u1680\u180e\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000');
/** `\v`: Java 8's vertical whitespace. */
export const VERTICAL_SPACE = oneOf('\n\u000b\f\r\u0085\u2028\u2029');

/** POSIX classes of java.util.regex (US-ASCII only, as Java without UNICODE_CHARACTER_CLASS). */
const POSIX: Readonly<Record<string, CodePointTest>> = {
  Lower: ASCII_LOWER,
  Upper: ASCII_UPPER,
  ASCII: range(0, 0x7f),
  Alpha: ASCII_ALPHA,
  Digit: ASCII_DIGIT,
  Alnum: ASCII_ALNUM,
  Punct: ASCII_PUNCT,
  Graph: union(ASCII_ALNUM, ASCII_PUNCT),
  Print: union(union(ASCII_ALNUM, ASCII_PUNCT), single(0x20)),
  Blank: oneOf(' \t'),
  Cntrl: union(range(0, 0x1f), single(0x7f)),
  XDigit: union(ASCII_DIGIT, union(range(0x41, 0x46), range(0x61, 0x66))),
  Space: ASCII_SPACE,
};

/** The same names under UNICODE_CHARACTER_CLASS (Pattern's javadoc table). */
const POSIX_UNICODE: Readonly<Record<string, string>> = {
  Lower: 'Lowercase',
  Upper: 'Uppercase',
  Alpha: 'Alphabetic',
  Digit: 'gc=Nd',
  Punct: 'gc=P',
  Space: 'White_Space',
  XDigit: 'Hex_Digit',
  Cntrl: 'gc=Cc',
};

/** java.lang.Character methods Pattern names `\p{javaX}`. */
const JAVA_METHODS: Readonly<Record<string, CodePointTest>> = {
  javaLowerCase: unicodeProperty('Lowercase')!,
  javaUpperCase: unicodeProperty('Uppercase')!,
  javaTitleCase: gc('Lt'),
  javaDigit: DECIMAL_DIGIT,
  javaLetter: LETTER,
  javaLetterOrDigit: union(LETTER, DECIMAL_DIGIT),
  javaAlphabetic: ALPHABETIC,
  javaIdeographic: unicodeProperty('Ideographic')!,
  javaSpaceChar: gc('Z'),
  javaWhitespace: (cp) =>
    (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x1f) || (gc('Z')(cp) && cp !== 0xa0 && cp !== 0x2007 && cp !== 0x202f),
  javaISOControl: union(range(0, 0x1f), range(0x7f, 0x9f)),
  javaDefined: unicodeProperty('Assigned')!,
  javaMirrored: unicodeProperty('Bidi_Mirrored')!,
};

/** Binary properties Pattern accepts as `\p{IsX}` (case-insensitive in Java), by their JavaScript names. */
const BINARY_PROPERTIES: Readonly<Record<string, string>> = {
  alphabetic: 'Alphabetic',
  ideographic: 'Ideographic',
  letter: 'gc=L',
  lowercase: 'Lowercase',
  uppercase: 'Uppercase',
  titlecase: 'gc=Lt',
  punctuation: 'gc=P',
  control: 'gc=Cc',
  white_space: 'White_Space',
  whitespace: 'White_Space',
  digit: 'gc=Nd',
  hex_digit: 'Hex_Digit',
  hexdigit: 'Hex_Digit',
  join_control: 'Join_Control',
  joincontrol: 'Join_Control',
  noncharacter_code_point: 'Noncharacter_Code_Point',
  noncharactercodepoint: 'Noncharacter_Code_Point',
  assigned: 'Assigned',
  emoji: 'Emoji',
};

function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
}

/**
 * The set `\p{name}` names in java.util.regex, or a description of why not
 * (Java's words: "Unknown character property name {x}"). Blocks (`InGreek`)
 * have no JavaScript equivalent and are refused.
 */
export function javaProperty(name: string, unicodeClasses: boolean): CodePointTest | string {
  const eq = name.indexOf('=');
  if (eq >= 0) {
    const key = name.slice(0, eq);
    const value = name.slice(eq + 1);
    if (key === 'gc' || key === 'general_category') return unicodeProperty(`gc=${value}`) ?? `Unknown Unicode property {name=<${key}>, value=<${value}>}`;
    if (key === 'sc' || key === 'script') return unicodeProperty(`sc=${value}`) ?? `Unknown character script name {${value}}`;
    return `Unknown Unicode property {name=<${key}>, value=<${value}>}`;
  }
  if (name.startsWith('In')) return `Unicode blocks are not supported: {${name}}`;
  if (name.startsWith('Is')) {
    const rest = name.slice(2);
    const binary = own(BINARY_PROPERTIES, rest.toLowerCase());
    if (binary !== undefined) return unicodeProperty(binary)!;
    return unicodeProperty(`gc=${rest}`) ?? unicodeProperty(`sc=${rest}`) ?? `Unknown character script name {${rest}}`;
  }
  if (name === 'all') return ALL;
  const posix = own(POSIX, name);
  if (posix !== undefined) {
    const u = unicodeClasses ? own(POSIX_UNICODE, name) : undefined;
    return u === undefined ? posix : unicodeProperty(u)!;
  }
  const method = own(JAVA_METHODS, name);
  if (method !== undefined) return method;
  if (name === 'LC') return unicodeProperty('gc=LC')!;
  return unicodeProperty(`gc=${name}`) ?? `Unknown character property name {${name}}`;
}

/** The other cases of a code point Java's CASE_INSENSITIVE compares with: ASCII only, or Unicode with UNICODE_CASE. */
export function caseVariants(cp: number, unicode: boolean): number[] {
  if (!unicode) {
    if (cp >= 0x41 && cp <= 0x5a) return [cp, cp + 32];
    if (cp >= 0x61 && cp <= 0x7a) return [cp, cp - 32];
    return [cp];
  }
  const out = [cp];
  const s = String.fromCodePoint(cp);
  for (const v of [s.toUpperCase(), s.toLowerCase()]) {
    const c = v.codePointAt(0)!;
    if (v.length === String.fromCodePoint(c).length && !out.includes(c)) out.push(c);
  }
  return out;
}

/** A set test made case-insensitive: a character is in when one of its cases is. */
export function caseInsensitive(test: CodePointTest, unicode: boolean): CodePointTest {
  return (cp) => {
    for (const v of caseVariants(cp, unicode)) if (test(v)) return true;
    return false;
  };
}
