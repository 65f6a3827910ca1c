/**
 * The order of composite keys: source by source, each ascending or
 * descending; within a source null (missing_bucket) sorts first, numbers
 * before strings (one source over indices that type its field differently),
 * numbers by value, strings in the JS `<` order every keyword ordering here
 * uses.
 */
import type { CompositeValue } from './state.ts';

/** One source's values compared ascending. */
export function compareCompositeValues(a: CompositeValue, b: CompositeValue): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  if (typeof a === 'number') {
    if (typeof b !== 'number') return -1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof b === 'number') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whole keys in the aggregation's order (`asc[i]` per source). */
export function compareCompositeKeys(a: readonly CompositeValue[], b: readonly CompositeValue[], asc: readonly boolean[]): number {
  for (let i = 0; i < asc.length; i++) {
    const c = compareCompositeValues(a[i]!, b[i]!);
    if (c !== 0) return asc[i] ? c : -c;
  }
  return 0;
}

/** A key as one string, for hashing equal keys together (types kept apart: 1 and "1" differ). */
export function compositeKeyId(key: readonly CompositeValue[]): string {
  return JSON.stringify(key);
}
