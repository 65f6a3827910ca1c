/**
 * Alias APIs: `POST /_aliases`, put/delete/get/exists of `/{index}/_alias/{name}`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Node } from '../../node.ts';
import type { IndexMetadata } from '../../cluster/index-metadata.ts';
import { globToRegExp, resolveIndices, splitExpression } from '../../coordinator/index-resolver.ts';
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

function lookup(node: Node, indexExpr: string | undefined, nameExpr: string | undefined): AliasLookup {
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

/** Alias handlers, by name (route-table.ts says which paths they serve). */
export function aliasHandlers(node: Node) {
  const update = async (req: FastifyRequest, reply: FastifyReply) => {
    await node.admin.updateAliases(jsonBody(req));
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
