/**
 * Merges segments into one, dropping deleted docs: every column is copied
 * and renumbered, postings are merged term by term (text is never analyzed
 * again), keyword dictionaries keep only values some live doc still has.
 */
import { hasBit, newBitset, setBit } from './bitset.ts';
import { mergeDictionaries } from './dictionary-merge.ts';
import { PackedStringsBuilder } from './packed-strings.ts';
import type { DocValues, InvertedField, NumericDocValues, Segment, SortedDocValues } from './types.ts';

export interface MergeSource {
  readonly segment: Segment;
  /** Live docs at merge time (null: all live). Deleted docs are left out of the merged segment. */
  readonly liveDocs: Uint32Array | null;
}

export interface MergedSegment {
  readonly segment: Segment;
  /** Per source: old local doc → new local doc, -1 for a dropped (deleted) doc. */
  readonly docMaps: readonly Int32Array[];
}

/** Merges `sources` in order: their live docs keep their relative order, source by source. */
export function mergeSegments(sources: readonly MergeSource[], id: number): MergedSegment {
  const docMaps: Int32Array[] = [];
  let maxDoc = 0;
  for (const { segment, liveDocs } of sources) {
    const map = new Int32Array(segment.maxDoc);
    for (let d = 0; d < segment.maxDoc; d++) map[d] = liveDocs === null || hasBit(liveDocs, d) ? maxDoc++ : -1;
    docMaps.push(map);
  }
  const parts = sources.map((source, i) => ({ segment: source.segment, docMap: docMaps[i] }));

  const inverted = new Map<string, InvertedField>();
  for (const path of unionOfKeys(sources.map((s) => s.segment.inverted))) {
    const fields = withField(parts, (segment) => segment.inverted.get(path));
    const merged = mergeInverted(fields, maxDoc);
    if (merged.terms.length > 0) inverted.set(path, merged);
  }

  const docValues = new Map<string, DocValues>();
  for (const path of unionOfKeys(sources.map((s) => s.segment.docValues))) {
    const fields = withField(parts, (segment) => segment.docValues.get(path));
    const kinds = new Set(fields.map((f) => f.field.kind));
    if (kinds.size > 1) throw new Error(`cannot merge doc values of [${path}]: numeric in one segment, keyword in another`);
    const merged = kinds.has('numeric')
      ? mergeNumeric(fields as FieldPart<NumericDocValues>[], maxDoc)
      : mergeSorted(fields as FieldPart<SortedDocValues>[], maxDoc);
    if (merged !== null) docValues.set(path, merged);
  }

  const fieldDocs = new Map<string, Uint32Array>();
  for (const path of unionOfKeys(sources.map((s) => s.segment.fieldDocs))) {
    const bits = newBitset(maxDoc);
    let any = false;
    for (const { field, docMap } of withField(parts, (segment) => segment.fieldDocs.get(path))) {
      for (let d = 0; d < docMap.length; d++) {
        if (docMap[d] >= 0 && hasBit(field, d)) {
          setBit(bits, docMap[d]);
          any = true;
        }
      }
    }
    if (any) fieldDocs.set(path, bits);
  }

  const segment: Segment = {
    id,
    maxDoc,
    ...mergeStoredColumns(parts, maxDoc),
    inverted,
    docValues,
    fieldsPresent: new Set(fieldDocs.keys()),
    fieldDocs,
  };
  return { segment, docMaps };
}

interface Part {
  readonly segment: Segment;
  readonly docMap: Int32Array;
}

interface FieldPart<F> {
  readonly field: F;
  readonly docMap: Int32Array;
}

function unionOfKeys(maps: readonly ReadonlyMap<string, unknown>[]): string[] {
  const keys = new Set<string>();
  for (const map of maps) for (const key of map.keys()) keys.add(key);
  return [...keys];
}

function withField<F>(parts: readonly Part[], get: (segment: Segment) => F | undefined): FieldPart<F>[] {
  const out: FieldPart<F>[] = [];
  for (const { segment, docMap } of parts) {
    const field = get(segment);
    if (field !== undefined) out.push({ field, docMap });
  }
  return out;
}

function mergeStoredColumns(
  parts: readonly Part[],
  maxDoc: number,
): Pick<Segment, 'ids' | 'versions' | 'seqNos' | 'routings' | 'source'> {
  const ids = new PackedStringsBuilder(maxDoc, maxDoc * 20);
  const routings = new Array<string | null>(maxDoc);
  const versions = new Float64Array(maxDoc);
  const seqNos = new Float64Array(maxDoc);
  const offsets = new Uint32Array(maxDoc + 1);
  let byteCount = 0;
  for (const { segment, docMap } of parts) {
    const from = segment.source.offsets;
    for (let d = 0; d < docMap.length; d++) {
      const nd = docMap[d];
      if (nd < 0) continue;
      ids.addFrom(segment.ids, d);
      routings[nd] = segment.routings[d];
      versions[nd] = segment.versions[d];
      seqNos[nd] = segment.seqNos[d];
      byteCount += from[d + 1] - from[d];
      offsets[nd + 1] = byteCount;
    }
  }
  const bytes = Buffer.allocUnsafe(byteCount);
  for (const { segment, docMap } of parts) {
    const { bytes: fromBytes, offsets: from } = segment.source;
    // Copy runs of consecutive live docs in one go.
    let d = 0;
    while (d < docMap.length) {
      if (docMap[d] < 0) {
        d++;
        continue;
      }
      const runStart = d;
      while (d < docMap.length && docMap[d] >= 0) d++;
      fromBytes.copy(bytes, offsets[docMap[runStart]], from[runStart], from[d]);
    }
  }
  return { ids: ids.build(), routings, versions, seqNos, source: { bytes, offsets } };
}

function mergeInverted(parts: readonly FieldPart<InvertedField>[], maxDoc: number): InvertedField {
  const withPositions = parts.every((p) => p.field.positions !== null && p.field.positionStarts !== null);
  const withNorms = parts.some((p) => p.field.norms !== null);

  // Terms whose every posting is on a deleted doc leave the dictionary; a part without deletes keeps all.
  const keep = parts.map(({ field, docMap }) => (allLive(docMap) ? null : termsWithLivePostings(field, docMap)));
  const { terms, ordMaps } = mergeDictionaries(
    parts.map((p) => p.field.terms),
    keep,
  );

  // Live postings and positions of each merged term, then their starts.
  const termCount = terms.length;
  const postingStarts = new Uint32Array(termCount + 1);
  const positionBases = withPositions ? new Float64Array(termCount + 1) : null;
  parts.forEach(({ field, docMap }, i) => {
    const map = ordMaps[i];
    const live = keep[i] === null;
    const starts = field.postingStarts;
    const positionStarts = field.positionStarts;
    for (let t = 0; t < map.length; t++) {
      const u = map[t];
      if (u < 0) continue;
      if (live) {
        postingStarts[u + 1] += starts[t + 1] - starts[t];
        if (positionBases !== null) positionBases[u + 1] += positionStarts![starts[t + 1]] - positionStarts![starts[t]];
        continue;
      }
      for (let p = starts[t]; p < starts[t + 1]; p++) {
        if (docMap[field.postingDocs[p]] < 0) continue;
        postingStarts[u + 1]++;
        if (positionBases !== null) positionBases[u + 1] += positionStarts![p + 1] - positionStarts![p];
      }
    }
  });
  for (let u = 0; u < termCount; u++) {
    postingStarts[u + 1] += postingStarts[u];
    if (positionBases !== null) positionBases[u + 1] += positionBases[u];
  }
  const count = postingStarts[termCount];
  const positionCount = positionBases === null ? 0 : positionBases[termCount];
  const docs = new Int32Array(count);
  const freqs = new Uint32Array(count);
  const positionStarts = withPositions ? new Uint32Array(count + 1) : null;
  const positions = withPositions ? new Int32Array(positionCount) : null;

  // Parts in order, so each term's docs come out ascending; a term's postings land at its cursor.
  const cursors = postingStarts.slice(0, termCount);
  const positionCursors = positionBases === null ? null : positionBases.subarray(0, termCount);
  let sumTotalTermFreq = 0;
  parts.forEach(({ field, docMap }, i) => {
    const map = ordMaps[i];
    const { postingStarts: starts, postingDocs, postingFreqs } = field;
    const fromStarts = field.positionStarts;
    const fromPositions = field.positions;
    for (let t = 0; t < map.length; t++) {
      const u = map[t];
      if (u < 0) continue;
      let n = cursors[u];
      const end = starts[t + 1];
      if (positionCursors === null || positionStarts === null || positions === null || fromStarts === null || fromPositions === null) {
        for (let p = starts[t]; p < end; p++) {
          const nd = docMap[postingDocs[p]];
          if (nd < 0) continue;
          docs[n] = nd;
          freqs[n++] = postingFreqs[p];
          sumTotalTermFreq += postingFreqs[p];
        }
      } else {
        let np = positionCursors[u];
        for (let p = starts[t]; p < end; p++) {
          const nd = docMap[postingDocs[p]];
          if (nd < 0) continue;
          docs[n] = nd;
          freqs[n] = postingFreqs[p];
          sumTotalTermFreq += postingFreqs[p];
          positionStarts[n++] = np;
          const fromEnd = fromStarts[p + 1];
          for (let q = fromStarts[p]; q < fromEnd; q++) positions[np++] = fromPositions[q];
        }
        positionCursors[u] = np;
      }
      cursors[u] = n;
    }
  });
  if (positionStarts !== null) positionStarts[count] = positionCount;

  let norms: Uint8Array | null = null;
  if (withNorms) {
    norms = new Uint8Array(maxDoc);
    for (const { field, docMap } of parts) {
      if (field.norms === null) continue;
      for (let d = 0; d < docMap.length; d++) if (docMap[d] >= 0) norms[docMap[d]] = field.norms[d];
    }
  }
  return {
    terms,
    postingStarts,
    postingDocs: docs,
    postingFreqs: freqs,
    positionStarts,
    positions,
    norms,
    docCount: countDocsWithPostings(docs, count, maxDoc),
    sumTotalTermFreq,
  };
}

/** True when no doc of the part was deleted. */
function allLive(docMap: Int32Array): boolean {
  for (let d = 0; d < docMap.length; d++) if (docMap[d] < 0) return false;
  return true;
}

/** Per term: 1 when at least one of its postings is on a live doc. */
function termsWithLivePostings(field: InvertedField, docMap: Int32Array): Uint8Array {
  const out = new Uint8Array(field.terms.length);
  const { postingStarts, postingDocs } = field;
  for (let t = 0; t < out.length; t++) {
    for (let p = postingStarts[t]; p < postingStarts[t + 1]; p++) {
      if (docMap[postingDocs[p]] >= 0) {
        out[t] = 1;
        break;
      }
    }
  }
  return out;
}

function countDocsWithPostings(docs: Int32Array, n: number, maxDoc: number): number {
  const seen = new Uint8Array(maxDoc);
  let count = 0;
  for (let p = 0; p < n; p++) {
    if (seen[docs[p]] === 0) {
      seen[docs[p]] = 1;
      count++;
    }
  }
  return count;
}

/** Number of values of doc d in a single- or multi-valued column. */
function valueCount(starts: Uint32Array | null, missing: boolean, d: number): number {
  return starts === null ? (missing ? 0 : 1) : starts[d + 1] - starts[d];
}

function mergeNumeric(parts: readonly FieldPart<NumericDocValues>[], maxDoc: number): NumericDocValues | null {
  let total = 0;
  let maxPerDoc = 0;
  for (const { field, docMap } of parts) {
    for (let d = 0; d < docMap.length; d++) {
      if (docMap[d] < 0) continue;
      const count = valueCount(field.starts, field.starts === null && Number.isNaN(field.values[d]), d);
      total += count;
      if (count > maxPerDoc) maxPerDoc = count;
    }
  }
  if (total === 0) return null;
  if (maxPerDoc <= 1) {
    const values = new Float64Array(maxDoc).fill(NaN);
    for (const { field, docMap } of parts) {
      for (let d = 0; d < docMap.length; d++) {
        const nd = docMap[d];
        if (nd < 0) continue;
        values[nd] = field.starts === null ? field.values[d] : field.starts[d + 1] > field.starts[d] ? field.values[field.starts[d]] : NaN;
      }
    }
    return { kind: 'numeric', values, starts: null };
  }
  const starts = new Uint32Array(maxDoc + 1);
  const values = new Float64Array(total);
  let at = 0;
  // Parts are in doc order and so are their live docs: values append doc by doc.
  for (const { field, docMap } of parts) {
    for (let d = 0; d < docMap.length; d++) {
      const nd = docMap[d];
      if (nd < 0) continue;
      if (field.starts === null) {
        if (!Number.isNaN(field.values[d])) values[at++] = field.values[d];
      } else {
        for (let v = field.starts[d]; v < field.starts[d + 1]; v++) values[at++] = field.values[v];
      }
      starts[nd + 1] = at;
    }
  }
  fillGaps(starts);
  return { kind: 'numeric', values, starts };
}

function mergeSorted(parts: readonly FieldPart<SortedDocValues>[], maxDoc: number): SortedDocValues | null {
  // Values still used by a live doc, per part; every value of a part without deletes is (a dictionary holds only values some doc has).
  const used = parts.map(({ field, docMap }) => {
    if (allLive(docMap)) return null;
    const inUse = new Uint8Array(field.dict.length);
    for (let d = 0; d < docMap.length; d++) {
      if (docMap[d] < 0) continue;
      if (field.starts === null) {
        if (field.ords[d] >= 0) inUse[field.ords[d]] = 1;
      } else {
        for (let v = field.starts[d]; v < field.starts[d + 1]; v++) inUse[field.ords[v]] = 1;
      }
    }
    return inUse;
  });

  // Merge the used parts of the sorted dictionaries; ordMaps take old ords to new ones.
  const { terms: dict, ordMaps } = mergeDictionaries(
    parts.map((p) => p.field.dict),
    used,
  );
  if (dict.length === 0) return null;

  let total = 0;
  let maxPerDoc = 0;
  for (const { field, docMap } of parts) {
    for (let d = 0; d < docMap.length; d++) {
      if (docMap[d] < 0) continue;
      const count = valueCount(field.starts, field.starts === null && field.ords[d] < 0, d);
      total += count;
      if (count > maxPerDoc) maxPerDoc = count;
    }
  }
  if (maxPerDoc <= 1) {
    const ords = new Int32Array(maxDoc).fill(-1);
    parts.forEach(({ field, docMap }, i) => {
      for (let d = 0; d < docMap.length; d++) {
        const nd = docMap[d];
        if (nd < 0) continue;
        const old = field.starts === null ? field.ords[d] : field.starts[d + 1] > field.starts[d] ? field.ords[field.starts[d]] : -1;
        if (old >= 0) ords[nd] = ordMaps[i][old];
      }
    });
    return { kind: 'sorted', dict, ords, starts: null };
  }
  const starts = new Uint32Array(maxDoc + 1);
  const ords = new Int32Array(total);
  let at = 0;
  parts.forEach(({ field, docMap }, i) => {
    const ordMap = ordMaps[i];
    for (let d = 0; d < docMap.length; d++) {
      const nd = docMap[d];
      if (nd < 0) continue;
      // The ord maps are increasing, so each doc's ords stay ascending and distinct.
      if (field.starts === null) {
        if (field.ords[d] >= 0) ords[at++] = ordMap[field.ords[d]];
      } else {
        for (let v = field.starts[d]; v < field.starts[d + 1]; v++) ords[at++] = ordMap[field.ords[v]];
      }
      starts[nd + 1] = at;
    }
  });
  fillGaps(starts);
  return { kind: 'sorted', dict, ords, starts };
}

/**
 * starts[d + 1] was written for docs of the parts that have the field; a doc of
 * a part without it keeps 0 there. Carry the running end over such docs.
 */
function fillGaps(starts: Uint32Array): void {
  for (let d = 1; d < starts.length; d++) if (starts[d] < starts[d - 1]) starts[d] = starts[d - 1];
}
