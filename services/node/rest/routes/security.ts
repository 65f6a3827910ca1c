/**
 * The security APIs of Elasticsearch 6.8 under `/_xpack/security/...` (and
 * the `/_security/...` names of 7.x): users, roles, `_authenticate`, password
 * changes. Users and roles are cluster metadata: a change is a MetaEvent on
 * the meta log, applied by every node in order (realm/security-metadata.ts).
 * On a node without `xpack.security.enabled` they answer as 6.8 does on a
 * basic license with security off.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { actionRequestValidation, illegalArgument, securityNotEnabled } from '../../../../shared/errors/es-errors.ts';
import type { NodeContext } from '../node-context.ts';
import { jsonBody, params } from '../params.ts';
import { sendJson } from '../reply.ts';
import { hashPassword, isPasswordHash } from '../../realm/password-hash.ts';
import { securityOf, type RequestSecurity } from '../../security/request-security.ts';
import { nameProblem, parseRole, renderRole, roleToJson } from '../../realm/roles.ts';
import { parsePutUser, passwordProblem, renderUser } from '../../realm/users.ts';
import type { Handler } from '../router.ts';
import { actionsOf } from '../../realm/privileges.ts';

export const CHANGE_PASSWORD_ACTION = 'cluster:admin/xpack/security/user/change_password';

/** The request's security; the APIs exist only with security on. */
function requireSecurity(req: FastifyRequest): RequestSecurity {
  const sec = securityOf(req);
  if (sec === null) throw securityNotEnabled();
  return sec;
}

/** `a,b` path values (get user, get role); absent: all. */
function names(value: string | undefined): string[] | null {
  return value === undefined || value === '' || value === '_all' ? null : value.split(',').filter((n) => n.length > 0);
}

function body(req: FastifyRequest): unknown {
  const b = jsonBody(req);
  if (b === undefined) throw illegalArgument('request body is required');
  return b;
}

async function passwordHashFrom(password: string | null, passwordHash: string | null): Promise<string | null> {
  if (passwordHash !== null) {
    if (!isPasswordHash(passwordHash)) throw illegalArgument('The provided password hash is not a hash or it could not be resolved to a supported hash algorithm.');
    return passwordHash;
  }
  return password === null ? null : hashPassword(password);
}

export function securityHandlers(node: NodeContext): Record<string, Handler> {
  const state = () => node.cluster.security;

  const putUser = async (req: FastifyRequest, reply: FastifyReply) => {
    requireSecurity(req);
    const username = params(req).username;
    const r = parsePutUser(username, body(req));
    const hash = await passwordHashFrom(r.password, r.passwordHash);
    const userJson = JSON.stringify({ roles: r.roles, full_name: r.fullName, email: r.email, metadata: r.metadata, enabled: r.enabled });
    const outcome = await node.meta.submit({ 'logsearch.PutUser': { username, user_json: userJson, password_hash: hash } });
    // 6.8 nests the answer under `user` (7.0 dropped the wrapper).
    return sendJson(reply, 200, { user: { created: outcome.security?.created === true } });
  };

  const getUser = async (req: FastifyRequest, reply: FastifyReply) => {
    requireSecurity(req);
    const wanted = names(params(req).username);
    const users = wanted === null ? state().allUsers() : wanted.map((n) => state().user(n)).filter((u) => u !== undefined);
    const out: Record<string, unknown> = {};
    for (const { passwordHash: _hash, ...u } of users) out[u.username] = renderUser(u);
    // A named user that does not exist: 404 with an empty object.
    return sendJson(reply, wanted !== null && users.length === 0 ? 404 : 200, out);
  };

  const deleteUser = async (req: FastifyRequest, reply: FastifyReply) => {
    requireSecurity(req);
    const outcome = await node.meta.submit({ 'logsearch.DeleteUser': { username: params(req).username } });
    const found = outcome.security?.found === true;
    return sendJson(reply, found ? 200 : 404, { found });
  };

  const changePassword = async (req: FastifyRequest, reply: FastifyReply) => {
    const sec = requireSecurity(req);
    const username = params(req).username ?? sec.username;
    // Anyone may change their own password; another user's needs the privilege.
    if (username !== sec.username) sec.requireCluster(CHANGE_PASSWORD_ACTION);
    const b = body(req);
    const password = typeof b === 'object' && b !== null && !Array.isArray(b) ? (b as Record<string, unknown>).password : undefined;
    if (typeof password !== 'string') throw actionRequestValidation(['password must be specified']);
    const problem = passwordProblem(password);
    if (problem) throw actionRequestValidation([problem]);
    await node.meta.submit({ 'logsearch.SetUserPassword': { username, password_hash: await hashPassword(password), only_if_unset: false } });
    return sendJson(reply, 200, {});
  };

  const setEnabled = (enabled: boolean) => async (req: FastifyRequest, reply: FastifyReply) => {
    const sec = requireSecurity(req);
    const username = params(req).username;
    if (username === sec.username && !enabled) throw illegalArgument('users may not update the enabled status of their own account');
    await node.meta.submit({ 'logsearch.SetUserEnabled': { username, enabled } });
    return sendJson(reply, 200, {});
  };

  const putRole = async (req: FastifyRequest, reply: FastifyReply) => {
    requireSecurity(req);
    const name = params(req).name;
    const bad = nameProblem('role', name);
    if (bad) throw actionRequestValidation([bad]);
    const role = parseRole(name, body(req));
    const outcome = await node.meta.submit({ 'logsearch.PutRole': { name, role_json: roleToJson(role) } });
    return sendJson(reply, 200, { role: { created: outcome.security?.created === true } });
  };

  const getRole = async (req: FastifyRequest, reply: FastifyReply) => {
    requireSecurity(req);
    const wanted = names(params(req).name);
    const out: Record<string, unknown> = {};
    for (const [name, role] of state().allRoles()) if (wanted === null || wanted.includes(name)) out[name] = renderRole(role);
    return sendJson(reply, wanted !== null && Object.keys(out).length === 0 ? 404 : 200, out);
  };

  const deleteRole = async (req: FastifyRequest, reply: FastifyReply) => {
    requireSecurity(req);
    const outcome = await node.meta.submit({ 'logsearch.DeleteRole': { name: params(req).name } });
    const found = outcome.security?.found === true;
    return sendJson(reply, found ? 200 : 404, { found });
  };

  const authenticate = async (req: FastifyRequest, reply: FastifyReply) => {
    const sec = requireSecurity(req);
    const realm = { name: sec.authenticated.realm, type: sec.authenticated.realm };
    // With an API key: its owner, without the owner's roles (the key's privileges are not a role list).
    const user = renderUser(sec.authenticated.user);
    if (sec.authenticated.apiKey) user.roles = [];
    return sendJson(reply, 200, { ...user, authentication_realm: realm, lookup_realm: realm });
  };

  /**
   * `_has_privileges`: whether the user holds each privilege asked for. A
   * privilege is held when every action pattern it stands for is granted
   * (a pattern granted as a pattern: `indices:data/read/*` by `read` or `all`);
   * index names may be patterns, held when the user's patterns cover them.
   */
  const hasPrivileges = async (req: FastifyRequest, reply: FastifyReply) => {
    const sec = requireSecurity(req);
    const named = params(req).username;
    if (named !== undefined && named !== sec.username) throw illegalArgument('users may only check the privileges of their own account');
    const b = body(req) as { cluster?: unknown; index?: unknown; application?: unknown };
    const strings = (v: unknown, what: string): string[] => {
      if (v === undefined) return [];
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw illegalArgument(`[${what}] must be an array of strings`);
      return v as string[];
    };
    const known = (kind: 'cluster' | 'index', p: string): readonly string[] => {
      const actions = actionsOf(kind, p);
      if (actions === null) throw illegalArgument(`unknown ${kind} privilege [${p}]`);
      return actions;
    };
    // Keyed by request text: no prototype, so `__proto__` is a name like any other.
    const cluster = Object.create(null) as Record<string, boolean>;
    for (const p of strings(b.cluster, 'cluster')) cluster[p] = known('cluster', p).every((a) => sec.permissions.clusterAllows(a));
    const index = Object.create(null) as Record<string, Record<string, boolean>>;
    if (b.index !== undefined && !Array.isArray(b.index)) throw illegalArgument('[index] must be an array');
    for (const group of (b.index as unknown[] | undefined) ?? []) {
      const g = (group ?? {}) as { names?: unknown; privileges?: unknown };
      const names = typeof g.names === 'string' ? [g.names] : strings(g.names, 'index.names');
      for (const name of names) {
        const entry = (index[name] ??= Object.create(null) as Record<string, boolean>);
        for (const p of strings(g.privileges, 'index.privileges')) entry[p] = known('index', p).every((a) => sec.permissions.indexAllows(a, name));
      }
    }
    const all = Object.values(cluster).every(Boolean) && Object.values(index).every((e) => Object.values(e).every(Boolean));
    return sendJson(reply, 200, { username: sec.username, has_all_requested: all, cluster, index, application: {} });
  };

  return { hasPrivileges, putUser, getUser, deleteUser, changePassword, enable: setEnabled(true), disable: setEnabled(false), putRole, getRole, deleteRole, authenticate };
}
