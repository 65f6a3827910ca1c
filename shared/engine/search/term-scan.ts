/**
 * Multi-term expansion over a segment's sorted term list (Lucene's
 * MultiTermQuery rewrite, constant score): prefix and range by binary search
 * for the boundaries, wildcard by scanning the range of its literal prefix.
 */
import type { TermDictionary } from '../segment/types.ts';

/** First index i with terms[i] > key. */
function upperBound(terms: TermDictionary, key: string): number {
  let lo = 0;
  let hi = terms.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (terms.compare(mid, key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function termIdsForPrefix(terms: TermDictionary, prefix: string): number[] {
  const out: number[] = [];
  for (let i = terms.lowerBound(prefix); i < terms.length && terms.startsWith(i, prefix); i++) out.push(i);
  return out;
}

export function termIdsForRange(
  terms: TermDictionary,
  lower: string | null,
  upper: string | null,
  includeLower: boolean,
  includeUpper: boolean,
): number[] {
  const from = lower === null ? 0 : includeLower ? terms.lowerBound(lower) : upperBound(terms, lower);
  const to = upper === null ? terms.length : includeUpper ? upperBound(terms, upper) : terms.lowerBound(upper);
  const out: number[] = [];
  for (let i = from; i < to; i++) out.push(i);
  return out;
}

export interface CompiledWildcard {
  /** The literal text before the first `*` or `?`. */
  readonly prefix: string;
  /** The pattern as code points, `STAR` for `*` and `ANY` for `?` (escaped ones are literals). */
  readonly units: Int32Array;
}

const STAR = -1;
const ANY = -2;

/** Lucene's WildcardQuery syntax: `*` any run, `?` one character, `\` escapes. */
export function compileWildcard(pattern: string): CompiledWildcard {
  let prefix = '';
  let literal = true;
  const units: number[] = [];
  const cps = Array.from(pattern);
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    if (c === '\\' && i + 1 < cps.length) {
      const next = cps[++i]!;
      units.push(next.codePointAt(0)!);
      if (literal) prefix += next;
    } else if (c === '*') {
      // `**` is `*`.
      if (units[units.length - 1] !== STAR) units.push(STAR);
      literal = false;
    } else if (c === '?') {
      units.push(ANY);
      literal = false;
    } else {
      units.push(c.codePointAt(0)!);
      if (literal) prefix += c;
    }
  }
  return { prefix, units: Int32Array.from(units) };
}

/**
 * Whether `text` matches the pattern. Not a regular expression: a backtracking
 * engine took 19.7 s for `*a*a*a*a*b` against a 200-character term. This is
 * the two-pointer glob match (on a mismatch only the last `*` is retried), at
 * most pattern length × text length steps, as a linear automaton run would be
 * after Lucene determinizes it.
 */
export function wildcardMatches(w: CompiledWildcard, text: string): boolean {
  const p = w.units;
  const t: number[] = [];
  for (const ch of text) t.push(ch.codePointAt(0)!);
  let pi = 0;
  let ti = 0;
  let starAt = -1;
  let starText = 0;
  while (ti < t.length) {
    if (pi < p.length && (p[pi] === ANY || p[pi] === t[ti])) {
      pi++;
      ti++;
    } else if (pi < p.length && p[pi] === STAR) {
      starAt = pi++;
      starText = ti;
    } else if (starAt >= 0) {
      pi = starAt + 1;
      ti = ++starText;
    } else {
      return false;
    }
  }
  while (pi < p.length && p[pi] === STAR) pi++;
  return pi === p.length;
}

/** Every term a predicate accepts (a regular expression: no literal prefix is known, so the whole dictionary is read). */
export function termIdsWhere(terms: TermDictionary, accepts: (term: string) => boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < terms.length; i++) if (accepts(terms.get(i))) out.push(i);
  return out;
}

export function termIdsMatching(terms: TermDictionary, w: CompiledWildcard): number[] {
  const out: number[] = [];
  for (let i = terms.lowerBound(w.prefix); i < terms.length && terms.startsWith(i, w.prefix); i++) {
    if (wildcardMatches(w, terms.get(i))) out.push(i);
  }
  return out;
}
