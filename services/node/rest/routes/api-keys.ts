/**
 * API keys (`/_security/api_key`, also under `/_xpack/security`), as
 * Elasticsearch 6.7+ has them: a user makes a key (a random secret shown
 * once), a client sends `Authorization: ApiKey base64(id:api_key)`, and the
 * key can do what its owner could when it was made, narrowed by its own
 * `role_descriptors`. Keys are cluster metadata (meta log); only a SHA-256 of
 * the secret is stored. Invalidated keys stay listed, as in Elasticsearch.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { actionRequestValidation, illegalArgument, securityNotEnabled } from '../../../../shared/errors/es-errors.ts';
import type { NodeContext } from '../node-context.ts';
import { jsonBody, parseTimeValue, query } from '../params.ts';
import { sendJson } from '../reply.ts';
import { securityOf, type RequestSecurity } from '../../security/request-security.ts';
import { apiKeyHash } from '../../security/authenticator.ts';
import { parseRole, privilegesJson, type RoleDescriptor } from '../../realm/roles.ts';
import type { ApiKeyRecord } from '../../realm/security-metadata.ts';
import type { Handler } from '../router.ts';

function requireSecurity(req: FastifyRequest): RequestSecurity {
  const sec = securityOf(req);
  if (sec === null) throw securityNotEnabled();
  return sec;
}

function objectBody(req: FastifyRequest): Record<string, unknown> {
  const b = jsonBody(req) ?? {};
  if (typeof b !== 'object' || b === null || Array.isArray(b)) throw illegalArgument('request body must be an object');
  return b as Record<string, unknown>;
}

/** Which keys a get or invalidate request names: by id, name, owner or realm (all given must match). */
function selector(fields: Record<string, unknown>): (k: ApiKeyRecord) => boolean {
  const str = (k: string): string | undefined => {
    const v = fields[k];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') throw illegalArgument(`[${k}] must be a string`);
    return v;
  };
  const id = str('id');
  const name = str('name');
  const username = str('username');
  const realm = str('realm_name');
  return (k) => (id === undefined || k.id === id) && (name === undefined || k.name === name) && (username === undefined || k.owner === username) && (realm === undefined || k.realm === realm);
}

export function apiKeyHandlers(node: NodeContext): Record<string, Handler> {
  const create = async (req: FastifyRequest, reply: FastifyReply) => {
    const sec = requireSecurity(req);
    const body = objectBody(req);
    const name = body.name;
    if (typeof name !== 'string' || name.length === 0) throw actionRequestValidation(['name is required']);
    if (name.length > 256 || name.trim() !== name) throw actionRequestValidation(['name may not be more than 256 characters long or begin or end with whitespace']);
    let expiration: number | null = null;
    if (body.expiration !== undefined && body.expiration !== null) {
      if (typeof body.expiration !== 'string') throw illegalArgument('[expiration] must be a time value such as 1d');
      const ms = parseTimeValue(body.expiration, 'expiration');
      if (!(ms > 0)) throw illegalArgument('[expiration] must be positive');
      expiration = Date.now() + ms;
    }
    const descriptors = new Map<string, RoleDescriptor>();
    const rd = body.role_descriptors;
    if (rd !== undefined && rd !== null) {
      if (typeof rd !== 'object' || Array.isArray(rd)) throw illegalArgument('[role_descriptors] must be an object of roles by name');
      for (const [roleName, role] of Object.entries(rd as Record<string, unknown>)) descriptors.set(roleName, parseRole(roleName, role));
    }
    if (sec.authenticated.apiKey) throw illegalArgument('an API key cannot be used to create another API key');
    const id = randomBytes(15).toString('base64url');
    const key = randomBytes(16).toString('base64url');
    await node.meta.submit({
      'logsearch.PutApiKey': {
        id,
        name,
        owner: sec.username,
        realm: sec.authenticated.realm,
        creation: Date.now(),
        expiration,
        key_hash: apiKeyHash(key),
        role_descriptors_json: privilegesJson(descriptors),
        limited_by_json: privilegesJson(node.security!.rolesOf(sec.authenticated.user)),
      },
    });
    return sendJson(reply, 200, { id, name, ...(expiration === null ? {} : { expiration }), api_key: key });
  };

  const get = async (req: FastifyRequest, reply: FastifyReply) => {
    requireSecurity(req);
    const q = query(req);
    const match = selector({ id: q.id, name: q.name, username: q.username, realm_name: q.realm_name });
    const keys = node.cluster.security.allApiKeys().filter(match);
    return sendJson(reply, 200, {
      api_keys: keys.map((k) => ({
        id: k.id,
        name: k.name,
        creation: k.creation,
        ...(k.expiration === null ? {} : { expiration: k.expiration }),
        invalidated: k.invalidated,
        username: k.owner,
        realm: k.realm,
      })),
    });
  };

  const invalidate = async (req: FastifyRequest, reply: FastifyReply) => {
    requireSecurity(req);
    const body = objectBody(req);
    if (!['id', 'name', 'username', 'realm_name'].some((k) => body[k] !== undefined)) {
      throw actionRequestValidation(['One of [api key id, api key name, username, connected realm name] must be specified']);
    }
    const ids = node.cluster.security.allApiKeys().filter(selector(body)).map((k) => k.id);
    const outcome = await node.meta.submit({ 'logsearch.InvalidateApiKeys': { ids } });
    return sendJson(reply, 200, {
      invalidated_api_keys: outcome.security?.invalidated ?? [],
      previously_invalidated_api_keys: outcome.security?.previouslyInvalidated ?? [],
      error_count: 0,
    });
  };

  return { create, get, invalidate };
}
