/**
 * The string distances a term suggester may rank candidates by (Lucene's
 * spell package, as Elasticsearch's `string_distance` names them): each is a
 * similarity in [0, 1], 1 for equal strings, computed in float as Lucene's.
 * `internal` is not here: it is the fuzzy enumeration's own boost
 * (direct-spellchecker.ts).
 */
import type { StringDistanceName } from './types.ts';

export type StringDistance = (a: string, b: string) => number;

function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const c of s) out.push(c.codePointAt(0)!);
  return out;
}

/** LuceneLevenshteinDistance: Damerau-Levenshtein (a swap is one edit) over code points, over the shorter length. */
export function damerauLevenshtein(target: string, other: string): number {
  const a = codePoints(target);
  const b = codePoints(other);
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return n === m ? 1 : 0;
  const d: Int32Array[] = [];
  for (let i = 0; i <= n; i++) d.push(new Int32Array(m + 1));
  for (let i = 0; i <= n; i++) d[i]![0] = i;
  for (let j = 0; j <= m; j++) d[0]![j] = j;
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + cost);
      d[i]![j] = v;
    }
  }
  return Math.fround(1 - Math.fround(d[n]![m]! / Math.min(m, n)));
}

/** LevenshteinDistance: plain edits over UTF-16 units, over the longer length. */
export function levenshtein(target: string, other: string): number {
  const n = target.length;
  const m = other.length;
  if (n === 0 || m === 0) return n === m ? 1 : 0;
  let p = new Int32Array(n + 1);
  let d = new Int32Array(n + 1);
  for (let i = 0; i <= n; i++) p[i] = i;
  for (let j = 1; j <= m; j++) {
    const tj = other.charCodeAt(j - 1);
    d[0] = j;
    for (let i = 1; i <= n; i++) {
      const cost = target.charCodeAt(i - 1) === tj ? 0 : 1;
      d[i] = Math.min(d[i - 1]! + 1, p[i]! + 1, p[i - 1]! + cost);
    }
    const t = p;
    p = d;
    d = t;
  }
  return Math.fround(1 - Math.fround(p[n]! / Math.max(m, n)));
}

/** JaroWinklerDistance with Lucene's threshold of 0.7. */
export function jaroWinkler(s1: string, s2: string): number {
  const [max, min] = s1.length > s2.length ? [s1, s2] : [s2, s1];
  const range = Math.max(Math.floor(max.length / 2) - 1, 0);
  const matchIndexes = new Int32Array(min.length).fill(-1);
  const matchFlags = new Uint8Array(max.length);
  let matches = 0;
  for (let mi = 0; mi < min.length; mi++) {
    const c1 = min.charCodeAt(mi);
    for (let xi = Math.max(mi - range, 0), xn = Math.min(mi + range + 1, max.length); xi < xn; xi++) {
      if (matchFlags[xi] === 0 && c1 === max.charCodeAt(xi)) {
        matchIndexes[mi] = xi;
        matchFlags[xi] = 1;
        matches++;
        break;
      }
    }
  }
  if (matches === 0) return 0;
  const ms1: number[] = [];
  const ms2: number[] = [];
  for (let i = 0; i < min.length; i++) if (matchIndexes[i] !== -1) ms1.push(min.charCodeAt(i));
  for (let i = 0; i < max.length; i++) if (matchFlags[i] === 1) ms2.push(max.charCodeAt(i));
  let transpositions = 0;
  for (let i = 0; i < ms1.length; i++) if (ms1[i] !== ms2[i]) transpositions++;
  let prefix = 0;
  for (let i = 0; i < min.length; i++) {
    if (s1.charCodeAt(i) === s2.charCodeAt(i)) prefix++;
    else break;
  }
  const m = Math.fround(matches);
  const t = Math.floor(transpositions / 2);
  const j = Math.fround(Math.fround(Math.fround(m / s1.length) + Math.fround(m / s2.length) + Math.fround((m - t) / m)) / 3);
  return j < 0.7 ? j : Math.fround(j + Math.fround(Math.min(0.1, Math.fround(1 / max.length)) * prefix * (1 - j)));
}

/** NGramDistance (n = 2, Kondrak's n-gram edit distance with a padded start). */
export function ngramDistance(source: string, target: string, n = 2): number {
  const sl = source.length;
  const tl = target.length;
  if (sl === 0 || tl === 0) return sl === tl ? 1 : 0;
  if (sl < n || tl < n) {
    let cost = 0;
    for (let i = 0, ni = Math.min(sl, tl); i < ni; i++) if (source.charCodeAt(i) === target.charCodeAt(i)) cost++;
    return Math.fround(cost / Math.max(sl, tl));
  }
  const sa = new Uint16Array(sl + n - 1);
  for (let i = 0; i < sa.length; i++) sa[i] = i < n - 1 ? 0 : source.charCodeAt(i - n + 1);
  let p = new Float32Array(sl + 1);
  let d = new Float32Array(sl + 1);
  const tj = new Uint16Array(n);
  for (let i = 0; i <= sl; i++) p[i] = i;
  for (let j = 1; j <= tl; j++) {
    if (j < n) {
      for (let ti = 0; ti < n - j; ti++) tj[ti] = 0;
      for (let ti = n - j; ti < n; ti++) tj[ti] = target.charCodeAt(ti - (n - j));
    } else {
      for (let ti = 0; ti < n; ti++) tj[ti] = target.charCodeAt(j - n + ti);
    }
    d[0] = j;
    for (let i = 1; i <= sl; i++) {
      let cost = 0;
      let tn = n;
      for (let ni = 0; ni < n; ni++) {
        if (sa[i - 1 + ni] !== tj[ni]) cost++;
        else if (sa[i - 1 + ni] === 0) tn--;
      }
      const ec = Math.fround(cost / tn);
      d[i] = Math.min(Math.min(d[i - 1]! + 1, p[i]! + 1), p[i - 1]! + ec);
    }
    const t = p;
    p = d;
    d = t;
  }
  return Math.fround(1 - Math.fround(p[sl]! / Math.max(tl, sl)));
}

/** The distance a name stands for; null for `internal` (the enumeration's boost). */
export function stringDistance(name: StringDistanceName): StringDistance | null {
  switch (name) {
    case 'internal':
      return null;
    case 'damerau_levenshtein':
      return damerauLevenshtein;
    case 'levenshtein':
      return levenshtein;
    case 'jaro_winkler':
      return jaroWinkler;
    case 'ngram':
      return (a, b) => ngramDistance(a, b);
  }
}
