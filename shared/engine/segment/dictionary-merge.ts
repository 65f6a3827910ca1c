/**
 * The union of the sorted term dictionaries of the segments being merged,
 * and for each one the map from its term ids to the merged ones.
 *
 * Lists are merged pairwise in a balanced tree: one string comparison per term
 * per level (log2 k levels for k segments), sequential reads, and no heap of
 * sources to keep in order. The maps from the inner merges are composed as
 * the tree goes up, an int operation per term per level. Terms stay packed
 * code units throughout: no string is made for any of them.
 */
import { PackedStrings, PackedStringsBuilder } from './packed-strings.ts';

export interface MergedDictionary {
  /** Distinct terms of every kept entry, ascending (JS `<`). */
  readonly terms: PackedStrings;
  /** Per list: old term id → merged term id, -1 for a term that was not kept. */
  readonly ordMaps: Int32Array[];
}

interface Run {
  readonly terms: PackedStrings;
  /** For each list of the run, its kept terms' positions in `terms`, in its own (compacted) order. */
  readonly maps: Int32Array[];
}

/**
 * Merges sorted, distinct term lists. `keep[i]` (null: all) says which terms
 * of list i take part: a term no live doc still has leaves the dictionary.
 */
export function mergeDictionaries(lists: readonly PackedStrings[], keep: readonly (Uint8Array | null)[]): MergedDictionary {
  /** Per list, the old term ids of its kept terms (null: all kept). */
  const kept: (number[] | null)[] = [];
  const runs: Run[] = lists.map((list, i) => {
    const mask = keep[i];
    if (mask === null) {
      kept.push(null);
      return { terms: list, maps: [identity(list.length)] };
    }
    const positions: number[] = [];
    const terms = new PackedStringsBuilder(list.length, list.chars.length);
    for (let t = 0; t < list.length; t++) {
      if (mask[t] === 0) continue;
      positions.push(t);
      terms.addFrom(list, t);
    }
    kept.push(positions);
    return { terms: terms.build(), maps: [identity(positions.length)] };
  });
  const root: Run = runs.length === 0 ? { terms: PackedStrings.EMPTY, maps: [] } : mergeRange(runs, 0, runs.length);
  const ordMaps = lists.map((list, i) => {
    const compact = root.maps[i];
    const positions = kept[i];
    if (positions === null) return compact;
    const map = new Int32Array(list.length).fill(-1);
    for (let k = 0; k < positions.length; k++) map[positions[k]] = compact[k];
    return map;
  });
  // A single list without a mask comes back as it was: segments are immutable, so sharing it is safe.
  return { terms: root.terms, ordMaps };
}

function identity(n: number): Int32Array {
  const map = new Int32Array(n);
  for (let i = 0; i < n; i++) map[i] = i;
  return map;
}

function mergeRange(runs: readonly Run[], lo: number, hi: number): Run {
  if (hi - lo === 1) return runs[lo];
  const mid = (lo + hi) >>> 1;
  return mergeTwo(mergeRange(runs, lo, mid), mergeRange(runs, mid, hi));
}

function mergeTwo(a: Run, b: Run): Run {
  const x = a.terms;
  const y = b.terms;
  const toA = new Int32Array(x.length);
  const toB = new Int32Array(y.length);
  const out = new PackedStringsBuilder(x.length + y.length, x.chars.length + y.chars.length);
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    const c = x.compareWith(i, y, j);
    if (c < 0) {
      toA[i] = out.length;
      out.addFrom(x, i++);
    } else if (c > 0) {
      toB[j] = out.length;
      out.addFrom(y, j++);
    } else {
      toA[i] = out.length;
      toB[j++] = out.length;
      out.addFrom(x, i++);
    }
  }
  while (i < x.length) {
    toA[i] = out.length;
    out.addFrom(x, i++);
  }
  while (j < y.length) {
    toB[j] = out.length;
    out.addFrom(y, j++);
  }
  const maps: Int32Array[] = [];
  for (const map of a.maps) maps.push(compose(map, toA));
  for (const map of b.maps) maps.push(compose(map, toB));
  return { terms: out.build(), maps };
}

/** map then step, in place (the inner maps are not used again). */
function compose(map: Int32Array, step: Int32Array): Int32Array {
  for (let k = 0; k < map.length; k++) map[k] = step[map[k]];
  return map;
}
