/**
 * Fixtures for the search tests: hand-built mappings, small analyzers whose
 * output is obvious (so expected answers can be computed by hand), segments
 * built with the real SegmentBuilder, snapshots with deletes, and a one-call
 * search runner.
 */
import type { Analyzer, AnalyzerLookup, Token, TokenSink } from '../../../shared/engine/analysis/types.ts';
import { dateFormatter } from '../../../shared/engine/mapping/date-format.ts';
import type { FieldMapping, FieldType, MappingLookup, ParsedField } from '../../../shared/engine/mapping/types.ts';
import { SegmentBuilder } from '../../../shared/engine/segment/segment-builder.ts';
import { idOf as docId, type SearcherSnapshot, type Segment, type SegmentView } from '../../../shared/engine/segment/types.ts';
import { writeSegment } from '../../../shared/engine/segment/segment-writer.ts';
import { MappedSegment } from '../../../shared/engine/segment/mapped-segment.ts';
import { tempSegmentDir } from '../segment/fixtures.ts';
import { FilterCache } from '../../../shared/engine/search/filter-cache.ts';
import { executeQueryPhase } from '../../../shared/engine/search/query-phase.ts';
import type { ShardCursor, ShardQueryResult, ShardSearchContext } from '../../../shared/engine/search/types.ts';
import { parseSearchBody } from '../../../shared/dsl/query/search-body.ts';
import type { SearchUrlParams } from '../../../shared/dsl/query/search-body.ts';
import { fieldMapping } from '../../helpers/field-mapping.ts';

// ---- analyzers -------------------------------------------------------------------

class SimpleAnalyzer implements Analyzer {
  constructor(
    readonly name: string,
    private readonly split: (text: string) => string[],
  ) {}

  analyzeInto(text: string, sink: TokenSink, positionBase = 0): number {
    const tokens = this.split(text);
    tokens.forEach((t, i) => sink(t, positionBase + i, 0, 0));
    return positionBase + tokens.length;
  }

  analyze(text: string): Token[] {
    return this.split(text).map((t, i) => ({ token: t, start_offset: 0, end_offset: 0, type: 'word', position: i }));
  }
}

/** Lowercased runs of letters and digits (enough of `standard` for these tests). */
export const standardTokens = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** Lowercased 1..8-grams of the whole text, in Lucene NGramTokenizer order (by start, then length). */
export function ngrams(text: string, min = 1, max = 8): string[] {
  const s = text.toLowerCase();
  const out: string[] = [];
  for (let start = 0; start < s.length; start++) {
    for (let len = min; len <= max && start + len <= s.length; len++) out.push(s.slice(start, start + len));
  }
  return out;
}

export const analyzers: AnalyzerLookup = (() => {
  const all = new Map<string, Analyzer>([
    ['standard', new SimpleAnalyzer('standard', standardTokens)],
    ['whitespace', new SimpleAnalyzer('whitespace', (t) => t.split(/\s+/).filter((x) => x !== ''))],
    ['keyword', new SimpleAnalyzer('keyword', (t) => [t])],
    ['plate_ngram', new SimpleAnalyzer('plate_ngram', (t) => ngrams(t))],
  ]);
  return { get: (name) => all.get(name) };
})();

// ---- mapping ---------------------------------------------------------------------

export function field(path: string, type: FieldType, opts: Partial<FieldMapping> = {}): FieldMapping {
  return fieldMapping(path, type, {
    docValues: type !== 'text',
    analyzer: type === 'text' ? 'standard' : null,
    dateFormat: type === 'date' ? dateFormatter('strict_date_optional_time||epoch_millis') : null,
    ...opts,
  });
}

export function mappingOf(fields: readonly FieldMapping[]): MappingLookup {
  const byPath = new Map(fields.map((f) => [f.path, f]));
  return {
    field: (p) => byPath.get(p),
    matchingFields: (pattern) => {
      const re = new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
      return [...byPath.keys()].filter((k) => re.test(k));
    },
  };
}

// ---- segments --------------------------------------------------------------------

export interface TestDoc {
  readonly id: string;
  readonly source: Record<string, unknown>;
  readonly routing?: string;
  readonly version?: number;
}

function leafValues(source: Record<string, unknown>, path: string): unknown[] {
  let cur: unknown = source;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return [];
    cur = (cur as Record<string, unknown>)[part];
  }
  if (cur === undefined || cur === null) return [];
  return Array.isArray(cur) ? cur : [cur];
}

/** Values coerced as the document parser would (dates to epoch millis, numbers, booleans). */
function parsedFields(source: Record<string, unknown>, mapping: readonly FieldMapping[]): ParsedField[] {
  const out: ParsedField[] = [];
  for (const m of mapping) {
    const path = m.parent !== null ? m.parent : m.path;
    const raw = leafValues(source, path);
    if (raw.length === 0) continue;
    const values = raw.map((v): string | number | boolean => {
      switch (m.type) {
        case 'text':
        case 'keyword':
          return String(v);
        case 'boolean':
          return v === true || v === 'true';
        case 'date':
          return m.dateFormat!.parse(v as string | number);
        default:
          return Number(v);
      }
    });
    out.push({ mapping: m, values });
  }
  return out;
}

export function buildSegment(id: number, docs: readonly TestDoc[], mapping: readonly FieldMapping[]): Segment {
  const b = new SegmentBuilder(analyzers);
  for (const d of docs) {
    b.add({
      id: d.id,
      version: d.version ?? 1,
      seqNo: 0,
      routing: d.routing ?? null,
      source: Buffer.from(JSON.stringify(d.source)),
      parsed: { fields: parsedFields(d.source, mapping), dynamicUpdate: null },
    });
  }
  // Searched as the node searches: written to files and read back through memory maps.
  const dir = tempSegmentDir();
  const written = writeSegment(dir, id, [{ segment: b.build(id), liveDocs: null }], { sync: false });
  if (written === null) return b.build(id);
  return MappedSegment.open(dir, id);
}

/** A snapshot of segments; `deleted` lists `_id`s whose docs are not live. */
export function snapshotOf(segments: readonly Segment[], deleted: readonly string[] = []): SearcherSnapshot {
  const gone = new Set(deleted);
  let docBase = 0;
  let numDocs = 0;
  const views: SegmentView[] = segments.map((segment) => {
    let liveDocs: Uint32Array | null = null;
    let live = segment.maxDoc;
    const ids = Array.from({ length: segment.maxDoc }, (_, d) => docId(segment, d));
    if (ids.some((i) => gone.has(i))) {
      liveDocs = new Uint32Array((segment.maxDoc + 31) >>> 5);
      live = 0;
      ids.forEach((i, d) => {
        if (!gone.has(i)) {
          liveDocs![d >>> 5]! |= 1 << (d & 31);
          live++;
        }
      });
    }
    const view = { segment, liveDocs, numDocs: live, docBase };
    docBase += segment.maxDoc;
    numDocs += live;
    return view;
  });
  return { views, maxDoc: docBase, numDocs };
}

/** Splits docs into `parts` segments in order. */
export function segmentsOf(docs: readonly TestDoc[], mapping: readonly FieldMapping[], parts: number): Segment[] {
  const out: Segment[] = [];
  const per = Math.ceil(docs.length / parts);
  for (let i = 0; i < parts; i++) out.push(buildSegment(i + 1, docs.slice(i * per, (i + 1) * per), mapping));
  return out;
}

export function contextOf(mapping: readonly FieldMapping[], nowMillis = Date.UTC(2020, 0, 15, 12, 0, 0)): ShardSearchContext {
  return { mapping: mappingOf(mapping), analyzers, nowMillis, filterCache: new FilterCache(), typeName: 'doc', index: 'test' };
}

export interface RunResult {
  readonly result: ShardQueryResult;
  readonly ids: string[];
  readonly total: number;
  readonly scores: number[];
}

export function idOf(snapshot: SearcherSnapshot, doc: number): string {
  for (const v of snapshot.views) {
    if (doc >= v.docBase && doc < v.docBase + v.segment.maxDoc) return docId(v.segment, doc - v.docBase);
  }
  throw new Error(`no doc ${doc}`);
}

export function run(
  snapshot: SearcherSnapshot,
  ctx: ShardSearchContext,
  body: unknown,
  params: SearchUrlParams = {},
  size = 1000,
  after: ShardCursor | null = null,
): RunResult {
  const search = parseSearchBody(body, params);
  const result = executeQueryPhase(snapshot, search, ctx, { size, after });
  const ids = Array.from(result.docs, (d) => idOf(snapshot, d));
  return { result, ids, total: result.totalHits, scores: Array.from(result.scores) };
}

/** Ids of `docs` matching `pred`, sorted: the independent answer for filter-style queries. */
export function expectIds(docs: readonly TestDoc[], pred: (src: Record<string, unknown>) => boolean): string[] {
  return docs.filter((d) => pred(d.source)).map((d) => d.id).sort();
}
