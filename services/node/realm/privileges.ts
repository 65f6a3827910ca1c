/**
 * Elasticsearch 6.8's named privileges as the action patterns they grant
 * (ClusterPrivilege, IndexPrivilege), and matching an action against them.
 * A role may also name action patterns directly (`indices:data/read/*`).
 */
import { simpleMatch } from '../../../shared/engine/mapping/simple-match.ts';

/** The security APIs, which `manage` does not reach (only `all` and `manage_security`). */
const SECURITY_ACTIONS = 'cluster:admin/xpack/security/*';

interface Grant {
  readonly allow: readonly string[];
  readonly except?: readonly string[];
}

export const CLUSTER_PRIVILEGES: ReadonlyMap<string, Grant> = new Map<string, Grant>([
  ['none', { allow: [] }],
  ['all', { allow: ['cluster:*', 'indices:admin/template/*'] }],
  ['monitor', { allow: ['cluster:monitor/*'] }],
  ['manage', { allow: ['cluster:*', 'indices:admin/template/*'], except: [SECURITY_ACTIONS] }],
  ['manage_security', { allow: [SECURITY_ACTIONS] }],
  ['manage_api_key', { allow: ['cluster:admin/xpack/security/api_key/*'] }],
  ['manage_index_templates', { allow: ['indices:admin/template/*'] }],
  ['transport_client', { allow: ['cluster:monitor/nodes/liveness', 'cluster:monitor/state'] }],
]);

export const INDEX_PRIVILEGES: ReadonlyMap<string, Grant> = new Map<string, Grant>([
  ['none', { allow: [] }],
  ['all', { allow: ['indices:*'] }],
  ['read', { allow: ['indices:data/read/*'] }],
  ['create', { allow: ['indices:data/write/index*', 'indices:data/write/bulk*', 'indices:admin/mapping/put'] }],
  ['index', { allow: ['indices:data/write/index*', 'indices:data/write/update*', 'indices:data/write/bulk*', 'indices:admin/mapping/put'] }],
  ['delete', { allow: ['indices:data/write/delete*', 'indices:data/write/bulk*'] }],
  ['write', { allow: ['indices:data/write/*', 'indices:admin/mapping/put'] }],
  ['monitor', { allow: ['indices:monitor/*'] }],
  ['manage', { allow: ['indices:monitor/*', 'indices:admin/*'] }],
  ['create_index', { allow: ['indices:admin/create'] }],
  ['delete_index', { allow: ['indices:admin/delete'] }],
  [
    'view_index_metadata',
    {
      allow: [
        'indices:admin/aliases/get',
        'indices:admin/get',
        'indices:admin/exists',
        'indices:admin/mappings/fields/get',
        'indices:admin/mappings/get',
        'indices:admin/validate/query',
        'indices:monitor/settings/get',
        'indices:data/read/field_caps',
      ],
    },
  ],
]);

/** Whether a privilege name is known or an action pattern of the right kind. */
export function isValidPrivilege(kind: 'cluster' | 'index', name: string): boolean {
  const named = kind === 'cluster' ? CLUSTER_PRIVILEGES : INDEX_PRIVILEGES;
  if (named.has(name)) return true;
  return kind === 'cluster' ? name.startsWith('cluster:') || name.startsWith('indices:admin/template/') : name.startsWith('indices:');
}

function grants(grant: Grant, action: string): boolean {
  if (!grant.allow.some((p) => simpleMatch(p, action))) return false;
  return !(grant.except ?? []).some((p) => simpleMatch(p, action));
}

/** Whether any of the privileges (names or patterns) grants the action. */
export function privilegesGrant(kind: 'cluster' | 'index', privileges: readonly string[], action: string): boolean {
  const named = kind === 'cluster' ? CLUSTER_PRIVILEGES : INDEX_PRIVILEGES;
  for (const p of privileges) {
    const grant = named.get(p);
    if (grant ? grants(grant, action) : simpleMatch(p, action)) return true;
  }
  return false;
}

/** The action patterns a privilege stands for: a named one's, or the pattern itself (`_has_privileges`). */
export function actionsOf(kind: 'cluster' | 'index', privilege: string): readonly string[] | null {
  const grant = (kind === 'cluster' ? CLUSTER_PRIVILEGES : INDEX_PRIVILEGES).get(privilege);
  if (grant) return grant.allow;
  return isValidPrivilege(kind, privilege) ? [privilege] : null;
}
