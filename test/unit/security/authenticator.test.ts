import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { Authenticator, FAILED_LOGIN_LIMIT, FAILED_LOGIN_WINDOW_MS, basicCredentials } from '../../../services/node/security/authenticator.ts';
import { hashPassword, verifyPassword } from '../../../services/node/realm/password-hash.ts';
import { SecurityMetadata } from '../../../services/node/realm/security-metadata.ts';
import { isEsError, type EsError } from '../../../shared/errors/es-errors.ts';

const header = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

async function storeWith(user: string, password: string): Promise<SecurityMetadata> {
  const store = new SecurityMetadata();
  const userJson = JSON.stringify({ roles: ['r'], full_name: null, email: null, metadata: {}, enabled: true });
  store.apply({ 'logsearch.PutUser': { username: user, user_json: userJson, password_hash: await hashPassword(password) } });
  return store;
}

const failsWith = (status: number, reason: RegExp) => (err: unknown) => isEsError(err) && (err as EsError).status === status && reason.test((err as EsError).message);

test('a stored hash verifies its password only, and is never the password itself', async () => {
  const hash = await hashPassword('s3cret-pw');
  assert.doesNotMatch(hash, /s3cret/);
  assert.equal(await verifyPassword('s3cret-pw', hash), true);
  assert.equal(await verifyPassword('s3cret-pX', hash), false);
  assert.equal(await verifyPassword('s3cret-pw', '{scrypt}1$1$1$AA==$AA=='), false);
  assert.notEqual(await hashPassword('s3cret-pw'), hash, 'salted: two hashes of one password differ');
});

test('basic credentials: the password may hold colons; other schemes are no credentials', () => {
  assert.deepEqual(basicCredentials(header('u', 'a:b:c')), { username: 'u', password: 'a:b:c' });
  assert.equal(basicCredentials('Bearer abc'), null);
  assert.equal(basicCredentials(undefined), null);
  assert.equal(basicCredentials('Basic ' + Buffer.from('nocolon').toString('base64')), 'malformed');
});

test('after the limit of failed logins an address is refused with 429 until its window ends, other addresses are not', async () => {
  let now = 1_000_000;
  const auth = new Authenticator(await storeWith('u', 'right-pw'), pino({ level: 'silent' }), () => now);
  for (let i = 0; i < FAILED_LOGIN_LIMIT; i++) {
    await assert.rejects(auth.authenticate(header('u', 'wrong'), '/', '10.0.0.1'), failsWith(401, /unable to authenticate user \[u\]/));
  }
  await assert.rejects(auth.authenticate(header('u', 'right-pw'), '/', '10.0.0.1'), failsWith(429, /too many failed authentication attempts/));
  assert.equal((await auth.authenticate(header('u', 'right-pw'), '/', '10.0.0.2')).user.username, 'u');
  now += FAILED_LOGIN_WINDOW_MS;
  assert.equal((await auth.authenticate(header('u', 'right-pw'), '/', '10.0.0.1')).user.username, 'u');
});

test('a remembered password stops working once the hash changes', async () => {
  const store = await storeWith('u', 'first-pw');
  const auth = new Authenticator(store, pino({ level: 'silent' }));
  await auth.authenticate(header('u', 'first-pw'), '/', 'a');
  store.apply({ 'logsearch.SetUserPassword': { username: 'u', password_hash: await hashPassword('second-pw'), only_if_unset: false } });
  await assert.rejects(auth.authenticate(header('u', 'first-pw'), '/', 'a'), failsWith(401, /unable to authenticate/));
  assert.equal((await auth.authenticate(header('u', 'second-pw'), '/', 'a')).user.username, 'u');
});

test('the bootstrap password of elastic applies only while it has none', async () => {
  const store = new SecurityMetadata();
  assert.equal(store.hasPassword('elastic'), false);
  store.apply({ 'logsearch.SetUserPassword': { username: 'elastic', password_hash: await hashPassword('first-one'), only_if_unset: true } });
  store.apply({ 'logsearch.SetUserPassword': { username: 'elastic', password_hash: await hashPassword('second-one'), only_if_unset: true } });
  const auth = new Authenticator(store, pino({ level: 'silent' }));
  assert.deepEqual((await auth.authenticate(header('elastic', 'first-one'), '/', 'a')).user.roles, ['superuser']);
  await assert.rejects(auth.authenticate(header('elastic', 'second-one'), '/', 'a'), failsWith(401, /unable to authenticate/));
});
