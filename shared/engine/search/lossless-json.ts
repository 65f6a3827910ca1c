/**
 * A small JSON reader and writer that keeps number tokens as their raw text, so
 * a `_source` that is filtered (parsed and written back) keeps integers beyond
 * 2^53 exact, as Elasticsearch (Jackson) does. Objects keep key order.
 */

/** A number token exactly as written in the source. */
export class RawNumber {
  readonly raw: string;
  constructor(raw: string) {
    this.raw = raw;
  }
}

export type JsonValue = string | boolean | null | RawNumber | JsonValue[] | JsonObject;

/** Key order preserved; a repeated key keeps its first position and last value. */
export type JsonObject = Map<string, JsonValue>;

class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw new SyntaxError(`${what} at position ${this.pos}`);
  }

  ws(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.pos++;
      else break;
    }
  }

  value(): JsonValue {
    this.ws();
    const t = this.text;
    const c = t[this.pos];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === 't' && t.startsWith('true', this.pos)) {
      this.pos += 4;
      return true;
    }
    if (c === 'f' && t.startsWith('false', this.pos)) {
      this.pos += 5;
      return false;
    }
    if (c === 'n' && t.startsWith('null', this.pos)) {
      this.pos += 4;
      return null;
    }
    const m = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    m.lastIndex = this.pos;
    const hit = m.exec(t);
    if (hit === null || hit[0] === '') this.fail('Unexpected character');
    this.pos += hit[0].length;
    return new RawNumber(hit[0]);
  }

  string(): string {
    const t = this.text;
    const start = ++this.pos;
    let i = start;
    while (i < t.length) {
      const c = t.charCodeAt(i);
      if (c === 0x22) {
        this.pos = i + 1;
        return t.slice(start, i);
      }
      if (c === 0x5c) break;
      i++;
    }
    // Escapes present: find the closing quote and let JSON.parse decode.
    while (i < t.length) {
      const c = t.charCodeAt(i);
      if (c === 0x5c) i += 2;
      else if (c === 0x22) break;
      else i++;
    }
    if (i >= t.length) this.fail('Unterminated string');
    this.pos = i + 1;
    return JSON.parse(t.slice(start - 1, i + 1)) as string;
  }

  array(): JsonValue[] {
    this.pos++;
    const out: JsonValue[] = [];
    this.ws();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return out;
    }
    while (true) {
      out.push(this.value());
      this.ws();
      const c = this.text[this.pos++];
      if (c === ']') return out;
      if (c !== ',') this.fail('Expected , or ]');
    }
  }

  object(): JsonObject {
    this.pos++;
    const out: JsonObject = new Map();
    this.ws();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return out;
    }
    while (true) {
      this.ws();
      if (this.text[this.pos] !== '"') this.fail('Expected a key');
      const key = this.string();
      this.ws();
      if (this.text[this.pos++] !== ':') this.fail('Expected :');
      out.set(key, this.value());
      this.ws();
      const c = this.text[this.pos++];
      if (c === '}') return out;
      if (c !== ',') this.fail('Expected , or }');
    }
  }
}

export function parseLosslessJson(text: string): JsonValue {
  const r = new Reader(text);
  const v = r.value();
  r.ws();
  if (r.pos !== text.length) r.fail('Unexpected trailing content');
  return v;
}

export function stringifyLosslessJson(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v instanceof RawNumber) return v.raw;
  if (Array.isArray(v)) return `[${v.map(stringifyLosslessJson).join(',')}]`;
  const parts: string[] = [];
  for (const [k, val] of v) parts.push(`${JSON.stringify(k)}:${stringifyLosslessJson(val)}`);
  return `{${parts.join(',')}}`;
}
