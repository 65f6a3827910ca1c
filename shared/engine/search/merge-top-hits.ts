/**
 * The coordinator's reduce of the query phase (SearchPhaseController.sortDocs):
 * the shards' sorted top docs merged into the global order, ties broken by
 * shard index then by position within the shard, as Lucene's TopDocs.merge does.
 */
import type { ParsedSearch, ShardQueryResult, SortSpec, SortValue } from './types.ts';

export interface MergedHit {
  readonly shardIndex: number;
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

export function mergeTopHits(
  search: ParsedSearch,
  shards: readonly (ShardQueryResult | null)[],
  from: number,
  size: number,
): MergedHit[] {
  const entries: MergedHit[] = [];
  const positions: number[] = [];
  shards.forEach((shard, shardIndex) => {
    if (shard === null) return;
    for (let i = 0; i < shard.docs.length; i++) {
      entries.push({
        shardIndex,
        doc: shard.docs[i]!,
        score: shard.scores[i]!,
        sortValues: shard.sortValues === null ? null : shard.sortValues[i]!,
      });
      positions.push(i);
    }
  });
  const order = entries.map((_, i) => i);
  const specs = search.sort !== null && search.sort.length > 0 ? search.sort : null;
  order.sort((i, j) => {
    const a = entries[i]!;
    const b = entries[j]!;
    if (specs === null || a.sortValues === null || b.sortValues === null) {
      if (a.score !== b.score) return a.score > b.score ? -1 : 1;
    } else {
      for (let k = 0; k < specs.length; k++) {
        const c = compareSortValue(a.sortValues[k] ?? null, b.sortValues[k] ?? null, specs[k]!);
        if (c !== 0) return c;
      }
    }
    if (a.shardIndex !== b.shardIndex) return a.shardIndex - b.shardIndex;
    return positions[i]! - positions[j]!;
  });
  return order.slice(from, from + size).map((i) => entries[i]!);
}
