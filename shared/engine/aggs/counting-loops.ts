/**
 * The per-document counting loops of terms and histograms, each a small
 * function over typed arrays. A loop over a whole segment inside a large
 * aggregator method is entered by on-stack replacement, and the optimised
 * code then deoptimises at the first statement after the loop that had not
 * run yet, call after call; a function that is only the loop is optimised
 * once and stays so.
 *
 * A loop that meets a doc it cannot count (a bucket key not yet numbered, a
 * table too small) returns that doc's position; the caller handles it and
 * resumes after it.
 */

import type { NumericArray, OrdArray } from '../segment/types.ts';
import type { MonotonicOrds } from './monotonic-ords.ts';

/** counts[global ordinal]++ for single-valued ordinals; docs without a value count under missingOrd when ≥ 0. */
export function countOrdinals(
  docs: Int32Array,
  n: number,
  segOrds: OrdArray,
  toGlobal: MonotonicOrds,
  missingOrd: number,
  counts: Int32Array,
): void {
  for (let i = 0; i < n; i++) {
    const o = segOrds[docs[i]!]!;
    if (o >= 0) counts[toGlobal.get(o)]!++;
    else if (missingOrd >= 0) counts[missingOrd]!++;
  }
}

/**
 * Sparse counting: appends the global ordinal of each doc (missingOrd for a
 * doc without a value, when ≥ 0) to `out` from `at`, which has room for n
 * more; returns the new end. The caller counts them by sorting at the end.
 */
export function appendGlobalOrdinals(
  docs: Int32Array,
  n: number,
  segOrds: OrdArray,
  toGlobal: MonotonicOrds,
  missingOrd: number,
  out: Int32Array,
  at: number,
): number {
  let k = at;
  for (let i = 0; i < n; i++) {
    const o = segOrds[docs[i]!]!;
    if (o >= 0) out[k++] = toGlobal.get(o);
    else if (missingOrd >= 0) out[k++] = missingOrd;
  }
  return k;
}

/** Per segment ordinal counts, zero between calls; the last slot counts docs without a value. */
let segmentCounts = new Int32Array(1024);
/**
 * Bytes of segmentCounts kept after a search: it grows to the largest
 * dictionary counted (4-8 bytes a term: ~2 MB for plate.keyword on a 5M-doc
 * index, ~8 MB at 20M), and a larger one goes with the search (docs/performance.md, stop 32).
 */
export const COUNTING_SCRATCH_KEEP_BYTES = 4 * 1024 * 1024;

/** Drops the per-segment counts table if it outgrew COUNTING_SCRATCH_KEEP_BYTES (end of a search's aggregations). */
export function releaseCountingScratch(): void {
  if (segmentCounts.byteLength > COUNTING_SCRATCH_KEEP_BYTES) segmentCounts = new Int32Array(1024);
}

/** Bytes of the per-segment counts table kept now. */
export function countingScratchBytes(): number {
  return segmentCounts.byteLength;
}

/**
 * countOrdinals for a large share of a segment's docs: counts by segment
 * ordinal first (a table the size of the segment's dictionary), then adds
 * each ordinal's count to its global ordinal once, instead of a lookup into
 * the segment → global map and the global table per doc.
 */
export function countOrdinalsBySegment(
  docs: Int32Array,
  n: number,
  segOrds: OrdArray,
  dictSize: number,
  toGlobal: MonotonicOrds,
  missingOrd: number,
  counts: Int32Array,
): void {
  if (segmentCounts.length <= dictSize) segmentCounts = new Int32Array(Math.max(dictSize + 1, segmentCounts.length * 2));
  countSegmentOrdinals(docs, n, segOrds, segmentCounts, dictSize);
  addSegmentCounts(dictSize, toGlobal, missingOrd, counts);
}

/**
 * countOrdinals for every doc of [from, to), with no doc list: by segment
 * ordinal first when the range is large against the dictionary (as
 * countOrdinalsBySegment), else straight to the global ordinals. A search
 * collected in slices hands a segment over a few thousand docs at a time, and
 * a pass over a dictionary of 130,000 plates per 4,096 docs made the
 * collection quadratic in the segment's size.
 */
export function countOrdinalRange(from: number, to: number, segOrds: OrdArray, dictSize: number, toGlobal: MonotonicOrds, missingOrd: number, counts: Int32Array): void {
  if ((to - from) * 4 < dictSize) {
    countGlobalOrdinalRange(from, to, segOrds, toGlobal, missingOrd, counts);
    return;
  }
  if (segmentCounts.length <= dictSize) segmentCounts = new Int32Array(Math.max(dictSize + 1, segmentCounts.length * 2));
  countSegmentOrdinalRange(from, to, segOrds, segmentCounts, dictSize);
  addSegmentCounts(dictSize, toGlobal, missingOrd, counts);
}

function countGlobalOrdinalRange(from: number, to: number, segOrds: OrdArray, toGlobal: MonotonicOrds, missingOrd: number, counts: Int32Array): void {
  for (let d = from; d < to; d++) {
    const o = segOrds[d]!;
    if (o >= 0) counts[toGlobal.get(o)]!++;
    else if (missingOrd >= 0) counts[missingOrd]!++;
  }
}

/** Adds the per segment ordinal counts to their global ordinals and zeroes them. */
function addSegmentCounts(dictSize: number, toGlobal: MonotonicOrds, missingOrd: number, counts: Int32Array): void {
  const seg = segmentCounts;
  for (let o = 0; o < dictSize; o++) {
    const c = seg[o]!;
    if (c === 0) continue;
    counts[toGlobal.get(o)]! += c;
    seg[o] = 0;
  }
  if (missingOrd >= 0) counts[missingOrd]! += seg[dictSize]!;
  seg[dictSize] = 0;
}

function countSegmentOrdinalRange(from: number, to: number, segOrds: OrdArray, seg: Int32Array, missingSlot: number): void {
  for (let d = from; d < to; d++) {
    const o = segOrds[d]!;
    seg[o >= 0 ? o : missingSlot]!++;
  }
}

function countSegmentOrdinals(docs: Int32Array, n: number, segOrds: OrdArray, seg: Int32Array, missingSlot: number): void {
  for (let i = 0; i < n; i++) {
    const o = segOrds[docs[i]!]!;
    seg[o >= 0 ? o : missingSlot]!++;
  }
}

/**
 * countOrdinals that also hands each counted doc with its ordinal (its bucket)
 * to the sub-aggregations: appends to outDocs/outOwners from outAt; returns
 * the new end.
 */
export function countOrdinalsForSubs(
  docs: Int32Array,
  n: number,
  segOrds: OrdArray,
  toGlobal: MonotonicOrds,
  missingOrd: number,
  counts: Int32Array,
  outDocs: Int32Array,
  outOwners: Int32Array,
  outAt: number,
): number {
  let k = outAt;
  for (let i = 0; i < n; i++) {
    const doc = docs[i]!;
    const o = segOrds[doc]!;
    const g = o >= 0 ? toGlobal.get(o) : missingOrd;
    if (g < 0) continue;
    counts[g]!++;
    outDocs[k] = doc;
    outOwners[k++] = g;
  }
  return k;
}

/**
 * Histogram counting under one owner, single-valued, arithmetic rounding:
 * bucket index floor((v + shift) / step), key id dense[index - base],
 * counts[key id]++. Docs without a value use `missing` (NaN: skipped). Stops
 * at the first doc whose index has no key id yet or whose key id is past
 * counts, returning its position (n when done).
 */
export function countHistogramRun(
  docs: Int32Array,
  from: number,
  n: number,
  values: NumericArray,
  missing: number,
  step: number,
  shift: number,
  base: number,
  dense: Int32Array,
  counts: Int32Array,
): number {
  const width = dense.length;
  const size = counts.length;
  for (let i = from; i < n; i++) {
    let v = values[docs[i]!]!;
    if (v !== v) {
      if (missing !== missing) continue;
      v = missing;
    }
    const rel = Math.floor((v + shift) / step) - base;
    if (!(rel >= 0 && rel < width)) return i;
    const id = dense[rel]!;
    if (id < 0 || id >= size) return i;
    counts[id]!++;
  }
  return n;
}

/** countHistogramRun over every doc of [from, to), with no doc list; returns the position it stopped at (to when done). */
export function countHistogramRange(
  from: number,
  to: number,
  values: NumericArray,
  missing: number,
  step: number,
  shift: number,
  base: number,
  dense: Int32Array,
  counts: Int32Array,
): number {
  const width = dense.length;
  const size = counts.length;
  for (let d = from; d < to; d++) {
    let v = values[d]!;
    if (v !== v) {
      if (missing !== missing) continue;
      v = missing;
    }
    const rel = Math.floor((v + shift) / step) - base;
    if (!(rel >= 0 && rel < width)) return d;
    const id = dense[rel]!;
    if (id < 0 || id >= size) return d;
    counts[id]!++;
  }
  return to;
}

/**
 * Histogram counting below a bucket aggregation into an owner × bucket-index
 * grid, single-valued: grid[owner * width + index - base]++. Stops at the
 * first doc outside the grid, returning its position (n when done).
 */
export function countGridRun(
  docs: Int32Array,
  owners: Int32Array,
  from: number,
  n: number,
  values: NumericArray,
  missing: number,
  step: number,
  shift: number,
  grid: Int32Array,
  base: number,
  width: number,
  rows: number,
): number {
  for (let i = from; i < n; i++) {
    let v = values[docs[i]!]!;
    if (v !== v) {
      if (missing !== missing) continue;
      v = missing;
    }
    const owner = owners[i]!;
    const col = Math.floor((v + shift) / step) - base;
    if (!(owner < rows && col >= 0 && col < width)) return i;
    grid[owner * width + col]!++;
  }
  return n;
}
