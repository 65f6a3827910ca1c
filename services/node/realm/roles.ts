/**
 * Role descriptors as Elasticsearch 6.8 reads and shows them (RoleDescriptor):
 * cluster privileges, index privileges on name patterns, run_as and metadata.
 * The built-in `superuser` role is reserved. Field and document level
 * security (`field_security`, `query`) is a paid feature in 6.8 and is
 * refused here rather than silently ignored.
 */
import { EsError, illegalArgument } from '../../../shared/errors/es-errors.ts';
import { isValidPrivilege } from './privileges.ts';

export interface IndexGroup {
  readonly names: readonly string[];
  readonly privileges: readonly string[];
}

export interface RoleDescriptor {
  readonly cluster: readonly string[];
  readonly indices: readonly IndexGroup[];
  readonly runAs: readonly string[];
  readonly metadata: Record<string, unknown>;
}

/** Elasticsearch's reserved roles this node knows; they cannot be changed or deleted. */
export const RESERVED_ROLES: ReadonlyMap<string, RoleDescriptor> = new Map([
  ['superuser', { cluster: ['all'], indices: [{ names: ['*'], privileges: ['all'] }], runAs: ['*'], metadata: { _reserved: true } }],
]);

/** Role and user names: 1 to 1024 printable Basic Latin characters, no leading or trailing space (Validation.Users/Roles). */
export function nameProblem(kind: 'user' | 'role', name: string): string | null {
  const printable = /^[\x20-\x7e]*$/.test(name);
  if (name.length < 1 || name.length > 1024 || !printable || name.trim() !== name) {
    return `Invalid ${kind === 'user' ? 'username' : 'role name'} [${name}]... Valid ${kind === 'user' ? 'usernames' : 'role names'} must be at least 1 and no more than 1024 characters. They can contain alphanumeric characters (a-z, A-Z, 0-9), spaces, punctuation, and printable symbols in the Basic Latin (ASCII) block. Leading or trailing whitespace is not allowed.`;
  }
  return null;
}

function parseFailure(role: string, what: string): EsError {
  return new EsError('parse_exception', `failed to parse role [${role}]. ${what}`, 400);
}

function stringArray(role: string, field: string, v: unknown, allowString = false): string[] {
  if (allowString && typeof v === 'string') return [v];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
    throw parseFailure(role, `expected field [${field}] value to be an array of strings`);
  }
  return v as string[];
}

function parseIndexGroup(role: string, v: unknown): IndexGroup {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw parseFailure(role, 'expected object but found something else in [indices]');
  let names: string[] | null = null;
  let privileges: string[] | null = null;
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
    if (k === 'names') names = stringArray(role, 'indices.names', val, true);
    else if (k === 'privileges') privileges = stringArray(role, 'indices.privileges', val);
    else if (k === 'allow_restricted_indices') continue;
    else if (k === 'field_security' || k === 'query') {
      throw illegalArgument(`role [${role}]: field and document level security ([${k}]) is not supported`);
    } else throw parseFailure(role, `could not parse [indices] field. unexpected field [${k}]`);
  }
  if (names === null || names.length === 0) throw parseFailure(role, 'missing required [names] field in [indices]');
  if (privileges === null || privileges.length === 0) throw parseFailure(role, 'missing required [privileges] field in [indices]');
  for (const p of privileges) if (!isValidPrivilege('index', p)) throw illegalArgument(`unknown index privilege [${p}]. a privilege must be either one of the predefined fixed indices privileges or a pattern over one of the available index actions`);
  return { names, privileges };
}

/** `PUT /_xpack/security/role/{name}`'s body. */
export function parseRole(name: string, body: unknown): RoleDescriptor {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw parseFailure(name, 'expected an object');
  let cluster: string[] = [];
  let indices: IndexGroup[] = [];
  let runAs: string[] = [];
  let metadata: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    switch (k) {
      case 'cluster':
        cluster = stringArray(name, k, v);
        for (const p of cluster) if (!isValidPrivilege('cluster', p)) throw illegalArgument(`unknown cluster privilege [${p}]. a privilege must be either one of the predefined fixed cluster privileges or a pattern over one of the available cluster actions`);
        break;
      case 'indices':
        if (!Array.isArray(v)) throw parseFailure(name, 'expected field [indices] value to be an array');
        indices = v.map((g) => parseIndexGroup(name, g));
        break;
      case 'run_as':
        runAs = stringArray(name, k, v);
        break;
      case 'metadata':
        if (typeof v !== 'object' || v === null || Array.isArray(v)) throw parseFailure(name, 'expected field [metadata] to be an object');
        metadata = v as Record<string, unknown>;
        if (Object.keys(metadata).some((key) => key.startsWith('_'))) {
          throw new EsError('action_request_validation_exception', 'Validation Failed: 1: metadata keys may not start with [_];', 400);
        }
        break;
      case 'applications':
      case 'transient_metadata':
        break;
      default:
        throw parseFailure(name, `unexpected field [${k}]`);
    }
  }
  return { cluster, indices, runAs, metadata };
}

/** A role as `GET /_xpack/security/role` shows it. */
export function renderRole(role: RoleDescriptor): Record<string, unknown> {
  return {
    cluster: role.cluster,
    indices: role.indices.map((g) => ({ names: g.names, privileges: g.privileges, allow_restricted_indices: false })),
    applications: [],
    run_as: role.runAs,
    metadata: role.metadata,
    transient_metadata: { enabled: true },
  };
}

/** Roles by name as an API key stores them: their privileges only (metadata does not grant anything, and reserved roles carry `_` keys parseRole refuses). */
export function privilegesJson(roles: ReadonlyMap<string, RoleDescriptor>): string {
  const out: Record<string, unknown> = {};
  for (const [name, r] of roles) out[name] = { cluster: r.cluster, indices: r.indices, run_as: r.runAs };
  return JSON.stringify(out);
}

/** The stored form (meta log), which parseRole reads back. */
export function roleToJson(role: RoleDescriptor): string {
  return JSON.stringify({ cluster: role.cluster, indices: role.indices, run_as: role.runAs, metadata: role.metadata });
}
