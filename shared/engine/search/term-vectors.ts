/**
 * `_termvectors` of one document (TermVectorsService): for each field, its
 * terms with their frequency in the document and their positions and
 * offsets (field-tokens.ts: the stored source analyzed again), the terms'
 * shard statistics (`doc_freq`, `ttf`) and the field's (`doc_count`,
 * `sum_doc_freq`, `sum_ttf`) from the copy's segments.
 */
import type { AnalyzerLookup } from '../analysis/types.ts';
import type { MappingLookup, ParsedDocument } from '../mapping/types.ts';
import type { SearcherSnapshot } from '../segment/types.ts';
import { fieldTokens, indexAnalyzer, type FieldToken } from './field-tokens.ts';
import { setOwn } from '../../json/own-keys.ts';

/** The request's options (the `_termvectors` URL and body parameters). */
export interface TermVectorsSpec {
  /** Field names or patterns; null: the fields whose mapping stores term vectors. */
  readonly fields: readonly string[] | null;
  readonly positions: boolean;
  readonly offsets: boolean;
  readonly payloads: boolean;
  readonly termStatistics: boolean;
  readonly fieldStatistics: boolean;
  /** An artificial document (`doc` in the body): its term vectors instead of the hit's. */
  readonly doc?: Record<string, unknown> | null;
  /** `per_field_analyzer`: field → analyzer name used instead of the mapping's. */
  readonly perFieldAnalyzer?: Readonly<Record<string, string>>;
}

/** Shard statistics of one snapshot, for term vectors. */
export class SnapshotTermStatistics {
  constructor(private readonly snapshot: SearcherSnapshot | null) {}

  field(field: string): { sum_doc_freq: number; doc_count: number; sum_ttf: number } {
    let sumDocFreq = 0;
    let docCount = 0;
    let sumTtf = 0;
    let freqs = true;
    for (const view of this.snapshot?.views ?? []) {
      const inv = view.segment.inverted.get(field);
      if (inv === undefined) continue;
      docCount += inv.docCount;
      sumTtf += inv.sumTotalTermFreq;
      if (!inv.hasPositions) freqs = false;
      for (let t = 0; t < inv.terms.length; t++) sumDocFreq += inv.docFreq(t);
    }
    return { sum_doc_freq: sumDocFreq, doc_count: docCount, sum_ttf: freqs ? sumTtf : -1 };
  }

  term(field: string, term: string): { doc_freq: number; ttf: number } {
    let docFreq = 0;
    let ttf = 0;
    let freqs = true;
    for (const view of this.snapshot?.views ?? []) {
      const inv = view.segment.inverted.get(field);
      if (inv === undefined) continue;
      const t = inv.terms.find(term);
      if (t < 0) continue;
      docFreq += inv.docFreq(t);
      if (!inv.hasPositions) {
        freqs = false;
        continue;
      }
      const cursor = inv.postings(t);
      while (cursor.nextBlock()) for (let i = 0; i < cursor.count; i++) ttf += cursor.freqs[i]!;
    }
    return { doc_freq: docFreq, ttf: freqs ? ttf : -1 };
  }
}

/** Which fields of the document get term vectors. */
function selectedFields(spec: TermVectorsSpec, mapping: MappingLookup, parsed: ParsedDocument): string[] {
  const present = new Set(parsed.fields.map((f) => f.mapping.path));
  if (spec.fields === null) {
    return [...present].filter((p) => {
      const m = mapping.field(p);
      return m !== undefined && (m.termVector ?? 'no') !== 'no';
    });
  }
  const out = new Set<string>();
  for (const f of spec.fields) for (const p of f.includes('*') ? mapping.matchingFields(f) : [f]) if (present.has(p)) out.add(p);
  return [...out];
}

/** The `term_vectors` object of one document. */
export function buildTermVectors(
  parsed: ParsedDocument,
  spec: TermVectorsSpec,
  mapping: MappingLookup,
  analyzers: AnalyzerLookup,
  stats: SnapshotTermStatistics,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of selectedFields(spec, mapping, parsed).sort()) {
    const field = mapping.field(path);
    if (field === undefined || !field.index || (field.type !== 'text' && field.type !== 'keyword')) continue;
    const values = parsed.fields.filter((f) => f.mapping.path === path).flatMap((f) => f.values);
    const override = spec.perFieldAnalyzer?.[path];
    const analyzer = override !== undefined ? (analyzers.get(override) ?? null) : indexAnalyzer(field, analyzers);
    const tokens = fieldTokens(values, analyzer);
    const byTerm = new Map<string, FieldToken[]>();
    for (const t of tokens) {
      const list = byTerm.get(t.term);
      if (list) list.push(t);
      else byTerm.set(t.term, [t]);
    }
    // Stored term vectors keep positions and offsets only when the mapping says so; generated ones have both.
    const tv = field.termVector ?? 'no';
    const withPositions = spec.positions && (tv === 'no' || tv.includes('positions'));
    const withOffsets = spec.offsets && (tv === 'no' || tv.includes('offsets'));
    const terms: Record<string, unknown> = {};
    for (const term of [...byTerm.keys()].sort()) {
      const list = byTerm.get(term)!;
      const entry: Record<string, unknown> = {};
      if (spec.termStatistics) Object.assign(entry, stats.term(path, term));
      entry.term_freq = list.length;
      if (withPositions || withOffsets) {
        entry.tokens = list.map((t) => {
          const tok: Record<string, number> = {};
          if (withPositions) tok.position = t.position;
          if (withOffsets) {
            tok.start_offset = t.valueBase + t.start;
            tok.end_offset = t.valueBase + t.end;
          }
          return tok;
        });
      }
      setOwn(terms, term, entry);
    }
    const fieldOut: Record<string, unknown> = {};
    if (spec.fieldStatistics) fieldOut.field_statistics = stats.field(path);
    fieldOut.terms = terms;
    setOwn(out, path, fieldOut);
  }
  return out;
}
