/**
 * What a user may do: the union of its roles' cluster privileges and index
 * groups (Elasticsearch's Role: a user's roles are merged). Unknown role
 * names grant nothing, as in Elasticsearch.
 */
import { simpleMatch } from '../../../shared/engine/mapping/simple-match.ts';
import { privilegesGrant } from '../realm/privileges.ts';
import type { IndexGroup, RoleDescriptor } from '../realm/roles.ts';

/** What the authorization code asks of a user's permissions. */
export interface PermissionCheck {
  clusterAllows(action: string): boolean;
  indexAllows(action: string, name: string): boolean;
  indexActionGranted(action: string): boolean;
  allIndicesAllow(action: string): boolean;
}

/**
 * An API key's permissions: what its own role descriptors grant and its
 * owner's roles (at creation) grant too, as Elasticsearch limits a key by
 * its creator.
 */
export class IntersectedPermissions implements PermissionCheck {
  constructor(
    private readonly a: PermissionCheck,
    private readonly b: PermissionCheck,
  ) {}

  clusterAllows(action: string): boolean {
    return this.a.clusterAllows(action) && this.b.clusterAllows(action);
  }

  indexAllows(action: string, name: string): boolean {
    return this.a.indexAllows(action, name) && this.b.indexAllows(action, name);
  }

  indexActionGranted(action: string): boolean {
    return this.a.indexActionGranted(action) && this.b.indexActionGranted(action);
  }

  allIndicesAllow(action: string): boolean {
    return this.a.allIndicesAllow(action) && this.b.allIndicesAllow(action);
  }
}

export class Permissions implements PermissionCheck {
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
