/**
 * Lucene's DirectSpellChecker over one shard's segments: the terms of a field
 * within `max_edits` of a word (a swap of neighbouring letters is one edit),
 * sharing its first `prefix_length` characters, scored by similarity and
 * filtered by document frequency as `suggest_mode` asks. Edits are computed
 * by the bounded dynamic program of fuzzy-terms.ts over the dictionary
 * entries that share the prefix, so only that range of each segment's
 * dictionary is read.
 */
import type { SearcherSnapshot } from '../segment/types.ts';
import { boundedEditDistance } from '../search/fuzzy-terms.ts';
import { stringDistance } from './string-distance.ts';
import type { SpellcheckSettings, SuggestMode } from './types.ts';

export interface SuggestWord {
  readonly text: string;
  readonly score: number;
  readonly freq: number;
}

export interface TermStats {
  readonly docFreq: number;
  /** Occurrences of the term (docFreq for fields indexed without frequencies). */
  readonly totalTermFreq: number;
}

function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const c of s) out.push(c.codePointAt(0)!);
  return out;
}

/** A field's terms across the segments of a snapshot, as Lucene's MultiTerms reads them. */
export class ShardTerms {
  private readonly stats = new Map<string, TermStats>();

  constructor(
    private readonly snapshot: SearcherSnapshot,
    readonly field: string,
  ) {}

  /** True when some segment indexes the field (MultiTerms.getTerms is not null). */
  get exists(): boolean {
    return this.snapshot.views.some((v) => v.segment.inverted.has(this.field));
  }

  /** Sum over segments of the field's total term frequency, or -1 when it has no frequencies (keyword). */
  get sumTotalTermFreq(): number {
    let sum = 0;
    for (const v of this.snapshot.views) {
      const inv = v.segment.inverted.get(this.field);
      if (inv === undefined) continue;
      if (!inv.hasPositions) return -1;
      sum += inv.sumTotalTermFreq;
    }
    return sum;
  }

  /** Terms.size(): the dictionary's length when one segment holds the field, -1 for several (MultiTerms). */
  get size(): number {
    const holding = this.snapshot.views.filter((v) => v.segment.inverted.has(this.field));
    return holding.length === 1 ? holding[0]!.segment.inverted.get(this.field)!.terms.length : -1;
  }

  get maxDoc(): number {
    return this.snapshot.maxDoc;
  }

  termStats(term: string): TermStats {
    let s = this.stats.get(term);
    if (s !== undefined) return s;
    let docFreq = 0;
    let ttf = 0;
    for (const v of this.snapshot.views) {
      const inv = v.segment.inverted.get(this.field);
      if (inv === undefined) continue;
      const id = inv.terms.find(term);
      if (id < 0) continue;
      docFreq += inv.docFreq(id);
      if (inv.hasPositions) {
        const cursor = inv.postings(id);
        while (cursor.nextBlock()) for (let i = 0; i < cursor.count; i++) ttf += cursor.freqs[i]!;
      } else ttf += inv.docFreq(id);
    }
    s = { docFreq, totalTermFreq: ttf };
    this.stats.set(term, s);
    return s;
  }

  /**
   * The terms starting with `prefix` that `accept` keeps (it sees each
   * segment's entries once, so only the accepted ones are remembered), with
   * their doc freq summed over segments, in term order.
   */
  withPrefix<T>(prefix: string, accept: (term: string) => T | null): { readonly term: string; readonly docFreq: number; readonly info: T }[] {
    const found = new Map<string, { term: string; docFreq: number; info: T }>();
    for (const v of this.snapshot.views) {
      const inv = v.segment.inverted.get(this.field);
      if (inv === undefined) continue;
      const dict = inv.terms;
      for (let t = prefix === '' ? 0 : dict.lowerBound(prefix); t < dict.length; t++) {
        if (prefix !== '' && !dict.startsWith(t, prefix)) break;
        const text = dict.get(t);
        const known = found.get(text);
        if (known !== undefined) {
          known.docFreq += inv.docFreq(t);
          continue;
        }
        const info = accept(text);
        if (info !== null) found.set(text, { term: text, docFreq: inv.docFreq(t), info });
      }
    }
    return [...found.values()].sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  }
}

interface ScoreTerm {
  readonly text: string;
  readonly boost: number;
  score: number;
  readonly docFreq: number;
}

/** SuggestWordScoreComparator / SuggestWordFrequencyComparator, best first. */
export function compareWords(sort: 'score' | 'frequency'): (a: SuggestWord, b: SuggestWord) => number {
  const byText = (a: SuggestWord, b: SuggestWord) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0);
  if (sort === 'frequency') return (a, b) => b.freq - a.freq || b.score - a.score || byText(a, b);
  return (a, b) => b.score - a.score || b.freq - a.freq || byText(a, b);
}

/**
 * DirectSpellChecker.suggestSimilar: up to `numSug` corrections of `word`.
 * `threshold`, when given, replaces the settings' `min_doc_freq` (the phrase
 * suggester's candidate generator raises it with the word's frequency).
 */
export function suggestSimilar(
  terms: ShardTerms,
  word: string,
  numSug: number,
  settings: SpellcheckSettings,
  mode: SuggestMode = settings.suggestMode,
  threshold: number = settings.minDocFreq,
): SuggestWord[] {
  const cps = codePoints(word);
  if (settings.minWordLength > 0 && cps.length < settings.minWordLength) return [];
  let docfreq = terms.termStats(word).docFreq;
  if (mode === 'missing' && docfreq > 0) return [];
  const maxDoc = terms.maxDoc;
  const mqf = settings.maxTermFreq;
  if (mqf >= 1 && docfreq > mqf) return [];
  if (docfreq > Math.ceil(Math.fround(mqf * maxDoc))) return [];
  if (mode !== 'popular') docfreq = 0;
  if (threshold >= 1) docfreq = Math.max(docfreq, Math.trunc(threshold));
  else if (threshold > 0) docfreq = Math.max(docfreq, Math.trunc(Math.fround(threshold * maxDoc)) - 1);

  const inspections = numSug * settings.maxInspections;
  const found = new Map<string, ScoreTerm>();
  const pass = (maxEdits: number): number => {
    const prefixLength = Math.max(settings.prefixLength, maxEdits - 1);
    const queue = collect(terms, word, cps, maxEdits, prefixLength, inspections, docfreq, settings);
    for (const st of queue) if (!found.has(st.text)) found.set(st.text, st);
    return queue.length;
  };
  const first = pass(1);
  if (settings.maxEdits > 1 && first < inspections) pass(settings.maxEdits);
  return [...found.values()]
    .map((s) => ({ text: s.text, score: s.score, freq: s.docFreq }))
    .sort(compareWords(settings.sort))
    .slice(0, numSug);
}

/** One FuzzyTermsEnum pass: the `size` best candidates by boost (ties keep the first in term order). */
function collect(
  terms: ShardTerms,
  word: string,
  cps: readonly number[],
  maxEdits: number,
  prefixLength: number,
  size: number,
  docfreq: number,
  settings: SpellcheckSettings,
): ScoreTerm[] {
  const prefixCps = cps.slice(0, Math.min(prefixLength, cps.length));
  const prefix = String.fromCodePoint(...prefixCps);
  const rest = cps.slice(prefixCps.length);
  const distance = stringDistance(settings.stringDistance);
  const queue: ScoreTerm[] = [];
  // Terms within reach, with their boost; then Lucene's queue in term order.
  const within = terms.withPrefix(prefix, (text) => {
    if (text === word) return null;
    const tcps = codePoints(text);
    if (Math.abs(tcps.length - cps.length) > maxEdits) return null;
    const ed = boundedEditDistance(rest, tcps.slice(prefixCps.length), maxEdits, true);
    if (ed > maxEdits) return null;
    return Math.fround(1 - Math.fround(ed / Math.min(tcps.length, cps.length)));
  });
  for (const { term: text, docFreq: df, info: boost } of within) {
    if (queue.length >= size && boost <= minBoost(queue)) continue;
    if (df <= docfreq) continue;
    const score = distance === null ? boost : distance(word, text);
    if (score < settings.accuracy) continue;
    queue.push({ text, boost, score, docFreq: df });
    if (queue.length > size) queue.splice(indexOfMin(queue), 1);
  }
  return queue;
}

function minBoost(q: readonly ScoreTerm[]): number {
  return q[indexOfMin(q)]!.boost;
}

/** The weakest entry (lowest boost; among equals the latest term, as Lucene's ScoreTerm order puts it last). */
function indexOfMin(q: readonly ScoreTerm[]): number {
  let at = 0;
  for (let i = 1; i < q.length; i++) {
    const a = q[i]!;
    const b = q[at]!;
    if (a.boost < b.boost || (a.boost === b.boost && a.text > b.text)) at = i;
  }
  return at;
}
