/**
 * A segment's sparse index: (batch base offset, file position) pairs in
 * increasing order, one every few KiB of log, in two growable typed arrays.
 * A lookup finds the last indexed batch at or before an offset, and reading
 * scans forward from there.
 */

export class SparseIndex {
  private offsets: Float64Array;
  private positions: Float64Array;
  private count = 0;

  constructor(capacity = 16) {
    this.offsets = new Float64Array(capacity);
    this.positions = new Float64Array(capacity);
  }

  get length(): number {
    return this.count;
  }

  offsetAt(i: number): number {
    return this.offsets[i]!;
  }

  positionAt(i: number): number {
    return this.positions[i]!;
  }

  /** Position of the last entry, or -Infinity when empty. */
  get lastPosition(): number {
    return this.count === 0 ? -Infinity : this.positions[this.count - 1]!;
  }

  add(offset: number, position: number): void {
    if (this.count === this.offsets.length) {
      const grownOffsets = new Float64Array(this.count * 2);
      grownOffsets.set(this.offsets);
      this.offsets = grownOffsets;
      const grownPositions = new Float64Array(this.count * 2);
      grownPositions.set(this.positions);
      this.positions = grownPositions;
    }
    this.offsets[this.count] = offset;
    this.positions[this.count] = position;
    this.count++;
  }

  /** Index of the last entry with offset <= `offset`, or -1. */
  floor(offset: number): number {
    let lo = 0;
    let hi = this.count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.offsets[mid]! <= offset) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** Index of the first entry with offset >= `offset`, or `length`. */
  ceil(offset: number): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.offsets[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
