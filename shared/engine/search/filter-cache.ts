/**
 * Per-segment cache of filter bitsets (Elasticsearch's node query cache, much
 * simplified): term-level filters evaluated in filter context are kept as
 * bitsets keyed by (segment, filter key) and evicted least recently used.
 *
 * Bits are stored before live docs are applied, so a delete (a new liveDocs
 * bitset for the same segment) does not invalidate them; the searcher ANDs the
 * live docs of its own view. Segments are keyed by identity (segment ids are
 * unique only within a shard copy, and one cache may serve many shards).
 */
import type { Segment } from '../segment/types.ts';

/** Default budget; Elasticsearch's `indices.queries.cache.size` is 10% of heap. */
export const DEFAULT_FILTER_CACHE_BYTES = 64 * 1024 * 1024;

/** One cached bitset, and the per-segment map that holds it (for eviction). */
interface Entry {
  readonly of: Map<string, Entry>;
  readonly key: string;
  readonly bits: Uint32Array;
}

export class FilterCache {
  readonly maxBytes: number;
  /**
   * Entries by segment, then by filter key: a lookup hashes the filter key
   * (a string made once per query, whose hash the engine keeps), where one
   * key string per segment and lookup would be built and hashed anew.
   */
  private bySegment = new WeakMap<Segment, Map<string, Entry>>();
  /** Every entry; insertion order = recency (a hit re-inserts). */
  private readonly recency = new Map<Entry, true>();
  private bytes = 0;
  hits = 0;
  misses = 0;
  /** Bitsets ever cached, and those evicted to stay within the budget (query_cache stats). */
  cached = 0;
  evictions = 0;

  constructor(maxBytes: number = DEFAULT_FILTER_CACHE_BYTES) {
    this.maxBytes = maxBytes;
  }

  /** The cached bits (read-only for the caller), or undefined. */
  get(segment: Segment, filterKey: string): Uint32Array | undefined {
    const entry = this.bySegment.get(segment)?.get(filterKey);
    if (entry === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.recency.delete(entry);
    this.recency.set(entry, true);
    return entry.bits;
  }

  put(segment: Segment, filterKey: string, bits: Uint32Array): void {
    if (bits.byteLength > this.maxBytes) return;
    let of = this.bySegment.get(segment);
    if (of === undefined) {
      of = new Map();
      this.bySegment.set(segment, of);
    }
    const old = of.get(filterKey);
    if (old !== undefined) {
      this.bytes -= old.bits.byteLength;
      this.recency.delete(old);
    }
    const entry: Entry = { of, key: filterKey, bits };
    of.set(filterKey, entry);
    this.recency.set(entry, true);
    this.bytes += bits.byteLength;
    this.cached++;
    while (this.bytes > this.maxBytes) {
      const first = this.recency.keys().next();
      if (first.done === true) break;
      const evicted = first.value;
      this.recency.delete(evicted);
      evicted.of.delete(evicted.key);
      this.bytes -= evicted.bits.byteLength;
      this.evictions++;
    }
  }

  get size(): number {
    return this.recency.size;
  }

  get sizeInBytes(): number {
    return this.bytes;
  }

  clear(): void {
    this.recency.clear();
    this.bySegment = new WeakMap();
    this.bytes = 0;
  }
}
