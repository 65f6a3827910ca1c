/**
 * Alias APIs: `POST /_aliases`, put/delete/get/exists of `/{index}/_alias/{name}`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { securityOf, type RequestSecurity } from '../../security/request-security.ts';
import type { NodeContext } from '../node-context.ts';
import type { IndexMetadata } from '../../cluster/index-metadata.ts';
import { globToRegExp, isWildcard, resolveIndices, splitExpression } from '../../cluster/index-resolver.ts';
import { jsonBody, objectBody, params } from '../params.ts';
import { sendJson } from '../reply.ts';
import { setOwn } from '../../../../shared/json/own-keys.ts';

/** An index's aliases as GET _alias prints them; `patterns` null = all. */
export function aliasesBody(meta: IndexMetadata, patterns: readonly { test(s: string): boolean }[] | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, a] of meta.aliases) {
    if (patterns && !patterns.some((re) => re.test(name))) continue;
    const body: Record<string, unknown> = {};
    if (a.filter !== null && a.filter !== undefined) body.filter = a.filter;
    if (a.indexRouting !== null) body.index_routing = a.indexRouting;
    if (a.searchRouting !== null) body.search_routing = a.searchRouting;
    if (a.isWriteIndex !== null) body.is_write_index = a.isWriteIndex;
    setOwn(out, name, body);
  }
  return out;
}

interface AliasLookup {
  readonly found: Record<string, { aliases: Record<string, unknown> }>;
  readonly missing: string[];
}

function lookup(node: NodeContext, indexExpr: string | undefined, nameExpr: string | undefined): AliasLookup {
  const resolved = resolveIndices(node.cluster, indexExpr ?? '_all', {});
  const names = nameExpr === undefined ? null : splitExpression(nameExpr);
  const patterns = names ? names.map((n) => globToRegExp(n === '_all' ? '*' : n)) : null;
  const found: Record<string, { aliases: Record<string, unknown> }> = {};
  const seen = new Set<string>();
  for (const { meta } of resolved) {
    const aliases = aliasesBody(meta, patterns);
    Object.keys(aliases).forEach((a) => seen.add(a));
    // Without an alias name every requested index is listed, with or without aliases.
    if (Object.keys(aliases).length > 0 || names === null) found[meta.name] = { aliases };
  }
  const missing = (names ?? []).filter((n) => !n.includes('*') && n !== '_all' && !seen.has(n));
  return { found, missing };
}

/**
 * With security on, every index and alias an `_aliases` action names needs
 * `indices:admin/aliases` (`remove_index`: `indices:admin/delete`), as
 * Elasticsearch authorizes both sides of an alias change. Malformed actions
 * are left to the parser's errors.
 */
function authorizeAliasActions(sec: RequestSecurity, body: unknown): void {
  const actions = (body as { actions?: unknown } | null)?.actions;
  if (!Array.isArray(actions)) return;
  const names = (one: unknown, many: unknown): string[] => [one, many].flat().filter((n): n is string => typeof n === 'string');
  for (const entry of actions) {
    if (typeof entry !== 'object' || entry === null) continue;
    for (const [kind, spec] of Object.entries(entry as Record<string, unknown>)) {
      const s = (typeof spec === 'object' && spec !== null ? spec : {}) as Record<string, unknown>;
      const action = kind === 'remove_index' ? 'indices:admin/delete' : 'indices:admin/aliases';
      sec.requireEvery(action, names(s.index, s.indices).join(',') || undefined);
      const aliases = names(s.alias, s.aliases).filter((a) => !isWildcard(a) && a !== '_all');
      if (aliases.length > 0) sec.requireEvery('indices:admin/aliases', aliases.join(','));
    }
  }
}

/** Alias handlers, by name (route-table.ts says which paths they serve). */
export function aliasHandlers(node: NodeContext) {
  const update = async (req: FastifyRequest, reply: FastifyReply) => {
    const body = jsonBody(req);
    const sec = securityOf(req);
    if (sec !== null) authorizeAliasActions(sec, body);
    await node.admin.updateAliases(body);
    return sendJson(reply, 200, { acknowledged: true });
  };

  const put = async (req: FastifyRequest, reply: FastifyReply) => {
    const p = params(req);
    const body = objectBody(req) ?? {};
    await node.admin.putAlias(p.index, p.name, body);
    return sendJson(reply, 200, { acknowledged: true });
  };

  const del = async (req: FastifyRequest, reply: FastifyReply) => {
    const p = params(req);
    await node.admin.deleteAlias(p.index, p.name);
    return sendJson(reply, 200, { acknowledged: true });
  };

  const exists = async (req: FastifyRequest, reply: FastifyReply) => {
    const p = params(req);
    try {
      const { found, missing } = lookup(node, p.index, p.name);
      const any = Object.values(found).some((f) => Object.keys(f.aliases).length > 0);
      return reply.code(any && missing.length === 0 ? 200 : 404).send();
    } catch {
      return reply.code(404).send();
    }
  };
  const get = async (req: FastifyRequest, reply: FastifyReply) => {
    const p = params(req);
    const { found, missing } = lookup(node, p.index, p.name);
    if (missing.length > 0) {
      const reason = missing.length === 1 ? `alias [${missing[0]}] missing` : `aliases [${missing.join(',')}] missing`;
      return sendJson(reply, 404, { error: reason, status: 404, ...found });
    }
    return sendJson(reply, 200, found);
  };

  return { update, put, delete: del, exists, get };
}
