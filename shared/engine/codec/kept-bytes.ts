/**
 * Byte strings kept by a thread in one buffer, oldest out first as the
 * buffer wraps around: each is found by key in a map of its owner's (a
 * segment's reader), and its bytes are adjacent, where an object per entry
 * would cost an allocation and a cache line or two more per read. The
 * stored entries and the `_id`s of hits read at random are kept this way
 * (stored-fields.ts, render-hit.ts).
 */
export class KeptBytes {
  /** Allocated at the first entry kept (a thread that keeps nothing holds none). */
  bytes = new Uint8Array(0);
  /** Where the next entry goes. */
  private at = 0;
  /** The kept entries, oldest first from `head`: their owners' maps, keys and starts. */
  private owners: (Map<number, number> | null)[] = [];
  private keys: number[] = [];
  private starts: number[] = [];
  private head = 0;

  constructor(readonly limit: number) {}

  /**
   * Room for `n` bytes kept as `key` in `owner`: returns where they start in
   * `bytes`, for the caller to write them there now; -1 when `n` is more
   * than a sixteenth of the buffer (not kept).
   */
  reserve(owner: Map<number, number>, key: number, n: number): number {
    if (n > this.limit >>> 4) return -1;
    if (this.bytes.length === 0) this.bytes = new Uint8Array(this.limit);
    if (this.at + n > this.limit) {
      // The rest of the buffer is too short: the entries still there go, and writing starts over at 0.
      this.evict(this.at, this.limit);
      this.at = 0;
    }
    this.evict(this.at, this.at + n);
    const start = this.at;
    this.at += n;
    owner.set(key, start);
    this.owners.push(owner);
    this.keys.push(key);
    this.starts.push(start);
    return start;
  }

  /** Drops the oldest entries while they start in [from, to) (the region about to be written). */
  private evict(from: number, to: number): void {
    while (this.head < this.starts.length) {
      const s = this.starts[this.head]!;
      if (s < from || s >= to) break;
      const owner = this.owners[this.head]!;
      const key = this.keys[this.head]!;
      if (owner.get(key) === s) owner.delete(key);
      this.owners[this.head] = null;
      this.head++;
    }
    if (this.head > 4096 && this.head * 2 > this.starts.length) {
      this.owners.splice(0, this.head);
      this.keys.splice(0, this.head);
      this.starts.splice(0, this.head);
      this.head = 0;
    }
  }
}
