/**
 * The shard side of `top_hits`: per bucket the best `from + size` docs under
 * the hits' sort (default: score descending), ties by doc id; their `_id`,
 * `_source` (filtered) and sort values are read once, when the state is built.
 */
import { filterSource } from '../search/source-filter.ts';
import { idOf, type NumericDocValues, type SortedDocValues } from '../segment/types.ts';
import type { Aggregator, SegmentContext, ShardScope } from './aggregator.ts';
import type { AggPathElement, TopHitsSortSpec, TopHitsSpec } from './spec.ts';
import type { AggState, TopHitState } from './state.ts';
import { numericValues, sortedValues } from './value-source.ts';
import { ipTermText } from '../mapping/ip-address.ts';

interface Entry {
  readonly view: number;
  readonly doc: number;
  /** Global doc id within the shard search (tie-break). */
  readonly globalDoc: number;
  readonly score: number;
  readonly keys: (number | string | null)[];
}

interface BucketHits {
  total: number;
  maxScore: number;
  entries: Entry[];
}

type KeyReader = (doc: number, score: number, globalDoc: number) => number | string | null;

export class TopHitsAggregator implements Aggregator {
  readonly name: string;
  private readonly buckets: (BucketHits | undefined)[] = [];
  private readonly limit: number;
  private readers: KeyReader[] = [];
  private seg: SegmentContext | null = null;
  private readonly sort: readonly TopHitsSortSpec[];
  private readonly scoreSorted: boolean;

  constructor(
    private readonly spec: TopHitsSpec,
    private readonly scope: ShardScope,
  ) {
    this.name = spec.name;
    this.limit = spec.from + spec.size;
    this.sort = spec.sort.length === 0 ? [{ kind: 'score', asc: false }] : spec.sort;
    this.scoreSorted = this.sort[0]!.kind === 'score';
  }

  setSegment(seg: SegmentContext): void {
    this.seg = seg;
    this.readers = this.sort.map((s) => this.reader(s, seg));
  }

  private reader(s: TopHitsSortSpec, seg: SegmentContext): KeyReader {
    if (s.kind === 'score') return (_d, score) => score;
    if (s.kind === 'doc') return (_d, _s, g) => g;
    const segment = seg.view.segment;
    const num: NumericDocValues | null = numericValues(segment, s.field);
    if (num !== null) {
      return (doc) => {
        if (num.starts === null) {
          const v = num.values[doc]!;
          return v === v ? v : null;
        }
        const from = num.starts[doc]!;
        const to = num.starts[doc + 1]!;
        if (from === to) return null;
        return s.asc ? num.values[from]! : num.values[to - 1]!;
      };
    }
    const sorted: SortedDocValues | null = sortedValues(segment, s.field);
    if (sorted !== null) {
      return (doc) => {
        if (sorted.starts === null) {
          const o = sorted.ords[doc]!;
          return o >= 0 ? sorted.dict.get(o) : null;
        }
        const from = sorted.starts[doc]!;
        const to = sorted.starts[doc + 1]!;
        if (from === to) return null;
        return sorted.dict.get(s.asc ? sorted.ords[from]! : sorted.ords[to - 1]!);
      };
    }
    return () => null;
  }

  private compare(a: Entry, b: Entry): number {
    for (let i = 0; i < this.sort.length; i++) {
      const s = this.sort[i]!;
      const x = a.keys[i]!;
      const y = b.keys[i]!;
      if (x === y) continue;
      if (x === null || y === null) {
        const missingFirst = s.kind === 'field' && s.missingFirst;
        return (x === null ? 1 : -1) * (missingFirst ? -1 : 1);
      }
      return (x < y ? -1 : 1) * (s.asc ? 1 : -1);
    }
    return a.globalDoc - b.globalDoc;
  }

  collect(docs: Int32Array, owners: Int32Array, n: number): void {
    const seg = this.seg!;
    const scores = seg.scores;
    const docBase = seg.view.docBase;
    for (let i = 0; i < n; i++) {
      const doc = docs[i]!;
      const b = owners[i]!;
      let bucket = this.buckets[b];
      if (bucket === undefined) {
        bucket = { total: 0, maxScore: -Infinity, entries: [] };
        this.buckets[b] = bucket;
      }
      bucket.total++;
      const score = scores === null ? 1 : scores[doc]!;
      if (score > bucket.maxScore) bucket.maxScore = score;
      if (this.limit === 0) continue;
      const globalDoc = docBase + doc;
      const entry: Entry = { view: seg.viewIndex, doc, globalDoc, score, keys: this.readers.map((r) => r(doc, score, globalDoc)) };
      const list = bucket.entries;
      if (list.length === this.limit && this.compare(entry, list[list.length - 1]!) >= 0) continue;
      let at = list.length;
      while (at > 0 && this.compare(entry, list[at - 1]!) < 0) at--;
      list.splice(at, 0, entry);
      if (list.length > this.limit) list.pop();
    }
  }

  build(owner: number): AggState {
    const bucket = this.buckets[owner];
    if (bucket === undefined) return { kind: 'top_hits', total: 0, maxScore: null, hits: [] };
    const tracked = this.scoreSorted || this.spec.trackScores;
    const mapping = this.scope.ctx.mapping;
    const ipSorts = this.spec.sort.map((s) => s.kind === 'field' && mapping.field(s.field)?.mappedType === 'ip');
    const anyIp = ipSorts.includes(true);
    const hits: TopHitState[] = bucket.entries.map((e) => {
      const view = this.scope.views[e.view]!;
      const segment = view.segment;
      let source: unknown = undefined;
      if (this.spec.source.fetch) {
        const bytes = segment.stored.document(e.doc).source;
        source =
          bytes.length === 0
            ? undefined
            : JSON.parse(filterSource(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), this.spec.source.includes, this.spec.source.excludes));
      }
      return {
        index: this.scope.ctx.indexName ?? '',
        type: this.scope.ctx.typeName ?? '_doc',
        id: idOf(segment, e.doc),
        score: tracked ? e.score : null,
        version: this.spec.version ? segment.versions[e.doc]! : null,
        source,
        sort: this.spec.sort.length === 0 ? null : e.keys,
        ...(anyIp ? { printedSort: e.keys.map((k, i) => (ipSorts[i] === true && typeof k === 'string' ? ipTermText(k) : k)) } : {}),
        doc: e.globalDoc,
      };
    });
    return { kind: 'top_hits', total: bucket.total, maxScore: tracked && bucket.total > 0 ? bucket.maxScore : null, hits };
  }

  sortValue(_owner: number, _path: readonly AggPathElement[], _at: number): number {
    return NaN;
  }
}
