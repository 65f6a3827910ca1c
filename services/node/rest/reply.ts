/**
 * Sending JSON bodies that may embed raw JSON text (document sources and
 * rendered hits exactly as stored, so big integers and key order survive)
 * without parsing and re-serialising them; coordinator/raw-json.ts writes them.
 */
import type { FastifyReply } from 'fastify';
import { serialize } from '../coordinator/raw-json.ts';

export { RawJson, stringifyWithRaw } from '../coordinator/raw-json.ts';

export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  const { json, release } = serialize(body);
  if (release !== null) {
    // The pooled buffer is reused once Node has handed it to the socket (or the connection is gone).
    reply.raw.once('finish', release);
    reply.raw.once('close', release);
  }
  return reply.code(status).type('application/json; charset=UTF-8').send(json);
}
