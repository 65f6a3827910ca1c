/**
 * A request body as the DSL parsers read it: plain JSON values plus where each
 * value started (line and column, 1-based, as Jackson reports them), so parse
 * errors carry Elasticsearch's `line`/`col`. Integers beyond 2^53 are kept
 * exact as bigints.
 *
 * A body that arrives already parsed (a JS object) is located as if it had
 * been sent as compact JSON (JSON.stringify), which is what most clients send.
 */
import { jsonParseException } from '../../errors/es-errors.ts';

export type Json = string | number | bigint | boolean | null | Json[] | JsonMap;
export interface JsonMap {
  [key: string]: Json;
}

export interface Location {
  readonly line: number;
  readonly col: number;
}

const UNKNOWN: Location = { line: 1, col: 1 };

/**
 * Where each object and array starts, as an offset into the text: the
 * location (line and column) of a value or key is found only when an error
 * names one, by reading its container again. Every search body is read on
 * the thread serving HTTP and again in each shard worker, so reading it
 * costs little per value: no location object, no JSON.parse per string.
 */
export class JsonSource {
  readonly root: Json;
  private readonly text: string;
  private readonly starts: Map<object, number>;
  /** Offsets where each line starts, made on the first location asked. */
  private lineStarts: number[] | null = null;

  constructor(root: Json, text: string, starts: Map<object, number>) {
    this.root = root;
    this.text = text;
    this.starts = starts;
  }

  /** Where the field name `key` of `container` starts. */
  keyAt(container: object, key: string): Location {
    const at = this.member(container, key, true);
    return at < 0 ? this.at(container, key) : this.locate(at);
  }

  /** Where the value of `key` in `container` starts. */
  at(container: object, key: string | number): Location {
    const at = this.member(container, key, false);
    return at < 0 ? this.of(container) : this.locate(at);
  }

  /** Where an object or array starts. */
  of(value: object): Location {
    const at = this.starts.get(value);
    return at === undefined ? UNKNOWN : this.locate(at);
  }

  /**
   * The offset of the value (or of the field name, `name`) of `key` in a
   * container, read again from the text; -1 when there is none. A key twice
   * in one object names its last value, as the value kept is the last.
   */
  private member(container: object, key: string | number, name: boolean): number {
    const start = this.starts.get(container);
    if (start === undefined) return -1;
    const r = new LocatingReader(this.text);
    r.pos = start + 1;
    r.ws();
    if (this.text.charCodeAt(start) === 0x5b /* [ */) {
      if (name || typeof key !== 'number') return -1;
      for (let i = 0; this.text.charCodeAt(r.pos) !== 0x5d /* ] */; i++) {
        if (i === key) return r.pos;
        r.value();
        r.ws();
        if (this.text.charCodeAt(r.pos) !== 0x2c /* , */) break;
        r.pos++;
        r.ws();
      }
      return -1;
    }
    let found = -1;
    while (this.text.charCodeAt(r.pos) !== 0x7d /* } */) {
      const keyAt = r.pos;
      const k = r.string();
      r.ws();
      r.pos++;
      r.ws();
      if (k === key) found = name ? keyAt : r.pos;
      r.value();
      r.ws();
      if (this.text.charCodeAt(r.pos) === 0x2c /* , */) r.pos++;
      r.ws();
    }
    return found;
  }

  /** Line and column (1-based) of an offset: lines end at LF, as the reader counts them. */
  private locate(at: number): Location {
    let starts = this.lineStarts;
    if (starts === null) {
      starts = [0];
      const t = this.text;
      for (let i = t.indexOf('\n'); i >= 0; i = t.indexOf('\n', i + 1)) starts.push(i + 1);
      this.lineStarts = starts;
    }
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: at - starts[lo]! + 1 };
  }
}

class LocatingReader {
  pos = 0;
  line = 1;
  lineStart = 0;
  /** Where each object and array starts (JsonSource reads them again for a location). */
  readonly starts = new Map<object, number>();

  constructor(readonly text: string) {}

  loc(): Location {
    return { line: this.line, col: this.pos - this.lineStart + 1 };
  }

  fail(what: string): never {
    const l = this.loc();
    throw jsonParseException(`${what}\n at [Source: (org.elasticsearch.common.bytes.BytesReference$MarkSupportingStreamInputWrapper); line: ${l.line}, column: ${l.col}]`);
  }

  ws(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x0a) {
        this.pos++;
        this.line++;
        this.lineStart = this.pos;
      } else if (c === 0x20 || c === 0x0d || c === 0x09) this.pos++;
      else break;
    }
  }

  value(): Json {
    this.ws();
    const t = this.text;
    const c = t.charCodeAt(this.pos);
    if (c === 0x7b /* { */) return this.object();
    if (c === 0x5b /* [ */) return this.array();
    if (c === 0x22 /* " */) return this.string();
    if (c === 0x74 /* t */ && t.startsWith('true', this.pos)) {
      this.pos += 4;
      return true;
    }
    if (c === 0x66 /* f */ && t.startsWith('false', this.pos)) {
      this.pos += 5;
      return false;
    }
    if (c === 0x6e /* n */ && t.startsWith('null', this.pos)) {
      this.pos += 4;
      return null;
    }
    const m = NUMBER;
    m.lastIndex = this.pos;
    const hit = m.exec(t);
    if (hit === null || hit[0] === '') {
      if (this.pos >= t.length) this.fail('Unexpected end-of-input');
      this.fail(`Unexpected character ('${t[this.pos]}' (code ${t.charCodeAt(this.pos)}))`);
    }
    const raw = hit[0];
    this.pos += raw.length;
    const n = Number(raw);
    if (!Number.isSafeInteger(n) && INTEGER.test(raw)) return BigInt(raw);
    return n;
  }

  string(): string {
    const t = this.text;
    const start = this.pos;
    let i = start + 1;
    // Without escapes or control characters the text between the quotes is the value.
    let plain = true;
    while (i < t.length) {
      const c = t.charCodeAt(i);
      if (c === 0x22) break;
      if (c === 0x5c) {
        plain = false;
        i += 2;
      } else {
        if (c < 0x20) plain = false;
        i++;
      }
    }
    if (i >= t.length) this.fail('Unexpected end-of-input in a string');
    this.pos = i + 1;
    if (plain) return t.slice(start + 1, i);
    try {
      return JSON.parse(t.slice(start, i + 1)) as string;
    } catch {
      return this.fail('Illegal character in a string');
    }
  }

  array(): Json[] {
    const out: Json[] = [];
    this.starts.set(out, this.pos);
    this.pos++;
    this.ws();
    if (this.text.charCodeAt(this.pos) === 0x5d /* ] */) {
      this.pos++;
      return out;
    }
    while (true) {
      this.ws();
      out.push(this.value());
      this.ws();
      const c = this.text[this.pos++];
      if (c === ']') return out;
      if (c !== ',') {
        this.pos--;
        this.fail(`Unexpected character ('${c ?? 'EOF'}'): expected a comma to separate Array entries`);
      }
    }
  }

  object(): JsonMap {
    const out: JsonMap = {};
    this.starts.set(out, this.pos);
    this.pos++;
    this.ws();
    if (this.text.charCodeAt(this.pos) === 0x7d /* } */) {
      this.pos++;
      return out;
    }
    while (true) {
      this.ws();
      if (this.text[this.pos] !== '"') this.fail(`Unexpected character ('${this.text[this.pos] ?? 'EOF'}'): was expecting double-quote to start field name`);
      const key = this.string();
      this.ws();
      if (this.text[this.pos] !== ':') this.fail(`Unexpected character ('${this.text[this.pos] ?? 'EOF'}'): was expecting a colon to separate field name and value`);
      this.pos++;
      this.ws();
      const v = this.value();
      // `__proto__` as a key is data, never the object's prototype.
      if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      else out[key] = v;
      this.ws();
      const c = this.text[this.pos++];
      if (c === '}') return out;
      if (c !== ',') {
        this.pos--;
        this.fail(`Unexpected character ('${c ?? 'EOF'}'): was expecting comma to separate Object entries`);
      }
    }
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const INTEGER = /^-?\d+$/;

/** Reads a JSON text with locations. */
export function readJsonSource(text: string): JsonSource {
  const r = new LocatingReader(text);
  const root = r.value();
  r.ws();
  if (r.pos < text.length) r.fail(`Unexpected character ('${text[r.pos]}')`);
  return new JsonSource(root, text, r.starts);
}

/** A request body given as text, bytes or an already parsed value. */
export function jsonSourceOf(body: unknown): JsonSource {
  if (typeof body === 'string') return readJsonSource(body);
  if (Buffer.isBuffer(body)) return readJsonSource(body.toString('utf8'));
  const text = JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
  if (text === undefined) return new JsonSource(null, '', new Map());
  return readJsonSource(text);
}

export function isJsonMap(v: Json | undefined): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
