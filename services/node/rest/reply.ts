/**
 * Sending JSON bodies that may embed raw JSON text (document sources and
 * rendered hits exactly as stored, so big integers and key order survive)
 * without parsing and re-serialising them.
 */
import type { FastifyReply } from 'fastify';

/** JSON text (or its UTF-8 bytes, e.g. rendered hits) to be embedded verbatim in a response. */
export class RawJson {
  constructor(readonly text: string | Buffer) {}
}

function write(value: unknown, out: (string | Buffer)[]): void {
  if (value instanceof RawJson) {
    out.push(value.text);
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

/**
 * JSON of `body` with every RawJson inserted as it is: a string, or UTF-8
 * bytes when some RawJson holds bytes (they are copied once into the
 * response, never decoded).
 */
export function serializeWithRaw(body: unknown): string | Buffer {
  const out: (string | Buffer)[] = [];
  write(body, out);
  let texts: string[] = [];
  let chunks: Buffer[] | null = null;
  for (const part of out) {
    if (typeof part === 'string') {
      texts.push(part);
      continue;
    }
    chunks ??= [];
    if (texts.length > 0) chunks.push(Buffer.from(texts.join(''), 'utf8'));
    texts = [];
    chunks.push(part);
  }
  if (chunks === null) return texts.join('');
  if (texts.length > 0) chunks.push(Buffer.from(texts.join(''), 'utf8'));
  return Buffer.concat(chunks);
}

/** JSON text of `body`, with every RawJson inserted as its text. */
export function stringifyWithRaw(body: unknown): string {
  const json = serializeWithRaw(body);
  return typeof json === 'string' ? json : json.toString('utf8');
}

export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).type('application/json; charset=UTF-8').send(serializeWithRaw(body));
}
