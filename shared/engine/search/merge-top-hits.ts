/**
 * The coordinator's reduce of the query phase (SearchPhaseController.sortDocs):
 * the shards' sorted top docs merged into the global order, ties broken by
 * shard index then by position within the shard, as Lucene's TopDocs.merge does.
 */
import type { ParsedSearch, ShardQueryResult, SortSpec, SortValue } from './types.ts';

export interface MergedHit {
  readonly shardIndex: number;
  /** The hit's position in its shard's list (where a shard that rendered its page with the query phase has it). */
  readonly rank: number;
  readonly doc: number;
  readonly score: number;
  readonly sortValues: SortValue[] | null;
}

function compareSortValue(a: SortValue, b: SortValue, spec: SortSpec): number {
  const reverse = spec.order === 'desc' ? -1 : 1;
  if (a === b) return 0;
  if (a === null || b === null) {
    // Only keyword sorts report null (a missing value): last unless `_first`, whatever the order.
    const first = spec.kind === 'field' && spec.missing === '_first';
    if (a === null) return first ? -1 : 1;
    return first ? 1 : -1;
  }
  if (typeof a === 'string' && typeof b === 'string') return (a < b ? -1 : 1) * reverse;
  const x = typeof a === 'string' ? Number(a) : a;
  const y = typeof b === 'string' ? Number(b) : b;
  if (x < y) return -reverse;
  if (x > y) return reverse;
  return 0;
}

/** < 0 when hit `i` of shard `sa` sorts before hit `j` of shard `sb`. */
function compareHits(
  specs: readonly SortSpec[] | null,
  docOrder: number,
  a: ShardQueryResult,
  sa: number,
  i: number,
  b: ShardQueryResult,
  sb: number,
  j: number,
): number {
  if (docOrder === 0 && specs !== null && specs.length === 1 && a.sortColumn !== undefined && b.sortColumn !== undefined) {
    // One number a hit on both sides (what compareSortValue does with two numbers, without the rows).
    const x = a.sortColumn[i]!;
    const y = b.sortColumn[j]!;
    if (x !== y) {
      const reverse = specs[0]!.order === 'desc' ? -1 : 1;
      if (x < y) return -reverse;
      if (x > y) return reverse;
    }
    if (sa !== sb) return sa - sb;
    return i - j;
  }
  const va = a.sortValues === null ? null : a.sortValues[i]!;
  const vb = b.sortValues === null ? null : b.sortValues[j]!;
  if (docOrder !== 0) {
    // Sorted by `_doc` alone: the sort value is the doc (shards may leave the rows out).
    const x = a.docs[i]!;
    const y = b.docs[j]!;
    if (x !== y) return x < y ? -docOrder : docOrder;
  } else if (specs === null || va === null || vb === null) {
    const x = a.scores[i]!;
    const y = b.scores[j]!;
    if (x !== y) return x > y ? -1 : 1;
  } else {
    for (let k = 0; k < specs.length; k++) {
      const c = compareSortValue(va[k] ?? null, vb[k] ?? null, specs[k]!);
      if (c !== 0) return c;
    }
  }
  if (sa !== sb) return sa - sb;
  return i - j;
}

/** Whether the hits of `search` show their scores (else `_score` is null): sorted by score, `track_scores`, or a `_score` sort. */
export function scoresShown(search: ParsedSearch): boolean {
  return search.sort === null || search.trackScores || search.sort.some((s) => s.kind === 'score');
}

/** Sorted by `_doc` alone: the rows of such a page are the docs (the shards may leave them out). */
export function sortedByDocAlone(search: ParsedSearch): boolean {
  return search.sort !== null && search.sort.length === 1 && search.sort[0]!.kind === 'doc';
}

/** The sort values hit `i` of a shard's list shows on the page. */
export function pageRow(shard: ShardQueryResult, i: number, docOrder: boolean): SortValue[] | null {
  if (shard.sortColumn !== undefined) return [shard.sortColumn[i]!];
  return shard.sortValues !== null ? shard.sortValues[i]! : docOrder ? [shard.docs[i]!] : null;
}

/**
 * Each shard's hits are already in sort order, so the global order is a k-way
 * merge of the shard lists (a heap of shard heads): only the hits up to
 * `from + size` are visited and only the page becomes objects.
 */
export function mergeTopHits(
  search: ParsedSearch,
  shards: readonly (ShardQueryResult | null)[],
  from: number,
  size: number,
): MergedHit[] {
  const specs = search.sort !== null && search.sort.length > 0 ? search.sort : null;
  // 1 (ascending) or -1 (descending) when sorting by `_doc` alone, else 0.
  const docOrder = specs !== null && specs.length === 1 && specs[0]!.kind === 'doc' ? (specs[0]!.order === 'desc' ? -1 : 1) : 0;
  const next = new Int32Array(shards.length);
  // Heap of shard indices with hits left, the shard whose next hit sorts first at the root.
  const heap: number[] = [];
  const before = (s: number, t: number): boolean => compareHits(specs, docOrder, shards[s]!, s, next[s]!, shards[t]!, t, next[t]!) < 0;
  const siftDown = (at: number): void => {
    const n = heap.length;
    const s = heap[at]!;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap[child + 1]!, heap[child]!)) child++;
      if (!before(heap[child]!, s)) break;
      heap[at] = heap[child]!;
      at = child;
    }
    heap[at] = s;
  };
  shards.forEach((shard, s) => {
    if (shard !== null && shard.docs.length > 0) heap.push(s);
  });
  for (let at = (heap.length >>> 1) - 1; at >= 0; at--) siftDown(at);

  const out: MergedHit[] = [];
  const end = from + size;
  for (let rank = 0; rank < end && heap.length > 0; rank++) {
    const s = heap[0]!;
    const shard = shards[s]!;
    const i = next[s]!;
    if (rank >= from) {
      out.push({ shardIndex: s, rank: i, doc: shard.docs[i]!, score: shard.scores[i]!, sortValues: pageRow(shard, i, docOrder !== 0) });
    }
    next[s] = i + 1;
    if (i + 1 < shard.docs.length) siftDown(0);
    else {
      const last = heap.pop()!;
      if (heap.length > 0) {
        heap[0] = last;
        siftDown(0);
      }
    }
  }
  return out;
}
