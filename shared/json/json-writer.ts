/**
 * JSON written straight into a growing buffer, for the responses whose parts
 * are mostly bytes already (stored sources, hit heads) or printable ASCII
 * (ids, numbers): a string per part, joined and encoded again, was most of
 * what the fetch phase and a large `_bulk`'s answer allocated. Strings that
 * need escapes go through JSON.stringify, whose escapes Elasticsearch's
 * output matches.
 */

/** Where a writer's buffers come from; a pool takes back the ones it outgrows. */
export interface BufferSource {
  take(size: number): Buffer;
  give(b: Buffer): void;
}

const ALLOCATE: BufferSource = { take: (size) => Buffer.allocUnsafe(size), give: () => undefined };

export class JsonWriter {
  private buf: Buffer;
  /** The same memory as `buf`, as a plain Uint8Array (TypedArray#set is cheaper than Buffer#copy). */
  private u8: Uint8Array;
  length = 0;

  constructor(
    capacity = 4096,
    private readonly source: BufferSource = ALLOCATE,
  ) {
    this.buf = source.take(Math.max(64, capacity));
    this.u8 = new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.buf.length) return;
    const next = this.source.take(Math.max(this.buf.length * 2, this.length + extra));
    const u8 = new Uint8Array(next.buffer, next.byteOffset, next.length);
    u8.set(this.u8.subarray(0, this.length), 0);
    this.source.give(this.buf);
    this.buf = next;
    this.u8 = u8;
  }

  /** Any text, as UTF-8 (JSON already serialised). */
  text(s: string): void {
    // At most 3 bytes per UTF-16 code unit.
    this.reserve(s.length * 3);
    this.length += this.buf.write(s, this.length, 'utf8');
  }

  /** Text known to be ASCII (keys, punctuation): one byte per code unit. */
  ascii(s: string): void {
    this.reserve(s.length);
    const u8 = this.u8;
    let at = this.length;
    for (let k = 0; k < s.length; k++) u8[at++] = s.charCodeAt(k);
    this.length = at;
  }

  /** Bytes [from, to) of `b` (a few: copied one by one, without a subarray for TypedArray#set). */
  rawRange(b: Uint8Array, from: number, to: number): void {
    this.reserve(to - from);
    const u8 = this.u8;
    let at = this.length;
    for (let k = from; k < to; k++) u8[at++] = b[k]!;
    this.length = at;
  }

  /** Copies bytes [from, to) written so far into `dest` at `at`. */
  copyTo(from: number, to: number, dest: Uint8Array, at: number): void {
    dest.set(this.u8.subarray(from, to), at);
  }

  raw(b: Uint8Array): void {
    this.reserve(b.length);
    this.u8.set(b, this.length);
    this.length += b.length;
  }

  byte(c: number): void {
    this.reserve(1);
    this.u8[this.length++] = c;
  }

  /** A string as JSON: printable ASCII copied unit by unit, anything else through JSON.stringify. */
  jsonString(s: string): void {
    this.reserve(s.length + 2);
    const u8 = this.u8;
    let at = this.length;
    u8[at++] = 0x22;
    for (let k = 0; k < s.length; k++) {
      const c = s.charCodeAt(k);
      if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) {
        this.text(JSON.stringify(s));
        return;
      }
      u8[at++] = c;
    }
    u8[at++] = 0x22;
    this.length = at;
  }

  /** UTF-16 units as a JSON string, as jsonString writes their string. */
  jsonUnits(units: Uint16Array, length: number): void {
    this.reserve(length + 2);
    const u8 = this.u8;
    let at = this.length;
    u8[at++] = 0x22;
    for (let k = 0; k < length; k++) {
      const c = units[k]!;
      if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) {
        this.text(JSON.stringify(String.fromCharCode.apply(null, units.subarray(0, length) as unknown as number[])));
        return;
      }
      u8[at++] = c;
    }
    u8[at++] = 0x22;
    this.length = at;
  }

  /** A number as JSON.stringify writes it; a safe integer's digits without a string in between. */
  number(v: number): void {
    if (!Number.isSafeInteger(v)) {
      this.ascii(JSON.stringify(v));
      return;
    }
    this.reserve(17);
    const u8 = this.u8;
    let at = this.length;
    if (v < 0) {
      u8[at++] = 0x2d;
      v = -v;
    }
    let digits = 1;
    for (let p = 10; p <= v; p *= 10) digits++;
    at += digits;
    for (let k = 1; k <= digits; k++) {
      u8[at - k] = 0x30 + (v % 10);
      v = Math.floor(v / 10);
    }
    this.length = at;
  }

  /** The buffer written into (to give back to its pool once the bytes are sent). */
  get buffer(): Buffer {
    return this.buf;
  }

  /** What was written: a view of this writer's buffer, so write nothing more to it. */
  take(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}
