/**
 * `significant_terms` (SignificantTermsAggregator and its reduce): per
 * owning bucket, how many of its docs hold each term (the subset
 * frequency), against how many docs of the shard hold it (the background
 * frequency: the term's doc freq in the index for a keyword, a count over
 * the doc values for a number) and the shard's live docs. Each term is
 * scored by the heuristic (JLH by default: the rise in probability times the
 * ratio of probabilities; `percentage`: the ratio of frequencies); a shard
 * returns its `shard_size` best terms with at least `shard_min_doc_count`
 * docs, and the coordinator adds up the shards' frequencies and sizes,
 * scores again, and keeps the `size` best with a positive score and at
 * least `min_doc_count` docs.
 */
import { valuesAtPath } from '../../json/source-values.ts';
import { illegalArgument } from '../../errors/es-errors.ts';
import type { NumericDocValues, SegmentView, SortedDocValues } from '../segment/types.ts';
import type { AnalyzerLookup } from '../analysis/types.ts';
import type { FieldMapping } from '../mapping/types.ts';
import { fieldTokens, indexAnalyzer } from '../search/field-tokens.ts';
import type { Aggregator, SegmentContext, ShardScope } from './aggregator.ts';
import { DocOwnerBuffer, flushToChildren } from './aggregator.ts';
import { EMPTY_OWNER } from './histogram-aggregator.ts';
import type { LevelReducer } from './reduce-terms.ts';
import { ipIncludeExclude, keywordAcceptor } from './include-exclude.ts';
import type { ReducedSignificantTerms } from './reduced.ts';
import type { SignificanceHeuristic, SignificantTermsSpec } from './spec.ts';
import type { AggState, SignificantTermsState } from './state.ts';
import { suggestShardSize } from './terms-aggregator.ts';
import { IP_FORMAT, RAW_FORMAT, formatValue, printedKey } from './value-format.ts';
import { numericValues, sortedValues, type ResolvedSource } from './value-source.ts';

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

const SCORE_ERROR = ', does your background filter not include all documents in the bucket? If so and it is intentional, set "background_is_superset": false';

/** NXYSignificanceHeuristic.computeNxys. */
function nxys(subsetFreq: number, subsetSize: number, supersetFreq: number, supersetSize: number, superset: boolean) {
  if (superset) {
    if (subsetFreq > supersetFreq) throw illegalArgument(`subsetFreq > supersetFreq${SCORE_ERROR}`);
    if (subsetSize > supersetSize) throw illegalArgument(`subsetSize > supersetSize${SCORE_ERROR}`);
    if (supersetFreq - subsetFreq > supersetSize - subsetSize) throw illegalArgument(`supersetFreq - subsetFreq > supersetSize - subsetSize${SCORE_ERROR}`);
    return {
      N00: supersetSize - supersetFreq - (subsetSize - subsetFreq),
      N01: subsetSize - subsetFreq,
      N10: supersetFreq - subsetFreq,
      N11: subsetFreq,
      N0_: supersetSize - supersetFreq,
      N1_: supersetFreq,
      N_0: supersetSize - subsetSize,
      N_1: subsetSize,
      N: supersetSize,
    };
  }
  return {
    N00: supersetSize - supersetFreq,
    N01: subsetSize - subsetFreq,
    N10: supersetFreq,
    N11: subsetFreq,
    N0_: supersetSize - supersetFreq + subsetSize - subsetFreq,
    N1_: supersetFreq + subsetFreq,
    N_0: supersetSize,
    N_1: subsetSize,
    N: supersetSize + subsetSize,
  };
}

/** MutualInformation.getMITerm: 0 · log(0) counts 0. */
function miTerm(nxy: number, nx: number, ny: number, n: number): number {
  const numerator = Math.abs(n * nxy);
  const denominator = Math.abs(nx * ny);
  const factor = Math.abs(nxy / n);
  if (numerator < 1e-7 && factor < 1e-7) return 0;
  return factor * Math.log(numerator / denominator);
}

/** SignificanceHeuristic.getScore (JLH, percentage, and the NXY ones: mutual_information, chi_square, gnd). */
export function significanceScore(h: SignificanceHeuristic, subsetFreq: number, subsetSize: number, supersetFreq: number, supersetSize: number): number {
  if (h.type === 'percentage') return supersetFreq === 0 ? 0 : subsetFreq / supersetFreq;
  if ('backgroundIsSuperset' in h) {
    const f = nxys(subsetFreq, subsetSize, supersetFreq, supersetSize, h.backgroundIsSuperset);
    const negative = !h.includeNegatives && f.N11 / f.N_1 < f.N10 / f.N_0;
    if (h.type === 'chi_square') {
      if (negative) return -Infinity;
      return (f.N * Math.pow(f.N11 * f.N00 - f.N01 * f.N10, 2)) / (f.N_1 * f.N1_ * f.N0_ * f.N_0);
    }
    if (h.type === 'mutual_information') {
      let score = (miTerm(f.N00, f.N0_, f.N_0, f.N) + miTerm(f.N01, f.N0_, f.N_1, f.N) + miTerm(f.N10, f.N1_, f.N_0, f.N) + miTerm(f.N11, f.N1_, f.N_1, f.N)) / Math.log(2);
      if (Number.isNaN(score)) score = -Infinity;
      return negative ? -Infinity : score;
    }
    // gnd
    const fx = f.N1_;
    const fy = f.N_1;
    const fxy = f.N11;
    if (fxy === 0) return 0;
    if (fx === fy && fx === fxy) return 1;
    const d = (Math.max(Math.log(fx), Math.log(fy)) - Math.log(fxy)) / (Math.log(f.N) - Math.min(Math.log(fx), Math.log(fy)));
    return Math.exp(-d);
  }
  if (subsetSize === 0 || supersetSize === 0 || subsetFreq === 0 || supersetFreq === 0) return 0;
  const subsetProbability = subsetFreq / subsetSize;
  const supersetProbability = supersetFreq / supersetSize;
  const absoluteChange = subsetProbability - supersetProbability;
  if (absoluteChange <= 0) return 0;
  return absoluteChange * (subsetProbability / supersetProbability);
}

export class SignificantTermsAggregator implements Aggregator {
  readonly name: string;
  /** Per owner: docs aggregated and the frequency of each term among them. */
  private readonly counts = new Map<number, Map<string | number, number>>();
  /** Per owner and term, the bucket id its docs go to the sub-aggregations under. */
  private readonly bucketIds = new Map<number, Map<string | number, number>>();
  private nextBucket = 0;
  private readonly buf = new DocOwnerBuffer();
  private readonly subsetSizes = new Map<number, number>();
  private sorted: SortedDocValues | null = null;
  private numeric: NumericDocValues | null = null;
  private readonly accept: ((term: string) => boolean) | null;
  private numericBg: Map<string | number, number> | null = null;

  private view: SegmentView | null = null;

  constructor(
    private readonly spec: SignificantTermsSpec,
    private readonly source: ResolvedSource,
    private readonly scope: ShardScope,
    private readonly subs: readonly Aggregator[],
    /** significant_text: a doc's distinct terms, re-analysed from its `_source`. */
    private readonly docTerms: DocTerms | null = null,
  ) {
    this.name = spec.name;
    const ip = source.kind === 'bytes' && source.ip === true;
    this.accept = ip ? keywordAcceptor(ipIncludeExclude(spec.include), ipIncludeExclude(spec.exclude)) : keywordAcceptor(spec.include, spec.exclude);
  }

  setSegment(seg: SegmentContext): void {
    const src = this.source;
    this.sorted = src.kind === 'bytes' ? sortedValues(seg.view.segment, src.field) : null;
    this.numeric = src.kind === 'numeric' ? numericValues(seg.view.segment, src.field) : null;
    this.view = seg.view;
    for (const s of this.subs) s.setSegment(seg);
  }

  /** Counts a term of a doc, and hands the doc to the sub-aggregations under the term's bucket. */
  private count(m: Map<string | number, number>, owner: number, term: string | number, doc: number): void {
    m.set(term, (m.get(term) ?? 0) + 1);
    if (this.subs.length === 0) return;
    let ids = this.bucketIds.get(owner);
    if (ids === undefined) this.bucketIds.set(owner, (ids = new Map()));
    let id = ids.get(term);
    if (id === undefined) ids.set(term, (id = this.nextBucket++));
    this.buf.ensure(1);
    this.buf.docs[this.buf.n] = doc;
    this.buf.owners[this.buf.n++] = id;
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    for (let i = 0; i < n; i++) {
      const owner = owners[i]!;
      this.subsetSizes.set(owner, (this.subsetSizes.get(owner) ?? 0) + 1);
      const doc = docs[i]!;
      let m = this.counts.get(owner);
      if (m === undefined) this.counts.set(owner, (m = new Map()));
      if (this.docTerms !== null) {
        for (const term of this.docTerms(this.view!, doc, owner)) if (this.accept === null || this.accept(term)) this.count(m, owner, term, doc);
        continue;
      }
      const s = this.sorted;
      if (s !== null) {
        const from = s.starts === null ? doc : s.starts[doc]!;
        const to = s.starts === null ? doc + 1 : s.starts[doc + 1]!;
        for (let k = from; k < to; k++) {
          const ord = s.ords[k]!;
          if (ord < 0) continue;
          const term = s.dict.get(ord);
          if (this.accept !== null && !this.accept(term)) continue;
          this.count(m, owner, term, doc);
        }
        continue;
      }
      const v = this.numeric;
      if (v !== null) {
        const from = v.starts === null ? doc : v.starts[doc]!;
        const to = v.starts === null ? doc + 1 : v.starts[doc + 1]!;
        let last = NaN;
        for (let k = from; k < to; k++) {
          const x = v.values[k]!;
          if (Number.isNaN(x) || x === last) continue;
          last = x;
          this.count(m, owner, x, doc);
        }
      }
    }
    flushToChildren(this.subs, this.buf);
  }

  /** Per view, the live docs of `background_filter` (computed once); null without one. */
  private backgroundBits: Uint32Array[] | null = null;

  private background(): Uint32Array[] | null {
    const filter = this.spec.backgroundFilter;
    if (filter === null || filter === undefined) return null;
    if (this.backgroundBits === null) {
      this.backgroundBits = this.scope.views.map((v) => {
        const bits = Uint32Array.from(this.scope.ctx.filterBits(filter, v));
        if (v.liveDocs !== null) for (let w = 0; w < bits.length; w++) bits[w]! &= v.liveDocs[w]!;
        return bits;
      });
    }
    return this.backgroundBits;
  }

  private supersetSize(): number {
    const bg = this.background();
    if (bg === null) return this.scope.views.reduce((n, v) => n + v.numDocs, 0);
    let n = 0;
    for (const bits of bg) for (let w = 0; w < bits.length; w++) n += popcount(bits[w]!);
    return n;
  }

  /** The background frequency of a term in this shard. */
  private supersetDf(term: string | number): number {
    const src = this.source;
    if (src.kind === 'bytes' && src.field !== null) {
      const bg = this.background();
      let df = 0;
      this.scope.views.forEach((v, i) => {
        const inv = v.segment.inverted.get(src.field!);
        if (inv === undefined) return;
        const id = inv.terms.find(String(term));
        if (id < 0) return;
        if (bg === null) {
          df += inv.docFreq(id);
          return;
        }
        // With a background filter: the term's docs in it (TermQuery AND filter, live docs only).
        const bits = bg[i]!;
        const cursor = inv.postings(id);
        while (cursor.nextBlock()) {
          for (let k = 0; k < cursor.count; k++) {
            const d = cursor.docs[k]!;
            if ((bits[d >>> 5]! & (1 << (d & 31))) !== 0) df++;
          }
        }
      });
      return df;
    }
    if (this.numericBg === null) this.numericBg = this.numericBackground();
    return this.numericBg.get(term) ?? 0;
  }

  /** Docs per value of a numeric field over every live doc of the shard. */
  private numericBackground(): Map<string | number, number> {
    const out = new Map<string | number, number>();
    const src = this.source;
    if (src.kind !== 'numeric') return out;
    const bg = this.background();
    for (let i = 0; i < this.scope.views.length; i++) {
      const view = this.scope.views[i]!;
      const v = numericValues(view.segment, src.field);
      if (v === null) continue;
      const keep = bg === null ? view.liveDocs : bg[i]!;
      for (let doc = 0; doc < view.segment.maxDoc; doc++) {
        if (keep !== null && (keep[doc >>> 5]! & (1 << (doc & 31))) === 0) continue;
        const from = v.starts === null ? doc : v.starts[doc]!;
        const to = v.starts === null ? doc + 1 : v.starts[doc + 1]!;
        let last = NaN;
        for (let k = from; k < to; k++) {
          const x = v.values[k]!;
          if (Number.isNaN(x) || x === last) continue;
          last = x;
          out.set(x, (out.get(x) ?? 0) + 1);
        }
      }
    }
    return out;
  }

  build(owner: number): AggState {
    const src = this.source;
    const valueType = src.kind === 'bytes' ? 'string' : src.kind === 'numeric' ? (src.numKind === 'double' ? 'double' : 'long') : 'unmapped';
    const format = src.kind === 'numeric' ? src.format : src.kind === 'bytes' && src.ip === true ? IP_FORMAT : RAW_FORMAT;
    if (src.kind === 'unmapped') {
      return { kind: 'significant_terms', valueType, format, subsetSize: 0, supersetSize: 0, keys: [], subsetDfs: [], supersetDfs: [], subs: null };
    }
    const subsetSize = this.subsetSizes.get(owner) ?? 0;
    const supersetSize = this.supersetSize();
    const shardSize = this.spec.shardSize ?? 2 * suggestShardSize(this.spec.size, this.scope.ctx.numberOfShards ?? 1);
    const scored: { key: string | number; df: number; bg: number; score: number }[] = [];
    for (const [key, df] of this.counts.get(owner) ?? []) {
      if (df < this.spec.shardMinDocCount) continue;
      const bg = this.supersetDf(key);
      scored.push({ key, df, bg, score: significanceScore(this.spec.heuristic, df, subsetSize, bg, supersetSize) });
    }
    scored.sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const kept = scored.slice(0, shardSize);
    const state: SignificantTermsState = {
      kind: 'significant_terms',
      valueType,
      format,
      subsetSize,
      supersetSize,
      keys: kept.map((k) => k.key),
      subsetDfs: kept.map((k) => k.df),
      supersetDfs: kept.map((k) => k.bg),
      subs: this.subs.length === 0 ? null : kept.map((k) => this.subs.map((s) => s.build(this.bucketIds.get(owner)?.get(k.key) ?? EMPTY_OWNER))),
    };
    return state;
  }

  sortValue(): number {
    return NaN;
  }
}

export function reduceSignificantTerms(spec: SignificantTermsSpec, states: readonly SignificantTermsState[], reduceLevel: LevelReducer): ReducedSignificantTerms {
  let subsetSize = 0;
  let supersetSize = 0;
  const terms = new Map<string | number, { df: number; bg: number; subs: (readonly AggState[])[] }>();
  for (const s of states) {
    subsetSize += s.subsetSize;
    supersetSize += s.supersetSize;
    s.keys.forEach((key, i) => {
      let t = terms.get(key);
      if (t === undefined) terms.set(key, (t = { df: 0, bg: 0, subs: [] }));
      t.df += s.subsetDfs[i]!;
      t.bg += s.supersetDfs[i]!;
      const subs = s.subs?.[i];
      if (subs !== undefined) t.subs.push(subs);
    });
  }
  const mapped = states.find((s) => s.valueType !== 'unmapped');
  const numericKeys = mapped !== undefined && mapped.valueType !== 'string';
  const format = mapped?.format ?? RAW_FORMAT;
  const buckets = [...terms]
    .map(([key, t]) => ({ key, df: t.df, bg: t.bg, subs: t.subs, score: significanceScore(spec.heuristic, t.df, subsetSize, t.bg, supersetSize) }))
    .filter((b) => b.score > 0 && b.df >= spec.minDocCount)
    .sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, spec.size)
    .map((b) => ({
      key: typeof b.key === 'string' ? printedKey(format, b.key) : b.key,
      keyAsString: numericKeys && format.kind !== 'raw' && format.kind !== 'ip' ? formatValue(format, Number(b.key)) : null,
      docCount: b.df,
      score: b.score,
      bgCount: b.bg,
      aggs: reduceLevel(spec.subs, b.subs),
    }));
  return {
    kind: 'significant_terms',
    typeName: numericKeys ? 'siglterms' : 'sigsterms',
    name: spec.name,
    meta: spec.meta,
    subsetSize,
    supersetSize,
    buckets,
  };
}

/** A doc's distinct terms in a segment view (for the owning bucket it is collected in). */
export type DocTerms = (view: SegmentView, doc: number, owner: number) => string[];

/** Tokens in a run this long seen in an earlier doc are duplicate text (DuplicateByteSequenceSpotter's window). */
const DUPLICATE_RUN = 6;

const utf8 = new TextDecoder();

/**
 * significant_text's terms of a doc (SignificantTextAggregator): the
 * `source_fields` values of its `_source`, analysed with the field's index
 * analyzer, each term once.
 */
export function sourceTerms(sourceFields: readonly string[], field: FieldMapping, analyzers: AnalyzerLookup | undefined, filterDuplicates: boolean): DocTerms {
  const analyzer = analyzers === undefined ? null : indexAnalyzer(field, analyzers);
  /** filter_duplicate_text: per owning bucket, the runs of tokens seen so far. */
  const seenRuns = new Map<number, Set<string>>();
  return (view, doc, owner) => {
    let source: unknown;
    try {
      source = JSON.parse(utf8.decode(view.segment.stored.document(doc).source));
    } catch {
      return []; // a source that is not JSON text has no values to analyse here
    }
    const values = sourceFields.flatMap((f) => valuesAtPath(source, f));
    const tokens = fieldTokens(values, analyzer).map((t) => t.term);
    if (!filterDuplicates) return [...new Set(tokens)];
    let seen = seenRuns.get(owner);
    if (seen === undefined) seenRuns.set(owner, (seen = new Set()));
    const duplicate = new Uint8Array(tokens.length);
    const runs: string[] = [];
    for (let i = 0; i + DUPLICATE_RUN <= tokens.length; i++) {
      const run = tokens.slice(i, i + DUPLICATE_RUN).join('\u0000');
      runs.push(run);
      if (seen.has(run)) duplicate.fill(1, i, i + DUPLICATE_RUN);
    }
    for (const run of runs) seen.add(run);
    return [...new Set(tokens.filter((_, i) => duplicate[i] === 0))];
  };
}
