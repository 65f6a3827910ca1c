/**
 * Hand-built segments for the aggregation tests: documents as plain objects
 * become doc values (keyword → sorted dictionary + ordinals, numbers, dates
 * and booleans → Float64Array), one segment view per call; a tiny filter
 * evaluator (term / terms / range / match_all / bool.must) stands in for the
 * query layer's `filterBits`.
 */
import type { AggContext, MatchSet } from '../../../shared/engine/aggs/types.ts';
import type { AggSpec } from '../../../shared/engine/aggs/spec.ts';
import type { ShardAggState } from '../../../shared/engine/aggs/state.ts';
import { collectShardAggs } from '../../../shared/engine/aggs/collect.ts';
import { reduceAggs } from '../../../shared/engine/aggs/reduce.ts';
import { parseAggregations } from '../../../shared/dsl/aggs/parse.ts';
import type { DateFormatter, FieldMapping, FieldType, MappingLookup } from '../../../shared/engine/mapping/types.ts';
import { dateFormatter, DEFAULT_DATE_FORMAT } from '../../../shared/engine/mapping/date-format.ts';
import { ID_FIELD, type DocValues, type Segment, type SegmentView } from '../../../shared/engine/segment/types.ts';
import { PackedStrings } from '../../../shared/engine/segment/packed-strings.ts';
import { fieldMapping as baseFieldMapping } from '../../helpers/field-mapping.ts';

export type Value = string | number | boolean;
export type Doc = Record<string, Value | Value[] | null>;

const ISO_FORMAT: DateFormatter = dateFormatter(DEFAULT_DATE_FORMAT);

export function fieldMapping(path: string, type: FieldType): FieldMapping {
  return baseFieldMapping(path, type, {
    analyzer: type === 'text' ? 'standard' : null,
    dateFormat: type === 'date' ? ISO_FORMAT : null,
    parent: path.endsWith('.keyword') ? path.slice(0, -'.keyword'.length) : null,
  });
}

export function mappingOf(types: Record<string, FieldType>): MappingLookup {
  const fields = new Map(Object.entries(types).map(([p, t]) => [p, fieldMapping(p, t)]));
  return {
    field: (p) => fields.get(p),
    matchingFields: (pattern) => {
      const re = new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
      return [...fields.keys()].filter((k) => re.test(k));
    },
  };
}

const rawDocs = new WeakMap<Segment, readonly Doc[]>();
let nextSegmentId = 1;

function valuesOf(doc: Doc, field: string): Value[] {
  const v = doc[field];
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}

/** A segment holding `docs` (ids `${idPrefix}${i}`), doc values for every field the mapping knows. */
export function buildSegment(docs: readonly Doc[], mapping: MappingLookup, idPrefix = 'd'): Segment {
  const fields = new Set<string>();
  for (const d of docs) for (const k of Object.keys(d)) fields.add(k);
  const docValues = new Map<string, DocValues>();
  for (const f of fields) {
    const fm = mapping.field(f);
    if (fm === undefined || fm.type === 'text' || fm.type === 'object') continue;
    const multi = docs.some((d) => valuesOf(d, f).length > 1);
    if (fm.type === 'keyword') {
      const dict = [...new Set(docs.flatMap((d) => valuesOf(d, f).map(String)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const ordOf = new Map(dict.map((t, i) => [t, i]));
      if (!multi) {
        const ords = new Int32Array(docs.length).fill(-1);
        docs.forEach((d, i) => {
          const v = valuesOf(d, f)[0];
          if (v !== undefined) ords[i] = ordOf.get(String(v))!;
        });
        docValues.set(f, { kind: 'sorted', dict: PackedStrings.of(dict), ords, starts: null });
      } else {
        const starts = new Uint32Array(docs.length + 1);
        const all: number[] = [];
        docs.forEach((d, i) => {
          const os = [...new Set(valuesOf(d, f).map((v) => ordOf.get(String(v))!))].sort((a, b) => a - b);
          all.push(...os);
          starts[i + 1] = all.length;
        });
        docValues.set(f, { kind: 'sorted', dict: PackedStrings.of(dict), ords: Int32Array.from(all), starts });
      }
      continue;
    }
    const toNum = (v: Value): number =>
      typeof v === 'boolean' ? (v ? 1 : 0) : fm.type === 'date' && typeof v === 'string' ? ISO_FORMAT.parse(v) : Number(v);
    if (!multi) {
      const values = new Float64Array(docs.length).fill(NaN);
      docs.forEach((d, i) => {
        const v = valuesOf(d, f)[0];
        if (v !== undefined) values[i] = toNum(v);
      });
      docValues.set(f, { kind: 'numeric', values, starts: null });
    } else {
      const starts = new Uint32Array(docs.length + 1);
      const all: number[] = [];
      docs.forEach((d, i) => {
        all.push(...valuesOf(d, f).map(toNum).sort((a, b) => a - b));
        starts[i + 1] = all.length;
      });
      docValues.set(f, { kind: 'numeric', values: Float64Array.from(all), starts });
    }
  }
  const sources = docs.map((d) => Buffer.from(JSON.stringify(d)));
  // `_id`s in doc order sort the same as their ords when the prefix is followed by zero-padded numbers; a map keeps it simple.
  const ids = docs.map((_, i) => `${idPrefix}${i}`);
  const idDict = [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const idOrd = new Map(idDict.map((id, o) => [id, o]));
  docValues.set(ID_FIELD, { kind: 'sorted', dict: PackedStrings.of(idDict), ords: Int32Array.from(ids.map((id) => idOrd.get(id)!)), starts: null });
  const segment: Segment = {
    id: nextSegmentId++,
    maxDoc: docs.length,
    versions: new Float64Array(docs.length).fill(1),
    seqNos: new Float64Array(docs.length),
    stored: { document: (d) => ({ source: sources[d]!, routing: null }), sourceLength: (d) => sources[d]!.length, mayHaveRouting: () => false },
    sizeInBytes: 0,
    inverted: new Map(),
    docValues,
    fieldsPresent: new Set(fields),
    fieldDocs: new Map(
      [...fields].map((f) => {
        const bits = new Uint32Array(Math.ceil(docs.length / 32));
        docs.forEach((d, i) => {
          if (valuesOf(d, f).length > 0) bits[i >>> 5]! |= 1 << (i & 31);
        });
        return [f, bits];
      }),
    ),
  };
  rawDocs.set(segment, docs);
  return segment;
}

export function viewOf(segment: Segment, docBase = 0, deleted: readonly number[] = []): SegmentView {
  let liveDocs: Uint32Array | null = null;
  if (deleted.length > 0) {
    liveDocs = new Uint32Array(Math.ceil(segment.maxDoc / 32));
    for (let d = 0; d < segment.maxDoc; d++) liveDocs[d >>> 5]! |= 1 << (d & 31);
    for (const d of deleted) liveDocs[d >>> 5]! &= ~(1 << (d & 31));
  }
  return { segment, liveDocs, numDocs: segment.maxDoc - deleted.length, docBase };
}

/** Evaluates a small query subset against the raw docs of a view. */
export function evalFilter(query: unknown, view: SegmentView): Uint32Array {
  const docs = rawDocs.get(view.segment) ?? [];
  const bits = new Uint32Array(Math.ceil(view.segment.maxDoc / 32));
  docs.forEach((d, i) => {
    const live = view.liveDocs === null || (view.liveDocs[i >>> 5]! & (1 << (i & 31))) !== 0;
    if (live && matches(query, d)) bits[i >>> 5]! |= 1 << (i & 31);
  });
  return bits;
}

function matches(q: unknown, d: Doc): boolean {
  const query = q as Record<string, Record<string, unknown>>;
  const [kind, body] = Object.entries(query)[0]!;
  if (kind === 'match_all') return true;
  if (kind === 'bool') {
    const must = (body.must ?? body.filter ?? []) as unknown[];
    return (Array.isArray(must) ? must : [must]).every((m) => matches(m, d));
  }
  const [field, arg] = Object.entries(body)[0]!;
  const vals = valuesOf(d, field);
  if (kind === 'term') return vals.some((v) => v === arg || String(v) === String(arg));
  if (kind === 'terms') return vals.some((v) => (arg as Value[]).map(String).includes(String(v)));
  if (kind === 'range') {
    const r = arg as { gte?: number; lt?: number; gt?: number; lte?: number };
    return vals.some((v) => {
      const n = Number(v);
      return (r.gte === undefined || n >= r.gte) && (r.gt === undefined || n > r.gt) && (r.lt === undefined || n < r.lt) && (r.lte === undefined || n <= r.lte);
    });
  }
  throw new Error(`fixture filter: unsupported query ${kind}`);
}

/** All live docs of the view match (or those passing `query`). */
export function matchSet(view: SegmentView, query: unknown = { match_all: {} }, scores: Float32Array | null = null): MatchSet {
  return { view, bits: evalFilter(query, view), scores };
}

export function aggContext(mapping: MappingLookup, extra: Partial<AggContext> = {}): AggContext {
  return { mapping, filterBits: evalFilter, nowMillis: Date.UTC(2024, 0, 15, 12), numberOfShards: 5, indexName: 'idx', typeName: 'doc', ...extra };
}

/** A shard = a list of segments (each a list of docs). */
export type ShardDocs = readonly (readonly Doc[])[];


/** Runs a whole search's aggregations: parse, collect per shard (every segment matched by `query`), reduce. */
export function runAggs(
  aggs: unknown,
  shards: readonly ShardDocs[],
  mapping: MappingLookup,
  opts: { typedKeys?: boolean; query?: unknown; ctx?: Partial<AggContext> } = {},
): Record<string, unknown> {
  const specs: AggSpec[] = parseAggregations(aggs, mapping);
  const states: ShardAggState[] = shards.map((segments, s) => {
    let base = 0;
    const matches = segments.map((docs, i) => {
      const view = viewOf(buildSegment(docs, mapping, `s${s}g${i}d`), base);
      base += docs.length;
      return matchSet(view, opts.query);
    });
    return collectShardAggs(specs, matches, aggContext(mapping, opts.ctx));
  });
  return reduceAggs(specs, states, { typedKeys: opts.typedKeys ?? false });
}

/** Splits docs round-robin into `shards` shards of `segments` segments each. */
export function split(docs: readonly Doc[], shards: number, segments: number): ShardDocs[] {
  const out: Doc[][][] = Array.from({ length: shards }, () => Array.from({ length: segments }, () => []));
  docs.forEach((d, i) => out[i % shards]![Math.floor(i / shards) % segments]!.push(d));
  return out;
}

/** Deterministic pseudo-random numbers (mulberry32). */
export { prng as rng } from '../../../shared/random/prng.ts';
