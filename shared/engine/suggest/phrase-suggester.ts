/**
 * The `phrase` suggester (PhraseSuggester, NoisyChannelSpellChecker): each
 * token of the text gets a set of candidates (itself and the corrections
 * its direct generators draw from the shard's term dictionaries); every
 * phrase made with at most `max_errors` corrections is scored by a noisy
 * channel (the candidates' string similarity) times an n-gram language
 * model of the field (stupid backoff, Laplace or linear interpolation), and
 * those scoring above the text's own score times `confidence` are kept,
 * best first. Scores are computed as Elasticsearch computes them, including
 * its exp of a sum of base-10 logarithms.
 */
import { illegalArgument } from '../../errors/es-errors.ts';
import type { AnalyzerLookup } from '../analysis/types.ts';
import type { MappingLookup } from '../mapping/types.ts';
import type { SearcherSnapshot } from '../segment/types.ts';
import { ShardTerms, suggestSimilar, type TermStats } from './direct-spellchecker.ts';
import { suggestAnalyzer, suggestField, textTokens } from './text-tokens.ts';
import type { DirectGeneratorSpec, PhraseOption, PhraseSuggestSpec, ShardSuggestion, SmoothingSpec } from './types.ts';

/**
 * The most phrases one suggestion may score on a shard. Elasticsearch walks
 * every combination (with `max_errors` 5 and ten candidates per word, millions),
 * which would hold the shard's worker: refused instead, with a 400 saying why.
 */
const MAX_PHRASES = 500_000;

/** Phrases with at most `maxErrors` corrected words: sums of products of candidate counts (elementary symmetric sums). */
function phraseCount(counts: readonly number[], maxErrors: number): number {
  const e = new Array<number>(maxErrors + 1).fill(0);
  e[0] = 1;
  for (const c of counts) for (let k = maxErrors; k >= 1; k--) e[k]! += e[k - 1]! * c;
  return e.reduce((a, b) => a + b, 0);
}

/** Double.MIN_VALUE: the cutoff when `confidence` is 0 (every phrase with a positive score passes). */
const MIN_DOUBLE = 5e-324;
const LOG_BASE = 5;

interface Candidate {
  readonly term: string;
  readonly stats: TermStats;
  readonly stringDistance: number;
  readonly score: number;
  readonly userInput: boolean;
}

interface CandidateSet {
  readonly original: Candidate;
  candidates: Candidate[];
}

/** Candidate.compareTo: by score, then later (zzz) terms first. */
function compareCandidates(a: Candidate, b: Candidate): number {
  if (a.score === b.score) return b.term < a.term ? -1 : b.term > a.term ? 1 : 0;
  return a.score < b.score ? -1 : 1;
}

class Generator {
  readonly terms: ShardTerms;
  private readonly dictSize: number;
  private readonly plateau: number;

  constructor(
    snapshot: SearcherSnapshot,
    readonly spec: DirectGeneratorSpec,
    /** The generator's field, resolved (a field alias's target). */
    field: string,
  ) {
    this.terms = new ShardTerms(snapshot, field);
    const sttf = this.terms.sumTotalTermFreq;
    this.dictSize = sttf === -1 ? snapshot.maxDoc : sttf;
    const t = spec.settings.minDocFreq;
    this.plateau = t >= 1 ? Math.trunc(t) : Math.trunc(snapshot.maxDoc * t);
  }

  candidate(term: string, stats: TermStats, distance: number, userInput: boolean): Candidate {
    return { term, stats, stringDistance: distance, score: distance * ((stats.totalTermFreq + 1) / (this.dictSize + 1)), userInput };
  }

  private threshold(docFreq: number): number {
    if (docFreq <= 0) return 0;
    return Math.max(0, Math.round(docFreq * (Math.log10(docFreq - this.plateau) / Math.log10(LOG_BASE)) + 1));
  }

  draw(set: CandidateSet): void {
    const s = this.spec.settings;
    let threshold = s.minDocFreq;
    if (s.suggestMode !== 'always') {
      const t = this.threshold(set.original.stats.docFreq);
      if (t > threshold) threshold = t;
    }
    const words = suggestSimilar(this.terms, set.original.term, this.spec.size, s, s.suggestMode, threshold);
    const fresh = words.map((w) => this.candidate(w.text, this.terms.termStats(w.text), w.score, false));
    const byTerm = new Map<string, Candidate>();
    for (const c of fresh) if (!byTerm.has(c.term)) byTerm.set(c.term, c);
    for (const c of set.candidates) byTerm.set(c.term, c);
    set.candidates = [...byTerm.values()].sort((a, b) => compareCandidates(b, a));
  }
}

/** WordScorer and its smoothing models. */
class WordScorer {
  private readonly vocabularySize: number;
  private readonly numTerms: number;

  constructor(
    private readonly terms: ShardTerms,
    private readonly realWordLikelihood: number,
    private readonly separator: string,
    private readonly smoothing: SmoothingSpec,
  ) {
    const sttf = terms.sumTotalTermFreq;
    this.vocabularySize = sttf === -1 ? terms.maxDoc : sttf;
    const n = terms.size;
    this.numTerms = this.vocabularySize + n > 1 ? n : 0;
  }

  private frequency(term: string): number {
    return this.terms.termStats(term).totalTermFreq;
  }

  private channel(c: Candidate): number {
    return c.stringDistance === 1 ? this.realWordLikelihood : c.stringDistance;
  }

  score(path: readonly Candidate[], at: number, gramSize: number): number {
    const c = this.channel(path[at]!);
    if (at === 0 || gramSize === 1) return Math.log10(c * this.unigram(path[at]!));
    if (at === 1 || gramSize === 2) return Math.log10(c * this.bigram(path[at]!, path[at - 1]!));
    return Math.log10(c * this.trigram(path[at]!, path[at - 1]!, path[at - 2]!));
  }

  private join(...terms: string[]): string {
    return terms.join(this.separator);
  }

  private unigram(w: Candidate): number {
    const m = this.smoothing;
    if (m.type === 'laplace') return (m.alpha + this.frequency(w.term)) / (this.vocabularySize + m.alpha * this.numTerms);
    return (1 + this.frequency(w.term)) / (this.vocabularySize + this.numTerms);
  }

  private bigram(w: Candidate, w1: Candidate): number {
    const m = this.smoothing;
    const count = this.frequency(this.join(w1.term, w.term));
    switch (m.type) {
      case 'stupid_backoff':
        return count < 1 ? m.discount * this.unigram(w) : count / (w1.stats.totalTermFreq + 0.00000000001);
      case 'laplace':
        return (m.alpha + count) / (w1.stats.totalTermFreq + m.alpha * this.numTerms);
      case 'linear_interpolation':
        if (count < 1) return m.unigramLambda * this.unigram(w);
        return m.bigramLambda * (count / (0.5 + w1.stats.totalTermFreq)) + m.unigramLambda * this.unigram(w);
    }
  }

  private trigram(w: Candidate, w1: Candidate, w2: Candidate): number {
    const m = this.smoothing;
    switch (m.type) {
      case 'stupid_backoff': {
        const bigramCount = this.frequency(this.join(w1.term, w.term));
        if (bigramCount < 1) return m.discount * this.unigram(w);
        const trigramCount = this.frequency(this.join(w2.term, w1.term, w.term));
        if (trigramCount < 1) return m.discount * (bigramCount / (w1.stats.totalTermFreq + 0.00000000001));
        return trigramCount / (bigramCount + 0.00000000001);
      }
      case 'laplace': {
        const trigramCount = this.frequency(this.join(w2.term, w1.term, w.term));
        return (m.alpha + trigramCount) / (this.frequency(this.join(w1.term, w.term)) + m.alpha * this.numTerms);
      }
      case 'linear_interpolation': {
        // Elasticsearch 6.8 looks the trigram up in this (reversed) order.
        const count = this.frequency(this.join(w.term, w1.term, w2.term));
        if (count < 1) return this.bigram(w, w1);
        return m.trigramLambda * (count / (1 + this.frequency(this.join(w.term, w1.term)))) + this.bigram(w, w1);
      }
    }
  }
}

interface Correction {
  readonly score: number;
  readonly candidates: readonly Candidate[];
}

/** Correction.compareTo: by score, then (equal scores) the earlier terms win. */
function compareCorrections(a: Correction, b: Correction): number {
  if (a.score !== b.score) return a.score < b.score ? -1 : 1;
  const limit = Math.min(a.candidates.length, b.candidates.length);
  for (let i = 0; i < limit; i++) {
    const cmp = compareCandidates(a.candidates[i]!, b.candidates[i]!);
    if (cmp !== 0) return -cmp;
  }
  return a.candidates.length - b.candidates.length;
}

/** Correction.join: corrected runs wrapped in the highlight tags. */
function joinCorrection(c: Correction, pre: string | null, post: string | null): string {
  const parts = c.candidates.map((cand, i) => {
    if (pre === null || cand.userInput) return cand.term;
    const open = i === 0 || c.candidates[i - 1]!.userInput ? pre : '';
    const close = i === c.candidates.length - 1 || c.candidates[i + 1]!.userInput ? post : '';
    return `${open}${cand.term}${close}`;
  });
  return parts.join(' ');
}

export function runPhraseSuggester(
  spec: PhraseSuggestSpec,
  text: string,
  snapshot: SearcherSnapshot,
  mapping: MappingLookup,
  analyzers: AnalyzerLookup,
): ShardSuggestion {
  const fm = suggestField(mapping, spec.field);
  const analyzer = suggestAnalyzer(fm, analyzers, spec.analyzer);
  const shardSize = spec.shardSize ?? Math.max(spec.size, 5);
  const gramSize = spec.gramSize ?? 1;
  const empty = (cutoffScore: number): ShardSuggestion => ({
    type: 'phrase',
    name: spec.name,
    size: spec.size,
    entries: [{ text, offset: 0, length: text.length, cutoffScore, options: [] }],
  });
  const generatorFields = spec.generators.map((g) => suggestField(mapping, g.field).path);
  const generators = spec.generators.map((g, i) => new Generator(snapshot, g, generatorFields[i]!)).filter((g) => g.terms.exists);
  const suggestTerms = new ShardTerms(snapshot, fm.path);
  if (generators.length === 0 || !suggestTerms.exists) return empty(MIN_DOUBLE);
  const first = generators[0]!;

  // NoisyChannelSpellChecker.getCorrections: one candidate set per position.
  const sets: CandidateSet[] = [];
  let current: CandidateSet | null = null;
  let lastPosition = -1;
  for (const tok of textTokens(text, analyzer)) {
    if (spec.forceUnigrams && tok.type === 'shingle') continue;
    if (current !== null && tok.position === lastPosition && tok.type === 'SYNONYM') {
      const stats = first.terms.termStats(tok.term);
      if (stats.docFreq > 0) current.candidates = [...current.candidates, first.candidate(tok.term, stats, spec.realWordErrorLikelihood, false)];
      continue;
    }
    if (current !== null) sets.push(current);
    current = { original: first.candidate(tok.term, first.terms.termStats(tok.term), 1, true), candidates: [] };
    lastPosition = tok.position;
  }
  if (current !== null) sets.push(current);
  if (sets.length === 0 || sets.length >= spec.tokenLimit) return empty(MIN_DOUBLE);

  for (const set of sets) {
    for (const g of generators) g.draw(set);
    if (set.candidates.length > shardSize) set.candidates = [...set.candidates].sort((a, b) => b.score - a.score).slice(0, shardSize);
  }

  const scorer = new WordScorer(suggestTerms, spec.realWordErrorLikelihood, spec.separator, spec.smoothing);
  let cutoff = MIN_DOUBLE;
  if (spec.confidence > 0) {
    const originals = sets.map((s) => s.original);
    let sum = 0;
    for (let i = 0; i < sets.length; i++) sum += scorer.score(originals, i, gramSize);
    cutoff = Math.exp(sum) * spec.confidence;
  }
  // More corrections than words changes nothing: bounded by the words (which also bounds phraseCount's table).
  const maxErrors = Math.min(sets.length, Math.max(1, spec.maxErrors >= 1 ? Math.trunc(spec.maxErrors) : Math.round(spec.maxErrors * sets.length)));
  const phrases = phraseCount(sets.map((s) => s.candidates.length), maxErrors);
  if (phrases > MAX_PHRASES) {
    throw illegalArgument(
      `[phrase] suggester [${spec.name}] would score ${phrases} candidate phrases, more than this engine's limit of ${MAX_PHRASES}; lower [max_errors], [shard_size] or a generator's [size]`,
    );
  }
  const best: Correction[] = [];
  const path: Candidate[] = new Array<Candidate>(sets.length);
  const offer = (logScore: number): void => {
    const score = Math.exp(logScore);
    if (!(score > cutoff)) return;
    best.push({ score, candidates: [...path] });
    if (best.length > shardSize * 4) trim();
  };
  const trim = (): void => {
    best.sort((a, b) => compareCorrections(b, a));
    best.length = Math.min(best.length, shardSize);
  };
  const walk = (ord: number, errorsLeft: number, pathScore: number): void => {
    const set = sets[ord]!;
    const choices = errorsLeft > 0 ? [set.original, ...set.candidates] : [set.original];
    for (const c of choices) {
      path[ord] = c;
      const s = pathScore + scorer.score(path, ord, gramSize);
      if (ord === sets.length - 1) offer(s);
      else walk(ord + 1, c === set.original ? errorsLeft : errorsLeft - 1, s);
    }
  };
  walk(0, maxErrors, 0);
  trim();

  const options: PhraseOption[] = best.map((c) => ({
    text: joinCorrection(c, null, null),
    highlighted: spec.highlight === null ? null : joinCorrection(c, spec.highlight.preTag, spec.highlight.postTag),
    score: Math.fround(c.score),
  }));
  return { type: 'phrase', name: spec.name, size: spec.size, entries: [{ text, offset: 0, length: text.length, cutoffScore: cutoff, options }] };
}
