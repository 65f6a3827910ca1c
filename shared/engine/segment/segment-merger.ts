/**
 * Merges segments into one, dropping deleted docs: every column is copied
 * and renumbered, postings are merged term by term (text is never analyzed
 * again), keyword dictionaries keep only values some live doc still has.
 */
import { hasBit, newBitset, setBit } from './bitset.ts';
import { termIdsOfSorted } from './term-dictionary.ts';
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
  const ids = new Array<string>(maxDoc);
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
      ids[nd] = segment.ids[d];
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
  return { ids, routings, versions, seqNos, source: { bytes, offsets } };
}

function mergeInverted(parts: readonly FieldPart<InvertedField>[], maxDoc: number): InvertedField {
  const withPositions = parts.every((p) => p.field.positions !== null && p.field.positionStarts !== null);
  const withNorms = parts.some((p) => p.field.norms !== null);
  let postingBound = 0;
  let positionBound = 0;
  for (const { field } of parts) {
    postingBound += field.postingDocs.length;
    positionBound += field.positions?.length ?? 0;
  }
  const out = {
    docs: new Int32Array(postingBound),
    freqs: new Uint32Array(postingBound),
    positionStarts: withPositions ? new Uint32Array(postingBound + 1) : null,
    positions: withPositions ? new Int32Array(positionBound) : null,
    count: 0,
    positionCount: 0,
    sumTotalTermFreq: 0,
  };
  const terms: string[] = [];
  const termStarts: number[] = [0];

  // Sources whose current term is smallest come out first; equal terms in source order, so docs stay ascending.
  const queue = new TermQueue(parts.map((p) => p.field.terms));
  while (queue.size > 0) {
    const term = queue.topTerm();
    const before = out.count;
    do {
      const i = queue.topSource();
      copyPostings(parts[i].field, queue.cursor(i), parts[i].docMap, out);
      queue.advanceTop();
    } while (queue.size > 0 && queue.topTerm() === term);
    // A term whose every doc was deleted leaves the dictionary.
    if (out.count > before) {
      terms.push(term);
      termStarts.push(out.count);
    }
  }

  const n = out.count;
  const trim = n < postingBound;
  const positions = out.positions !== null && out.positionCount < out.positions.length ? out.positions.slice(0, out.positionCount) : out.positions;
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
    termIds: termIdsOfSorted(terms),
    postingStarts: Uint32Array.from(termStarts),
    postingDocs: trim ? out.docs.slice(0, n) : out.docs,
    postingFreqs: trim ? out.freqs.slice(0, n) : out.freqs,
    positionStarts: trim && out.positionStarts !== null ? out.positionStarts.slice(0, n + 1) : out.positionStarts,
    positions,
    norms,
    docCount: countDocsWithPostings(out.docs, n, maxDoc),
    sumTotalTermFreq: out.sumTotalTermFreq,
  };
}

interface PostingsOut {
  readonly docs: Int32Array;
  readonly freqs: Uint32Array;
  readonly positionStarts: Uint32Array | null;
  readonly positions: Int32Array | null;
  count: number;
  positionCount: number;
  sumTotalTermFreq: number;
}

/** Appends the live postings of term `t` of `field`, renumbered. */
function copyPostings(field: InvertedField, t: number, docMap: Int32Array, out: PostingsOut): void {
  const { postingDocs, postingFreqs } = field;
  const end = field.postingStarts[t + 1];
  const fromStarts = field.positionStarts;
  const fromPositions = field.positions;
  const { docs, freqs, positionStarts, positions } = out;
  let n = out.count;
  let np = out.positionCount;
  let sum = 0;
  for (let p = field.postingStarts[t]; p < end; p++) {
    const nd = docMap[postingDocs[p]];
    if (nd < 0) continue;
    const freq = postingFreqs[p];
    docs[n] = nd;
    freqs[n] = freq;
    sum += freq;
    if (positionStarts !== null && positions !== null && fromStarts !== null && fromPositions !== null) {
      const fromEnd = fromStarts[p + 1];
      for (let q = fromStarts[p]; q < fromEnd; q++) positions[np++] = fromPositions[q];
      positionStarts[n + 1] = np;
    }
    n++;
  }
  out.count = n;
  out.positionCount = np;
  out.sumTotalTermFreq += sum;
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

/**
 * A binary min-heap of sources keyed by (current term, source index): the
 * k-way merge of sorted term lists with log k comparisons per term.
 */
class TermQueue {
  private readonly heap: Int32Array;
  private readonly cursors: Int32Array;
  /** Current term of each source. */
  private readonly current: string[];
  size = 0;

  constructor(private readonly lists: readonly (readonly string[])[]) {
    this.heap = new Int32Array(lists.length);
    this.cursors = new Int32Array(lists.length);
    this.current = lists.map((list) => list[0] ?? '');
    lists.forEach((list, i) => {
      if (list.length > 0) this.push(i);
    });
  }

  topSource(): number {
    return this.heap[0];
  }

  topTerm(): string {
    return this.current[this.heap[0]];
  }

  cursor(source: number): number {
    return this.cursors[source];
  }

  /** Moves the top source to its next term, or drops it when it has none left. */
  advanceTop(): void {
    const source = this.heap[0];
    const next = ++this.cursors[source];
    if (next < this.lists[source].length) this.current[source] = this.lists[source][next];
    else this.heap[0] = this.heap[--this.size];
    if (this.size > 0) this.siftDown(0);
  }

  private push(source: number): void {
    let at = this.size++;
    this.heap[at] = source;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.less(this.heap[at], this.heap[parent])) break;
      this.swap(at, parent);
      at = parent;
    }
  }

  private siftDown(at: number): void {
    for (;;) {
      const left = 2 * at + 1;
      if (left >= this.size) return;
      const right = left + 1;
      const child = right < this.size && this.less(this.heap[right], this.heap[left]) ? right : left;
      if (!this.less(this.heap[child], this.heap[at])) return;
      this.swap(at, child);
      at = child;
    }
  }

  private less(a: number, b: number): boolean {
    const ta = this.current[a];
    const tb = this.current[b];
    return ta < tb || (ta === tb && a < b);
  }

  private swap(i: number, j: number): void {
    const t = this.heap[i];
    this.heap[i] = this.heap[j];
    this.heap[j] = t;
  }
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
  // Values still used by a live doc, per part.
  const used = parts.map(({ field, docMap }) => {
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
  const dict: string[] = [];
  const ordMaps = parts.map(({ field }) => new Int32Array(field.dict.length).fill(-1));
  const cursors = new Int32Array(parts.length);
  for (;;) {
    let min: string | undefined;
    for (let i = 0; i < parts.length; i++) {
      const partDict = parts[i].field.dict;
      while (cursors[i] < partDict.length && used[i][cursors[i]] === 0) cursors[i]++;
      if (cursors[i] < partDict.length) {
        const value = partDict[cursors[i]];
        if (min === undefined || value < min) min = value;
      }
    }
    if (min === undefined) break;
    for (let i = 0; i < parts.length; i++) {
      const partDict = parts[i].field.dict;
      if (cursors[i] < partDict.length && partDict[cursors[i]] === min) ordMaps[i][cursors[i]++] = dict.length;
    }
    dict.push(min);
  }
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
