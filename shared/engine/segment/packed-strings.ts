/**
 * A list of strings kept as UTF-16 code units in one array, with an offset
 * per entry: term dictionaries, keyword doc-value dictionaries and the `_id`s
 * of a segment.
 *
 * A JS string per entry would make millions of small heap objects (an n-gram
 * field of a million plates has millions of distinct terms), and every major
 * collection marks each of them; two typed arrays are two objects however
 * many entries they hold. Entries are read in place (compare, equals, find)
 * and made into a string only when a caller needs one (a bucket key, a hit's
 * `_id`).
 */

/** Hash table entries per entry, at least (load factor at most 1/2). */
const LOOKUP_LOAD = 2;

export class PackedStrings {
  readonly length: number;
  /** `chars` as bytes, for decoding entries. */
  private bytes: Buffer | null = null;
  /** Open addressing on entry hashes: entry index + 1, 0 when free. Built on the first find(). */
  private table: Int32Array | null = null;

  /**
   * Entry i is chars[starts[i]..starts[i+1]). `starts` has length + 1
   * elements; the arrays are never changed after construction.
   */
  constructor(
    readonly chars: Uint16Array,
    readonly starts: Int32Array,
  ) {
    this.length = starts.length - 1;
  }

  static readonly EMPTY = new PackedStrings(new Uint16Array(0), new Int32Array(1));

  static of(strings: readonly string[]): PackedStrings {
    let total = 0;
    for (const s of strings) total += s.length;
    const chars = new Uint16Array(total);
    const starts = new Int32Array(strings.length + 1);
    let at = 0;
    for (let i = 0; i < strings.length; i++) {
      const s = strings[i];
      for (let k = 0; k < s.length; k++) chars[at++] = s.charCodeAt(k);
      starts[i + 1] = at;
    }
    return new PackedStrings(chars, starts);
  }

  /** Entry i as a string. */
  get(i: number): string {
    const start = this.starts[i];
    const end = this.starts[i + 1];
    if (end - start <= 8) {
      // Short entries (most terms) decode faster without a native call: one string of up to 8 code units
      // (56 ns an entry added char by char, a string each, against 21).
      const c = this.chars;
      const s = start;
      switch (end - s) {
        case 0:
          return '';
        case 1:
          return String.fromCharCode(c[s]);
        case 2:
          return String.fromCharCode(c[s], c[s + 1]);
        case 3:
          return String.fromCharCode(c[s], c[s + 1], c[s + 2]);
        case 4:
          return String.fromCharCode(c[s], c[s + 1], c[s + 2], c[s + 3]);
        case 5:
          return String.fromCharCode(c[s], c[s + 1], c[s + 2], c[s + 3], c[s + 4]);
        case 6:
          return String.fromCharCode(c[s], c[s + 1], c[s + 2], c[s + 3], c[s + 4], c[s + 5]);
        case 7:
          return String.fromCharCode(c[s], c[s + 1], c[s + 2], c[s + 3], c[s + 4], c[s + 5], c[s + 6]);
        default:
          return String.fromCharCode(c[s], c[s + 1], c[s + 2], c[s + 3], c[s + 4], c[s + 5], c[s + 6], c[s + 7]);
      }
    }
    this.bytes ??= Buffer.from(this.chars.buffer, this.chars.byteOffset, this.chars.byteLength);
    // utf16le keeps lone surrogates as they were.
    return this.bytes.toString('utf16le', 2 * start, 2 * end);
  }

  /** Every entry as a string (tests, small lists). */
  toArray(): string[] {
    const out = new Array<string>(this.length);
    for (let i = 0; i < this.length; i++) out[i] = this.get(i);
    return out;
  }

  /** Code units of entry i. */
  lengthOf(i: number): number {
    return this.starts[i + 1] - this.starts[i];
  }

  /** Entry i against `s` in JS `<` order (UTF-16 code units, a prefix first): negative, 0 or positive. */
  compare(i: number, s: string): number {
    const chars = this.chars;
    const start = this.starts[i];
    const len = this.starts[i + 1] - start;
    const n = len < s.length ? len : s.length;
    for (let k = 0; k < n; k++) {
      const d = chars[start + k] - s.charCodeAt(k);
      if (d !== 0) return d;
    }
    return len - s.length;
  }

  /** Entry i of this list against entry j of `other`, in JS `<` order. */
  compareWith(i: number, other: PackedStrings, j: number): number {
    const a = this.chars;
    const b = other.chars;
    let x = this.starts[i];
    let y = other.starts[j];
    const endX = this.starts[i + 1];
    const endY = other.starts[j + 1];
    while (x < endX && y < endY) {
      const d = a[x++] - b[y++];
      if (d !== 0) return d;
    }
    return endX - x - (endY - y);
  }

  equals(i: number, s: string): boolean {
    const start = this.starts[i];
    if (this.starts[i + 1] - start !== s.length) return false;
    const chars = this.chars;
    for (let k = 0; k < s.length; k++) if (chars[start + k] !== s.charCodeAt(k)) return false;
    return true;
  }

  /** Whether entry i starts with `prefix`. */
  startsWith(i: number, prefix: string): boolean {
    const start = this.starts[i];
    if (this.starts[i + 1] - start < prefix.length) return false;
    const chars = this.chars;
    for (let k = 0; k < prefix.length; k++) if (chars[start + k] !== prefix.charCodeAt(k)) return false;
    return true;
  }

  /** For a list in ascending order: the first index whose entry is >= `s` (length when none). */
  lowerBound(s: string): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(mid, s) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The index of an entry equal to `s`, or -1. With `accept`, the first equal
   * entry it accepts (a list may repeat an entry: a segment's `_id`s of
   * copies born deleted).
   */
  find(s: string, accept?: (i: number) => boolean): number {
    const table = this.table ?? this.buildTable();
    const mask = table.length - 1;
    let h = fnvHash(s) & mask;
    for (;;) {
      const e = table[h];
      if (e === 0) return -1;
      if (this.equals(e - 1, s) && (accept === undefined || accept(e - 1))) return e - 1;
      h = (h + 1) & mask;
    }
  }

  private buildTable(): Int32Array {
    let size = 16;
    while (size < LOOKUP_LOAD * this.length) size *= 2;
    const table = new Int32Array(size);
    const mask = size - 1;
    const chars = this.chars;
    const starts = this.starts;
    for (let i = 0; i < this.length; i++) {
      let h = fnvHashOfUnits(chars, starts[i], starts[i + 1]) & mask;
      while (table[h] !== 0) h = (h + 1) & mask;
      table[h] = i + 1;
    }
    this.table = table;
    return table;
  }

  /** Bytes held (the lookup table included once built). */
  get sizeInBytes(): number {
    return this.chars.byteLength + this.starts.byteLength + (this.table?.byteLength ?? 0);
  }
}

/**
 * Builds a PackedStrings entry by entry, from strings or from code units
 * read elsewhere (another list, a term hash's pool).
 */
export class PackedStringsBuilder {
  private chars: Uint16Array;
  private starts: Int32Array;
  private count = 0;
  private at = 0;

  constructor(expectedEntries = 16, expectedChars = 64) {
    this.chars = new Uint16Array(Math.max(16, expectedChars));
    this.starts = new Int32Array(Math.max(2, expectedEntries + 1));
  }

  get length(): number {
    return this.count;
  }

  add(s: string): void {
    this.reserve(s.length);
    const chars = this.chars;
    let at = this.at;
    for (let k = 0; k < s.length; k++) chars[at++] = s.charCodeAt(k);
    this.end(at);
  }

  /** Appends code units source[from..to) as one entry. */
  addUnits(source: Uint16Array, from: number, to: number): void {
    this.reserve(to - from);
    this.chars.set(source.subarray(from, to), this.at);
    this.end(this.at + (to - from));
  }

  /** Appends entry i of `list`. */
  addFrom(list: PackedStrings, i: number): void {
    this.addUnits(list.chars, list.starts[i], list.starts[i + 1]);
  }

  /** Empties the builder, keeping its arrays for reuse. */
  clear(): void {
    this.count = 0;
    this.at = 0;
  }

  /** A list of the entries so far (copied out: the builder may be cleared and reused). */
  build(): PackedStrings {
    return new PackedStrings(this.chars.slice(0, this.at), this.starts.slice(0, this.count + 1));
  }

  private reserve(units: number): void {
    if (this.at + units > this.chars.length) {
      const grown = new Uint16Array(Math.max(this.at + units, 2 * this.chars.length));
      grown.set(this.chars.subarray(0, this.at));
      this.chars = grown;
    }
    if (this.count + 2 > this.starts.length) {
      const grown = new Int32Array(2 * this.starts.length);
      grown.set(this.starts);
      this.starts = grown;
    }
  }

  private end(at: number): void {
    this.at = at;
    this.starts[++this.count] = at;
  }
}

/** FNV-1a over UTF-16 code units with a final avalanche (the term hash's function). */
export function fnvHash(s: string): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < s.length; k++) h = Math.imul(h ^ s.charCodeAt(k), 0x01000193);
  return avalanche(h);
}

/** fnvHash of the code units chars[start..end). */
export function fnvHashOfUnits(chars: Uint16Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let k = start; k < end; k++) h = Math.imul(h ^ chars[k], 0x01000193);
  return avalanche(h);
}

function avalanche(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return h ^ (h >>> 13);
}
