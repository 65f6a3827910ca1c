/**
 * The fetch phase for one hit: its JSON text in Elasticsearch 6.8's order
 * (SearchHit.toXContent): _index, _type, _id, _version, _score, _routing,
 * _source, sort. The stored source bytes are passed through untouched unless
 * the request filters them.
 */
import type { MappingLookup } from '../mapping/types.ts';
import type { Segment, SearcherSnapshot, SegmentView } from '../segment/types.ts';
import { filterSource } from './source-filter.ts';
import type { ParsedSearch, SortValue } from './types.ts';

/** The view holding global doc `doc` (views are ordered by docBase). */
export function viewOfDoc(snapshot: SearcherSnapshot, doc: number): SegmentView {
  const views = snapshot.views;
  let lo = 0;
  let hi = views.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (views[mid]!.docBase <= doc) lo = mid;
    else hi = mid - 1;
  }
  const view = views[lo];
  if (view === undefined || doc < view.docBase || doc >= view.docBase + view.segment.maxDoc) {
    throw new RangeError(`doc ${doc} is not in this snapshot`);
  }
  return view;
}

/** A float as Java's Float.toString prints it closely enough for JSON: shortest round-trip digits, `.0` for integers. */
export function formatFloat(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? '"NaN"' : x > 0 ? '"Infinity"' : '"-Infinity"';
  const fx = Math.fround(x);
  let s = String(fx);
  for (let p = 1; p <= 9; p++) {
    const candidate = fx.toPrecision(p);
    if (Math.fround(Number(candidate)) === fx) {
      s = String(Number(candidate));
      break;
    }
  }
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

export function formatSortValue(v: SortValue): string {
  if (v === null) return 'null';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return JSON.stringify(v);
  if (!Number.isFinite(v)) return Number.isNaN(v) ? '"NaN"' : v > 0 ? '"Infinity"' : '"-Infinity"';
  return String(v);
}

export interface RenderHitOptions {
  readonly index: string;
  readonly type: string;
  readonly score: number | null;
  readonly sortValues: readonly SortValue[] | null;
  readonly search: ParsedSearch;
  /** Lets `docvalue_fields` print booleans as true/false (doc values hold 0/1). */
  readonly mapping?: MappingLookup;
}

/** `docvalue_fields` of one doc: `"field":[values]` entries (6.x prints dates as epoch millis without a format). */
function docValueFields(seg: Segment, d: number, fields: readonly string[], mapping: MappingLookup | undefined): string[] {
  const out: string[] = [];
  for (const name of fields) {
    const dv = seg.docValues.get(name);
    if (dv === undefined) continue;
    const values: string[] = [];
    if (dv.kind === 'numeric') {
      const isBool = mapping?.field(name)?.type === 'boolean';
      const push = (v: number): void => {
        if (!Number.isNaN(v)) values.push(isBool ? String(v === 1) : String(v));
      };
      if (dv.starts === null) push(dv.values[d]!);
      else for (let i = dv.starts[d]!; i < dv.starts[d + 1]!; i++) push(dv.values[i]!);
    } else if (dv.starts === null) {
      const o = dv.ords[d]!;
      if (o >= 0) values.push(JSON.stringify(dv.dict[o]));
    } else {
      for (let i = dv.starts[d]!; i < dv.starts[d + 1]!; i++) values.push(JSON.stringify(dv.dict[dv.ords[i]!]));
    }
    if (values.length > 0) out.push(`${JSON.stringify(name)}:[${values.join(',')}]`);
  }
  return out;
}

export function renderHit(snapshot: SearcherSnapshot, doc: number, opts: RenderHitOptions): string {
  const view = viewOfDoc(snapshot, doc);
  const seg = view.segment;
  const d = doc - view.docBase;
  let out = `{"_index":${JSON.stringify(opts.index)},"_type":${JSON.stringify(opts.type)},"_id":${JSON.stringify(seg.ids[d])}`;
  if (opts.search.version) out += `,"_version":${seg.versions[d]}`;
  out += `,"_score":${opts.score === null || Number.isNaN(opts.score) ? 'null' : formatFloat(opts.score)}`;
  const routing = seg.routings[d];
  if (routing !== null && routing !== undefined) out += `,"_routing":${JSON.stringify(routing)}`;
  const src = opts.search.source;
  if (src.fetch) {
    const start = seg.source.offsets[d]!;
    const end = seg.source.offsets[d + 1]!;
    if (end > start) {
      const bytes = seg.source.bytes.subarray(start, end);
      const text = src.includes.length === 0 && src.excludes.length === 0 ? bytes.toString('utf8') : filterSource(bytes, src.includes, src.excludes);
      out += `,"_source":${text}`;
    }
  }
  if (opts.search.docvalueFields.length > 0) {
    const fields = docValueFields(seg, d, opts.search.docvalueFields, opts.mapping);
    if (fields.length > 0) out += `,"fields":{${fields.join(',')}}`;
  }
  if (opts.sortValues !== null) {
    const specs = opts.search.sort;
    const parts = opts.sortValues.map((v, i) =>
      specs?.[i]?.kind === 'score' && typeof v === 'number' ? formatFloat(v) : formatSortValue(v),
    );
    out += `,"sort":[${parts.join(',')}]`;
  }
  return out + '}';
}
