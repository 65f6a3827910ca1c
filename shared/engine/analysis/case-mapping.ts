/**
 * Case mapping as Java's Character.toLowerCase(int) / toUpperCase(int) do it,
 * one code point at a time (Lucene's LowerCaseFilter, UpperCaseFilter and
 * LowerCaseTokenizer): never context-sensitive (no final sigma), never a
 * change of length (U+0130 lowercases to "i", not "i̇").
 */

let bmpLower: Uint16Array | null = null;
let bmpUpper: Uint16Array | null = null;

function firstCodePointMapping(cp: number, upper: boolean): number {
  const s = String.fromCodePoint(cp);
  const mapped = upper ? s.toUpperCase() : s.toLowerCase();
  const first = mapped.codePointAt(0)!;
  // A multi-character full mapping (ß → SS) has no simple mapping in Java when its first
  // character differs from a one-to-one case pair; Java keeps such characters unchanged.
  if (mapped.length > (first > 0xffff ? 2 : 1) && upper) return cp;
  return first;
}

function buildTable(upper: boolean): Uint16Array {
  const t = new Uint16Array(0x10000);
  for (let i = 0; i < 0x10000; i++) {
    if (i >= 0xd800 && i <= 0xdfff) {
      t[i] = i;
      continue;
    }
    const m = firstCodePointMapping(i, upper);
    t[i] = m > 0xffff ? i : m;
  }
  return t;
}

function lowerTable(): Uint16Array {
  if (bmpLower === null) bmpLower = buildTable(false);
  return bmpLower;
}

function upperTable(): Uint16Array {
  if (bmpUpper === null) bmpUpper = buildTable(true);
  return bmpUpper;
}

/** Character.toLowerCase(int). */
export function lowerCodePoint(cp: number): number {
  return cp < 0x10000 ? lowerTable()[cp]! : firstCodePointMapping(cp, false);
}

function mapString(s: string, upper: boolean): string {
  const table = upper ? upperTable() : lowerTable();
  let out = '';
  let changed = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const cp = s.codePointAt(i)!;
      const m = firstCodePointMapping(cp, upper);
      if (m !== cp) changed = true;
      out += String.fromCodePoint(m);
      i++;
      continue;
    }
    const m = table[c]!;
    if (m !== c) changed = true;
    out += String.fromCharCode(m);
  }
  return changed ? out : s;
}

/**
 * JavaScript's full case mapping agrees with Java's per-code-point mapping
 * except where it changes a string's length (İ → i̇, ß → SS) or looks at
 * context (final sigma); only those strings take the slow path.
 */
function hasFinalSigmaRisk(s: string): boolean {
  return s.indexOf('\u03a3') >= 0;
}

/** Lowercases a term as Lucene's LowerCaseFilter does. */
export function javaLowerCase(s: string): string {
  const lower = s.toLowerCase();
  if (lower.length === s.length && !hasFinalSigmaRisk(s)) return lower;
  return mapString(s, false);
}

/** Uppercases a term as Lucene's UpperCaseFilter does. */
export function javaUpperCase(s: string): string {
  const upper = s.toUpperCase();
  if (upper.length === s.length) return upper;
  return mapString(s, true);
}
