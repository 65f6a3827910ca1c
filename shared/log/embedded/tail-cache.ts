/**
 * The most recent batches of a partition, in memory: followers that keep up
 * read new records from here without touching the disk. Batches are kept as
 * their frames and decoded on first read, so appends nobody follows cost
 * nothing to cache.
 */
import type { LogRecord } from '../commit-log.ts';
import { decodeFrame } from './batch-format.ts';

/** How long a newest batch larger than the whole budget stays: the copies that keep up read it within milliseconds. */
const OVERSIZE_KEEP_MS = 1000;

/** Rough memory of one decoded record object besides its bytes, for the budget. */
const RECORD_OVERHEAD_BYTES = 96;

interface CachedBatch {
  readonly baseOffset: number;
  readonly count: number;
  readonly frame: Buffer;
  records: LogRecord[] | null;
  /**
   * Bytes the decoded records hold besides the frame: a compressed batch's
   * records are views of its decompressed bytes. Counted in the budget once
   * decoded: counted as frames alone, the caches of a node's partitions held
   * about three times their budget (40 MB of records' bytes after a fuzz run).
   */
  decodedBytes: number;
}

export class TailCache {
  private readonly batches: CachedBatch[] = [];
  private bytes = 0;
  /** Offset of the oldest cached record; equals the partition's end when nothing is cached. */
  startOffset: number;

  /** The timer that trims a newest batch over the budget (see add). */
  private trim: NodeJS.Timeout | null = null;

  constructor(
    nextOffset: number,
    private readonly maxBytes: number,
    /** How long a newest batch larger than the budget stays (ms). */
    private readonly oversizeKeepMs = OVERSIZE_KEEP_MS,
  ) {
    this.startOffset = nextOffset;
  }

  /**
   * Adds a committed, sealed frame (its offsets follow the previous batch's)
   * and evicts beyond the budget, all but this newest batch: one larger than
   * the budget (a 10 MB document) stays until the next append or for
   * oversizeKeepMs, so the copies that follow the partition read it from
   * here. Read back from the disk instead, it was decompressed on the
   * thread that serves HTTP, and held every other request for 10-20 ms
   * (issue 11, item 6).
   */
  add(baseOffset: number, count: number, frame: Buffer): void {
    if (this.maxBytes <= 0) {
      this.startOffset = baseOffset + count;
      return;
    }
    if (this.batches.length === 0) this.startOffset = baseOffset;
    this.batches.push({ baseOffset, count, frame, records: null, decodedBytes: 0 });
    this.bytes += frame.length + count * RECORD_OVERHEAD_BYTES;
    this.fitBudget();
  }

  /** Evicts beyond the budget but the newest batch, which goes after oversizeKeepMs if it is over the budget alone. */
  private fitBudget(): void {
    this.evictOverBudget(1);
    if (this.bytes > this.maxBytes && this.trim === null) {
      this.trim = setTimeout(() => {
        this.trim = null;
        this.evictOverBudget(0);
      }, this.oversizeKeepMs);
      this.trim.unref();
    }
  }

  /** Evicts the oldest batches while over the budget, keeping at least the newest `keep`. */
  private evictOverBudget(keep: number): void {
    while (this.bytes > this.maxBytes && this.batches.length > keep) {
      const evicted = this.batches.shift()!;
      this.bytes -= evicted.frame.length + evicted.count * RECORD_OVERHEAD_BYTES + evicted.decodedBytes;
      this.startOffset = evicted.baseOffset + evicted.count;
    }
  }

  /** Appends to `out` up to `max` cached records from `fromOffset` (which must be >= startOffset). */
  read(fromOffset: number, max: number, out: LogRecord[]): void {
    let lo = 0;
    let hi = this.batches.length - 1;
    let i = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.batches[mid]!.baseOffset <= fromOffset) {
        i = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (i < 0) return;
    let skip = fromOffset - this.batches[i]!.baseOffset;
    let left = max;
    let grew = false;
    for (; i < this.batches.length && left > 0; i++) {
      const batch = this.batches[i]!;
      if (batch.records === null) {
        const decoded: LogRecord[] = [];
        decodeFrame(batch.frame, 0, batch.baseOffset, batch.count, decoded);
        batch.records = decoded;
        let payload = 0;
        for (const r of decoded) payload += r.value.length + (r.key?.length ?? 0);
        batch.decodedBytes = Math.max(0, payload - batch.frame.length);
        this.bytes += batch.decodedBytes;
        if (batch.decodedBytes > 0) grew = true;
      }
      const records = batch.records;
      const end = Math.min(records.length, skip + left);
      for (let j = skip; j < end; j++) out.push(records[j]!);
      left -= end - skip;
      skip = 0;
    }
    // The records read are in `out`; older batches make room for what decoding added.
    if (grew) this.fitBudget();
  }
}
