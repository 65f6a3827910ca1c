/**
 * A document's bytes checked against a mapping without building its objects:
 * the write path's mapping check (services/node/coordinator/document-check.ts)
 * asks it first, and reads the document as before only when it says no.
 *
 * `passes` answers true only when the full check (strict JSON, then
 * Mapping.parse) would accept the document and leave the mapping as it is:
 * valid UTF-8 and JSON, an object, no key twice in one object, every key a
 * mapped field, every value one its field takes (the same conversions
 * DocumentParser makes). Anything else, and anything it does not know (escapes
 * in strings, nulls, unmapped or dotted keys, nested or disabled objects,
 * copy_to, ranges, shapes...), answers false: the caller then parses the
 * document, so every error and every dynamic mapping update comes from the
 * one parser as before. On a bulk load the full check materialised every
 * document on the thread that serves HTTP (about 8 µs and 30 objects a pass
 * record, and a large share of that thread's collector), only to learn that
 * nothing changes.
 */
import { isUtf8 } from 'node:buffer';
import { geoPointValues } from './typed-values.ts';
import { convertLeafValue } from './document-parser.ts';
import { skipJsonSpace } from '../../json/json-space.ts';
import { T_COMPLETION, T_GEO_POINT, T_GEO_SHAPE, T_KEYWORD, T_RANGE, T_TEXT, type LeafNode, type ObjectNode } from './mapping-nodes.ts';

/** Lucene's longest term in UTF-8 bytes: a keyword string no longer than this is never refused. */
const MAX_TERM_BYTES = 32766;
/** Objects deeper than this are left to the full check (its nesting limit is 1,000). */
const MAX_DEPTH = 100;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const NO_BYTES = Buffer.alloc(0);

const LEAF = 0;
const GEO_POINT = 1;
const OBJECT = 2;

interface Entry {
  readonly name: Uint8Array;
  readonly kind: typeof LEAF | typeof GEO_POINT | typeof OBJECT;
  readonly leaf: LeafNode | null;
  /** The leaf and its multi-fields all text or keyword: a string short enough needs no decoding. */
  readonly textOnly: boolean;
  readonly scope: Scope | null;
  /** The object (by its number in this check) that last had this key: a key twice in one object. */
  seenIn: number;
  /** The next entry whose name has the same hash. */
  next: Entry | null;
}

/** A mapped object's fields, by the hash of their names' bytes. */
type Scope = Map<number, Entry>;

/** Leaf types DocumentParser reads from one scalar with convertLeafValue. */
function scalarLeaf(leaf: LeafNode): boolean {
  return leaf.code !== T_GEO_POINT && leaf.code !== T_RANGE && leaf.code !== T_COMPLETION && leaf.code !== T_GEO_SHAPE;
}

function hashBytes(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h;
}

function scopeOf(obj: ObjectNode): Scope {
  const scope: Scope = new Map();
  for (const [name, node] of obj.children) {
    let entry: Entry | null = null;
    const bytes = Buffer.from(name, 'utf8');
    if (node.kind === 'object') {
      if (node.enabled && !node.nested) entry = { name: bytes, kind: OBJECT, leaf: null, textOnly: false, scope: scopeOf(node), seenIn: 0, next: null };
    } else if (node.kind === 'leaf' && node.opts.copyTo.length === 0) {
      if (node.code === T_GEO_POINT) {
        entry = { name: bytes, kind: GEO_POINT, leaf: node, textOnly: false, scope: null, seenIn: 0, next: null };
      } else if (scalarLeaf(node) && node.fields.every(scalarLeaf)) {
        const textOnly = [node, ...node.fields].every((l) => l.code === T_TEXT || l.code === T_KEYWORD);
        entry = { name: bytes, kind: LEAF, leaf: node, textOnly, scope: null, seenIn: 0, next: null };
      }
    }
    // Aliases and what this check does not read are left out: their keys answer false.
    if (entry === null) continue;
    const h = hashBytes(bytes);
    entry.next = scope.get(h) ?? null;
    scope.set(h, entry);
  }
  return scope;
}

export class QuickDocumentCheck {
  private readonly root: Scope | null;
  private buf: Buffer = NO_BYTES;
  private pos = 0;
  private end = 0;
  /** Every string byte OR-ed together: a high bit means the UTF-8 is checked at the end. */
  private high = 0;
  private objects = 0;
  /** The last string scanned, as [start, end) in `buf`. */
  private strStart = 0;
  private strEnd = 0;
  private strHash = 0;

  constructor(root: ObjectNode) {
    this.root = root.enabled ? scopeOf(root) : null;
  }

  /** True when the full check would accept `doc` and add nothing to the mapping; false when it must decide. */
  passes(doc: Uint8Array): boolean {
    if (this.root === null) return false;
    this.buf = Buffer.isBuffer(doc) ? doc : Buffer.from(doc.buffer, doc.byteOffset, doc.byteLength);
    this.pos = 0;
    this.end = doc.length;
    this.high = 0;
    try {
      this.skipSpace();
      if (this.buf[this.pos] !== OPEN_OBJECT) return false;
      this.pos++;
      if (!this.object(this.root, 1)) return false;
      this.skipSpace();
      if (this.pos !== this.end) return false;
      return (this.high & 0x80) === 0 || isUtf8(doc);
    } finally {
      this.buf = NO_BYTES;
      // Numbers stay small: a new object number is all the key-twice check needs.
      if (this.objects > 0x3fffffff) this.resetObjects();
    }
  }

  private resetObjects(): void {
    this.objects = 0;
    const clear = (scope: Scope): void => {
      for (const e of scope.values()) {
        for (let x: Entry | null = e; x !== null; x = x.next) {
          x.seenIn = 0;
          if (x.scope !== null) clear(x.scope);
        }
      }
    };
    if (this.root !== null) clear(this.root);
  }

  private skipSpace(): void {
    this.pos = skipJsonSpace(this.buf, this.pos, this.end);
  }

  /** A key: a string without escapes or control characters, its quotes at pos, hashed as scopeOf hashes names; false for anything else. */
  private key(): boolean {
    const buf = this.buf;
    if (buf[this.pos] !== QUOTE) return false;
    let p = this.pos + 1;
    let h = 0x811c9dc5;
    let high = 0;
    for (;;) {
      if (p >= this.end) return false;
      const b = buf[p]!;
      if (b === QUOTE) break;
      if (b === BACKSLASH || b < 0x20) return false;
      high |= b;
      h = Math.imul(h ^ b, 0x01000193);
      p++;
    }
    this.high |= high;
    this.strStart = this.pos + 1;
    this.strEnd = p;
    this.strHash = h;
    this.pos = p + 1;
    return true;
  }

  /** A string value, as key() reads keys but without the hash (most of a document's bytes are in its values). */
  private string(): boolean {
    const buf = this.buf;
    if (buf[this.pos] !== QUOTE) return false;
    const end = this.end;
    let p = this.pos + 1;
    let high = 0;
    for (; p < end; p++) {
      const b = buf[p]!;
      if (b === QUOTE) break;
      if (b === BACKSLASH || b < 0x20) return false;
      high |= b;
    }
    if (p >= end) return false;
    this.high |= high;
    this.strStart = this.pos + 1;
    this.strEnd = p;
    this.pos = p + 1;
    return true;
  }

  private entryFor(scope: Scope): Entry | null {
    const buf = this.buf;
    const start = this.strStart;
    const length = this.strEnd - start;
    for (let e = scope.get(this.strHash) ?? null; e !== null; e = e.next) {
      const name = e.name;
      if (name.length !== length) continue;
      let k = 0;
      while (k < length && name[k] === buf[start + k]) k++;
      if (k === length) return e;
    }
    return null;
  }

  /** The members of an object whose `{` was read, up to its `}`. */
  private object(scope: Scope, depth: number): boolean {
    if (depth > MAX_DEPTH) return false;
    const self = ++this.objects;
    this.skipSpace();
    if (this.buf[this.pos] === CLOSE_OBJECT) {
      this.pos++;
      return true;
    }
    for (;;) {
      if (!this.key()) return false;
      const entry = this.entryFor(scope);
      if (entry === null || entry.seenIn === self) return false;
      entry.seenIn = self;
      this.skipSpace();
      if (this.buf[this.pos] !== COLON) return false;
      this.pos++;
      this.skipSpace();
      if (!this.value(entry, depth)) return false;
      this.skipSpace();
      const c = this.buf[this.pos];
      this.pos++;
      if (c === CLOSE_OBJECT) return true;
      if (c !== COMMA) return false;
      this.skipSpace();
    }
  }

  /** A field's value: one element, or an array of them (DocumentParser takes an array's elements one by one). */
  private value(entry: Entry, depth: number): boolean {
    if (this.buf[this.pos] !== OPEN_ARRAY) return this.element(entry, depth);
    // A point's `[lon, lat]` is one value: left to the full check.
    if (entry.kind === GEO_POINT) return false;
    this.pos++;
    this.skipSpace();
    if (this.buf[this.pos] === CLOSE_ARRAY) {
      this.pos++;
      return true;
    }
    for (;;) {
      if (this.buf[this.pos] === OPEN_ARRAY || !this.element(entry, depth)) return false;
      this.skipSpace();
      const c = this.buf[this.pos];
      this.pos++;
      if (c === CLOSE_ARRAY) return true;
      if (c !== COMMA) return false;
      this.skipSpace();
    }
  }

  private element(entry: Entry, depth: number): boolean {
    const c = this.buf[this.pos];
    if (entry.kind === OBJECT) {
      if (c !== OPEN_OBJECT) return false;
      this.pos++;
      return this.object(entry.scope!, depth + 1);
    }
    if (entry.kind === GEO_POINT) return this.geoPoint(entry.leaf!);
    let raw: string | number | boolean;
    if (c === QUOTE) {
      if (!this.string()) return false;
      if (entry.textOnly && this.strEnd - this.strStart <= MAX_TERM_BYTES) return true;
      raw = this.buf.toString('utf8', this.strStart, this.strEnd);
    } else if (c === 0x74 /* t */ || c === 0x66 /* f */) {
      const b = this.literal();
      if (b === null) return false;
      raw = b;
    } else {
      const n = this.number();
      if (n === null) return false;
      raw = n;
    }
    return this.converts(entry.leaf!, raw);
  }

  /** DocumentParser's conversion of the value for the leaf and each of its multi-fields succeeds. */
  private converts(leaf: LeafNode, raw: string | number | boolean): boolean {
    try {
      convertLeafValue(leaf, raw);
      for (const sub of leaf.fields) convertLeafValue(sub, raw);
      return true;
    } catch {
      return false;
    }
  }

  /** `{"lat": n, "lon": n}` (either order) or a `"lat,lon"` string, as GeoPointFieldMapper reads them. */
  private geoPoint(leaf: LeafNode): boolean {
    let raw: unknown;
    if (this.buf[this.pos] === QUOTE) {
      if (!this.string()) return false;
      raw = this.buf.toString('utf8', this.strStart, this.strEnd);
    } else {
      if (this.buf[this.pos] !== OPEN_OBJECT) return false;
      this.pos++;
      let lat: number | null = null;
      let lon: number | null = null;
      let latFirst = false;
      for (let k = 0; k < 2; k++) {
        this.skipSpace();
        if (!this.key() || this.strEnd - this.strStart !== 3) return false;
        const buf = this.buf;
        const s = this.strStart;
        const isLat = buf[s] === 0x6c && buf[s + 1] === 0x61 && buf[s + 2] === 0x74;
        const isLon = buf[s] === 0x6c && buf[s + 1] === 0x6f && buf[s + 2] === 0x6e;
        if ((!isLat && !isLon) || (isLat && lat !== null) || (isLon && lon !== null)) return false;
        this.skipSpace();
        if (this.buf[this.pos] !== COLON) return false;
        this.pos++;
        this.skipSpace();
        const n = this.number();
        if (n === null) return false;
        if (isLat) {
          lat = n;
          latFirst = lon === null;
        } else lon = n;
        this.skipSpace();
        const c = this.buf[this.pos];
        this.pos++;
        if (c !== (k === 0 ? COMMA : CLOSE_OBJECT)) return false;
      }
      raw = latFirst ? { lat, lon } : { lon, lat };
    }
    try {
      geoPointValues(raw, leaf.path, leaf.opts.ignoreZValue ?? true, leaf.opts.ignoreMalformed === true);
      return true;
    } catch {
      return false;
    }
  }

  private literal(): boolean | null {
    const buf = this.buf;
    const p = this.pos;
    if (buf[p] === 0x74 && buf[p + 1] === 0x72 && buf[p + 2] === 0x75 && buf[p + 3] === 0x65) {
      this.pos = p + 4;
      return true;
    }
    if (buf[p] === 0x66 && buf[p + 1] === 0x61 && buf[p + 2] === 0x6c && buf[p + 3] === 0x73 && buf[p + 4] === 0x65) {
      this.pos = p + 5;
      return false;
    }
    return null;
  }

  /** A JSON number (RFC 8259's grammar) as JSON.parse reads it, or null. */
  private number(): number | null {
    const buf = this.buf;
    const start = this.pos;
    let p = start;
    const negative = buf[p] === 0x2d;
    if (negative) p++;
    const first = buf[p];
    if (first === undefined || first < 0x30 || first > 0x39) return null;
    let int = first - 0x30;
    p++;
    if (first !== 0x30) {
      for (let d = buf[p]; d !== undefined && d >= 0x30 && d <= 0x39; d = buf[++p]) int = int * 10 + (d - 0x30);
    }
    const digits = p - start - (negative ? 1 : 0);
    let plain = true;
    if (buf[p] === 0x2e) {
      plain = false;
      p++;
      const from = p;
      while (buf[p] !== undefined && buf[p]! >= 0x30 && buf[p]! <= 0x39) p++;
      if (p === from) return null;
    }
    if (buf[p] === 0x65 || buf[p] === 0x45) {
      plain = false;
      p++;
      if (buf[p] === 0x2b || buf[p] === 0x2d) p++;
      const from = p;
      while (buf[p] !== undefined && buf[p]! >= 0x30 && buf[p]! <= 0x39) p++;
      if (p === from) return null;
    }
    if (p > this.end) return null;
    this.pos = p;
    // Up to 15 digits an integer is exact as summed; anything else is read as JSON.parse reads it.
    if (plain && digits <= 15) return negative ? -int : int;
    return Number(buf.toString('latin1', start, p));
  }
}
