/**
 * Index settings: `GET /{index}/_settings[/{name}]` (`flat_settings`,
 * `include_defaults`, name patterns) and `PUT /{index}/_settings`
 * (`preserve_existing`, `ignore_unavailable`, `allow_no_indices`,
 * `expand_wildcards`). Every setting given at creation or later is returned,
 * as text, as Elasticsearch returns it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EsError } from '../../../../shared/errors/es-errors.ts';
import { allSettings, structuredSettings, type SettingValue } from '../../../../shared/engine/mapping/index-settings.ts';
import { INDEX_SETTING_DEFAULTS } from '../../../../shared/engine/mapping/index-setting-defaults.ts';
import { simpleMatch } from '../../../../shared/engine/mapping/simple-match.ts';
import { setOwn } from '../../../../shared/json/own-keys.ts';
import type { NodeContext } from '../node-context.ts';
import type { IndexMetadata } from '../../cluster/index-metadata.ts';
import { resolveIndices, splitExpression } from '../../cluster/index-resolver.ts';
import { boolParam, indicesOptions, objectBody, params, query } from '../params.ts';
import { sendJson } from '../reply.ts';

/** An index's settings as flat keys (what `_settings`, `GET /{index}` and `_cluster/state` print). */
export function indexSettingsFlat(meta: IndexMetadata): Record<string, SettingValue> {
  return allSettings(meta.settings, { uuid: meta.uuid, creationDate: meta.creationDate, providedName: meta.name });
}

/** Flat settings printed flat (keys in order) or nested, as `flat_settings` asks. */
export function renderFlatOrNested(flat: Record<string, SettingValue>, asFlat: boolean): Record<string, unknown> {
  if (!asFlat) return structuredSettings(flat);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(flat).sort()) setOwn(out, k, flat[k]);
  return out;
}

function filtered(flat: Record<string, SettingValue>, names: readonly string[] | null): Record<string, SettingValue> {
  if (names === null) return flat;
  const out: Record<string, SettingValue> = {};
  for (const k of Object.keys(flat)) if (names.some((n) => simpleMatch(n, k))) setOwn(out, k, flat[k]!);
  return out;
}

export function settingsHandlers(node: NodeContext) {
  const get = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    // GetSettingsRequest's options: wildcards reach closed indices too.
    const options = indicesOptions(q);
    const resolved = resolveIndices(node.cluster, p.index, { ...options, expandWildcards: options.expandWildcards ?? { open: true, closed: true } });
    const names = p.name === undefined || p.name === '_all' ? null : splitExpression(p.name);
    const flat = boolParam(q, 'flat_settings', false);
    const defaults = boolParam(q, 'include_defaults', false);
    const out: Record<string, unknown> = {};
    for (const meta of [...new Map(resolved.map((r) => [r.meta.name, r.meta])).values()]) {
      const own = indexSettingsFlat(meta);
      const entry: Record<string, unknown> = { settings: renderFlatOrNested(filtered(own, names), flat) };
      if (defaults) {
        const rest: Record<string, SettingValue> = {};
        for (const k of Object.keys(INDEX_SETTING_DEFAULTS)) if (!Object.hasOwn(own, k)) rest[k] = INDEX_SETTING_DEFAULTS[k]!;
        entry.defaults = renderFlatOrNested(filtered(rest, names), flat);
      }
      setOwn(out, meta.name, entry);
    }
    return sendJson(reply, 200, out);
  };

  const put = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const body = objectBody(req);
    if (!body) throw new EsError('action_request_validation_exception', 'Validation Failed: 1: no settings to update;', 400);
    await node.admin.updateSettings(params(req).index, body.settings ?? body, {
      ...indicesOptions(q),
      preserveExisting: boolParam(q, 'preserve_existing', false),
    });
    return sendJson(reply, 200, { acknowledged: true });
  };

  return { get, put };
}
