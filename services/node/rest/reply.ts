/**
 * Sending JSON bodies that may embed raw JSON text (document sources and
 * rendered hits exactly as stored, so big integers and key order survive)
 * without parsing and re-serialising them.
 */
import type { FastifyReply } from 'fastify';

/** JSON text to be embedded verbatim in a response. */
export class RawJson {
  constructor(readonly text: string) {}
}

function write(value: unknown, out: string[]): void {
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

/** JSON text of `body`, with every RawJson inserted as its text. */
export function stringifyWithRaw(body: unknown): string {
  const out: string[] = [];
  write(body, out);
  return out.join('');
}

export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).type('application/json; charset=UTF-8').send(stringifyWithRaw(body));
}
