/**
 * `GET|POST /_field_caps`, `/{index}/_field_caps` (RestFieldCapabilitiesAction):
 * for each field the `fields` patterns name, its type in the indices asked
 * and whether it is searchable and aggregatable there, merged as
 * Elasticsearch merges them (`indices`, `non_searchable_indices`,
 * `non_aggregatable_indices` appear only when the indices disagree). Read
 * from the mappings in the cluster state; Kibana's index patterns are built
 * from it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { actionRequestValidation, parsingException } from '../../../../shared/errors/es-errors.ts';
import { setOwn } from '../../../../shared/json/own-keys.ts';
import { simpleMatch } from '../../../../shared/engine/mapping/simple-match.ts';
import type { FieldMapping } from '../../../../shared/engine/mapping/types.ts';
import type { NodeContext } from '../node-context.ts';
import { resolveIndices } from '../../cluster/index-resolver.ts';
import { boolParam, jsonBody, params, query } from '../params.ts';
import { sendJson } from '../reply.ts';

interface Capability {
  readonly type: string;
  readonly searchable: boolean;
  readonly aggregatable: boolean;
}

/** Metadata fields every index has, as FieldCapabilities reports them in 6.8. */
const META_FIELDS: readonly [string, Capability][] = [
  ['_id', { type: '_id', searchable: true, aggregatable: true }],
  ['_index', { type: '_index', searchable: true, aggregatable: true }],
  ['_type', { type: '_type', searchable: true, aggregatable: true }],
  ['_routing', { type: '_routing', searchable: true, aggregatable: false }],
  ['_source', { type: '_source', searchable: false, aggregatable: false }],
  ['_seq_no', { type: '_seq_no', searchable: true, aggregatable: true }],
  ['_version', { type: '_version', searchable: false, aggregatable: false }],
  ['_field_names', { type: '_field_names', searchable: true, aggregatable: false }],
  ['_ignored', { type: '_ignored', searchable: true, aggregatable: false }],
];

function capabilityOf(f: FieldMapping): Capability {
  const type = f.mappedType ?? f.type;
  const aggregatable = f.type === 'text' ? f.fielddata === true : f.docValues;
  return { type, searchable: f.index, aggregatable };
}

function fieldList(v: unknown): string[] | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v.split(',').filter(Boolean);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  throw parsingException('[fields] must be a string or an array of strings');
}

export function fieldCapsHandlers(node: NodeContext) {
  const fieldCaps = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    const body = jsonBody(req);
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) throw parsingException('request body must be an object');
    const fields = fieldList(q.fields) ?? fieldList((body as Record<string, unknown> | undefined)?.fields);
    if (fields === undefined || fields.length === 0) throw actionRequestValidation(['no fields specified']);
    const resolved = resolveIndices(node.cluster, p.index, {
      ignoreUnavailable: boolParam(q, 'ignore_unavailable', false),
      allowNoIndices: boolParam(q, 'allow_no_indices', true),
    });
    // field -> type -> indices with that capability
    const byField = new Map<string, Map<string, { index: string; cap: Capability }[]>>();
    const note = (field: string, index: string, cap: Capability) => {
      let types = byField.get(field);
      if (!types) byField.set(field, (types = new Map()));
      let list = types.get(cap.type);
      if (!list) types.set(cap.type, (list = []));
      list.push({ index, cap });
    };
    for (const r of resolved) {
      const meta = r.meta;
      const leaves = meta.mapping?.fields() ?? [];
      for (const pattern of fields) {
        for (const f of leaves) if (simpleMatch(pattern, f.path)) note(f.path, meta.name, capabilityOf(f));
        // a field alias reports its target's type and capabilities under its own name
        for (const [name, target] of meta.mapping?.aliases() ?? []) if (simpleMatch(pattern, name)) note(name, meta.name, capabilityOf(target));
        for (const [name, cap] of META_FIELDS) if (simpleMatch(pattern, name)) note(name, meta.name, cap);
      }
    }
    const out: Record<string, Record<string, unknown>> = {};
    for (const field of [...byField.keys()].sort()) {
      const types = byField.get(field)!;
      const entry: Record<string, unknown> = {};
      const multiType = types.size > 1;
      for (const [type, list] of types) {
        const searchable = list.every((x) => x.cap.searchable);
        const aggregatable = list.every((x) => x.cap.aggregatable);
        const caps: Record<string, unknown> = { type, searchable, aggregatable };
        const names = [...new Set(list.map((x) => x.index))].sort();
        if (multiType) caps.indices = names;
        if (!searchable && list.some((x) => x.cap.searchable)) caps.non_searchable_indices = list.filter((x) => !x.cap.searchable).map((x) => x.index).sort();
        if (!aggregatable && list.some((x) => x.cap.aggregatable)) caps.non_aggregatable_indices = list.filter((x) => !x.cap.aggregatable).map((x) => x.index).sort();
        setOwn(entry, type, caps);
      }
      setOwn(out, field, entry);
    }
    return sendJson(reply, 200, { fields: out });
  };
  return { fieldCaps };
}
