/**
 * The Snowball English stemmer ("Porter2", snowballstem.org/algorithms/english)
 * as Lucene 7's org.tartarus.snowball.ext.EnglishStemmer runs it for
 * Elasticsearch 6.8's `snowball` filter and analyzer and the `stemmer`
 * filter's `porter2` language. That generation of the algorithm knows three
 * R1 exceptions (gener, commun, arsen); later Snowball releases added more.
 *
 * Words are expected lowercased; vowels are a, e, i, o, u, y (a y at the
 * start or after a vowel is marked `Y` and counts as a consonant until the
 * end). Any other character is a non-vowel.
 *
 * The word is stemmed in one reused buffer: a call allocates nothing unless
 * the stem differs from a slice of the word (then one string).
 */

const APOSTROPHE = 0x27;
const A = 0x61;
const D = 0x64;
const E = 0x65;
const I = 0x69;
const L = 0x6c;
const O = 0x6f;
const S = 0x73;
const T = 0x74;
const U = 0x75;
const W = 0x77;
const X = 0x78;
const Y = 0x79;
const MARKED_Y = 0x59;

/** Whole words with a fixed stem, checked before anything else. */
const EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  ['skis', 'ski'],
  ['skies', 'sky'],
  ['dying', 'die'],
  ['lying', 'lie'],
  ['tying', 'tie'],
  ['idly', 'idl'],
  ['gently', 'gentl'],
  ['ugly', 'ugli'],
  ['early', 'earli'],
  ['only', 'onli'],
  ['singly', 'singl'],
  ['sky', 'sky'],
  ['news', 'news'],
  ['howe', 'howe'],
  ['atlas', 'atlas'],
  ['cosmos', 'cosmos'],
  ['bias', 'bias'],
  ['andes', 'andes'],
]);

/** Words left as they are once step 1a has run. */
const INVARIANT_AFTER_1A: readonly string[] = ['inning', 'outing', 'canning', 'herring', 'earring', 'proceed', 'exceed', 'succeed'];

/** Prefixes that end R1 wherever they stop (`generous` → R1 is `ous`). */
const R1_PREFIXES: readonly string[] = ['gener', 'commun', 'arsen'];

/**
 * A step's suffixes with what replaces each (`null` marks a suffix with its
 * own rule), looked up by the word's last letter and tried longest first, so
 * the first match is the longest (Snowball's `among`).
 */
class SuffixTable {
  readonly suffixes: readonly string[];
  readonly replacements: readonly (string | null)[];
  /** Indices of the suffixes ending in each ASCII letter, longest first. */
  private readonly byLastChar: (readonly number[] | undefined)[];

  constructor(entries: readonly (readonly [suffix: string, replacement: string | null])[]) {
    const sorted = [...entries].sort((x, y) => y[0].length - x[0].length);
    this.suffixes = sorted.map((e) => e[0]);
    this.replacements = sorted.map((e) => e[1]);
    const byLastChar: number[][] = [];
    sorted.forEach(([suffix], i) => (byLastChar[suffix.charCodeAt(suffix.length - 1)] ??= []).push(i));
    this.byLastChar = byLastChar;
  }

  /** The index of the longest suffix the word in the buffer ends with, or -1. */
  longestMatch(): number {
    if (len === 0) return -1;
    const candidates = this.byLastChar[b[len - 1]!];
    if (candidates === undefined) return -1;
    for (const i of candidates) if (endsWith(this.suffixes[i]!)) return i;
    return -1;
  }
}

const STEP_1B = new SuffixTable([
  ['eed', 'ee'], ['eedly', 'ee'],
  ['ed', null], ['edly', null], ['ing', null], ['ingly', null],
]);

const STEP_2 = new SuffixTable([
  ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['abli', 'able'], ['entli', 'ent'],
  ['izer', 'ize'], ['ization', 'ize'], ['ational', 'ate'], ['ation', 'ate'], ['ator', 'ate'],
  ['alism', 'al'], ['aliti', 'al'], ['alli', 'al'], ['fulness', 'ful'], ['ousli', 'ous'], ['ousness', 'ous'],
  ['iveness', 'ive'], ['iviti', 'ive'], ['biliti', 'ble'], ['bli', 'ble'], ['fulli', 'ful'], ['lessli', 'less'],
  // After l only.
  ['ogi', 'og'],
  // After c, d, e, g, h, k, m, n, r or t only.
  ['li', ''],
]);

const STEP_3 = new SuffixTable([
  ['tional', 'tion'], ['ational', 'ate'], ['alize', 'al'], ['icate', 'ic'], ['iciti', 'ic'], ['ical', 'ic'],
  ['ful', ''], ['ness', ''],
  // Only in R2.
  ['ative', null],
]);

const STEP_4 = new SuffixTable([
  ['al', ''], ['ance', ''], ['ence', ''], ['er', ''], ['ic', ''], ['able', ''], ['ible', ''], ['ant', ''],
  ['ement', ''], ['ment', ''], ['ent', ''], ['ism', ''], ['ate', ''], ['iti', ''], ['ous', ''], ['ive', ''], ['ize', ''],
  // After s or t only.
  ['ion', null],
]);

let b = new Uint16Array(64);
/** Length of the word in `b`. */
let len = 0;
/** Start of R1 and R2 (the length of the word when empty). */
let p1 = 0;
let p2 = 0;

function isVowel(c: number | undefined): boolean {
  return c === A || c === E || c === I || c === O || c === U || c === Y;
}

/** A non-vowel other than w, x and a marked Y (what may end a short syllable). */
function isShortSyllableEnd(c: number | undefined): boolean {
  return !isVowel(c) && c !== W && c !== X && c !== MARKED_Y;
}

/** Position just after the first non-vowel that follows a vowel, searching from `from`; `len` if none. */
function regionStart(from: number): number {
  let i = from;
  while (i < len && !isVowel(b[i])) i++;
  while (i < len && isVowel(b[i])) i++;
  return i < len ? i + 1 : len;
}

/** b[0..end) ends in a short syllable. */
function endsShortSyllable(end: number): boolean {
  if (end >= 3) return isShortSyllableEnd(b[end - 1]) && isVowel(b[end - 2]) && !isVowel(b[end - 3]);
  return end === 2 && isVowel(b[0]) && !isVowel(b[1]);
}

function hasPrefix(prefix: string): boolean {
  if (prefix.length > len) return false;
  for (let i = 0; i < prefix.length; i++) if (b[i] !== prefix.charCodeAt(i)) return false;
  return true;
}

function endsWith(suffix: string): boolean {
  const n = suffix.length;
  if (n > len) return false;
  // From the end: most candidates differ in their last letter.
  const start = len - n;
  for (let i = n - 1; i >= 0; i--) if (b[start + i] !== suffix.charCodeAt(i)) return false;
  return true;
}

/** Replaces the last `n` characters with `s`. */
function replaceEnd(n: number, s: string): void {
  const start = len - n;
  for (let i = 0; i < s.length; i++) b[start + i] = s.charCodeAt(i);
  len = start + s.length;
}

function hasVowelBefore(end: number): boolean {
  for (let i = 0; i < end; i++) if (isVowel(b[i])) return true;
  return false;
}

function isWord(w: string): boolean {
  return w.length === len && hasPrefix(w);
}

function isInvariantAfter1a(): boolean {
  return (len === 6 || len === 7) && INVARIANT_AFTER_1A.some(isWord);
}

/** Marks y at the start or after a vowel as consonant `Y`; true if any was marked. */
function markConsonantYs(): boolean {
  let found = false;
  for (let i = 0; i < len; i++) {
    if (b[i] === Y && (i === 0 || isVowel(b[i - 1]))) {
      b[i] = MARKED_Y;
      found = true;
    }
  }
  return found;
}

function markRegions(): void {
  p1 = -1;
  for (const prefix of R1_PREFIXES) {
    if (hasPrefix(prefix)) {
      p1 = prefix.length;
      break;
    }
  }
  if (p1 < 0) p1 = regionStart(0);
  p2 = p1 < len ? regionStart(p1) : len;
}

/** Step 1a: possessive apostrophes, then -sses, -ied/-ies, -s. */
function step1a(): void {
  if (b[len - 1] === APOSTROPHE) len -= endsWith("'s'") ? 3 : 1;
  else if (endsWith("'s")) len -= 2;
  if (len === 0) return;
  const last = b[len - 1];
  if (last === D) {
    if (endsWith('ied')) replaceIesOrIed();
  } else if (last === S) {
    if (endsWith('sses')) {
      len -= 2;
    } else if (endsWith('ies')) {
      replaceIesOrIed();
    } else if (len >= 2 && (b[len - 2] === S || b[len - 2] === U)) {
      // -ss and -us stay.
    } else if (hasVowelBefore(len - 2)) {
      // The s goes when a vowel comes earlier than just before it (gaps → gap, gas stays).
      len -= 1;
    }
  }
}

/** -ied, -ies: -i after two or more letters (cries → cri), else -ie (ties → tie). */
function replaceIesOrIed(): void {
  replaceEnd(3, len - 3 >= 2 ? 'i' : 'ie');
}

/** Step 1b: -eed(ly) in R1 to -ee; -ed(ly), -ing(ly) after a vowel go, then the stem is tidied. */
function step1b(): void {
  const hit = STEP_1B.longestMatch();
  if (hit < 0) return;
  const suffix = STEP_1B.suffixes[hit]!;
  const replacement = STEP_1B.replacements[hit] ?? null;
  const start = len - suffix.length;
  if (replacement !== null) {
    if (start >= p1) replaceEnd(suffix.length, replacement);
    return;
  }
  if (!hasVowelBefore(start)) return;
  len = start;
  if (endsWith('at') || endsWith('bl') || endsWith('iz')) {
    replaceEnd(0, 'e');
  } else if (endsDoubled()) {
    len -= 1;
  } else if (len === p1 && endsShortSyllable(len)) {
    // A short word (R1 empty, short last syllable): hop(p)ing → hope.
    replaceEnd(0, 'e');
  }
}

/** Ends in bb, dd, ff, gg, mm, nn, pp, rr or tt. */
function endsDoubled(): boolean {
  if (len < 2) return false;
  const c = b[len - 1];
  if (c !== b[len - 2]) return false;
  return c === 0x62 || c === 0x64 || c === 0x66 || c === 0x67 || c === 0x6d || c === 0x6e || c === 0x70 || c === 0x72 || c === T;
}

/** Step 1c: a final y (or Y) after a non-vowel that is not the first letter becomes i. */
function step1c(): void {
  if (len < 3) return;
  const last = b[len - 1];
  if ((last === Y || last === MARKED_Y) && !isVowel(b[len - 2])) b[len - 1] = I;
}

/** Characters after which a final -li is deleted in step 2. */
function isValidLiEnding(c: number | undefined): boolean {
  // c d e g h k m n r t
  return c === 0x63 || c === 0x64 || c === E || c === 0x67 || c === 0x68 || c === 0x6b || c === 0x6d || c === 0x6e || c === 0x72 || c === T;
}

function step2(): void {
  const hit = STEP_2.longestMatch();
  if (hit < 0) return;
  const suffix = STEP_2.suffixes[hit]!;
  const replacement = STEP_2.replacements[hit] ?? null;
  const start = len - suffix.length;
  if (start < p1) return;
  if (suffix === 'ogi' && b[start - 1] !== L) return;
  if (suffix === 'li' && !isValidLiEnding(b[start - 1])) return;
  replaceEnd(suffix.length, replacement!);
}

function step3(): void {
  const hit = STEP_3.longestMatch();
  if (hit < 0) return;
  const suffix = STEP_3.suffixes[hit]!;
  const replacement = STEP_3.replacements[hit] ?? null;
  const start = len - suffix.length;
  if (start < p1) return;
  if (replacement === null) {
    if (start >= p2) len = start;
    return;
  }
  replaceEnd(suffix.length, replacement);
}

function step4(): void {
  const hit = STEP_4.longestMatch();
  if (hit < 0) return;
  const suffix = STEP_4.suffixes[hit]!;
  const replacement = STEP_4.replacements[hit] ?? null;
  const start = len - suffix.length;
  if (start < p2) return;
  if (replacement === null) {
    const before = b[start - 1];
    if (before !== S && before !== T) return;
  }
  len = start;
}

/** Step 5: a final e in R2, or in R1 after no short syllable; a final l in R2 after l. */
function step5(): void {
  const last = b[len - 1];
  const start = len - 1;
  if (last === E) {
    if (start >= p2 || (start >= p1 && !endsShortSyllable(start))) len = start;
  } else if (last === L) {
    if (start >= p2 && b[start - 1] === L) len = start;
  }
}

/** The Snowball English stem of `word` (the word itself when nothing applies). */
export function snowballEnglishStem(word: string): string {
  if (word.length < 3) return word;
  const exception = EXCEPTIONS.get(word);
  if (exception !== undefined) return exception;

  const skip = word.charCodeAt(0) === APOSTROPHE ? 1 : 0;
  len = word.length - skip;
  if (b.length < len) b = new Uint16Array(Math.max(len, b.length * 2));
  for (let i = 0; i < len; i++) b[i] = word.charCodeAt(skip + i);
  const markedY = markConsonantYs();
  markRegions();

  if (len > 0) step1a();
  if (!isInvariantAfter1a()) {
    step1b();
    step1c();
    step2();
    step3();
    step4();
    if (len > 0) step5();
  }

  if (markedY) {
    for (let i = 0; i < len; i++) if (b[i] === MARKED_Y) b[i] = Y;
  }
  return stemOf(word, skip);
}

/** b[0..len) as a string, sharing `word` (from `skip`) where they agree. */
function stemOf(word: string, skip: number): string {
  let same = 0;
  const limit = Math.min(len, word.length - skip);
  while (same < limit && b[same] === word.charCodeAt(skip + same)) same++;
  if (same === len) return skip === 0 && len === word.length ? word : word.slice(skip, skip + len);
  let out = word.slice(skip, skip + same);
  for (let i = same; i < len; i++) out += String.fromCharCode(b[i]!);
  return out;
}
