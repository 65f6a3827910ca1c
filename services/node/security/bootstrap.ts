/**
 * The `elastic` superuser's first password. As Elasticsearch's Docker image
 * does, `ELASTIC_PASSWORD` sets it when the cluster has none yet; the change
 * goes through the meta log with `only_if_unset`, so nodes starting together
 * with different values agree on the first one appended, and a password
 * changed later through the API is never overwritten by a restart.
 */
import { randomBytes } from 'node:crypto';
import type { MetaService } from '../cluster/meta-service.ts';
import type { Logger } from '../logger.ts';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../realm/password-hash.ts';
import { ELASTIC_USER } from '../realm/users.ts';

export async function bootstrapElasticPassword(meta: MetaService, password: string, logger: Logger): Promise<void> {
  if (meta.state.security.hasPassword(ELASTIC_USER)) return;
  if (password === '') {
    logger.warn(
      { security: 'bootstrap' },
      'security is on but the [elastic] user has no password: start a node with ELASTIC_PASSWORD set to give it one (docs/security.md)',
    );
    return;
  }
  if (password.length < MIN_PASSWORD_LENGTH) throw new Error(`ELASTIC_PASSWORD must be at least [${MIN_PASSWORD_LENGTH}] characters long`);
  await meta.submit({ 'logsearch.SetUserPassword': { username: ELASTIC_USER, password_hash: await hashPassword(password), only_if_unset: true } });
  logger.info({ security: 'bootstrap' }, 'the [elastic] user password was set from ELASTIC_PASSWORD');
}

/** The secret every node shares (scroll-binding.ts); nodes starting together agree on the first appended. */
export async function ensureSecuritySecret(meta: MetaService): Promise<void> {
  if (meta.state.security.secret !== '') return;
  await meta.submit({ 'logsearch.SetSecuritySecret': { secret: randomBytes(32).toString('base64') } });
}
