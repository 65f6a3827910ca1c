/**
 * Fuzzy term expansion (Lucene's FuzzyQuery and FuzzyTermsEnum): the terms of
 * a field within `maxEdits` Levenshtein edits of a query term (a swap of two
 * neighbouring characters counts as one edit with transpositions), sharing
 * its first `prefixLength` characters; at most `maxExpansions` of them,
 * the most similar first (similarity 1 - edits / min(length)), then in term
 * order. Distances are computed on code points with a bounded dynamic
 * program that stops as soon as a row exceeds `maxEdits`, so a term costs
 * O(length × maxEdits) at most, and terms whose length alone rules them out
 * are skipped without it.
 */
import type { SearcherSnapshot } from '../segment/types.ts';

export interface FuzzySpec {
  readonly field: string;
  readonly term: string;
  readonly maxEdits: number;
  readonly prefixLength: number;
  readonly maxExpansions: number;
  readonly transpositions: boolean;
}

export interface FuzzyTerm {
  readonly term: string;
  /** Lucene's per-term boost: 1 - edits / min(term length, query length). */
  readonly boost: number;
}

/** Edit distance of `a` and `b` (code point arrays), or maxEdits + 1 once it is known to exceed it. */
export function boundedEditDistance(a: readonly number[], b: readonly number[], maxEdits: number, transpositions: boolean): number {
  if (Math.abs(a.length - b.length) > maxEdits) return maxEdits + 1;
  const row = lastEditRow(a, b, b.length, maxEdits, transpositions);
  return row === null ? maxEdits + 1 : row[b.length]!;
}

/** The fewest edits turning `prefix` into some start of `key` (a completion's fuzzy prefix), or maxEdits + 1 once it exceeds it. */
export function boundedPrefixEditDistance(prefix: readonly number[], key: readonly number[], maxEdits: number, transpositions: boolean): number {
  const m = Math.min(key.length, prefix.length + maxEdits);
  const row = lastEditRow(prefix, key, m, maxEdits, transpositions);
  if (row === null) return maxEdits + 1;
  let best = maxEdits + 1;
  for (let j = 0; j <= m; j++) if (row[j]! < best) best = row[j]!;
  return best;
}

/**
 * The last row of the (Damerau-)Levenshtein table of `a` against the first
 * `m` code points of `b`: row[j] is the distance of `a` and b[0, j). Null
 * once a whole row exceeds maxEdits (no cell can come back under it).
 */
function lastEditRow(a: readonly number[], b: readonly number[], m: number, maxEdits: number, transpositions: boolean): Int32Array | null {
  const n = a.length;
  let prevPrev = new Int32Array(m + 1);
  let prev = new Int32Array(m + 1);
  let cur = new Int32Array(m + 1);
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (transpositions && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prevPrev[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > maxEdits) return null;
    const t = prevPrev;
    prevPrev = prev;
    prev = cur;
    cur = t;
  }
  return prev;
}

function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const c of s) out.push(c.codePointAt(0)!);
  return out;
}

/** The expansion of a fuzzy term over every segment of a snapshot (one rewrite per shard, as Lucene's). */
export function expandFuzzy(snapshot: SearcherSnapshot, spec: FuzzySpec): FuzzyTerm[] {
  const query = codePoints(spec.term);
  const prefixCps = query.slice(0, Math.min(spec.prefixLength, query.length));
  const prefix = String.fromCodePoint(...prefixCps);
  const rest = query.slice(prefixCps.length);
  const found = new Map<string, number>();
  for (const view of snapshot.views) {
    const inv = view.segment.inverted.get(spec.field);
    if (inv === undefined) continue;
    const dict = inv.terms;
    for (let t = prefix === '' ? 0 : dict.lowerBound(prefix); t < dict.length; t++) {
      if (prefix !== '' && !dict.startsWith(t, prefix)) break;
      const text = dict.get(t);
      if (found.has(text)) continue;
      const cps = codePoints(text);
      if (Math.abs(cps.length - query.length) > spec.maxEdits) continue;
      const ed = boundedEditDistance(rest, cps.slice(prefixCps.length), spec.maxEdits, spec.transpositions);
      if (ed > spec.maxEdits) continue;
      const boost = ed === 0 ? 1 : Math.fround(1 - ed / Math.min(cps.length, query.length));
      found.set(text, boost);
    }
  }
  return [...found]
    .map(([term, boost]) => ({ term, boost }))
    .sort((a, b) => b.boost - a.boost || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0))
    .slice(0, spec.maxExpansions);
}
