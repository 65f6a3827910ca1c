/**
 * Stored scripts: `PUT|POST /_scripts/{id}`, `GET /_scripts/{id}`,
 * `DELETE /_scripts/{id}`. They are cluster metadata: a put or delete is a
 * MetaEvent on the meta log, applied by every node in order. A script is
 * compiled before it is stored, so one that does not compile is refused
 * with its position; requests that name it (`"script": {"id": ...}`) get
 * its source when the coordinator appends their ops.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { storedScriptNotDeletable } from '../../../../shared/errors/es-errors.ts';
import { parseStoredScriptBody } from '../../../../shared/script/script-spec.ts';
import { checkStoredScript } from '../../../../shared/script/update-script.ts';
import type { NodeContext } from '../node-context.ts';
import { jsonBody, params } from '../params.ts';
import { sendJson } from '../reply.ts';

export function scriptHandlers(node: NodeContext) {
  const put = async (req: FastifyRequest, reply: FastifyReply) => {
    const id = params(req).id;
    const { lang, source } = parseStoredScriptBody(id, jsonBody(req));
    // Every context (`/_scripts/{id}/{context}`) runs the same language: one compile checks them all.
    checkStoredScript(source);
    await node.meta.submit({ 'logsearch.PutStoredScript': { id, lang, source } });
    return sendJson(reply, 200, { acknowledged: true });
  };

  const get = async (req: FastifyRequest, reply: FastifyReply) => {
    const id = params(req).id;
    const s = node.cluster.storedScripts.get(id);
    if (s === undefined) return sendJson(reply, 404, { _id: id, found: false });
    return sendJson(reply, 200, { _id: id, found: true, script: { lang: s.lang, source: s.source } });
  };

  const remove = async (req: FastifyRequest, reply: FastifyReply) => {
    const id = params(req).id;
    if (!node.cluster.storedScripts.has(id)) throw storedScriptNotDeletable(id);
    await node.meta.submit({ 'logsearch.DeleteStoredScript': { id } });
    return sendJson(reply, 200, { acknowledged: true });
  };

  return { put, get, delete: remove };
}
