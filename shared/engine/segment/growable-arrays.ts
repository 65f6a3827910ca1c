/**
 * Append-only typed arrays that double when full: the segment builder and the
 * merger accumulate postings, positions and values in these instead of JS
 * arrays of numbers or objects, so memory stays proportional to the data.
 */

export class Int32List {
  array: Int32Array;
  length = 0;

  constructor(initialCapacity = 64) {
    this.array = new Int32Array(initialCapacity);
  }

  push(value: number): void {
    if (this.length === this.array.length) this.reserve(this.length + 1);
    this.array[this.length++] = value;
  }

  /** Makes room for `capacity` elements in total. */
  reserve(capacity: number): void {
    if (capacity <= this.array.length) return;
    const next = new Int32Array(Math.max(capacity, this.array.length * 2));
    next.set(this.array.subarray(0, this.length));
    this.array = next;
  }

  /** An exact-length copy (the backing array keeps its slack). */
  toArray(): Int32Array {
    return this.array.slice(0, this.length);
  }

  /** Empties the list, keeping its backing array for reuse. */
  clear(): void {
    this.length = 0;
  }
}

export class Uint32List {
  array: Uint32Array;
  length = 0;

  constructor(initialCapacity = 64) {
    this.array = new Uint32Array(initialCapacity);
  }

  push(value: number): void {
    if (this.length === this.array.length) this.reserve(this.length + 1);
    this.array[this.length++] = value;
  }

  reserve(capacity: number): void {
    if (capacity <= this.array.length) return;
    const next = new Uint32Array(Math.max(capacity, this.array.length * 2));
    next.set(this.array.subarray(0, this.length));
    this.array = next;
  }

  toArray(): Uint32Array {
    return this.array.slice(0, this.length);
  }

  /** Empties the list, keeping its backing array for reuse. */
  clear(): void {
    this.length = 0;
  }
}

export class Float64List {
  array: Float64Array;
  length = 0;

  constructor(initialCapacity = 64) {
    this.array = new Float64Array(initialCapacity);
  }

  push(value: number): void {
    if (this.length === this.array.length) this.reserve(this.length + 1);
    this.array[this.length++] = value;
  }

  reserve(capacity: number): void {
    if (capacity <= this.array.length) return;
    const next = new Float64Array(Math.max(capacity, this.array.length * 2));
    next.set(this.array.subarray(0, this.length));
    this.array = next;
  }

  toArray(): Float64Array {
    return this.array.slice(0, this.length);
  }

  /** Empties the list, keeping its backing array for reuse. */
  clear(): void {
    this.length = 0;
  }
}

/** Bytes addressed by index (norms by doc id), growing to cover whatever index is written. */
export class ByteList {
  array: Uint8Array;
  length = 0;

  constructor(initialCapacity = 64) {
    this.array = new Uint8Array(initialCapacity);
  }

  append(bytes: Uint8Array): void {
    this.reserve(this.length + bytes.length);
    this.array.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** Writes `value` at `index`, extending the length (zero-filled) as needed. */
  setAt(index: number, value: number): void {
    if (index >= this.array.length) this.reserve(index + 1);
    this.array[index] = value;
    if (index >= this.length) this.length = index + 1;
  }

  reserve(capacity: number): void {
    if (capacity <= this.array.length) return;
    const next = new Uint8Array(Math.max(capacity, this.array.length * 2));
    next.set(this.array.subarray(0, this.length));
    this.array = next;
  }

  /** Empties the list, keeping its backing array; what was written is zeroed (setAt relies on zeros past the length). */
  clear(): void {
    this.array.fill(0, 0, this.length);
    this.length = 0;
  }

  /** An exact-length copy of `length` bytes (zero-padded when `length` exceeds what was written). */
  toArray(length = this.length): Uint8Array {
    const out = new Uint8Array(length);
    out.set(this.array.subarray(0, Math.min(length, this.length)));
    return out;
  }
}
