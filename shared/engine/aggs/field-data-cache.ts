/**
 * What aggregations derive from a shard's immutable segments and keep for the
 * next search: global ordinals of a keyword field (terms) and each segment
 * term's hash (cardinality). Both grow with the number of distinct values, so
 * they share one byte budget per thread, as Elasticsearch bounds its
 * fielddata cache (`indices.fielddata.cache.size`): the least recently used
 * entries go first, and a search that misses builds its structure again. An
 * entry of segments that have since been merged away is never looked up
 * again and ages out the same way.
 */

/** Bytes kept per thread (each shard worker has its own). */
export const FIELD_DATA_CACHE_BYTES = 64 * 2 ** 20;

interface Entry {
  readonly value: unknown;
  readonly bytes: number;
}

export class FieldDataCache {
  /** Insertion order = recency: a hit moves its entry to the end. */
  private readonly entries = new Map<string, Entry>();
  private used = 0;

  constructor(private limit: number) {}

  get budget(): number {
    return this.limit;
  }

  /** A new budget; entries beyond it go, oldest first. */
  resize(budget: number): void {
    this.limit = budget;
    this.evict(0);
  }

  private evict(room: number): void {
    for (const [k, e] of this.entries) {
      if (this.used + room <= this.limit) break;
      this.entries.delete(k);
      this.used -= e.bytes;
    }
  }

  /** Bytes held. */
  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }

  get<T>(key: string): T | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value as T;
  }

  /** Keeps `value` (of about `bytes`) unless it alone exceeds the budget; evicts the oldest entries to make room. */
  set(key: string, value: unknown, bytes: number): void {
    this.delete(key);
    if (bytes > this.limit) return;
    this.evict(bytes);
    this.entries.set(key, { value, bytes });
    this.used += bytes;
  }

  delete(key: string): void {
    const e = this.entries.get(key);
    if (e === undefined) return;
    this.entries.delete(key);
    this.used -= e.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }
}

/** This thread's cache. */
export const fieldDataCache = new FieldDataCache(FIELD_DATA_CACHE_BYTES);

const dictIds = new WeakMap<object, number>();
let nextDictId = 1;

/** A number naming one dictionary object (a segment's) for cache keys. */
export function dictionaryId(dict: object): number {
  let id = dictIds.get(dict);
  if (id === undefined) {
    id = nextDictId++;
    dictIds.set(dict, id);
  }
  return id;
}
