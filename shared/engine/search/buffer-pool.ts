/**
 * Reusable large byte buffers for rendering search responses. A scroll page
 * renders megabytes of hits; allocating them afresh for every page makes V8
 * count the churn as external memory and start full collections, which on a
 * shard holding a million documents mark hundreds of megabytes each time.
 * A buffer taken here is given back by its owner once its bytes have been
 * copied onward or sent; a buffer never given back is simply collected.
 */

/** Buffers below this are not worth keeping: they come from Node's own small-buffer pool. */
const MIN_POOLED_BYTES = 64 * 1024;

export class BufferPool {
  private readonly free: Buffer[] = [];

  constructor(
    /** How many free buffers are kept. */
    private readonly maxFree: number,
    /** Larger buffers are not kept. */
    private readonly maxBytes: number,
  ) {}

  /** A buffer of at least `bytes` bytes (contents are stale). */
  take(bytes: number): Buffer {
    if (bytes < MIN_POOLED_BYTES) return Buffer.allocUnsafe(bytes);
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const b = this.free[i]!;
      if (b.length >= bytes && (best < 0 || b.length < this.free[best]!.length)) best = i;
    }
    if (best >= 0) {
      const b = this.free[best]!;
      this.free[best] = this.free[this.free.length - 1]!;
      this.free.pop();
      return b;
    }
    // Powers of two, so buffers of similar pages fit each other.
    return Buffer.allocUnsafeSlow(2 ** Math.ceil(Math.log2(bytes)));
  }

  /** Gives back a buffer from `take`; the caller must not touch it afterwards. */
  give(b: Buffer): void {
    if (b.length < MIN_POOLED_BYTES || b.length > this.maxBytes) return;
    if (this.free.length < this.maxFree) {
      this.free.push(b);
      return;
    }
    // Keep the larger buffers: they fit more requests.
    let smallest = 0;
    for (let i = 1; i < this.free.length; i++) if (this.free[i]!.length < this.free[smallest]!.length) smallest = i;
    if (this.free[smallest]!.length < b.length) this.free[smallest] = b;
  }
}

/** The pool rendered hits and search responses draw from (this process's). */
export const responseBuffers = new BufferPool(16, 64 * 1024 * 1024);

/** A release callback that gives `b` back to `pool` once, however often it is called. */
export function releaseOnce(pool: BufferPool, b: Buffer): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    pool.give(b);
  };
}
