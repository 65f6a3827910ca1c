/**
 * Who sends a request: HTTP basic authentication against the native users
 * (and the reserved `elastic`) of the cluster state. A verified password is
 * remembered as a salted SHA-256 digest, as Elasticsearch's realm cache does,
 * so only the first request of a user pays the scrypt; a changed hash drops
 * it. Failed logins are logged (user name and address, never the password)
 * and counted per address: past the limit, the address is refused with 429
 * until its window ends, before any hash is computed.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { missingAuthenticationToken, tooManyFailedLogins, unableToAuthenticate, authenticationRequired } from '../../../shared/errors/es-errors.ts';
import type { Logger } from '../logger.ts';
import { verifyPassword } from '../realm/password-hash.ts';
import type { ApiKeyRecord, SecurityMetadata } from '../realm/security-metadata.ts';
import { RESERVED_USERS, type UserRecord } from '../realm/users.ts';

export interface AuthenticatedUser {
  readonly user: Omit<UserRecord, 'passwordHash'>;
  /** `reserved` for elastic, `native` for users of the API, `_es_api_key` for an API key (whose owner is `user`). */
  readonly realm: 'reserved' | 'native' | '_es_api_key';
  /** The API key the request came with. */
  readonly apiKey?: ApiKeyRecord;
}

/** `ApiKey base64(id:key)`, as Elasticsearch's ApiKeyService reads it. */
export function apiKeyCredentials(header: string | undefined): { id: string; key: string } | null | 'malformed' {
  if (header === undefined) return null;
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'apikey') return null;
  const decoded = Buffer.from(header.slice(space + 1).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return 'malformed';
  return { id: decoded.slice(0, colon), key: decoded.slice(colon + 1) };
}

/** An API key's secret is 128 random bits: a SHA-256 of it cannot be searched, so no slow hash is needed. */
export function apiKeyHash(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Failed logins one address may make per window before it is refused (ours; see docs/security.md). */
export const FAILED_LOGIN_LIMIT = 10;
export const FAILED_LOGIN_WINDOW_MS = 60_000;
/** Bounds the memory of the cache and the counters under a flood of names or addresses. */
const MAX_TRACKED = 10_000;

interface CachedCredential {
  readonly hash: string;
  readonly digest: Buffer;
}

interface FailureWindow {
  count: number;
  readonly since: number;
}

/** Basic credentials from an Authorization header; null when there is no basic header. */
export function basicCredentials(header: string | undefined): { username: string; password: string } | null | 'malformed' {
  if (header === undefined) return null;
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'basic') return null;
  const decoded = Buffer.from(header.slice(space + 1).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return 'malformed';
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export class Authenticator {
  private readonly secret = randomBytes(32);
  private readonly cache = new Map<string, CachedCredential>();
  private readonly failures = new Map<string, FailureWindow>();

  constructor(
    private readonly store: SecurityMetadata,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** The user a request's Authorization header names; throws the 401 (or 429) Elasticsearch-shaped error. */
  async authenticate(authorization: string | undefined, uri: string, address: string): Promise<AuthenticatedUser> {
    const key = apiKeyCredentials(authorization);
    if (key !== null) return this.authenticateApiKey(key, uri, address);
    const creds = basicCredentials(authorization);
    if (creds === null) throw missingAuthenticationToken(uri);
    if (creds === 'malformed') throw authenticationRequired('invalid basic authentication header value');
    this.refuseIfLimited(address);
    const user = this.store.user(creds.username);
    const ok = user !== undefined && user.enabled && user.passwordHash !== null && (await this.passwordMatches(user.username, user.passwordHash, creds.password));
    if (!ok) {
      this.recordFailure(address);
      this.logger.warn({ security: 'authentication_failed', user: creds.username, address, uri }, 'authentication failed');
      throw unableToAuthenticate(creds.username, uri);
    }
    const { passwordHash: _hash, ...shown } = user;
    return { user: shown, realm: RESERVED_USERS.has(user.username) ? 'reserved' : 'native' };
  }

  private authenticateApiKey(key: { id: string; key: string } | 'malformed', uri: string, address: string): AuthenticatedUser {
    if (key === 'malformed') throw authenticationRequired('invalid API key authentication header value');
    this.refuseIfLimited(address);
    const record = this.store.apiKey(key.id);
    const owner = record ? this.store.user(record.owner) : undefined;
    const now = this.now();
    const ok =
      record !== undefined &&
      !record.invalidated &&
      (record.expiration === null || record.expiration > now) &&
      owner !== undefined &&
      owner.enabled &&
      timingSafeEqual(Buffer.from(apiKeyHash(key.key), 'hex'), Buffer.from(record.keyHash, 'hex'));
    if (!ok) {
      this.recordFailure(address);
      this.logger.warn({ security: 'authentication_failed', api_key: key.id, address, uri }, 'authentication failed');
      throw authenticationRequired(`unable to authenticate with provided credentials for REST request [${uri}]`);
    }
    const { passwordHash: _hash, ...shown } = owner!;
    return { user: shown, realm: '_es_api_key', apiKey: record };
  }

  private digest(password: string): Buffer {
    return createHash('sha256').update(this.secret).update(password, 'utf8').digest();
  }

  private async passwordMatches(username: string, hash: string, password: string): Promise<boolean> {
    const cached = this.cache.get(username);
    const digest = this.digest(password);
    if (cached && cached.hash === hash) return timingSafeEqual(cached.digest, digest);
    if (!(await verifyPassword(password, hash))) return false;
    if (this.cache.size >= MAX_TRACKED) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(username, { hash, digest });
    return true;
  }

  private refuseIfLimited(address: string): void {
    const w = this.failures.get(address);
    if (!w) return;
    const elapsed = this.now() - w.since;
    if (elapsed >= FAILED_LOGIN_WINDOW_MS) {
      this.failures.delete(address);
      return;
    }
    if (w.count >= FAILED_LOGIN_LIMIT) throw tooManyFailedLogins(Math.ceil((FAILED_LOGIN_WINDOW_MS - elapsed) / 1000));
  }

  private recordFailure(address: string): void {
    const w = this.failures.get(address);
    if (w && this.now() - w.since < FAILED_LOGIN_WINDOW_MS) {
      w.count++;
      return;
    }
    if (this.failures.size >= MAX_TRACKED) this.failures.delete(this.failures.keys().next().value!);
    this.failures.set(address, { count: 1, since: this.now() });
  }
}
