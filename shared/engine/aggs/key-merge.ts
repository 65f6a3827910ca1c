/**
 * Merging the shards' ascending bucket-key lists into one ascending list of
 * distinct keys (the terms reduce). Comparing strings is the cost: V8's `<`
 * on two-byte strings (Chinese plates) takes tens of nanoseconds, and a
 * merge of five 15,000-key lists makes hundreds of thousands of them. So
 * each key first gets two exact numbers, its first six UTF-16 units, and
 * keys compare as strings only when those are equal.
 */

/** Units packed per number: 3 × 17 bits (a unit + 1, or 0 past the end) ≤ 53 bits. */
const UNIT = 0x20000;

function unitCode(s: string, i: number): number {
  return i < s.length ? s.charCodeAt(i) + 1 : 0;
}

/** First three and next three UTF-16 units of each key, as order-preserving numbers (numbers: the key itself). */
function sortCodes(keys: readonly (string | number)[]): { hi: Float64Array; lo: Float64Array } {
  const hi = new Float64Array(keys.length);
  const lo = new Float64Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (typeof k === 'number') {
      hi[i] = k;
      continue;
    }
    hi[i] = (unitCode(k, 0) * UNIT + unitCode(k, 1)) * UNIT + unitCode(k, 2);
    lo[i] = (unitCode(k, 3) * UNIT + unitCode(k, 4)) * UNIT + unitCode(k, 5);
  }
  return { hi, lo };
}

export interface MergedKeys {
  /** Distinct keys, ascending. */
  readonly keys: (string | number)[];
  /** Per list, per position: the index of its key in `keys`. */
  readonly positions: Int32Array[];
}

/** Merges lists of distinct keys, each ascending (JS `<`, strings by UTF-16 units). */
export function mergeSortedKeys(lists: readonly (readonly (string | number)[])[]): MergedKeys {
  const k = lists.length;
  const codes = lists.map(sortCodes);
  const hi = codes.map((c) => c.hi);
  const lo = codes.map((c) => c.lo);
  const positions = lists.map((l) => new Int32Array(l.length));
  const at = new Int32Array(k);
  const keys: (string | number)[] = [];
  for (;;) {
    // the smallest head
    let best = -1;
    let bh = 0;
    let bl = 0;
    let bk: string | number = 0;
    for (let s = 0; s < k; s++) {
      const i = at[s]!;
      if (i >= lists[s]!.length) continue;
      const h = hi[s]![i]!;
      const l = lo[s]![i]!;
      if (best >= 0 && (h > bh || (h === bh && (l > bl || (l === bl && !(lists[s]![i]! < bk)))))) continue;
      best = s;
      bh = h;
      bl = l;
      bk = lists[s]![i]!;
    }
    if (best < 0) break;
    const m = keys.length;
    keys.push(bk);
    for (let s = best; s < k; s++) {
      const i = at[s]!;
      if (i >= lists[s]!.length || hi[s]![i] !== bh || lo[s]![i] !== bl || lists[s]![i] !== bk) continue;
      positions[s]![i] = m;
      at[s] = i + 1;
    }
  }
  return { keys, positions };
}
