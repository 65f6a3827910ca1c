/**
 * The Porter stemming algorithm (M. F. Porter, "An algorithm for suffix
 * stripping", 1980; snowballstem.org/algorithms/porter) as Lucene's
 * PorterStemmer runs it for Elasticsearch's `porter_stem` filter, the
 * `stemmer` filter's `english`/`porter` languages and the `english` analyzer.
 *
 * That is Porter's own reference implementation, which departs from the
 * published description in three small ways, kept here:
 *  - words of one or two letters are left alone;
 *  - step 2 maps `bli` to `ble` (the paper: `abli` to `able`);
 *  - step 2 also maps `logi` to `log` (`analogi` → `analog`).
 *
 * Words are expected lowercased; only a, e, i, o, u (and y after a
 * consonant) are vowels, so any other character is a consonant.
 *
 * The word is stemmed in one reused buffer: a call allocates nothing unless
 * the stem differs from a prefix of the word (then one string).
 */

const A = 0x61;
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
const Z = 0x7a;
const C = 0x63;
const G = 0x67;
const N = 0x6e;
const V = 0x76;

/** The word being stemmed; `k` is the index of its last character. */
let b = new Uint16Array(64);
let k = 0;
/** After a successful `ends`: the index of the last character before the suffix (-1 if none). */
let j = 0;

/** True when b[i] is a consonant: not a, e, i, o, u, and not a y that follows a consonant. */
function cons(i: number): boolean {
  switch (b[i]) {
    case A:
    case E:
    case I:
    case O:
    case U:
      return false;
    case Y:
      return i === 0 ? true : !cons(i - 1);
    default:
      return true;
  }
}

/** The measure m of b[0..j]: the number of vowel-consonant sequences in [C](VC)^m[V]. */
function measure(): number {
  let n = 0;
  let i = 0;
  while (i <= j && cons(i)) i++;
  while (i <= j) {
    while (i <= j && !cons(i)) i++;
    if (i > j) return n;
    n++;
    while (i <= j && cons(i)) i++;
  }
  return n;
}

/** b[0..j] contains a vowel. */
function vowelInStem(): boolean {
  for (let i = 0; i <= j; i++) if (!cons(i)) return true;
  return false;
}

/** b[i-1..i] is a double consonant. */
function doubleCons(i: number): boolean {
  return i >= 1 && b[i] === b[i - 1] && cons(i);
}

/** b[i-2..i] is consonant-vowel-consonant and the last is not w, x or y (`hop`, not `how`). */
function cvc(i: number): boolean {
  if (i < 2 || !cons(i) || cons(i - 1) || !cons(i - 2)) return false;
  const ch = b[i];
  return ch !== W && ch !== X && ch !== Y;
}

/** The word b[0..k] ends with `suffix`; sets `j` to just before it. */
function ends(suffix: string): boolean {
  const len = suffix.length;
  const start = k - len + 1;
  if (start < 0) return false;
  for (let i = 0; i < len; i++) if (b[start + i] !== suffix.charCodeAt(i)) return false;
  j = k - len;
  return true;
}

/** Replaces what follows b[j] by `s`. */
function setTo(s: string): void {
  const len = s.length;
  for (let i = 0; i < len; i++) b[j + 1 + i] = s.charCodeAt(i);
  k = j + len;
}

/** `setTo(s)` when the stem before the suffix has m > 0. */
function replaceIfMeasured(s: string): void {
  if (measure() > 0) setTo(s);
}

/** Step 1a (plurals) and 1b (-ed, -ing). */
function step1ab(): void {
  if (b[k] === S) {
    if (ends('sses')) k -= 2;
    else if (ends('ies')) setTo('i');
    else if (b[k - 1] !== S) k--;
  }
  if (ends('eed')) {
    if (measure() > 0) k--;
  } else if ((ends('ed') || ends('ing')) && vowelInStem()) {
    k = j;
    if (ends('at')) setTo('ate');
    else if (ends('bl')) setTo('ble');
    else if (ends('iz')) setTo('ize');
    else if (doubleCons(k)) {
      const ch = b[k];
      if (ch !== L && ch !== S && ch !== Z) k--;
    } else if (measure() === 1 && cvc(k)) {
      setTo('e');
    }
  }
}

/** Step 1c: a final y becomes i when the stem has another vowel. */
function step1c(): void {
  if (ends('y') && vowelInStem()) b[k] = I;
}

/** Step 2: double suffixes to single ones (-ization → -ize), when m > 0. Only the first match of a group is tried. */
function step2(): void {
  if (k === 0) return;
  switch (b[k - 1]) {
    case A:
      if (ends('ational')) replaceIfMeasured('ate');
      else if (ends('tional')) replaceIfMeasured('tion');
      return;
    case C:
      if (ends('enci')) replaceIfMeasured('ence');
      else if (ends('anci')) replaceIfMeasured('ance');
      return;
    case E:
      if (ends('izer')) replaceIfMeasured('ize');
      return;
    case L:
      if (ends('bli')) replaceIfMeasured('ble');
      else if (ends('alli')) replaceIfMeasured('al');
      else if (ends('entli')) replaceIfMeasured('ent');
      else if (ends('eli')) replaceIfMeasured('e');
      else if (ends('ousli')) replaceIfMeasured('ous');
      return;
    case O:
      if (ends('ization')) replaceIfMeasured('ize');
      else if (ends('ation')) replaceIfMeasured('ate');
      else if (ends('ator')) replaceIfMeasured('ate');
      return;
    case S:
      if (ends('alism')) replaceIfMeasured('al');
      else if (ends('iveness')) replaceIfMeasured('ive');
      else if (ends('fulness')) replaceIfMeasured('ful');
      else if (ends('ousness')) replaceIfMeasured('ous');
      return;
    case T:
      if (ends('aliti')) replaceIfMeasured('al');
      else if (ends('iviti')) replaceIfMeasured('ive');
      else if (ends('biliti')) replaceIfMeasured('ble');
      return;
    case G:
      if (ends('logi')) replaceIfMeasured('log');
      return;
    default:
      return;
  }
}

/** Step 3: -ic-, -full, -ness etc., when m > 0. */
function step3(): void {
  switch (b[k]) {
    case E:
      if (ends('icate')) replaceIfMeasured('ic');
      else if (ends('ative')) replaceIfMeasured('');
      else if (ends('alize')) replaceIfMeasured('al');
      return;
    case I:
      if (ends('iciti')) replaceIfMeasured('ic');
      return;
    case L:
      if (ends('ical')) replaceIfMeasured('ic');
      else if (ends('ful')) replaceIfMeasured('');
      return;
    case S:
      if (ends('ness')) replaceIfMeasured('');
      return;
    default:
      return;
  }
}

/** Step 4: removes -ant, -ence etc. when the stem before it has m > 1. */
function step4(): void {
  if (k === 0) return;
  switch (b[k - 1]) {
    case A:
      if (ends('al')) break;
      return;
    case C:
      if (ends('ance') || ends('ence')) break;
      return;
    case E:
      if (ends('er')) break;
      return;
    case I:
      if (ends('ic')) break;
      return;
    case L:
      if (ends('able') || ends('ible')) break;
      return;
    case N:
      if (ends('ant') || ends('ement') || ends('ment') || ends('ent')) break;
      return;
    case O:
      if (ends('ion') && j >= 0 && (b[j] === S || b[j] === T)) break;
      if (ends('ou')) break;
      return;
    case S:
      if (ends('ism')) break;
      return;
    case T:
      if (ends('ate') || ends('iti')) break;
      return;
    case U:
      if (ends('ous')) break;
      return;
    case V:
      if (ends('ive')) break;
      return;
    case Z:
      if (ends('ize')) break;
      return;
    default:
      return;
  }
  if (measure() > 1) k = j;
}

/** Step 5: a final -e when m > 1 (or m = 1 and not *o), and -ll to -l when m > 1. */
function step5(): void {
  j = k;
  if (b[k] === E) {
    const m = measure();
    if (m > 1 || (m === 1 && !cvc(k - 1))) k--;
  }
  if (b[k] === L && doubleCons(k) && measure() > 1) k--;
}

/** The Porter stem of `word` (the word itself when nothing applies). */
export function porterStem(word: string): string {
  const len = word.length;
  if (len <= 2) return word;
  if (b.length < len) b = new Uint16Array(Math.max(len, b.length * 2));
  for (let i = 0; i < len; i++) b[i] = word.charCodeAt(i);
  k = len - 1;
  j = 0;
  step1ab();
  step1c();
  step2();
  step3();
  step4();
  step5();
  return stemOf(word, k + 1);
}

/** b[0..end) as a string, sharing `word` where they agree. */
function stemOf(word: string, end: number): string {
  let same = 0;
  const limit = Math.min(end, word.length);
  while (same < limit && b[same] === word.charCodeAt(same)) same++;
  if (same === end) return end === word.length ? word : word.slice(0, end);
  let out = word.slice(0, same);
  for (let i = same; i < end; i++) out += String.fromCharCode(b[i]!);
  return out;
}
