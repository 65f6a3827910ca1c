/**
 * A scroll belongs to the user who opened it (Elasticsearch 6.8 checks the
 * scroll's authentication on every continuation). Scroll ids are
 * self-describing and any node continues them, so the binding travels in the
 * id: with security on, the id a client gets is `<id>.<mac>`, the mac an
 * HMAC-SHA256 of the id and the user name under the secret every node shares
 * (SetSecuritySecret on the meta log). Another user's continuation, or an id
 * whose mac does not check, finds no context: 404, as in Elasticsearch. The
 * user's name is not in the id.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { searchContextMissing } from '../../../shared/errors/es-errors.ts';

function mac(secret: string, id: string, username: string): Buffer {
  return createHmac('sha256', secret).update(id).update('\u0000').update(username).digest();
}

export function bindScrollId(id: string, username: string, secret: string): string {
  return `${id}.${mac(secret, id, username).toString('base64url')}`;
}

/** The scroll id a bound id stands for; throws 404 search_context_missing_exception unless it is this user's. */
export function unbindScrollId(bound: string, username: string, secret: string): string {
  const dot = bound.lastIndexOf('.');
  const id = dot < 0 ? bound : bound.slice(0, dot);
  const given = dot < 0 ? Buffer.alloc(0) : Buffer.from(bound.slice(dot + 1), 'base64url');
  const expected = mac(secret, id, username);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw searchContextMissing('-1');
  return id;
}
