/**
 * Merging the shards' bucket keys (the terms reduce): one id per distinct
 * key, and the keys' order for the buckets that are kept.
 *
 * Strings are the cost: V8's `<` on two-byte strings (Chinese plates) takes
 * tens of nanoseconds, and five shards return 15,000 keys each for a size of
 * 10,000. So each string key carries two exact numbers, its first six UTF-16
 * units (sort codes): keys hash and compare by those, and as strings only
 * when those are equal. A shard computes the codes of the keys it returns
 * and ships them with its state.
 */
import { NumberIds } from './bucket-ords.ts';
import type { KeyCodes } from './state.ts';

/** Units packed per number: 3 × 17 bits (a unit + 1, or 0 past the end) ≤ 53 bits. */
const UNIT = 0x20000;

function unitCode(s: string, i: number): number {
  return i < s.length ? s.charCodeAt(i) + 1 : 0;
}

export function keyCodes(keys: readonly string[]): KeyCodes {
  const hi = new Float64Array(keys.length);
  const lo = new Float64Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    hi[i] = (unitCode(k, 0) * UNIT + unitCode(k, 1)) * UNIT + unitCode(k, 2);
    lo[i] = (unitCode(k, 3) * UNIT + unitCode(k, 4)) * UNIT + unitCode(k, 5);
  }
  return { hi, lo };
}

export interface MergedKeys {
  /** Distinct keys, in order of first appearance. */
  readonly keys: (string | number)[];
  /** Per list, per position: the id (index in `keys`) of its key. */
  readonly positions: Int32Array[];
  /** Key order of two ids (JS `<` on the keys). */
  compare(a: number, b: number): number;
}

function compareValues(a: string | number, b: string | number): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

/** Hash of a pair of exact integers below 2^53. */
function hashCodes(hi: number, lo: number): number {
  let h = Math.imul(hi | 0, 0x9e3779b1) ^ Math.imul((hi / 4294967296) | 0, 0x85ebca6b);
  h ^= Math.imul(lo | 0, 0xc2b2ae35) ^ Math.imul((lo / 4294967296) | 0, 0x27d4eb2f);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return h ^ (h >>> 13);
}

/**
 * Merges lists of distinct keys (all strings or all numbers). `codes[i]`
 * are list i's sort codes when the shard sent them (strings), else null.
 */
export function mergeKeys(lists: readonly (readonly (string | number)[])[], codes: readonly (KeyCodes | null)[]): MergedKeys {
  const positions = lists.map((l) => new Int32Array(l.length));
  let total = 0;
  for (const l of lists) total += l.length;
  const first = lists.find((l) => l.length > 0)?.[0];
  if (typeof first !== 'string') {
    const ids = new NumberIds(total);
    lists.forEach((l, s) => {
      const pos = positions[s]!;
      for (let i = 0; i < l.length; i++) pos[i] = ids.add(l[i] as number);
    });
    const keys = Array.from({ length: ids.size }, (_, i) => ids.key(i));
    return { keys, positions, compare: (a, b) => compareValues(keys[a]!, keys[b]!) };
  }
  let cap = 16;
  while (cap < total * 2) cap <<= 1;
  const mask = cap - 1;
  const slots = new Int32Array(cap).fill(-1);
  const keys: string[] = [];
  const mhi = new Float64Array(total);
  const mlo = new Float64Array(total);
  for (let s = 0; s < lists.length; s++) {
    const list = lists[s] as readonly string[];
    const c = codes[s] ?? keyCodes(list);
    const pos = positions[s]!;
    for (let i = 0; i < list.length; i++) {
      const hi = c.hi[i]!;
      const lo = c.lo[i]!;
      let slot = hashCodes(hi, lo) & mask;
      let id: number;
      for (;;) {
        id = slots[slot]!;
        if (id < 0) {
          id = keys.length;
          keys.push(list[i]!);
          mhi[id] = hi;
          mlo[id] = lo;
          slots[slot] = id;
          break;
        }
        if (mhi[id] === hi && mlo[id] === lo && keys[id] === list[i]) break;
        slot = (slot + 1) & mask;
      }
      pos[i] = id;
    }
  }
  return {
    keys,
    positions,
    compare: (a, b) => mhi[a]! - mhi[b]! || mlo[a]! - mlo[b]! || compareValues(keys[a]!, keys[b]!),
  };
}
