/**
 * `GET|PUT /_cluster/settings`: the dynamic cluster settings
 * (cluster/cluster-settings.ts), changed through the meta log.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NodeContext } from '../node-context.ts';
import { CLUSTER_SETTING_KEYS, parseUpdateBody, renderSettings } from '../../cluster/cluster-settings.ts';
import { boolParam, jsonBody, query } from '../params.ts';
import { sendJson } from '../reply.ts';

export function clusterSettingsHandlers(node: NodeContext) {
  const get = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const flat = boolParam(q, 'flat_settings', false);
    const { persistent, transient } = node.cluster.clusterSettings;
    const out: Record<string, unknown> = { persistent: renderSettings(persistent, flat), transient: renderSettings(transient, flat) };
    if (boolParam(q, 'include_defaults', false)) {
      const defaults = new Map<string, string>();
      // Settings the cluster has not set, with the value the node uses for them.
      for (const key of CLUSTER_SETTING_KEYS) if (!persistent.has(key) && !transient.has(key)) defaults.set(key, node.settings.text(key));
      out.defaults = renderSettings(defaults, flat);
    }
    return sendJson(reply, 200, out);
  };

  const put = async (req: FastifyRequest, reply: FastifyReply) => {
    const { persistent, transient } = parseUpdateBody(jsonBody(req));
    node.settings.validateCombined({ persistent, transient });
    await node.meta.submit({
      'logsearch.UpdateClusterSettings': {
        persistent_json: JSON.stringify(Object.fromEntries(persistent)),
        transient_json: JSON.stringify(Object.fromEntries(transient)),
      },
    });
    const flat = boolParam(query(req), 'flat_settings', false);
    // As Elasticsearch: the response lists the settings the request set (resets are not listed).
    const set = (m: ReadonlyMap<string, string | null>) => new Map([...m].filter(([, v]) => v !== null));
    return sendJson(reply, 200, { acknowledged: true, persistent: renderSettings(set(persistent), flat), transient: renderSettings(set(transient), flat) });
  };

  return { get, put };
}
