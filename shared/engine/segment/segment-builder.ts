/**
 * The indexing buffer of a shard copy: documents accumulate in compact
 * growable columns and `build()` turns them into an immutable Segment.
 * `reset()` then empties it for the next segment's documents and keeps its
 * arrays: a refresh a second would otherwise allocate (and the collector
 * free) megabytes of hash tables and pools a second.
 */
import { runSteps } from '../../steps/run-steps.ts';
import type { Analyzer, AnalyzerLookup } from '../analysis/types.ts';
import type { FieldMapping, NestedDocument, ParsedDocument, ParsedField } from '../mapping/types.ts';
import { mapperParsing } from '../../errors/es-errors.ts';
import { newBitset } from './bitset.ts';
import { ByteList, Float64List, Uint32List } from './growable-arrays.ts';
import { KeywordFieldWriter } from './keyword-field-writer.ts';
import type { HeapInvertedField } from './heap-inverted-field.ts';
import { NESTED_PATH_MAPPING } from './nested-blocks.ts';
import { NumericFieldWriter } from './numeric-field-writer.ts';
import { PointFieldWriter } from './point-field-writer.ts';
import { pointTreeBytes } from './point-tree.ts';
import { RangeFieldWriter } from './range-field-writer.ts';
import { ShapeFieldWriter } from './shape-field-writer.ts';
import { TextFieldWriter } from './text-field-writer.ts';
import { completionTerm } from '../suggest/completion-terms.ts';
import { tokenCounts } from './token-count.ts';
import { ID_FIELD, type DocValues, type InvertedField, type PointValues, type Segment, type StoredDocument, type StoredFields } from './types.ts';

/** One applied index operation waiting for the next refresh. */
export interface BufferedDoc {
  readonly id: string;
  readonly version: number;
  readonly seqNo: number;
  readonly routing: string | null;
  /** `_source` as the client sent it (copied: the caller may reuse the buffer). */
  readonly source: Buffer;
  readonly parsed: ParsedDocument;
}

/** A nested doc's stored source: empty (its values are in its root's `_source`). */
const EMPTY_SOURCE = new Uint8Array(0);

/** Text fields without an `analyzer` use Elasticsearch's default. */
const DEFAULT_ANALYZER = 'standard';

type FieldWriter =
  | { readonly kind: 'text'; readonly writer: TextFieldWriter }
  | { readonly kind: 'keyword'; readonly writer: KeywordFieldWriter }
  /** A completion field: a keyword-like dictionary of its inputs' terms (suggest/completion-terms.ts). */
  | { readonly kind: 'completion'; readonly writer: KeywordFieldWriter }
  | { readonly kind: 'numeric'; readonly writer: NumericFieldWriter }
  | { readonly kind: 'points'; readonly writer: PointFieldWriter | RangeFieldWriter | ShapeFieldWriter }
  /** Neither indexed nor with doc values: only recorded as present. */
  | { readonly kind: 'stored-only'; readonly writer: null };

interface FieldState {
  readonly path: string;
  readonly type: FieldMapping['type'];
  readonly column: FieldWriter;
  /** Docs that have the field (see Segment.fieldDocs). */
  readonly present: Uint32List;
  /** Last doc that touched the field: a path listed twice in one doc is one field instance. */
  lastDoc: number;
}

export class SegmentBuilder {
  private readonly fields = new Map<string, FieldState>();
  /** `_id`: indexed, with doc values, like a keyword field. */
  private readonly ids = new KeywordFieldWriter(true, true);
  private docCount = 0;
  /** Handed to the built segment as is: reset() starts a new array. */
  private routings: (string | null)[] = [];
  private readonly versions = new Float64List(1024);
  private readonly seqNos = new Float64List(1024);
  private readonly sourceBytes = new ByteList(64 * 1024);
  private readonly sourceOffsets = new Uint32List(1024);
  private readonly touched: FieldState[] = [];
  /**
   * The state (and analyzer) of the field at each position of the last doc's
   * field list, by mapping object: documents of one mapping list the same
   * fields in the same order, so most lookups are an identity check.
   */
  private readonly recentMappings: (FieldMapping | null)[] = [];
  private readonly recentStates: FieldState[] = [];
  private readonly recentAnalyzers: (Analyzer | null)[] = [];
  private built = false;
  /** Nested docs were added since the last root (addNested). */
  private openBlock = false;
  /** withPath's reused array, and its `_nested_path` fields by path. */
  private readonly nestedFields: ParsedField[] = [];
  private readonly pathFields = new Map<string, ParsedField>();

  constructor(private readonly analyzers: AnalyzerLookup) {
    this.sourceOffsets.push(0);
  }

  /** Empties the builder for the next segment, keeping each field's writer and arrays. */
  reset(): void {
    for (const state of this.fields.values()) {
      state.column.writer?.reset();
      state.present.clear();
      state.lastDoc = -1;
    }
    this.ids.reset();
    this.docCount = 0;
    this.routings = [];
    this.versions.clear();
    this.seqNos.clear();
    this.sourceBytes.clear();
    this.sourceOffsets.clear();
    this.sourceOffsets.push(0);
    this.recentMappings.length = 0;
    this.recentStates.length = 0;
    this.recentAnalyzers.length = 0;
    this.openBlock = false;
    this.built = false;
  }

  /** Number of docs added so far. */
  get size(): number {
    return this.docCount;
  }

  /**
   * Adds a document, its nested documents first (nested-blocks.ts); returns
   * the local doc id of the document itself in the segment to be built.
   */
  add(doc: BufferedDoc): number {
    return runSteps(this.addInSteps(doc, Infinity));
  }

  /**
   * add() in steps of `every` nested documents: the caller may give its
   * thread to other work between steps (a document of 90,000 nested objects
   * took seconds), provided nothing else adds to or builds this builder
   * before the last step. Returns the document's local doc id.
   */
  *addInSteps(doc: BufferedDoc, every: number): Generator<void, number, void> {
    if (this.built) throw new Error('SegmentBuilder.add after build()');
    const nested = doc.parsed.nested;
    if (nested === undefined || nested.length === 0) {
      this.prepare(doc.parsed.fields);
      return this.addDoc(doc.parsed.fields, doc.id, doc.version, doc.seqNo, doc.routing, doc.source);
    }
    // Refuse the whole block before any column has taken part of it.
    for (const n of nested) this.prepare(this.withPath(n));
    this.prepare(doc.parsed.fields);
    for (let i = 0; i < nested.length; i++) {
      if (i > 0 && i % every === 0) yield;
      this.addNested(nested[i]!, doc.version, doc.seqNo);
    }
    this.prepare(doc.parsed.fields);
    return this.addDoc(doc.parsed.fields, doc.id, doc.version, doc.seqNo, doc.routing, doc.source);
  }

  /**
   * Adds one nested document of the document being added: its block is
   * open until the document's root is added (add() of a document whose
   * `parsed` has no nested documents left), or closeOpenBlock.
   */
  addNested(nested: NestedDocument, version: number, seqNo: number): void {
    if (this.built) throw new Error('SegmentBuilder.add after build()');
    const fields = this.withPath(nested);
    this.prepare(fields);
    this.openBlock = true;
    this.addDoc(fields, null, version, seqNo, null, EMPTY_SOURCE);
  }

  /**
   * Ends a block whose root will not come (its document failed after some
   * of its nested documents were added, or while one was): adds a root with
   * no field and an empty source, which takes whatever of a doc a failure
   * left half added, and returns its local doc id, which the caller deletes
   * so the block goes whole; -1 when no block is open.
   */
  closeOpenBlock(id: string, version: number, seqNo: number, routing: string | null): number {
    if (!this.openBlock && this.touched.length === 0) return -1;
    return this.addDoc([], id, version, seqNo, routing, EMPTY_SOURCE);
  }

  /** A nested document's fields and its `_nested_path`, in an array reused for the next one. */
  private withPath(nested: NestedDocument): readonly ParsedField[] {
    let path = this.pathFields.get(nested.path);
    if (path === undefined) {
      path = { mapping: NESTED_PATH_MAPPING, values: [nested.path] };
      this.pathFields.set(nested.path, path);
    }
    const out = this.nestedFields;
    out.length = 0;
    for (let k = 0; k < nested.fields.length; k++) out.push(nested.fields[k]!);
    out.push(path);
    return out;
  }

  /** Looks up (and checks) the column of every field of a doc about to be added: throws before anything is added. */
  private prepare(fields: readonly ParsedField[]): void {
    for (let k = 0; k < fields.length; k++) {
      const mapping = fields[k].mapping;
      if (fields[k].values.length === 0 || mapping.type === 'object' || this.recentMappings[k] === mapping) continue;
      const state = this.fieldState(mapping);
      const analyzer =
        (mapping.type === 'text' && mapping.index) || mapping.type === 'completion' || mapping.tokenCount !== undefined ? this.analyzerFor(mapping) : null;
      this.recentMappings[k] = mapping;
      this.recentStates[k] = state;
      this.recentAnalyzers[k] = analyzer;
    }
  }

  /** Adds one Lucene doc (a nested one has no `_id`, source or routing) whose fields were just prepared. */
  private addDoc(fields: readonly ParsedField[], id: string | null, version: number, seqNo: number, routing: string | null, source: Uint8Array): number {
    const local = this.docCount;
    for (let k = 0; k < fields.length; k++) {
      const field = fields[k];
      if (field.values.length === 0 || field.mapping.type === 'object') continue;
      const state = this.recentStates[k];
      if (state.lastDoc !== local) {
        state.lastDoc = local;
        state.column.writer?.startDoc(local);
        this.touched.push(state);
      }
      this.addValues(state, field, this.recentAnalyzers[k]);
    }
    for (const state of this.touched) {
      const present = state.column.writer === null ? true : state.column.writer.finishDoc();
      if (present) setGrowableBit(state.present, local);
    }
    this.touched.length = 0;

    if (id !== null) {
      this.openBlock = false;
      this.ids.startDoc(local);
      this.ids.addValue(id);
      this.ids.finishDoc();
    }
    this.docCount++;
    this.routings.push(routing);
    this.versions.push(version);
    this.seqNos.push(seqNo);
    this.sourceBytes.append(source);
    this.sourceOffsets.push(this.sourceBytes.length);
    return local;
  }

  /** The stored part of buffered doc `local` (valid until the next add or reset). */
  stored(local: number): StoredDocument {
    const offsets = this.sourceOffsets.array;
    return { source: this.sourceBytes.array.subarray(offsets[local]!, offsets[local + 1]!), routing: this.routings[local] ?? null };
  }

  /** The immutable segment of every doc added, in arrays of its own; reset() before adding more. */
  build(segmentId: number): Segment {
    return runSteps(this.buildInSteps(segmentId));
  }

  /**
   * build(), yielding after each field's columns: a shard worker refreshing
   * a large buffer gives its thread turns in between. Nothing may be added
   * until the last step.
   */
  *buildInSteps(segmentId: number): Generator<void, Segment> {
    if (this.built) throw new Error('SegmentBuilder.build called twice');
    this.built = true;
    const maxDoc = this.docCount;
    const inverted = new Map<string, InvertedField>();
    const docValues = new Map<string, DocValues>();
    const fieldDocs = new Map<string, Uint32Array>();
    const points = new Map<string, PointValues>();
    for (const state of this.fields.values()) {
      // A field kept from an earlier segment that no doc of this one has.
      if (state.lastDoc < 0) continue;
      yield;
      const column = state.column;
      if (column.kind === 'text') {
        inverted.set(state.path, yield* column.writer.buildSteps(maxDoc));
      } else if (column.kind === 'keyword' || column.kind === 'completion') {
        const built = yield* column.writer.buildSteps(maxDoc);
        if (built.inverted !== null) inverted.set(state.path, built.inverted);
        if (built.docValues !== null) docValues.set(state.path, built.docValues);
      } else if (column.kind === 'numeric') {
        docValues.set(state.path, column.writer.build(maxDoc));
      } else if (column.kind === 'points') {
        points.set(state.path, column.writer.build(maxDoc));
      }
      if (state.present.length > 0) {
        const bits = newBitset(maxDoc);
        bits.set(state.present.array.subarray(0, Math.min(state.present.length, bits.length)));
        fieldDocs.set(state.path, bits);
      }
    }
    yield;
    const ids = yield* this.ids.buildSteps(maxDoc);
    inverted.set(ID_FIELD, ids.inverted!);
    docValues.set(ID_FIELD, ids.docValues!);
    const sources = this.sourceBytes.toArray();
    return {
      id: segmentId,
      maxDoc,
      versions: this.versions.toArray(),
      seqNos: this.seqNos.toArray(),
      stored: new HeapStoredFields(sources, this.sourceOffsets.toArray(), this.routings),
      inverted,
      docValues,
      points,
      fieldsPresent: new Set(fieldDocs.keys()),
      fieldDocs,
      sizeInBytes: heapBytes(sources, inverted, docValues, maxDoc) + pointBytes(points),
    };
  }

  private addValues(state: FieldState, field: ParsedField, analyzer: Analyzer | null): void {
    const column = state.column;
    switch (column.kind) {
      case 'text':
        column.writer.addValues(field.values, analyzer ?? this.analyzerFor(field.mapping));
        return;
      case 'keyword':
        column.writer.addValues(field.values);
        return;
      case 'completion': {
        const a = analyzer ?? this.analyzerFor(field.mapping);
        for (const v of field.values) {
          const term = completionTerm(String(v), a, field.mapping.completion!);
          if (term !== null) column.writer.addValue(term);
        }
        return;
      }
      case 'numeric':
        if (field.mapping.tokenCount !== undefined) {
          column.writer.addValues(field.mapping, tokenCounts(field.values, analyzer ?? this.analyzerFor(field.mapping), field.mapping.tokenCount));
        } else column.writer.addValues(field.mapping, field.values);
        return;
      case 'points':
        column.writer.addValues(field.values);
        return;
      case 'stored-only':
        return;
    }
  }

  private analyzerFor(mapping: FieldMapping): Analyzer {
    const name = mapping.analyzer ?? DEFAULT_ANALYZER;
    const analyzer = this.analyzers.get(name);
    if (analyzer === undefined) throw mapperParsing(`analyzer [${name}] not found for field [${mapping.path}]`);
    return analyzer;
  }

  private fieldState(mapping: FieldMapping): FieldState {
    const existing = this.fields.get(mapping.path);
    // A state no doc of this segment used yet may be replaced (kept from an earlier segment).
    if (existing !== undefined && (existing.type === mapping.type || existing.lastDoc >= 0)) {
      if (existing.type !== mapping.type) {
        throw mapperParsing(
          `mapper [${mapping.path}] of type [${mapping.type}] conflicts with type [${existing.type}] already in this segment`,
        );
      }
      return existing;
    }
    const state: FieldState = {
      path: mapping.path,
      type: mapping.type,
      column: newFieldWriter(mapping),
      present: new Uint32List(64),
      lastDoc: -1,
    };
    this.fields.set(mapping.path, state);
    return state;
  }
}

function newFieldWriter(mapping: FieldMapping): FieldWriter {
  switch (mapping.type) {
    case 'text':
      return mapping.index ? { kind: 'text', writer: new TextFieldWriter() } : { kind: 'stored-only', writer: null };
    case 'keyword':
      return mapping.index || mapping.docValues
        ? { kind: 'keyword', writer: new KeywordFieldWriter(mapping.index, mapping.docValues) }
        : { kind: 'stored-only', writer: null };
    case 'completion':
      return { kind: 'completion', writer: new KeywordFieldWriter(true, false) };
    case 'object':
      throw new Error(`object field [${mapping.path}] has no values of its own`);
    case 'binary':
      return { kind: 'stored-only', writer: null };
    case 'geo_point':
      return mapping.index || mapping.docValues ? { kind: 'points', writer: new PointFieldWriter() } : { kind: 'stored-only', writer: null };
    case 'integer_range':
    case 'long_range':
    case 'float_range':
    case 'double_range':
    case 'date_range':
      return mapping.index ? { kind: 'points', writer: new RangeFieldWriter(2) } : { kind: 'stored-only', writer: null };
    case 'ip_range':
      return mapping.index ? { kind: 'points', writer: new RangeFieldWriter(8) } : { kind: 'stored-only', writer: null };
    case 'geo_shape':
      return { kind: 'points', writer: new ShapeFieldWriter() };
    default:
      // Numbers are searched through their doc values, so an indexed number keeps them even with `doc_values: false`.
      return mapping.index || mapping.docValues
        ? { kind: 'numeric', writer: new NumericFieldWriter() }
        : { kind: 'stored-only', writer: null };
  }
}

/** Sets bit `doc` in a bitset that grows with the docs added. */
function setGrowableBit(words: Uint32List, doc: number): void {
  const word = doc >>> 5;
  while (words.length <= word) words.push(0);
  words.array[word] |= 1 << (doc & 31);
}

/** Sources and routings of a segment built in memory. */
class HeapStoredFields implements StoredFields {
  constructor(
    private readonly bytes: Uint8Array,
    /** Source of doc d is bytes[offsets[d]..offsets[d+1]). */
    private readonly offsets: Uint32Array,
    private readonly routings: readonly (string | null)[],
  ) {
    this.routed = routings.some((r) => r !== null && r !== undefined);
  }

  private readonly routed: boolean;

  mayHaveRouting(): boolean {
    return this.routed;
  }

  document(doc: number): StoredDocument {
    return { source: this.bytes.subarray(this.offsets[doc]!, this.offsets[doc + 1]!), routing: this.routings[doc] ?? null };
  }

  sourceLength(doc: number): number {
    return this.offsets[doc + 1]! - this.offsets[doc]!;
  }
}

function pointBytes(points: ReadonlyMap<string, PointValues>): number {
  let n = 0;
  for (const p of points.values()) n += p.values.byteLength + p.starts.byteLength + (p.tree === undefined ? 0 : pointTreeBytes(p.tree));
  return n;
}

/** Bytes a segment built in memory holds (its typed arrays), for `_cat` and stats. */
function heapBytes(sources: Uint8Array, inverted: ReadonlyMap<string, InvertedField>, docValues: ReadonlyMap<string, DocValues>, maxDoc: number): number {
  let n = sources.byteLength + 24 * maxDoc;
  for (const f of inverted.values()) {
    const d = (f as HeapInvertedField).data;
    if (d === undefined) continue;
    n += d.postingStarts.byteLength + d.postingDocs.byteLength + d.postingFreqs.byteLength + (d.positionStarts?.byteLength ?? 0) + (d.positions?.byteLength ?? 0);
    n += d.terms.sizeInBytes + (d.norms?.byteLength ?? 0);
  }
  for (const dv of docValues.values()) n += (dv.starts?.byteLength ?? 0) + (dv.kind === 'numeric' ? dv.values.byteLength : dv.ords.byteLength);
  return n;
}
