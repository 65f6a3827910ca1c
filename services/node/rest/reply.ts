/**
 * Sending JSON bodies that may embed raw JSON text (document sources exactly
 * as the client sent them, so big integers and key order survive) without
 * parsing and re-serialising them.
 */
import type { FastifyReply } from 'fastify';

/** JSON text to be embedded verbatim in a response. */
export class RawJson {
  constructor(readonly text: string) {}
  static readonly placeholder = '\u0000raw\u0000';
}

/** JSON.stringify, with every RawJson replaced by its text. */
export function stringifyWithRaw(body: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(body, (_k, v: unknown) => {
    if (v instanceof RawJson) {
      raws.push(v.text);
      return RawJson.placeholder;
    }
    return v;
  });
  if (raws.length === 0) return text;
  let i = 0;
  return text.replace(/"\\u0000raw\\u0000"/g, (m) => (i < raws.length ? raws[i++] : m));
}

export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).type('application/json; charset=UTF-8').send(stringifyWithRaw(body));
}
