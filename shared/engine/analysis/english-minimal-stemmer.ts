/**
 * Lucene's EnglishMinimalStemmer, Harman's "S-stemmer" ("How effective is
 * suffixing?", 1991), the `stemmer` filter's `minimal_english` language. It
 * undoes plurals only: -ies becomes -y (not after a or e), otherwise a final
 * s goes, except after u or s and in -aes, -ees, -ies and -oes.
 */

const A = 0x61;
const E = 0x65;
const I = 0x69;
const O = 0x6f;
const S = 0x73;
const U = 0x75;

export function englishMinimalStem(word: string): string {
  const len = word.length;
  if (len < 3 || word.charCodeAt(len - 1) !== S) return word;
  const beforeS = word.charCodeAt(len - 2);
  if (beforeS === U || beforeS === S) return word;
  if (beforeS === E) {
    const third = word.charCodeAt(len - 3);
    if (len > 3 && third === I) {
      const fourth = word.charCodeAt(len - 4);
      if (fourth !== A && fourth !== E) return `${word.slice(0, len - 3)}y`;
    }
    if (third === I || third === A || third === O || third === E) return word;
  }
  return word.slice(0, len - 1);
}
