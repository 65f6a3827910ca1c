/**
 * Writes a segment's files from one or more source segments, leaving out
 * their deleted docs: a refresh writes the segment the indexing buffer built
 * (one source), a merge writes several. Everything streams: terms are merged
 * in order from the sources' dictionaries, each term's postings are read and
 * written once, stored documents pass through block by block; only per-doc
 * columns of the new segment (doc values, norms) are gathered in memory
 * before they are written, one field at a time.
 *
 * Docs keep their relative order, source after source, so a source's doc d
 * becomes docMaps[source][d] (or -1 when it was deleted).
 */
import { runSteps } from '../../steps/run-steps.ts';
import { join } from 'node:path';
import { FileOutput } from '../codec/file-output.ts';
import { FrontCodedWriter, TERMS_PER_BLOCK, TEXT_TERMS_PER_BLOCK, type DictionaryLayout } from '../codec/front-coded.ts';
import { PostingsWriter } from '../codec/postings-format.ts';
import { StoredFieldsWriter, sampleDictionary } from '../codec/stored-fields.ts';
import { narrowestKind, ordKind, writeColumn, type ColumnLayout } from '../codec/typed-columns.ts';
import { DictionarySink, SharedSections } from './shared-sections.ts';
import type { SegmentFileKind } from '../codec/file-format.ts';
import { bitsetWords, hasBit } from './bitset.ts';
import { DATA_FILES, segmentFileName, type DocValuesInfo, type FieldInfo, type InvertedInfo, type SegmentInfo } from './segment-info.ts';
import { keptDocs } from './nested-blocks.ts';
import { mergeTermsInSteps } from './term-merge.ts';
import { writePoints } from './point-values-file.ts';
import { HeapInvertedField } from './heap-inverted-field.ts';
import { crashPoint } from '../store/fault-injection.ts';
import type { DocValues, InvertedField, NumericDocValues, PostingsCursor, Segment, SortedDocValues, StoredDocument } from './types.ts';

export interface WriteSource {
  readonly segment: Segment;
  /** Live docs (null: all live); deleted docs are left out. */
  readonly liveDocs: Uint32Array | null;
}

export interface WrittenSegment {
  readonly info: SegmentInfo;
  /** Per source: old local doc → new local doc, -1 for a doc left out. */
  readonly docMaps: readonly Int32Array[];
}

export interface WriteOptions {
  /** fsync every file (a commit follows); otherwise the OS writes them back when it likes. */
  readonly sync: boolean;
}

type Outputs = Record<SegmentFileKind, FileOutput>;

/** Writes segment `id` into `dir`; returns null when no live doc is left to write. */
export function writeSegment(dir: string, id: number, sources: readonly WriteSource[], opts: WriteOptions): WrittenSegment | null {
  return runSteps(writeSegmentInSteps(dir, id, sources, opts));
}

/** Stored documents copied between two yields of writeSegmentInSteps. */
const DOCS_PER_STEP = 2048;

/**
 * writeSegment, yielding between its pieces of work (every DOCS_PER_STEP
 * stored documents, every field, every few thousand terms of a field): a
 * shard worker writing the segments of a commit gives its thread turns in
 * between. The files are the same; nothing is visible before the last step.
 */
export function* writeSegmentInSteps(dir: string, id: number, sources: readonly WriteSource[], opts: WriteOptions): Generator<void, WrittenSegment | null> {
  const docMaps: Int32Array[] = [];
  let maxDoc = 0;
  for (const { segment, liveDocs } of sources) {
    const map = new Int32Array(segment.maxDoc);
    // Nested docs are kept with their root (live docs mark roots only).
    const kept = keptDocs(segment, liveDocs);
    for (let d = 0; d < segment.maxDoc; d++) map[d] = kept === null || hasBit(kept, d) ? maxDoc++ : -1;
    docMaps.push(map);
  }
  if (maxDoc === 0) return null;
  const parts = sources.map((s, i) => ({ segment: s.segment, docMap: docMaps[i]! }));
  const out = {} as Outputs;
  try {
    for (const kind of DATA_FILES) out[kind] = new FileOutput(join(dir, segmentFileName(id, kind)), kind);
    const stored = yield* writeStored(parts, maxDoc, out.fdt);
    yield;
    const versions = writeGathered(parts, maxDoc, out.dvd, (s) => s.versions);
    const seqNos = writeGathered(parts, maxDoc, out.dvd, (s) => s.seqNos);
    const fields: FieldInfo[] = [];
    const shared = new SharedSections();
    for (const path of fieldPaths(parts)) {
      yield;
      fields.push(yield* writeField(path, parts, maxDoc, out, shared));
    }
    const files: Record<string, number> = {};
    for (const kind of DATA_FILES) files[kind] = out[kind].finish(opts.sync);
    crashPoint('segment-before-info');
    const info: SegmentInfo = { id, maxDoc, files, versions, seqNos, stored, fields };
    writeInfo(dir, info, opts.sync);
    return { info, docMaps };
  } catch (err) {
    for (const kind of DATA_FILES) out[kind]?.abandon();
    throw err;
  }
}

/** The `.si` file: the info as JSON between a header and a checksummed footer. */
function writeInfo(dir: string, info: SegmentInfo, sync: boolean): void {
  const si = new FileOutput(join(dir, segmentFileName(info.id, 'si')), 'si');
  si.write(Buffer.from(JSON.stringify(info), 'utf8'));
  si.finish(sync);
}

interface Part {
  readonly segment: Segment;
  readonly docMap: Int32Array;
}

function fieldPaths(parts: readonly Part[]): string[] {
  const paths = new Set<string>();
  for (const { segment } of parts) {
    for (const p of segment.inverted.keys()) paths.add(p);
    for (const p of segment.docValues.keys()) paths.add(p);
    for (const p of segment.fieldDocs.keys()) paths.add(p);
    if (segment.points !== undefined) for (const p of segment.points.keys()) paths.add(p);
  }
  return [...paths].sort();
}

function* writeStored(parts: readonly Part[], maxDoc: number, fdt: FileOutput): Generator<void, ReturnType<StoredFieldsWriter['finish']>> {
  const w = new StoredFieldsWriter(fdt, sampleDictionary(maxDoc, keptDocReader(parts)));
  for (const { segment, docMap } of parts) {
    for (let d = 0; d < docMap.length; d++) {
      if (d % DOCS_PER_STEP === DOCS_PER_STEP - 1) yield;
      if (docMap[d]! < 0) continue;
      const doc = segment.stored.document(d);
      w.add(doc.source, doc.routing);
    }
  }
  return w.finish();
}

/**
 * Reads kept doc i (in the new numbering) from its source; calls with
 * ascending i cost one walk of the doc maps between them.
 */
function keptDocReader(parts: readonly Part[]): (i: number) => StoredDocument {
  let part = 0;
  let d = 0;
  return (i) => {
    if (part >= parts.length || (d < parts[part]!.docMap.length && parts[part]!.docMap[d]! > i)) {
      part = 0;
      d = 0;
    }
    for (;;) {
      const map = parts[part]!.docMap;
      for (; d < map.length; d++) if (map[d]! === i) return parts[part]!.segment.stored.document(d);
      else if (map[d]! > i) break;
      if (d < map.length) throw new Error(`kept doc ${i} not found`);
      part++;
      d = 0;
      if (part >= parts.length) throw new Error(`kept doc ${i} not found`);
    }
  };
}

/** A per-doc number column of the sources (versions, seq_nos), renumbered and written narrow. */
function writeGathered(parts: readonly Part[], maxDoc: number, dvd: FileOutput, column: (s: Segment) => ArrayLike<number>): ColumnLayout {
  const values = new Float64Array(maxDoc);
  for (const { segment, docMap } of parts) {
    const from = column(segment);
    for (let d = 0; d < docMap.length; d++) if (docMap[d]! >= 0) values[docMap[d]!] = from[d]!;
  }
  return writeColumn(dvd, values, maxDoc, narrowestKind(values, maxDoc));
}

function* writeField(path: string, parts: readonly Part[], maxDoc: number, out: Outputs, shared: SharedSections): Generator<void, FieldInfo> {
  let inverted: InvertedInfo | null = null;
  let ordMaps: (Int32Array | null)[] | null = null;
  let sharedDict: DictionaryLayout | null = null;
  const invertedParts = parts.map((p) => p.segment.inverted.get(path) ?? null);
  if (invertedParts.some((f) => f !== null)) {
    const merged = yield* writeInverted(parts, invertedParts, maxDoc, out, shared);
    yield;
    inverted = merged.info;
    ordMaps = merged.ordMaps;
    sharedDict = merged.info?.dict ?? null;
  }
  let docValues: DocValuesInfo | null = null;
  const dvParts = parts.map((p) => p.segment.docValues.get(path) ?? null);
  const kinds = new Set(dvParts.filter((d) => d !== null).map((d) => d!.kind));
  if (kinds.size > 1) throw new Error(`cannot merge doc values of [${path}]: numeric in one segment, keyword in another`);
  if (kinds.has('numeric')) {
    docValues = writeNumeric(parts, dvParts as (NumericDocValues | null)[], maxDoc, out.dvd, shared);
  } else if (kinds.has('sorted')) {
    const sorted = dvParts as (SortedDocValues | null)[];
    // A keyword field's doc values share the postings' dictionary (the same terms, kept by the same live docs).
    const shares =
      ordMaps !== null &&
      sharedDict !== null &&
      sorted.every((dv, i) => dv === null || (invertedParts[i] !== null && invertedParts[i]!.terms === dv.dict));
    docValues = shares ? writeOrds(parts, sorted, ordMaps!, sharedDict!, maxDoc, out.dvd, shared) : yield* writeSortedWithDict(parts, sorted, maxDoc, out, shared);
  }
  yield;
  const points = writePoints(path, parts, maxDoc, out.dvd);
  let present: FieldInfo['present'] = null;
  const words = bitsetWords(maxDoc);
  const bits = new Uint32Array(words);
  let any = false;
  for (const { segment, docMap } of parts) {
    const from = segment.fieldDocs.get(path);
    if (from === undefined) continue;
    for (let d = 0; d < docMap.length; d++) {
      const nd = docMap[d]!;
      if (nd >= 0 && hasBit(from, d)) {
        bits[nd >>> 5]! |= 1 << (nd & 31);
        any = true;
      }
    }
  }
  if (any) present = { at: shared.bitset(out.dvd, bits), words };
  return points === null ? { path, inverted, docValues, present } : { path, inverted, docValues, points, present };
}

function* writeInverted(
  parts: readonly Part[],
  fields: readonly (InvertedField | null)[],
  maxDoc: number,
  out: Outputs,
  shared: SharedSections,
): Generator<void, { info: InvertedInfo | null; ordMaps: (Int32Array | null)[] }> {
  const withPositions = fields.some((f) => f !== null && f.hasPositions);
  // A text field's terms are never read by ordinal: larger dictionary blocks.
  const blockSize = withPositions ? TEXT_TERMS_PER_BLOCK : TERMS_PER_BLOCK;
  const postings = new PostingsWriter(out.doc, withPositions ? out.pos : null, maxDoc, blockSize);
  // 4-aligned, so that identical dictionaries are identical bytes wherever they start.
  out.tim.align(4);
  const dictSink = new DictionarySink(out.tim);
  const dict = new FrontCodedWriter(dictSink, true, blockSize);
  const ordMaps = fields.map((f) => (f === null ? null : new Int32Array(f.terms.length).fill(-1)));
  const withDoc = new Uint32Array(bitsetWords(maxDoc));
  /** One cursor per source, reset for each of its terms. */
  const cursors: (PostingsCursor | undefined)[] = fields.map(() => undefined);
  yield* mergeTermsInSteps(
    fields.map((f) => f?.terms ?? null),
    null,
    (term, holders) => {
      postings.startTerm();
      let added = 0;
      for (const { part, termId } of holders) {
        const field = fields[part]!;
        const docMap = parts[part]!.docMap;
        if (field instanceof HeapInvertedField) {
          // A segment a refresh kept in memory (every commit writes them): its flat arrays, no cursor or view a posting.
          const d = field.data;
          const positions = withPositions ? d.positions : null;
          const positionStarts = d.positionStarts;
          for (let p = d.postingStarts[termId]!, end = d.postingStarts[termId + 1]!; p < end; p++) {
            const nd = docMap[d.postingDocs[p]!]!;
            if (nd < 0) continue;
            postings.addPosting(nd, d.postingFreqs[p]!, positions, positionStarts === null ? 0 : positionStarts[p]!);
            withDoc[nd >>> 5]! |= 1 << (nd & 31);
            added++;
          }
          continue;
        }
        const cursor = field.postings(termId, cursors[part]);
        cursors[part] = cursor;
        while (cursor.nextBlock()) {
          const docs = cursor.docs;
          const freqs = cursor.freqs;
          for (let i = 0; i < cursor.count; i++) {
            const nd = docMap[docs[i]!]!;
            if (nd < 0) continue;
            postings.addPosting(nd, freqs[i]!, withPositions ? cursor.positions(i) : null);
            withDoc[nd >>> 5]! |= 1 << (nd & 31);
            added++;
          }
        }
      }
      if (added === 0) return;
      const ord = dict.size;
      dict.add(term, postings.finishTerm());
      for (const { part, termId } of holders) ordMaps[part]![termId] = ord;
    },
  );
  const written = dict.finish();
  if (written.count === 0) {
    dictSink.commit();
    return { info: null, ordMaps };
  }
  const layout = shared.dictionary(dictSink, written, withPositions ? 'postings with positions' : 'postings');
  let norms: ColumnLayout | null = null;
  if (fields.some((f) => f !== null && f.norms !== null)) {
    const values = new Uint8Array(maxDoc);
    fields.forEach((f, i) => {
      if (f === null || f.norms === null) return;
      const docMap = parts[i]!.docMap;
      for (let d = 0; d < docMap.length; d++) if (docMap[d]! >= 0) values[docMap[d]!] = f.norms[d]!;
    });
    norms = writeColumn(out.dvd, values, maxDoc, 'u8');
  }
  let docCount = 0;
  for (let w = 0; w < withDoc.length; w++) docCount += popcount(withDoc[w]!);
  return { info: { dict: layout, positions: withPositions, docCount, sumTotalTermFreq: postings.sumTotalTermFreq, norms }, ordMaps };
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/** Values per kept doc of a doc-values field (counts[nd + 1]), from the sources' layouts. */
function valueCounts(parts: readonly Part[], dvs: readonly (DocValues | null)[], maxDoc: number): { counts: Uint32Array; total: number; multi: boolean } {
  const counts = new Uint32Array(maxDoc + 1);
  let total = 0;
  let multi = false;
  dvs.forEach((dv, i) => {
    if (dv === null) return;
    const docMap = parts[i]!.docMap;
    for (let d = 0; d < docMap.length; d++) {
      const nd = docMap[d]!;
      if (nd < 0) continue;
      let c: number;
      if (dv.starts !== null) c = dv.starts[d + 1]! - dv.starts[d]!;
      else if (dv.kind === 'numeric') c = dv.values[d]! === dv.values[d]! ? 1 : 0;
      else c = dv.ords[d]! >= 0 ? 1 : 0;
      counts[nd + 1] = c;
      total += c;
      if (c > 1) multi = true;
    }
  });
  for (let d = 0; d < maxDoc; d++) counts[d + 1]! += counts[d]!;
  return { counts, total, multi };
}

/** Numeric doc values of the kept docs: single-valued unless some kept doc has two values; null when none has one. */
function writeNumeric(parts: readonly Part[], dvs: readonly (NumericDocValues | null)[], maxDoc: number, dvd: FileOutput, shared: SharedSections): DocValuesInfo | null {
  const { counts, total, multi } = valueCounts(parts, dvs, maxDoc);
  if (total === 0) return null;
  const values = multi ? new Float64Array(total) : new Float64Array(maxDoc).fill(NaN);
  dvs.forEach((dv, i) => {
    if (dv === null) return;
    const docMap = parts[i]!.docMap;
    for (let d = 0; d < docMap.length; d++) {
      const nd = docMap[d]!;
      if (nd < 0) continue;
      let at = multi ? counts[nd]! : nd;
      if (dv.starts === null) {
        if (dv.values[d]! === dv.values[d]!) values[at] = dv.values[d]!;
      } else {
        for (let j = dv.starts[d]!; j < dv.starts[d + 1]!; j++) values[at++] = dv.values[j]!;
      }
    }
  });
  if (!multi) return { kind: 'numeric', values: shared.column(dvd, values, maxDoc, narrowestKind(values, maxDoc)), starts: null };
  const starts = shared.column(dvd, counts, maxDoc + 1, 'u32');
  return { kind: 'numeric', values: shared.column(dvd, values, total, narrowestKind(values, total)), starts };
}

/** Sorted doc values of a field without postings: the dictionary keeps the values live docs still have. */
function* writeSortedWithDict(
  parts: readonly Part[],
  dvs: readonly (SortedDocValues | null)[],
  maxDoc: number,
  out: Outputs,
  shared: SharedSections,
): Generator<void, DocValuesInfo | null> {
  const used = dvs.map((dv, i) => {
    if (dv === null) return null;
    const mark = new Uint8Array(dv.dict.length);
    const docMap = parts[i]!.docMap;
    for (let d = 0; d < docMap.length; d++) {
      if (docMap[d]! < 0) continue;
      if (dv.starts === null) {
        const o = dv.ords[d]!;
        if (o >= 0) mark[o] = 1;
      } else {
        for (let j = dv.starts[d]!; j < dv.starts[d + 1]!; j++) mark[dv.ords[j]!] = 1;
      }
    }
    return mark;
  });
  const ordMaps = dvs.map((dv) => (dv === null ? null : new Int32Array(dv.dict.length).fill(-1)));
  out.tim.align(4);
  const sink = new DictionarySink(out.tim);
  const writer = new FrontCodedWriter(sink, false);
  yield* mergeTermsInSteps(
    dvs.map((dv) => dv?.dict ?? null),
    (part, t) => used[part]![t] === 1,
    (term, holders) => {
      const ord = writer.size;
      writer.add(term);
      for (const { part, termId } of holders) ordMaps[part]![termId] = ord;
    },
  );
  return writeOrds(parts, dvs, ordMaps, shared.dictionary(sink, writer.finish(), 'values'), maxDoc, out.dvd, shared);
}

function writeOrds(
  parts: readonly Part[],
  dvs: readonly (SortedDocValues | null)[],
  ordMaps: readonly (Int32Array | null)[],
  dict: DictionaryLayout,
  maxDoc: number,
  dvd: FileOutput,
  shared: SharedSections,
): DocValuesInfo | null {
  const { counts, total, multi } = valueCounts(parts, dvs, maxDoc);
  if (total === 0) return null;
  const maxOrd = dict.count - 1;
  const ords = multi ? new Int32Array(total) : new Int32Array(maxDoc).fill(-1);
  dvs.forEach((dv, i) => {
    if (dv === null) return;
    const docMap = parts[i]!.docMap;
    const map = ordMaps[i]!;
    for (let d = 0; d < docMap.length; d++) {
      const nd = docMap[d]!;
      if (nd < 0) continue;
      let at = multi ? counts[nd]! : nd;
      if (dv.starts === null) {
        if (dv.ords[d]! >= 0) ords[at] = map[dv.ords[d]!]!;
      } else {
        // The term maps keep order, so a doc's ords stay ascending.
        for (let j = dv.starts[d]!; j < dv.starts[d + 1]!; j++) ords[at++] = map[dv.ords[j]!]!;
      }
    }
  });
  if (!multi) {
    // -1 marks a doc without a value: when every doc has one, unsigned ords hold twice the range (200 values in a byte).
    const withMissing = total < maxDoc;
    return { kind: 'sorted', dict, ords: shared.column(dvd, ords, maxDoc, ordKind(maxOrd, withMissing)), starts: null };
  }
  const starts = shared.column(dvd, counts, maxDoc + 1, 'u32');
  return { kind: 'sorted', dict, ords: shared.column(dvd, ords, total, ordKind(maxOrd, false)), starts };
}
