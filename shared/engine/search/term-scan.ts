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
  readonly regex: RegExp;
}

/** Lucene's WildcardQuery syntax: `*` any run, `?` one character, `\` escapes. */
export function compileWildcard(pattern: string): CompiledWildcard {
  let prefix = '';
  let literal = true;
  let src = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      const next = pattern[++i]!;
      src += next.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      if (literal) prefix += next;
    } else if (c === '*') {
      src += '[\\s\\S]*';
      literal = false;
    } else if (c === '?') {
      src += '[\\s\\S]';
      literal = false;
    } else {
      src += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      if (literal) prefix += c;
    }
  }
  return { prefix, regex: new RegExp(src + '$', 'u') };
}

export function termIdsMatching(terms: TermDictionary, w: CompiledWildcard): number[] {
  const out: number[] = [];
  for (let i = terms.lowerBound(w.prefix); i < terms.length && terms.startsWith(i, w.prefix); i++) {
    if (w.regex.test(terms.get(i))) out.push(i);
  }
  return out;
}
