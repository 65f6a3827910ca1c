/**
 * A growable byte buffer with the encodings segment files use: variable-length
 * ints (7 bits a byte, low bits first, as Lucene's VInt) and strings as
 * UTF-16 code units, one byte each when every unit is below 256 ("narrow"),
 * two little-endian bytes each otherwise ("wide").
 */

const TWO_POW_7 = 128;

export class ByteWriter {
  bytes: Uint8Array;
  length = 0;

  constructor(capacity = 1024) {
    this.bytes = new Uint8Array(capacity);
  }

  clear(): void {
    this.length = 0;
  }

  reserve(extra: number): void {
    const need = this.length + extra;
    if (need <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }

  byte(b: number): void {
    if (this.length === this.bytes.length) this.reserve(1);
    this.bytes[this.length++] = b;
  }

  /** A non-negative integer below 2^53, 7 bits a byte. */
  vint(value: number): void {
    this.reserve(8);
    const bytes = this.bytes;
    let at = this.length;
    let v = value;
    // Bit operations are 32-bit: larger values are split arithmetically.
    while (v >= TWO_POW_7) {
      bytes[at++] = (v % TWO_POW_7) | 0x80;
      v = Math.floor(v / TWO_POW_7);
    }
    bytes[at++] = v;
    this.length = at;
  }

  u32(value: number): void {
    this.reserve(4);
    const bytes = this.bytes;
    const at = this.length;
    bytes[at] = value & 0xff;
    bytes[at + 1] = (value >>> 8) & 0xff;
    bytes[at + 2] = (value >>> 16) & 0xff;
    bytes[at + 3] = (value >>> 24) & 0xff;
    this.length = at + 4;
  }

  raw(src: Uint8Array): void {
    this.reserve(src.length);
    this.bytes.set(src, this.length);
    this.length += src.length;
  }

  /** Code units s[from..to) with a header vint(count << 1 | wide). */
  units(s: string, from: number, to: number): void {
    let wide = 0;
    for (let k = from; k < to; k++) {
      if (s.charCodeAt(k) > 0xff) {
        wide = 1;
        break;
      }
    }
    this.vint((to - from) * 2 + wide);
    this.unitsRaw(s, from, to, wide === 1);
  }

  /** Code units s[from..to) without a header: one byte each, or two (little-endian) when `wide`. */
  unitsRaw(s: string, from: number, to: number, wide: boolean): void {
    const n = to - from;
    this.reserve(wide ? 2 * n : n);
    const bytes = this.bytes;
    let at = this.length;
    if (wide) {
      for (let k = from; k < to; k++) {
        const c = s.charCodeAt(k);
        bytes[at++] = c & 0xff;
        bytes[at++] = c >>> 8;
      }
    } else {
      for (let k = from; k < to; k++) bytes[at++] = s.charCodeAt(k);
    }
    this.length = at;
  }

  /** Pads with zero bytes to a multiple of `alignment`. */
  align(alignment: number): void {
    while (this.length % alignment !== 0) this.byte(0);
  }

  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}
