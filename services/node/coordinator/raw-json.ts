/**
 * JSON bodies that embed raw JSON text (document sources and rendered hits
 * exactly as stored, so big integers and key order survive) without parsing
 * and re-serialising them. The coordinators build such bodies; the REST layer
 * sends them (rest/reply.ts).
 */
import { releaseOnce, responseBuffers } from '../../../shared/engine/search/buffer-pool.ts';

/** JSON text (or its UTF-8 bytes, e.g. rendered hits) to be embedded verbatim in a response. */
export class RawJson {
  constructor(
    readonly text: string | Buffer,
    /** Gives pooled bytes back once the response holds a copy of them. */
    readonly release?: () => void,
  ) {}
}

function write(value: unknown, out: (string | Buffer | RawJson)[]): void {
  if (value instanceof RawJson) {
    out.push(value.release === undefined ? value.text : value);
  } else if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      const v: unknown = value[i];
      // As JSON.stringify: undefined and functions in arrays become null.
      if (v === undefined || typeof v === 'function') out.push('null');
      else write(v, out);
    }
    out.push(']');
  } else if (value !== null && typeof value === 'object' && !(value instanceof Date) && typeof (value as { toJSON?: unknown }).toJSON !== 'function') {
    out.push('{');
    let first = true;
    for (const key of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[key];
      if (v === undefined || typeof v === 'function') continue;
      if (!first) out.push(',');
      first = false;
      out.push(JSON.stringify(key), ':');
      write(v, out);
    }
    out.push('}');
  } else if (typeof value === 'bigint') {
    // Longs beyond 2^53 (Long.MIN/MAX sort values) print exactly, as Jackson prints them.
    out.push(value.toString());
  } else {
    out.push(JSON.stringify(value) ?? 'null');
  }
}

export interface Serialized {
  readonly json: string | Buffer;
  /** Gives the response's pooled buffer back (once it has been sent), or null. */
  readonly release: (() => void) | null;
}

/**
 * JSON of `body` with every RawJson inserted as it is: a string, or UTF-8
 * bytes in a pooled buffer when some RawJson holds bytes (they are copied
 * once into the response, never decoded).
 */
export function serialize(body: unknown): Serialized {
  const out: (string | Buffer | RawJson)[] = [];
  write(body, out);
  const parts: (string | Buffer)[] = [];
  const releases: (() => void)[] = [];
  let texts: string[] = [];
  let hasBytes = false;
  for (const part of out) {
    if (typeof part === 'string') {
      texts.push(part);
      continue;
    }
    const raw = part instanceof RawJson ? part.text : part;
    if (part instanceof RawJson && part.release !== undefined) releases.push(part.release);
    if (typeof raw === 'string') {
      texts.push(raw);
      continue;
    }
    hasBytes = true;
    if (texts.length > 0) parts.push(texts.join(''));
    texts = [];
    parts.push(raw);
  }
  if (texts.length > 0) parts.push(texts.join(''));
  if (!hasBytes) {
    for (const r of releases) r();
    return { json: parts.length === 1 ? (parts[0] as string) : parts.join(''), release: null };
  }
  let length = 0;
  for (const p of parts) length += typeof p === 'string' ? Buffer.byteLength(p, 'utf8') : p.length;
  const buf = responseBuffers.take(length);
  let at = 0;
  for (const p of parts) at += typeof p === 'string' ? buf.write(p, at, 'utf8') : p.copy(buf, at);
  for (const r of releases) r();
  return { json: buf.subarray(0, length), release: releaseOnce(responseBuffers, buf) };
}

/** JSON text of `body`, with every RawJson inserted as its text. */
export function stringifyWithRaw(body: unknown): string {
  const { json, release } = serialize(body);
  const text = typeof json === 'string' ? json : json.toString('utf8');
  release?.();
  return text;
}
