/**
 * What a user may do: the union of its roles' cluster privileges and index
 * groups (Elasticsearch's Role: a user's roles are merged). Unknown role
 * names grant nothing, as in Elasticsearch.
 */
import { simpleMatch } from '../../../shared/engine/mapping/simple-match.ts';
import { privilegesGrant } from './privileges.ts';
import type { IndexGroup, RoleDescriptor } from './roles.ts';

export class Permissions {
  private readonly cluster: readonly string[];
  private readonly groups: readonly IndexGroup[];
  private readonly actionCache = new Map<string, boolean>();

  constructor(roles: readonly RoleDescriptor[]) {
    this.cluster = roles.flatMap((r) => r.cluster);
    this.groups = roles.flatMap((r) => r.indices);
  }

  clusterAllows(action: string): boolean {
    let ok = this.actionCache.get(action);
    if (ok === undefined) {
      ok = privilegesGrant('cluster', this.cluster, action);
      this.actionCache.set(action, ok);
    }
    return ok;
  }

  /** Whether the action is granted on the index or alias name. */
  indexAllows(action: string, name: string): boolean {
    for (const g of this.groups) {
      if (g.names.some((p) => simpleMatch(p, name)) && privilegesGrant('index', g.privileges, action)) return true;
    }
    return false;
  }

  /** Whether some index group grants the action at all (requests that name no index: scroll, `_analyze`). */
  indexActionGranted(action: string): boolean {
    return this.groups.some((g) => privilegesGrant('index', g.privileges, action));
  }

  /** Whether the action is granted on every name (a group on `*`): nothing to filter. */
  allIndicesAllow(action: string): boolean {
    return this.groups.some((g) => g.names.includes('*') && privilegesGrant('index', g.privileges, action));
  }
}
