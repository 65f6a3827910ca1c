/**
 * Index templates: `PUT|POST|GET|HEAD|DELETE /_template/{name}`
 * (cluster/index-templates.ts). Changes go through the meta log.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext } from '../node-context.ts';
import { parseTemplateRequest, renderTemplate, templateToJson, templatesMatching } from '../../cluster/index-templates.ts';
import { splitExpression } from '../../cluster/index-resolver.ts';
import { boolParam, intParam, jsonBody, params, query } from '../params.ts';
import { sendJson } from '../reply.ts';
import { setOwn } from '../../../../shared/json/own-keys.ts';
import { includeTypeName, warningHeader } from './indices.ts';

export function templateHandlers(node: NodeContext) {
  /** Names the request selects (all when it names none); `explicit` says whether it named any. */
  const selected = (req: FastifyRequest): { names: string[]; explicit: boolean } => {
    const p = params(req).name;
    const all = node.cluster.templates();
    if (p === undefined) return { names: [...all.keys()].sort(), explicit: false };
    const names = new Set<string>();
    for (const pattern of splitExpression(p)) for (const n of templatesMatching(all.keys(), pattern)) names.add(n);
    return { names: [...names], explicit: true };
  };

  const put = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const name = params(req).name;
    const body = jsonBody(req);
    const template = parseTemplateRequest(name, body, { order: intParam(q, 'order'), typeless: !includeTypeName(q) });
    if (body !== null && typeof body === 'object' && Object.hasOwn(body, 'template')) {
      reply.header('Warning', warningHeader('Deprecated field [template] used, replaced by [index_patterns]'));
    }
    await node.meta.submit({ 'logsearch.PutTemplate': { name, create: boolParam(q, 'create', false), template_json: templateToJson(template) } });
    return sendJson(reply, 200, { acknowledged: true });
  };

  const get = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const { names, explicit } = selected(req);
    const opts = { flatSettings: boolParam(q, 'flat_settings', false), includeTypeName: includeTypeName(q) };
    const out: Record<string, unknown> = {};
    const all = node.cluster.templates();
    for (const n of names) setOwn(out, n, renderTemplate(all.get(n)!, opts));
    // RestGetIndexTemplateAction: 404 when names were asked for and none exists.
    return sendJson(reply, names.length === 0 && explicit ? 404 : 200, out);
  };

  const exists = async (req: FastifyRequest, reply: FastifyReply) => reply.code(selected(req).names.length > 0 ? 200 : 404).send();

  const remove = async (req: FastifyRequest, reply: FastifyReply) => {
    await node.meta.submit({ 'logsearch.DeleteTemplate': { names: [params(req).name] } });
    return sendJson(reply, 200, { acknowledged: true });
  };

  return { put, get, exists, delete: remove };
}
