/**
 * Native users and roles as part of the cluster state: built by applying the
 * security MetaEvents of the meta log in order, so every node agrees on them
 * (as Elasticsearch keeps them in its `.security` index). Validation that
 * depends on the state (a user updated without a password must exist, the
 * reserved ones cannot change) happens here, at apply time.
 */
import { EsError, actionRequestValidation, reservedSecurityObject } from '../../../shared/errors/es-errors.ts';
import type { MetaEventBody } from '../../../shared/records/meta-event.ts';
import { RESERVED_ROLES, parseRole, type RoleDescriptor } from './roles.ts';
import { RESERVED_USERS, type UserRecord } from './users.ts';

/** The part of a user the meta event's user_json carries. */
interface StoredUserFields {
  roles: string[];
  full_name: string | null;
  email: string | null;
  metadata: Record<string, unknown>;
  enabled: boolean;
}

/** An API key as stored: its secret only as a hash. */
export interface ApiKeyRecord {
  readonly id: string;
  readonly name: string;
  readonly owner: string;
  readonly realm: string;
  readonly creation: number;
  readonly expiration: number | null;
  readonly keyHash: string;
  /** The roles the key was limited to at creation (empty: the owner's). */
  readonly roleDescriptors: ReadonlyMap<string, RoleDescriptor>;
  /** The owner's roles at creation: the key can never do more. */
  readonly limitedBy: ReadonlyMap<string, RoleDescriptor>;
  readonly invalidated: boolean;
}

function rolesFromJson(json: string): Map<string, RoleDescriptor> {
  const out = new Map<string, RoleDescriptor>();
  for (const [name, body] of Object.entries(JSON.parse(json) as Record<string, unknown>)) out.set(name, parseRole(name, body));
  return out;
}

export interface SecurityOutcome {
  /** Put user / put role: true when it did not exist before. */
  readonly created?: boolean;
  /** Delete user / role: whether it existed. */
  readonly found?: boolean;
  /** Invalidate API keys: ids invalidated now, and those that already were. */
  readonly invalidated?: readonly string[];
  readonly previouslyInvalidated?: readonly string[];
}

export class SecurityMetadata {
  private readonly users = new Map<string, UserRecord>();
  private readonly roles = new Map<string, RoleDescriptor>();
  /** The reserved users' passwords and enabled flags (their other fields are fixed). */
  private readonly reserved = new Map<string, { passwordHash: string | null; enabled: boolean }>();
  private readonly apiKeys = new Map<string, ApiKeyRecord>();
  /** Shared by every node (SetSecuritySecret): binds scroll ids to their user. Empty until set. */
  secret = '';
  /** Bumped on every change, so caches of users and their privileges know when to drop. */
  version = 0;

  user(name: string): UserRecord | undefined {
    const fixed = RESERVED_USERS.get(name);
    if (fixed) {
      const r = this.reserved.get(name);
      return { ...fixed, passwordHash: r?.passwordHash ?? null, enabled: r?.enabled ?? true };
    }
    return this.users.get(name);
  }

  /** Every user, the reserved ones first, then native users by name. */
  allUsers(): UserRecord[] {
    const out: UserRecord[] = [];
    for (const name of RESERVED_USERS.keys()) out.push(this.user(name)!);
    for (const name of [...this.users.keys()].sort()) out.push(this.users.get(name)!);
    return out;
  }

  role(name: string): RoleDescriptor | undefined {
    return RESERVED_ROLES.get(name) ?? this.roles.get(name);
  }

  /** Every role, reserved first, then native ones by name. */
  allRoles(): [string, RoleDescriptor][] {
    return [...RESERVED_ROLES, ...[...this.roles.keys()].sort().map((n): [string, RoleDescriptor] => [n, this.roles.get(n)!])];
  }

  apiKey(id: string): ApiKeyRecord | undefined {
    return this.apiKeys.get(id);
  }

  allApiKeys(): ApiKeyRecord[] {
    return [...this.apiKeys.values()];
  }

  /** Whether a password (or bootstrap) was ever set for the elastic user. */
  hasPassword(name: string): boolean {
    return (this.user(name)?.passwordHash ?? null) !== null;
  }

  /** Applies a security event; null when the event is not one. Throws the EsError the request answers with. */
  apply(e: MetaEventBody): SecurityOutcome | null {
    const outcome = this.applyEvent(e);
    if (outcome !== null) this.version++;
    return outcome;
  }

  private applyEvent(e: MetaEventBody): SecurityOutcome | null {
    if ('logsearch.PutUser' in e) {
      const p = e['logsearch.PutUser'];
      if (RESERVED_USERS.has(p.username)) throw reservedSecurityObject(`user [${p.username}] is reserved and only the password can be changed`);
      const fields = JSON.parse(p.user_json) as StoredUserFields;
      const existing = this.users.get(p.username);
      if (!existing && p.password_hash === null) throw actionRequestValidation(['password must be specified unless you are updating an existing user']);
      this.users.set(p.username, {
        username: p.username,
        roles: fields.roles,
        fullName: fields.full_name,
        email: fields.email,
        metadata: fields.metadata,
        enabled: fields.enabled,
        passwordHash: p.password_hash ?? existing!.passwordHash,
      });
      return { created: existing === undefined };
    }
    if ('logsearch.SetUserPassword' in e) {
      const p = e['logsearch.SetUserPassword'];
      if (RESERVED_USERS.has(p.username)) {
        const r = this.reserved.get(p.username) ?? { passwordHash: null, enabled: true };
        if (p.only_if_unset && r.passwordHash !== null) return {};
        this.reserved.set(p.username, { ...r, passwordHash: p.password_hash });
        return {};
      }
      const u = this.users.get(p.username);
      if (!u) throw userMustExist('change password');
      if (!p.only_if_unset || u.passwordHash === null) this.users.set(p.username, { ...u, passwordHash: p.password_hash });
      return {};
    }
    if ('logsearch.SetUserEnabled' in e) {
      const p = e['logsearch.SetUserEnabled'];
      if (RESERVED_USERS.has(p.username)) {
        const r = this.reserved.get(p.username) ?? { passwordHash: null, enabled: true };
        this.reserved.set(p.username, { ...r, enabled: p.enabled });
        return {};
      }
      const u = this.users.get(p.username);
      if (!u) throw userMustExist(p.enabled ? 'enable' : 'disable');
      this.users.set(p.username, { ...u, enabled: p.enabled });
      return {};
    }
    if ('logsearch.DeleteUser' in e) {
      const name = e['logsearch.DeleteUser'].username;
      if (RESERVED_USERS.has(name)) throw reservedSecurityObject(`user [${name}] is reserved and cannot be deleted`);
      return { found: this.users.delete(name) };
    }
    if ('logsearch.PutRole' in e) {
      const p = e['logsearch.PutRole'];
      if (RESERVED_ROLES.has(p.name)) throw reservedSecurityObject(`role [${p.name}] is reserved and cannot be modified.`);
      const created = !this.roles.has(p.name);
      this.roles.set(p.name, parseRole(p.name, JSON.parse(p.role_json) as unknown));
      return { created };
    }
    if ('logsearch.DeleteRole' in e) {
      const name = e['logsearch.DeleteRole'].name;
      if (RESERVED_ROLES.has(name)) throw reservedSecurityObject(`role [${name}] is reserved and cannot be deleted`);
      return { found: this.roles.delete(name) };
    }
    if ('logsearch.PutApiKey' in e) {
      const k = e['logsearch.PutApiKey'];
      this.apiKeys.set(k.id, {
        id: k.id,
        name: k.name,
        owner: k.owner,
        realm: k.realm,
        creation: k.creation,
        expiration: k.expiration,
        keyHash: k.key_hash,
        roleDescriptors: rolesFromJson(k.role_descriptors_json),
        limitedBy: rolesFromJson(k.limited_by_json),
        invalidated: false,
      });
      return { created: true };
    }
    if ('logsearch.InvalidateApiKeys' in e) {
      const invalidated: string[] = [];
      const previouslyInvalidated: string[] = [];
      for (const id of e['logsearch.InvalidateApiKeys'].ids) {
        const k = this.apiKeys.get(id);
        if (!k) continue;
        if (k.invalidated) previouslyInvalidated.push(id);
        else {
          this.apiKeys.set(id, { ...k, invalidated: true });
          invalidated.push(id);
        }
      }
      return { invalidated, previouslyInvalidated };
    }
    if ('logsearch.SetSecuritySecret' in e) {
      if (this.secret === '') this.secret = e['logsearch.SetSecuritySecret'].secret;
      return {};
    }
    return null;
  }
}

/** NativeUsersStore's answer when the user a change names is not there. */
function userMustExist(what: string): EsError {
  return new EsError('validation_exception', `Validation Failed: 1: user must exist in order to ${what};`, 400);
}
