/**
 * Index expressions narrowed to what a user may use, as Elasticsearch's
 * IndicesAndAliasesResolver does under security: a name given explicitly
 * must be authorized (else 403, whether it exists or not); wildcards and
 * `_all` expand only to the indices and aliases the user holds the action
 * on; when nothing is left the expression matches nothing (`*,-*`), so a
 * search answers empty and `allow_no_indices=false` answers 404.
 */
import { actionUnauthorized } from '../../../shared/errors/es-errors.ts';
import type { ClusterState } from '../cluster/cluster-state.ts';
import { globToRegExp, isWildcard, splitExpression, type WildcardStates } from '../cluster/index-resolver.ts';
import type { PermissionCheck } from './permissions.ts';

/** An expression that resolves to no index (IndicesAndAliasesResolver's NO_INDICES_OR_ALIASES). */
export const NO_INDICES = '*,-*';

export function authorizedExpression(
  state: ClusterState,
  permissions: PermissionCheck,
  username: string,
  action: string,
  expr: string | undefined,
  expand: WildcardStates = { open: true, closed: false },
): string | undefined {
  // Every name allowed: the expression stays as the client wrote it.
  if (permissions.allIndicesAllow(action)) return expr;
  const out: string[] = [];
  const parts = splitExpression(expr);
  parts.forEach((part, i) => {
    if (part.startsWith('-') && i > 0) {
      // An exclusion with nothing before it would read as an index name.
      if (out.length > 0) out.push(part);
      return;
    }
    const pattern = part === '_all' ? '*' : part;
    if (!isWildcard(pattern)) {
      if (!permissions.indexAllows(action, pattern)) throw actionUnauthorized(action, username);
      out.push(pattern);
      return;
    }
    const re = globToRegExp(pattern);
    for (const meta of state.indices()) {
      if ((meta.closed ? expand.closed : expand.open) && re.test(meta.name) && permissions.indexAllows(action, meta.name)) out.push(meta.name);
    }
    for (const alias of state.aliasTable().keys()) {
      if (re.test(alias) && permissions.indexAllows(action, alias)) out.push(alias);
    }
  });
  return out.some((p) => !p.startsWith('-')) ? out.join(',') : NO_INDICES;
}
