/**
 * Users of the native realm as Elasticsearch 6.8 reads and shows them
 * (`PUT /_xpack/security/user/{name}`), and the reserved `elastic` user.
 */
import { EsError, actionRequestValidation } from '../../../shared/errors/es-errors.ts';
import { MIN_PASSWORD_LENGTH } from './password-hash.ts';
import { nameProblem } from './roles.ts';

export interface UserRecord {
  readonly username: string;
  readonly roles: readonly string[];
  readonly fullName: string | null;
  readonly email: string | null;
  readonly metadata: Record<string, unknown>;
  readonly enabled: boolean;
  /** `{scrypt}...` (password-hash.ts); null: the user cannot log in with a password (elastic before its password is set). */
  readonly passwordHash: string | null;
}

/** The built-in superuser (ReservedRealm); only its password and enabled flag change. */
export const ELASTIC_USER = 'elastic';

export const RESERVED_USERS: ReadonlyMap<string, Omit<UserRecord, 'passwordHash' | 'enabled'>> = new Map([
  [ELASTIC_USER, { username: ELASTIC_USER, roles: ['superuser'], fullName: null, email: null, metadata: { _reserved: true } }],
]);

/** What a put user request asks for, before its password is hashed. */
export interface PutUserRequest {
  readonly roles: readonly string[];
  readonly fullName: string | null;
  readonly email: string | null;
  readonly metadata: Record<string, unknown>;
  readonly enabled: boolean;
  readonly password: string | null;
  readonly passwordHash: string | null;
}

function parseFailure(user: string, what: string): EsError {
  return new EsError('parse_exception', `failed to parse add user request for user [${user}]. ${what}`, 400);
}

/** Checks a password's length (ChangePasswordRequestBuilder / PutUserRequest validation). */
export function passwordProblem(password: string): string | null {
  return password.length < MIN_PASSWORD_LENGTH ? `passwords must be at least [${MIN_PASSWORD_LENGTH}] characters long` : null;
}

export function parsePutUser(username: string, body: unknown): PutUserRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw parseFailure(username, 'expected an object');
  let roles: string[] | null = null;
  let fullName: string | null = null;
  let email: string | null = null;
  let metadata: Record<string, unknown> = {};
  let enabled = true;
  let password: string | null = null;
  let passwordHash: string | null = null;
  const str = (k: string, v: unknown): string | null => {
    if (v === null) return null;
    if (typeof v !== 'string') throw parseFailure(username, `expected field [${k}] to be of type string, but found another type`);
    return v;
  };
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    switch (k) {
      case 'roles':
        if (typeof v === 'string') roles = [v];
        else if (Array.isArray(v) && v.every((r) => typeof r === 'string')) roles = v as string[];
        else throw parseFailure(username, 'expected field [roles] to be an array of strings');
        break;
      case 'full_name':
        fullName = str(k, v);
        break;
      case 'email':
        email = str(k, v);
        break;
      case 'password':
        password = str(k, v);
        break;
      case 'password_hash':
        passwordHash = str(k, v);
        break;
      case 'enabled':
        if (typeof v !== 'boolean') throw parseFailure(username, 'expected field [enabled] to be of type boolean');
        enabled = v;
        break;
      case 'metadata':
        if (typeof v !== 'object' || v === null || Array.isArray(v)) throw parseFailure(username, 'expected field [metadata] to be an object');
        metadata = v as Record<string, unknown>;
        break;
      case 'username':
        if (v !== username) throw parseFailure(username, `the username in the body [${String(v)}] differs from the one in the path`);
        break;
      default:
        throw parseFailure(username, `unexpected field [${k}]`);
    }
  }
  const problems: string[] = [];
  const bad = nameProblem('user', username);
  if (bad) problems.push(bad);
  if (roles === null) problems.push('roles are missing');
  if (password !== null) {
    const p = passwordProblem(password);
    if (p) problems.push(p);
  }
  if (password !== null && passwordHash !== null) problems.push('only one of [password, password_hash] can be provided');
  if (Object.keys(metadata).some((key) => key.startsWith('_'))) problems.push('metadata keys may not start with [_]');
  if (problems.length > 0) throw actionRequestValidation(problems);
  return { roles: roles!, fullName, email, metadata, enabled, password, passwordHash };
}

/** A user as `GET /_xpack/security/user` and `_authenticate` show it. */
export function renderUser(u: Omit<UserRecord, 'passwordHash'>): Record<string, unknown> {
  return { username: u.username, roles: u.roles, full_name: u.fullName, email: u.email, metadata: u.metadata, enabled: u.enabled };
}
