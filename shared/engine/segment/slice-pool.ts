/**
 * Many append-only int streams in one Int32Array, each a chain of slices that
 * grow as the stream does (Lucene's ByteSlicePool idea, in ints). A text
 * field keeps one stream of positions per term: appending is a write at the
 * term's cursor, and reading a term back is a short walk along its chain,
 * so laying postings out in term order needs no scatter across the segment.
 *
 * Values must be >= 0: the last int of a slice holds a negative marker until
 * the stream outgrows the slice, then the address of the next slice.
 */

/** Slice sizes by level, pointer slot included. */
const LEVEL_SIZES = [3, 8, 16, 32, 64, 128, 256, 512, 1024];
const LAST_LEVEL = LEVEL_SIZES.length - 1;

export class SlicePool {
  pool = new Int32Array(1 << 16);
  private used = 0;

  /** Forgets every stream, keeping the pool for reuse (zeroed: an old slice-end marker would end a new slice early). */
  clear(): void {
    this.pool.fill(0, 0, this.used);
    this.used = 0;
  }

  /** Starts a stream; returns its first slice's address, which is also the stream's first write cursor. */
  newStream(): number {
    return this.allocate(0);
  }

  /** Appends `value` at write cursor `upto`; returns the next write cursor. */
  write(upto: number, value: number): number {
    const marker = this.pool[upto];
    if (marker < 0) {
      const level = Math.min(-marker, LAST_LEVEL);
      const next = this.allocate(level);
      this.pool[upto] = next;
      upto = next;
    }
    this.pool[upto] = value;
    return upto + 1;
  }

  /** Copies the first `count` values of the stream starting at `start` into `out` from `outAt`. */
  read(start: number, count: number, out: Int32Array, outAt: number): void {
    const pool = this.pool;
    let at = start;
    let level = 0;
    let end = start + LEVEL_SIZES[0] - 1;
    for (let k = 0; k < count; k++) {
      if (at === end) {
        at = pool[at];
        if (level < LAST_LEVEL) level++;
        end = at + LEVEL_SIZES[level] - 1;
      }
      out[outAt + k] = pool[at++];
    }
  }

  private allocate(level: number): number {
    const size = LEVEL_SIZES[level];
    const start = this.used;
    if (start + size > this.pool.length) {
      const grown = new Int32Array(Math.max(this.pool.length * 2, start + size));
      grown.set(this.pool.subarray(0, start));
      this.pool = grown;
    }
    this.used = start + size;
    // The marker names the level of the slice that follows this one.
    this.pool[start + size - 1] = -(level + 1);
    return start;
  }
}
