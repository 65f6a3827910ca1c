/**
 * Security on the REST path: authenticates a request, authorizes its route
 * (route-auth.ts) and keeps, per request, who sent it and what it may do, so
 * the handlers of multi-item requests (bulk, mget, msearch, aliases,
 * reindex) can authorize each item. With security off none of this exists
 * and `securityOf` answers null: nothing is checked and nothing costs.
 */
import type { FastifyRequest } from 'fastify';
import { actionUnauthorized, type EsError } from '../../../shared/errors/es-errors.ts';
import type { ClusterState } from '../cluster/cluster-state.ts';
import { globToRegExp, isWildcard, parseExpandWildcards, splitExpression } from '../cluster/index-resolver.ts';
import type { Logger } from '../logger.ts';
import { Authenticator, type AuthenticatedUser } from './authenticator.ts';
import { authorizedExpression } from './index-authorization.ts';
import { IntersectedPermissions, Permissions, type PermissionCheck } from './permissions.ts';
import type { RoleDescriptor } from '../realm/roles.ts';
import type { RouteAuth } from './route-auth.ts';

/** Who sent a request and what it may do. */
export class RequestSecurity {
  constructor(
    readonly authenticated: AuthenticatedUser,
    readonly permissions: PermissionCheck,
    private readonly state: ClusterState,
  ) {}

  get username(): string {
    return this.authenticated.user.username;
  }

  /** The 403 for an index action on one name, or null when it is allowed; `reported` is the action the reason names (a shard action for items). */
  indexRefusal(action: string, index: string, reported = action): EsError | null {
    return this.permissions.indexAllows(action, index) ? null : actionUnauthorized(reported, this.username);
  }

  /**
   * The 403 of a bulk item, or null: the item's own action (index, create,
   * update, delete) must be granted on its index, and creating a missing
   * index needs `create_index`. 6.8 names the shard bulk action in the reason.
   */
  bulkItemRefusal(op: 'index' | 'create' | 'update' | 'delete', index: string): EsError | null {
    const action = op === 'delete' ? 'indices:data/write/delete' : op === 'update' ? 'indices:data/write/update' : 'indices:data/write/index';
    if (!this.permissions.indexAllows(action, index)) return actionUnauthorized('indices:data/write/bulk[s]', this.username);
    return this.autoCreateRefusal(index);
  }

  /** A write to an index that does not exist creates it: that needs `indices:admin/create` on the name. */
  autoCreateRefusal(index: string): EsError | null {
    if (this.state.index(index) !== undefined || this.state.aliasTable().has(index)) return null;
    return this.permissions.indexAllows('indices:admin/create', index) ? null : actionUnauthorized('indices:admin/create', this.username);
  }

  /**
   * Throws the 403 unless the action is allowed on every index and alias the
   * expression names or matches (stricter than narrowing: for requests whose
   * indices sit in a body the handler then reads as written: `_aliases`,
   * `_reindex`, `_mtermvectors`).
   */
  requireEvery(action: string, expr: string | undefined): void {
    if (this.permissions.allIndicesAllow(action)) return;
    const parts = splitExpression(expr);
    parts.forEach((part, i) => {
      if (part.startsWith('-') && i > 0) return;
      const pattern = part === '_all' ? '*' : part;
      if (!isWildcard(pattern)) {
        if (!this.permissions.indexAllows(action, pattern)) throw actionUnauthorized(action, this.username);
        return;
      }
      const re = globToRegExp(pattern);
      const names = [...this.state.indices().map((m) => m.name), ...this.state.aliasTable().keys()];
      for (const name of names) if (re.test(name) && !this.permissions.indexAllows(action, name)) throw actionUnauthorized(action, this.username);
    });
  }

  /** Throws the 403 unless the cluster action is allowed. */
  requireCluster(action: string): void {
    if (!this.permissions.clusterAllows(action)) throw actionUnauthorized(action, this.username);
  }

  /** An index expression narrowed to what the user may use (index-authorization.ts); throws 403 for a refused name. */
  indices(action: string, expr: string | undefined, expandWildcards?: string): string | undefined {
    return authorizedExpression(this.state, this.permissions, this.username, action, expr, parseExpandWildcards(expandWildcards));
  }
}

/** Single-document writes that create their index when it is missing. */
const AUTO_CREATING = new Set(['indices:data/write/index', 'indices:data/write/update']);

const bound = new WeakMap<FastifyRequest, RequestSecurity>();

/** The request's security, or null when security is off. */
export function securityOf(req: FastifyRequest): RequestSecurity | null {
  return bound.get(req) ?? null;
}

export class NodeSecurity {
  readonly authenticator: Authenticator;
  /** The roles a user has now, as role descriptors (what an API key it creates is limited by). */
  rolesOf(user: AuthenticatedUser['user']): Map<string, RoleDescriptor> {
    const out = new Map<string, RoleDescriptor>();
    for (const r of user.roles) {
      const role = this.state.security.role(r);
      if (role) out.set(r, role);
    }
    return out;
  }

  /** Permissions by user, valid for one version of the users and roles. */
  private permissionsCache = new Map<string, PermissionCheck>();
  private cachedVersion = -1;

  constructor(
    private readonly state: ClusterState,
    logger: Logger,
  ) {
    this.authenticator = new Authenticator(state.security, logger);
  }

  private permissionsOf(authenticated: AuthenticatedUser): PermissionCheck {
    if (this.cachedVersion !== this.state.security.version) {
      this.permissionsCache = new Map();
      this.cachedVersion = this.state.security.version;
    }
    const key = authenticated.apiKey;
    if (key) {
      // A key has the privileges its owner had when it was made, narrowed by its own role descriptors when it has some.
      const cacheKey = `\u0000key:${key.id}`;
      let p = this.permissionsCache.get(cacheKey);
      if (!p) {
        const limit = new Permissions([...key.limitedBy.values()]);
        p = key.roleDescriptors.size > 0 ? new IntersectedPermissions(new Permissions([...key.roleDescriptors.values()]), limit) : limit;
        this.permissionsCache.set(cacheKey, p);
      }
      return p;
    }
    const user = authenticated.user;
    let p = this.permissionsCache.get(user.username);
    if (!p) {
      const roles = user.roles.map((r) => this.state.security.role(r)).filter((r): r is RoleDescriptor => r !== undefined);
      p = new Permissions(roles);
      this.permissionsCache.set(user.username, p);
    }
    return p;
  }

  /**
   * Authenticates and authorizes a request for its route; rewrites the
   * route's index parameter to the names the user may use. Throws the
   * Elasticsearch-shaped 401, 403 or 429.
   */
  async check(req: FastifyRequest, auth: RouteAuth, params: Record<string, string>): Promise<RequestSecurity> {
    const authenticated = await this.authenticator.authenticate(req.headers.authorization, req.url, req.socket.remoteAddress ?? 'unknown');
    const sec = new RequestSecurity(authenticated, this.permissionsOf(authenticated), this.state);
    bound.set(req, sec);
    switch (auth.kind) {
      case 'cluster':
        sec.requireCluster(auth.action);
        break;
      case 'indices': {
        const q = req.query as Record<string, string | undefined>;
        const narrowed = sec.indices(auth.action, params[auth.param], q.expand_wildcards);
        if (narrowed !== undefined) params[auth.param] = narrowed;
        if (AUTO_CREATING.has(auth.action)) {
          const refusal = sec.autoCreateRefusal(params[auth.param]);
          if (refusal) throw refusal;
        }
        break;
      }
      case 'anyIndex':
        if (!sec.permissions.indexActionGranted(auth.action)) throw actionUnauthorized(auth.action, sec.username);
        break;
      case 'items':
      case 'self':
        break;
    }
    return sec;
  }
}
