/**
 * The iteration order of a Java `HashMap`/`HashSet` of strings.
 *
 * Elasticsearch prints some lists and objects straight from hash maps: the
 * nested `settings.index` object of GET _settings (`Settings.getAsStructuredMap`,
 * maps created with capacity 2), the type list of "more than 1 type" (a
 * `HashSet`), the leftover parameters of "unsupported parameters". Emulating the
 * order makes our output byte-for-byte the same as Elasticsearch's.
 */

/** Java's `String.hashCode()` (UTF-16 code units, 32-bit wrap-around). */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** Java 8 HashMap's default capacity (`DEFAULT_INITIAL_CAPACITY`) and load factor. */
const DEFAULT_CAPACITY = 16;
const LOAD_FACTOR = 0.75;

/**
 * Keys in the order a Java HashMap created with `initialCapacity` iterates them
 * after inserting `keys` in the given order: by bucket (`spread(hash) & (cap-1)`
 * for the final table size), ties in insertion order (resizes keep it).
 */
export function javaHashOrder(keys: readonly string[], initialCapacity = DEFAULT_CAPACITY): string[] {
  let cap = 1;
  while (cap < initialCapacity) cap *= 2;
  while (keys.length > cap * LOAD_FACTOR) cap *= 2;
  const mask = cap - 1;
  return keys
    .map((key, i) => {
      const h = javaStringHash(key);
      return { key, i, bucket: (h ^ (h >>> 16)) & mask };
    })
    .sort((a, b) => a.bucket - b.bucket || a.i - b.i)
    .map((e) => e.key);
}

/** Order of `new HashSet<>(collection)`: capacity max(size / .75 + 1, 16). */
export function javaHashSetOrder(keys: readonly string[]): string[] {
  return javaHashOrder(keys, Math.max(Math.floor(keys.length / LOAD_FACTOR) + 1, DEFAULT_CAPACITY));
}
