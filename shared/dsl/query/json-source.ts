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

export class JsonSource {
  readonly root: Json;
  private readonly valueLocs: WeakMap<object, Map<string | number, Location>>;
  private readonly selfLocs: WeakMap<object, Location>;
  private readonly keyLocs: WeakMap<object, Map<string, Location>>;

  constructor(
    root: Json,
    valueLocs: WeakMap<object, Map<string | number, Location>>,
    selfLocs: WeakMap<object, Location>,
    keyLocs: WeakMap<object, Map<string, Location>>,
  ) {
    this.root = root;
    this.valueLocs = valueLocs;
    this.selfLocs = selfLocs;
    this.keyLocs = keyLocs;
  }

  /** Where the field name `key` of `container` starts. */
  keyAt(container: object, key: string): Location {
    return this.keyLocs.get(container)?.get(key) ?? this.at(container, key);
  }

  /** Where the value of `key` in `container` starts. */
  at(container: object, key: string | number): Location {
    return this.valueLocs.get(container)?.get(key) ?? this.of(container);
  }

  /** Where an object or array starts. */
  of(value: object): Location {
    return this.selfLocs.get(value) ?? UNKNOWN;
  }
}

class LocatingReader {
  pos = 0;
  line = 1;
  lineStart = 0;
  readonly valueLocs = new WeakMap<object, Map<string | number, Location>>();
  readonly selfLocs = new WeakMap<object, Location>();
  readonly keyLocs = new WeakMap<object, Map<string, Location>>();

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
    const c = t[this.pos];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (t.startsWith(word, this.pos)) {
        this.pos += word.length;
        return v;
      }
    }
    const m = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    m.lastIndex = this.pos;
    const hit = m.exec(t);
    if (hit === null || hit[0] === '') {
      if (this.pos >= t.length) this.fail('Unexpected end-of-input');
      this.fail(`Unexpected character ('${t[this.pos]}' (code ${t.charCodeAt(this.pos)}))`);
    }
    this.pos += hit[0].length;
    const raw = hit[0];
    const n = Number(raw);
    if (/^-?\d+$/.test(raw) && !Number.isSafeInteger(n)) return BigInt(raw);
    return n;
  }

  string(): string {
    const t = this.text;
    const start = this.pos;
    let i = start + 1;
    while (i < t.length) {
      const c = t.charCodeAt(i);
      if (c === 0x5c) i += 2;
      else if (c === 0x22) break;
      else i++;
    }
    if (i >= t.length) this.fail('Unexpected end-of-input in a string');
    this.pos = i + 1;
    try {
      return JSON.parse(t.slice(start, i + 1)) as string;
    } catch {
      return this.fail('Illegal character in a string');
    }
  }

  array(): Json[] {
    const out: Json[] = [];
    this.selfLocs.set(out, this.loc());
    const locs = new Map<string | number, Location>();
    this.valueLocs.set(out, locs);
    this.pos++;
    this.ws();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return out;
    }
    while (true) {
      this.ws();
      locs.set(out.length, this.loc());
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
    this.selfLocs.set(out, this.loc());
    const locs = new Map<string | number, Location>();
    this.valueLocs.set(out, locs);
    const keys = new Map<string, Location>();
    this.keyLocs.set(out, keys);
    this.pos++;
    this.ws();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return out;
    }
    while (true) {
      this.ws();
      if (this.text[this.pos] !== '"') this.fail(`Unexpected character ('${this.text[this.pos] ?? 'EOF'}'): was expecting double-quote to start field name`);
      const keyLoc = this.loc();
      const key = this.string();
      keys.set(key, keyLoc);
      this.ws();
      if (this.text[this.pos] !== ':') this.fail(`Unexpected character ('${this.text[this.pos] ?? 'EOF'}'): was expecting a colon to separate field name and value`);
      this.pos++;
      this.ws();
      locs.set(key, this.loc());
      Object.defineProperty(out, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
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

/** Reads a JSON text with locations. */
export function readJsonSource(text: string): JsonSource {
  const r = new LocatingReader(text);
  const root = r.value();
  r.ws();
  if (r.pos < text.length) r.fail(`Unexpected character ('${text[r.pos]}')`);
  return new JsonSource(root, r.valueLocs, r.selfLocs, r.keyLocs);
}

/** A request body given as text, bytes or an already parsed value. */
export function jsonSourceOf(body: unknown): JsonSource {
  if (typeof body === 'string') return readJsonSource(body);
  if (Buffer.isBuffer(body)) return readJsonSource(body.toString('utf8'));
  const text = JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
  if (text === undefined) return new JsonSource(null, new WeakMap(), new WeakMap(), new WeakMap());
  return readJsonSource(text);
}

export function isJsonMap(v: Json | undefined): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
