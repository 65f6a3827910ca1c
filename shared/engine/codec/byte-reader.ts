/** Reads what ByteWriter wrote, from a position that moves forward. */


export class ByteReader {
  pos: number;

  constructor(
    readonly bytes: Uint8Array,
    pos = 0,
  ) {
    this.pos = pos;
  }

  byte(): number {
    return this.bytes[this.pos++]!;
  }

  vint(): number {
    const bytes = this.bytes;
    let b = bytes[this.pos++]!;
    if (b < 0x80) return b;
    if (b === undefined) throw outOfBounds(this.pos - 1, bytes.length);
    let value = b & 0x7f;
    let shift = 7;
    for (;;) {
      b = bytes[this.pos++]!;
      if (b === undefined) throw outOfBounds(this.pos - 1, bytes.length);
      // Up to 28 bits with shifts; beyond that multiply (values up to 2^53).
      value += shift < 28 ? (b & 0x7f) << shift : (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
      shift += 7;
    }
  }

  u32(): number {
    const b = this.bytes;
    const at = this.pos;
    this.pos = at + 4;
    return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
  }

  /** A string written by ByteWriter.units. */
  units(): string {
    const header = this.vint();
    const n = header >>> 1;
    return (header & 1) === 1 ? this.wideUnits(n) : this.narrowUnits(n);
  }

  narrowUnits(n: number): string {
    const bytes = this.bytes;
    const at = this.pos;
    this.pos = at + n;
    if (n <= 16) {
      let s = '';
      for (let k = at; k < at + n; k++) s += String.fromCharCode(bytes[k]!);
      return s;
    }
    return Buffer.from(bytes.buffer, bytes.byteOffset + at, n).toString('latin1');
  }

  wideUnits(n: number): string {
    const bytes = this.bytes;
    const at = this.pos;
    this.pos = at + 2 * n;
    if (n <= 16) {
      let s = '';
      for (let k = at; k < at + 2 * n; k += 2) s += String.fromCharCode(bytes[k]! | (bytes[k + 1]! << 8));
      return s;
    }
    return Buffer.from(bytes.buffer, bytes.byteOffset + at, 2 * n).toString('utf16le');
  }

  /** Skips a string written by ByteWriter.units. */
  skipUnits(): void {
    const header = this.vint();
    this.pos += (header & 1) === 1 ? header & ~1 : header >>> 1;
  }
}

/** Reading past the end: a damaged file, or a segment read after it was unmapped. */
function outOfBounds(pos: number, length: number): RangeError {
  return new RangeError(`read at byte ${pos} of ${length}: past the end of a segment's data`);
}
