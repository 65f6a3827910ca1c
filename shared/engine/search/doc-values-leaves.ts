/**
 * Leaves over doc values and per-doc metadata: numeric ranges and sets (numbers,
 * dates, booleans), `exists`, and `ids`.
 */
import { ID_FIELD, ROUTING_FIELD, type NumericDocValues, type PostingsCursor, type Segment, type SortedDocValues } from '../segment/types.ts';
import { orInto, wordsFor } from './doc-bits.ts';
import type { ExistsQuery, IdsQuery, NumericRangeQuery, NumericSetQuery } from './query.ts';

export function numericRangeBits(q: NumericRangeQuery, seg: Segment): Uint32Array {
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  const dv = seg.docValues.get(q.field);
  if (dv === undefined || dv.kind !== 'numeric') return bits;
  const { min, max } = q;
  const values = dv.values;
  if (dv.starts === null) {
    const n = seg.maxDoc;
    for (let d = 0; d < n; d++) {
      const v = values[d]!;
      if (v >= min && v <= max) bits[d >>> 5]! |= 1 << (d & 31);
    }
  } else {
    const starts = dv.starts;
    for (let d = 0; d < seg.maxDoc; d++) {
      for (let i = starts[d]!, e = starts[d + 1]!; i < e; i++) {
        const v = values[i]!;
        if (v >= min && v <= max) {
          bits[d >>> 5]! |= 1 << (d & 31);
          break;
        }
      }
    }
  }
  return bits;
}

/**
 * Clears the docs of `bits` whose values are all outside q's range: the
 * range checked on the docs other filters kept (query-eval.ts
 * checkRangeOnKept), the same test as numericRangeBits doc by doc.
 */
export function keepNumericRange(bits: Uint32Array, q: NumericRangeQuery, seg: Segment): void {
  const dv = seg.docValues.get(q.field);
  if (dv === undefined || dv.kind !== 'numeric') {
    bits.fill(0);
    return;
  }
  const { min, max } = q;
  const values = dv.values;
  const starts = dv.starts;
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    if (word === 0) continue;
    let keep = word;
    while (word !== 0) {
      const low = word & -word;
      const d = (w << 5) + (31 - Math.clz32(low));
      word ^= low;
      let inRange = false;
      if (starts === null) {
        const v = values[d]!;
        inRange = v >= min && v <= max;
      } else {
        for (let i = starts[d]!, e = starts[d + 1]!; i < e; i++) {
          const v = values[i]!;
          if (v >= min && v <= max) {
            inRange = true;
            break;
          }
        }
      }
      if (!inRange) keep ^= low;
    }
    bits[w] = keep;
  }
}

export function numericSetBits(q: NumericSetQuery, seg: Segment): Uint32Array {
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  const dv = seg.docValues.get(q.field);
  if (dv === undefined || dv.kind !== 'numeric' || q.values.length === 0) return bits;
  const set = new Set(q.values);
  const single = q.values.length === 1 ? q.values[0]! : NaN;
  const values = dv.values;
  if (dv.starts === null) {
    for (let d = 0; d < seg.maxDoc; d++) {
      const v = values[d]!;
      if (v === single || (q.values.length > 1 && set.has(v))) bits[d >>> 5]! |= 1 << (d & 31);
    }
  } else {
    const starts = dv.starts;
    for (let d = 0; d < seg.maxDoc; d++) {
      for (let i = starts[d]!, e = starts[d + 1]!; i < e; i++) {
        if (set.has(values[i]!)) {
          bits[d >>> 5]! |= 1 << (d & 31);
          break;
        }
      }
    }
  }
  return bits;
}

function docValuesPresence(dv: NumericDocValues | SortedDocValues, maxDoc: number, bits: Uint32Array): void {
  if (dv.starts !== null) {
    const starts = dv.starts;
    for (let d = 0; d < maxDoc; d++) if (starts[d + 1]! > starts[d]!) bits[d >>> 5]! |= 1 << (d & 31);
  } else if (dv.kind === 'numeric') {
    const values = dv.values;
    for (let d = 0; d < maxDoc; d++) if (!Number.isNaN(values[d]!)) bits[d >>> 5]! |= 1 << (d & 31);
  } else {
    const ords = dv.ords;
    for (let d = 0; d < maxDoc; d++) if (ords[d]! >= 0) bits[d >>> 5]! |= 1 << (d & 31);
  }
}

/** Docs stored with a `_routing` (it is kept with the source, not indexed): read only where the segment has any. */
function routingPresence(seg: Segment, bits: Uint32Array): void {
  if (!seg.stored.mayHaveRouting()) return;
  for (let d = 0; d < seg.maxDoc; d++) {
    if (seg.stored.document(d).routing !== null) bits[d >>> 5]! |= 1 << (d & 31);
  }
}

export function existsBits(q: ExistsQuery, seg: Segment): Uint32Array {
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  for (const field of q.fields) {
    if (field === ROUTING_FIELD) {
      routingPresence(seg, bits);
      continue;
    }
    if (!seg.fieldsPresent.has(field)) continue;
    // The segment records which docs have each field, as Elasticsearch's `exists` decides it.
    const present = seg.fieldDocs.get(field);
    if (present !== undefined) {
      orInto(bits, present);
      continue;
    }
    const dv = seg.docValues.get(field);
    if (dv !== undefined) {
      docValuesPresence(dv, seg.maxDoc, bits);
      continue;
    }
    const inv = seg.inverted.get(field);
    if (inv === undefined) continue;
    for (let t = 0; t < inv.terms.length; t++) {
      const cursor = inv.postings(t);
      while (cursor.nextBlock()) {
        for (let i = 0; i < cursor.count; i++) {
          const d = cursor.docs[i]!;
          bits[d >>> 5]! |= 1 << (d & 31);
        }
      }
    }
  }
  return bits;
}

/**
 * A segment's dictionary of this many terms or fewer per id asked for is read
 * through in order against the sorted ids (one decode a term, ~0.1 µs)
 * instead of looked up id by id (a binary search and a block's decode, ~1.3
 * µs): an ids query of 10,000 ids held a shard worker 150-550 ms in one
 * piece (issue 11, item 6).
 */
const WALK_TERMS_PER_ID = 16;

/** Each ids query's ids sorted in JS `<` order (the dictionaries' order) without repeats, once for all its segments. */
const sortedIdsOf = new WeakMap<IdsQuery, readonly string[]>();

function sortedIds(q: IdsQuery): readonly string[] {
  let sorted = sortedIdsOf.get(q);
  if (sorted === undefined) {
    sorted = [...new Set(q.ids)].sort();
    sortedIdsOf.set(q, sorted);
  }
  return sorted;
}

export function idsBits(q: IdsQuery, seg: Segment): Uint32Array {
  const bits = new Uint32Array(wordsFor(seg.maxDoc));
  const inv = seg.inverted.get(ID_FIELD);
  if (q.ids.length === 0 || inv === undefined) return bits;
  let cursor: PostingsCursor | undefined;
  const add = (t: number): void => {
    // Every copy of the id: a segment keeps copies born deleted, which live-docs filter out later.
    cursor = inv.postings(t, cursor);
    while (cursor.nextBlock()) {
      for (let i = 0; i < cursor.count; i++) {
        const d = cursor.docs[i]!;
        bits[d >>> 5]! |= 1 << (d & 31);
      }
    }
  };
  const terms = inv.terms;
  if (q.ids.length === 1 || terms.length > WALK_TERMS_PER_ID * q.ids.length) {
    for (const id of q.ids.length === 1 ? q.ids : sortedIds(q)) {
      const t = terms.find(id);
      if (t >= 0) add(t);
    }
    return bits;
  }
  // Both in ascending order: one pass over each.
  const ids = sortedIds(q);
  let j = 0;
  for (let t = 0; t < terms.length && j < ids.length; t++) {
    const term = terms.get(t);
    while (j < ids.length && ids[j]! < term) j++;
    // j stays: a list repeating a term gives each of its entries.
    if (j < ids.length && ids[j] === term) add(t);
  }
  return bits;
}
