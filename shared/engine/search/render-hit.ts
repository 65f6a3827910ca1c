/**
 * The fetch phase for one hit: its JSON text in Elasticsearch 6.8's order
 * (SearchHit.toXContent): _index, _type, _id, _version, _score, _routing,
 * _source, sort. The stored source bytes are passed through untouched unless
 * the request filters them.
 */
import { IGNORED_FIELD, type MappingLookup } from '../mapping/types.ts';
import { ID_FIELD, idOf, type Segment, type SearcherSnapshot, type SegmentView, type SortedDocValues, type StoredDocument } from '../segment/types.ts';
import { releaseOnce, responseBuffers } from './buffer-pool.ts';
import { JsonWriter } from '../../json/json-writer.ts';
import { KeptBytes } from '../codec/kept-bytes.ts';
import { filterSource } from './source-filter.ts';
import { ipTermText } from '../mapping/ip-address.ts';
import type { ParsedSearch, RenderedHits, SortValue } from './types.ts';

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
    const fm = mapping?.field(name);
    // a field alias prints its target's values under its own name
    const dv = seg.docValues.get(fm?.path ?? name);
    if (dv === undefined) continue;
    const values: string[] = [];
    if (dv.kind === 'numeric') {
      const isBool = fm?.type === 'boolean';
      const push = (v: number): void => {
        if (!Number.isNaN(v)) values.push(isBool ? String(v === 1) : String(v));
      };
      if (dv.starts === null) push(dv.values[d]!);
      else for (let i = dv.starts[d]!; i < dv.starts[d + 1]!; i++) push(dv.values[i]!);
    } else {
      // an ip's doc values are its terms (hex): they print as addresses (DocValueFormat.IP)
      const text = fm?.mappedType === 'ip' ? ipTermText : (t: string): string => t;
      if (dv.starts === null) {
        const o = dv.ords[d]!;
        if (o >= 0) values.push(JSON.stringify(text(dv.dict.get(o))));
      } else {
        for (let i = dv.starts[d]!; i < dv.starts[d + 1]!; i++) values.push(JSON.stringify(text(dv.dict.get(dv.ords[i]!))));
      }
    }
    if (values.length > 0) out.push(`${JSON.stringify(name)}:[${values.join(',')}]`);
  }
  return out;
}

/** `_ignored` of local doc `d` as JSON array members ('' when it has none), printed with the metadata fields as SearchHit prints it. */
function ignoredFields(seg: Segment, d: number): string {
  const dv = seg.docValues.get(IGNORED_FIELD);
  if (dv === undefined || dv.kind !== 'sorted') return '';
  if (dv.starts === null) {
    const o = dv.ords[d]!;
    return o < 0 ? '' : JSON.stringify(dv.dict.get(o));
  }
  const out: string[] = [];
  for (let i = dv.starts[d]!; i < dv.starts[d + 1]!; i++) out.push(JSON.stringify(dv.dict.get(dv.ords[i]!)));
  return out.join(',');
}

/** The hits of one fetch, as a shard renders them: `docs[i]` with `scores[i]` (NaN: not shown) and `sortValues[i]`. */
export interface HitsToRender {
  readonly docs: ArrayLike<number>;
  readonly scores: ArrayLike<number>;
  readonly sortValues: readonly (readonly SortValue[] | null)[];
}

export interface RenderHitsOptions {
  readonly index: string;
  readonly type: string;
  readonly search: ParsedSearch;
  /** Lets `docvalue_fields` print booleans as true/false (doc values hold 0/1). */
  readonly mapping?: MappingLookup;
  /** What the fetch phase adds to a hit beyond the stored fields (highlight, explanation, ...). */
  readonly hooks?: HitHooks;
}

/**
 * Members of a hit computed per document, each returned as JSON members
 * (`"name":value`, several joined by commas) or '' for none, placed where
 * Elasticsearch's SearchHit.toXContent puts them.
 */
export interface HitHooks {
  /** First in the hit (`_shard`, `_node` of an explained hit). */
  head?(view: SegmentView, doc: number): string;
  /** Members of `fields` beside `docvalue_fields` (`script_fields`). */
  fields?(view: SegmentView, doc: number, source: Uint8Array): string;
  /** After `_source` and `fields`, before `sort` (`highlight`). */
  beforeSort?(view: SegmentView, doc: number, source: Uint8Array): string;
  /** Last (`_explanation`, `inner_hits`). */
  tail?(view: SegmentView, doc: number): string;
}

/** Bytes reserved per hit beyond its source for the fields around it; a longer hit grows the buffer. */
const HIT_OVERHEAD_BYTES = 160;
/** A pass record's source is about 330 bytes. */
const TYPICAL_SOURCE_BYTES = 384;

/**
 * Renders hits into one buffer, each hit a JSON object; the stored source
 * bytes are copied in as they are (no decode and re-encode) unless the
 * request filters them.
 */
export function renderHits(snapshot: SearcherSnapshot, hits: HitsToRender, opts: RenderHitsOptions): RenderedHits {
  const n = hits.docs.length;
  const views: SegmentView[] = new Array<SegmentView>(n);
  for (let i = 0; i < n; i++) views[i] = viewOfDoc(snapshot, hits.docs[i]!);
  // Sources are read once, while rendering (each read may decompress a block): the buffer grows as needed.
  const out = new JsonWriter(n * (HIT_OVERHEAD_BYTES + TYPICAL_SOURCE_BYTES), responseBuffers);
  const starts = new Uint32Array(n + 1);
  // The fixed parts of every hit as bytes, written without going through a string each time.
  const head = Buffer.from(`{"_index":${JSON.stringify(opts.index)},"_type":${JSON.stringify(opts.type)},"_id":`, 'utf8');
  const headAfterBrace = head.subarray(1);
  const hooks = opts.hooks;
  const search = opts.search;
  const src = search.source;
  const filtered = src.includes.length > 0 || src.excludes.length > 0;
  const specs = search.sort;
  // sort values of ip fields are the addresses' terms (hex): printed as the addresses, as SearchSortValues formats them
  const ipSorts = specs?.map((spec) => spec.kind === 'field' && opts.mapping?.field(spec.field)?.mappedType === 'ip') ?? [];
  const needsSource = src.fetch || hooks?.fields !== undefined || hooks?.beforeSort !== undefined;
  for (let i = 0; i < n; i++) {
    starts[i] = out.length;
    const view = views[i]!;
    const seg = view.segment;
    const d = hits.docs[i]! - view.docBase;
    const lead = hooks?.head?.(view, d) ?? '';
    if (lead === '') out.raw(head);
    else {
      out.text(`{${lead},`);
      out.raw(headAfterBrace);
    }
    writeId(out, seg, d);
    if (search.version) out.ascii(`,"_version":${seg.versions[d]}`);
    const score = hits.scores[i]!;
    if (Number.isNaN(score)) out.raw(SCORE_NULL);
    else out.ascii(`,"_score":${formatFloat(score)}`);
    // Without `_source` and hooks that read it, the stored block is read only for a `_routing` the segment may hold.
    const stored = needsSource || seg.stored.mayHaveRouting() ? seg.stored.document(d) : NO_STORED;
    const routing = stored.routing;
    if (routing !== null) out.text(`,"_routing":${JSON.stringify(routing)}`);
    const ignored = ignoredFields(seg, d);
    if (ignored !== '') out.text(`,"_ignored":[${ignored}]`);
    if (src.fetch && stored.source.length > 0) {
      if (filtered) {
        out.text(`,"_source":${filterSource(Buffer.from(stored.source.buffer, stored.source.byteOffset, stored.source.length), src.includes, src.excludes)}`);
      } else {
        out.raw(SOURCE_KEY);
        out.raw(stored.source);
      }
    }
    const hookFields = hooks?.fields?.(view, d, stored.source) ?? '';
    if (search.docvalueFields.length > 0 || hookFields !== '') {
      const fields = search.docvalueFields.length > 0 ? docValueFields(seg, d, search.docvalueFields, opts.mapping) : [];
      if (hookFields !== '') fields.unshift(hookFields);
      if (fields.length > 0) out.text(`,"fields":{${fields.join(',')}}`);
    }
    if (hooks?.beforeSort) {
      const members = hooks.beforeSort(view, d, stored.source);
      if (members !== '') out.text(`,${members}`);
    }
    const sortValues = hits.sortValues[i] ?? null;
    if (sortValues !== null) {
      out.raw(SORT_KEY);
      for (let k = 0; k < sortValues.length; k++) {
        const v = ipSorts[k] === true && typeof sortValues[k] === 'string' ? ipTermText(sortValues[k] as string) : sortValues[k]!;
        if (k > 0) out.raw(COMMA);
        if (typeof v === 'number' && Number.isSafeInteger(v) && specs?.[k]?.kind !== 'score' && !Object.is(v, -0)) {
          // A time or a doc: its digits, without a string (what String(v) prints for a safe integer).
          out.number(v);
          continue;
        }
        const text = specs?.[k]?.kind === 'score' && typeof v === 'number' ? formatFloat(v) : formatSortValue(v);
        if (typeof v === 'string') out.text(text);
        else out.ascii(text);
      }
      out.raw(CLOSE_ARRAY);
    }
    const tail = hooks?.tail?.(view, d) ?? '';
    if (tail !== '') out.text(`,${tail}`);
    out.raw(CLOSE_HIT);
  }
  starts[n] = out.length;
  return { bytes: out.take(), starts, release: releaseOnce(responseBuffers, out.buffer) };
}

/**
 * The `_id`s (as JSON strings, a u16 length first) of hits rendered out of
 * doc order, per thread: finding one in its segment's dictionary read the
 * doc's ordinal, the dictionary block's offset and half a block of front
 * coded terms, each a cache line apart (about a quarter of what rendering a
 * hit of the trajectory cost in a shard worker); a hit rendered again copies
 * its id from here. Hits rendered in doc order (a scroll by `_doc`) keep none.
 */
export const ID_CACHE_BYTES = 1024 * 1024;
const idCache = new KeptBytes(ID_CACHE_BYTES);

/** Per `_id` column (one a segment): where its docs' ids are in idCache, and the doc rendered last. */
interface KeptIds {
  readonly starts: Map<number, number>;
  last: number;
}
const keptIds = new WeakMap<SortedDocValues, KeptIds>();

/** `_id` of local doc `d`, as a JSON string: from the dictionary's units when it gives them, without a string. */
function writeId(out: JsonWriter, seg: Segment, d: number): void {
  const dv = seg.docValues.get(ID_FIELD) as SortedDocValues;
  const dict = dv.dict;
  if (dict.unitsOf === undefined) {
    out.jsonString(idOf(seg, d));
    return;
  }
  let kept = keptIds.get(dv);
  if (kept === undefined) {
    kept = { starts: new Map(), last: -2 };
    keptIds.set(dv, kept);
  }
  const inOrder = d === kept.last + 1;
  kept.last = d;
  const at = inOrder ? undefined : kept.starts.get(d);
  if (at !== undefined) {
    const bytes = idCache.bytes;
    out.rawRange(bytes, at + 2, at + 2 + (bytes[at]! | (bytes[at + 1]! << 8)));
    return;
  }
  dict.unitsOf(dv.ords[d]!);
  const start = out.length;
  out.jsonUnits(dict.units!, dict.unitsLength!);
  if (inOrder) return;
  const n = out.length - start;
  if (n > 0xffff) return;
  const to = idCache.reserve(kept.starts, d, n + 2);
  if (to < 0) return;
  idCache.bytes[to] = n & 0xff;
  idCache.bytes[to + 1] = n >>> 8;
  out.copyTo(start, out.length, idCache.bytes, to + 2);
}

const SCORE_NULL = Buffer.from(',"_score":null');
const NO_STORED: StoredDocument = { source: new Uint8Array(0), routing: null };
const SOURCE_KEY = Buffer.from(',"_source":');
const SORT_KEY = Buffer.from(',"sort":[');
const COMMA = Buffer.from(',');
const CLOSE_ARRAY = Buffer.from(']');
const CLOSE_HIT = Buffer.from('}');

const plainViews = new WeakMap<Buffer, Uint8Array>();

/** `b` as a plain Uint8Array over the same memory (its subarrays are not Buffers, so cheaper to make). */
export function plainBytes(b: Buffer): Uint8Array {
  let u8 = plainViews.get(b);
  if (u8 === undefined) {
    u8 = new Uint8Array(b.buffer, b.byteOffset, b.length);
    plainViews.set(b, u8);
  }
  return u8;
}

/** One hit's JSON text (the fetch phase of a copy served to another node). */
export function renderHit(snapshot: SearcherSnapshot, doc: number, opts: RenderHitOptions): string {
  const { bytes, release } = renderHits(snapshot, { docs: [doc], scores: [opts.score ?? NaN], sortValues: [opts.sortValues] }, opts);
  const text = bytes.toString('utf8');
  release?.();
  return text;
}
