/**
 * Password hashes: scrypt from Node's crypto (run on libuv's thread pool,
 * never on the thread that serves HTTP), stored as
 * `{scrypt}N$r$p$salt$hash` (base64). Elasticsearch 6.8 stores bcrypt; no
 * maintained bcrypt for Node installs without a native build, and scrypt is
 * at least as strong (docs/security.md). Comparison is constant-time.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const PREFIX = '{scrypt}';
/** 2^15 rounds, r 8, p 1: about 50 ms and 32 MiB per hash here, off the event loop. */
const DEFAULT_PARAMS = { N: 32768, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

/** Passwords shorter than this are refused, as Elasticsearch refuses them. */
export const MIN_PASSWORD_LENGTH = 6;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const opts: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) => scrypt(password, salt, KEY_LENGTH, opts, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, DEFAULT_PARAMS);
  const { N, r, p } = DEFAULT_PARAMS;
  return `${PREFIX}${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** Whether the password matches a stored hash; a malformed hash matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (!stored.startsWith(PREFIX)) return false;
  const parts = stored.slice(PREFIX.length).split('$');
  if (parts.length !== 5) return false;
  const [N, r, p] = parts.slice(0, 3).map(Number);
  // Bounds, so a hash from the log cannot make verification take unbounded memory or time.
  if (!Number.isInteger(N) || N < 2 || N > 1 << 20 || (N & (N - 1)) !== 0 || !(r >= 1 && r <= 32) || !(p >= 1 && p <= 16)) return false;
  const salt = Buffer.from(parts[3], 'base64');
  const expected = Buffer.from(parts[4], 'base64');
  if (expected.length !== KEY_LENGTH) return false;
  const actual = await derive(password, salt, { N, r, p });
  return timingSafeEqual(actual, expected);
}

/** Whether a value is a hash this module wrote (`password_hash` in the put user API). */
export function isPasswordHash(value: string): boolean {
  return value.startsWith(PREFIX) && value.split('$').length === 5;
}
