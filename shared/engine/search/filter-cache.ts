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

export class FilterCache {
  readonly maxBytes: number;
  private readonly segmentKeys = new WeakMap<Segment, number>();
  private nextSegmentKey = 1;
  /** Insertion order = recency (a hit re-inserts). */
  private readonly entries = new Map<string, Uint32Array>();
  private bytes = 0;
  hits = 0;
  misses = 0;
  /** Bitsets ever cached, and those evicted to stay within the budget (query_cache stats). */
  cached = 0;
  evictions = 0;

  constructor(maxBytes: number = DEFAULT_FILTER_CACHE_BYTES) {
    this.maxBytes = maxBytes;
  }

  private keyOf(segment: Segment, filterKey: string): string {
    let sk = this.segmentKeys.get(segment);
    if (sk === undefined) {
      sk = this.nextSegmentKey++;
      this.segmentKeys.set(segment, sk);
    }
    return `${sk}\u0000${filterKey}`;
  }

  /** The cached bits (read-only for the caller), or undefined. */
  get(segment: Segment, filterKey: string): Uint32Array | undefined {
    const key = this.keyOf(segment, filterKey);
    const bits = this.entries.get(key);
    if (bits === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(key);
    this.entries.set(key, bits);
    return bits;
  }

  put(segment: Segment, filterKey: string, bits: Uint32Array): void {
    if (bits.byteLength > this.maxBytes) return;
    const key = this.keyOf(segment, filterKey);
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.bytes -= old.byteLength;
      this.entries.delete(key);
    }
    this.entries.set(key, bits);
    this.bytes += bits.byteLength;
    this.cached++;
    while (this.bytes > this.maxBytes) {
      const first = this.entries.keys().next();
      if (first.done === true) break;
      const evicted = this.entries.get(first.value)!;
      this.entries.delete(first.value);
      this.bytes -= evicted.byteLength;
      this.evictions++;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get sizeInBytes(): number {
    return this.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
