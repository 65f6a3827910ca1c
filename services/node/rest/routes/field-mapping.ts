/**
 * `GET /{index}/_mapping[/{type}]/field/{fields}` (and the typed and
 * index-less paths): the mapping of single fields, found by full path or
 * wildcard, as Elasticsearch 6.8's GetFieldMappings answers it:
 * `{index: {mappings: {type: {full.name: {full_name, mapping: {leaf: {...}}}}}}}`
 * (without the type level with `include_type_name=false`).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EsError } from '../../../../shared/errors/es-errors.ts';
import { simpleMatch } from '../../../../shared/engine/mapping/simple-match.ts';
import { getOwn, setOwn } from '../../../../shared/json/own-keys.ts';
import type { NodeContext } from '../node-context.ts';
import type { IndexMetadata } from '../../cluster/index-metadata.ts';
import { resolveIndices, splitExpression } from '../../cluster/index-resolver.ts';
import { boolParam, indicesOptions, params, query } from '../params.ts';
import { sendJson } from '../reply.ts';
import { includeTypeName } from './indices.ts';

type Json = Record<string, unknown>;

/** The metadata fields every 6.8 index has; a `*` lists them too, with no mapping of their own to show. */
const METADATA_FIELDS = ['_field_names', '_id', '_ignored', '_index', '_parent', '_routing', '_seq_no', '_source', '_type', '_uid', '_version'];

/** What Elasticsearch's mappers print with `include_defaults` beyond what was set, by field type. */
const TYPE_DEFAULTS: Readonly<Record<string, Json>> = {
  text: {
    boost: 1.0,
    index: true,
    store: false,
    norms: true,
    index_options: 'positions',
    analyzer: 'default',
    search_analyzer: 'default',
    search_quote_analyzer: 'default',
    similarity: 'BM25',
    term_vector: 'no',
    fielddata: false,
    eager_global_ordinals: false,
    position_increment_gap: 100,
    index_phrases: false,
  },
  keyword: { boost: 1.0, index: true, store: false, doc_values: true, norms: false, index_options: 'docs', similarity: 'BM25', eager_global_ordinals: false, ignore_above: 2147483647, split_queries_on_whitespace: false },
  date: { boost: 1.0, index: true, store: false, doc_values: true, format: 'strict_date_optional_time||epoch_millis', locale: 'und', ignore_malformed: false },
  boolean: { boost: 1.0, index: true, store: false, doc_values: true },
  number: { boost: 1.0, index: true, store: false, doc_values: true, ignore_malformed: false, coerce: true },
};

const NUMBER_TYPES = new Set(['long', 'integer', 'short', 'byte', 'double', 'float', 'half_float', 'scaled_float']);

/** A field's own mapping inside the rendered type mapping: `properties` walked by path, multi-fields under `fields`. */
function leafMapping(typeMapping: Json, path: string): Json | undefined {
  let cur: Json | undefined = typeMapping;
  for (const seg of path.split('.')) {
    if (cur === undefined) return undefined;
    const props = getOwn(cur, 'properties') as Json | undefined;
    const fields = getOwn(cur, 'fields') as Json | undefined;
    cur = ((props && (getOwn(props, seg) as Json | undefined)) ?? (fields && (getOwn(fields, seg) as Json | undefined))) as Json | undefined;
  }
  return cur;
}

function withDefaults(mapping: Json): Json {
  const type = String(mapping.type ?? 'object');
  const defaults = TYPE_DEFAULTS[NUMBER_TYPES.has(type) ? 'number' : type] ?? {};
  const out: Json = { ...defaults };
  for (const k of Object.keys(mapping)) setOwn(out, k, getOwn(mapping, k));
  return out;
}

function fieldEntry(full: string, mapping: Json, includeDefaults: boolean): Json {
  const leaf = full.slice(full.lastIndexOf('.') + 1);
  return { full_name: full, mapping: { [leaf]: includeDefaults ? withDefaults(mapping) : mapping } };
}

/** The fields of one index's mapping that `patterns` select, by full name. */
function selectFields(meta: IndexMetadata, patterns: readonly string[], includeDefaults: boolean, singleField: boolean): Json | null {
  const mapping = meta.mapping;
  if (mapping === null || mapping.typeName === null) return null;
  const typeJson = mapping.toJSON();
  const paths = [...mapping.fields().map((f) => f.path), ...mapping.aliasNames()];
  const out: Json = {};
  const add = (full: string) => {
    if (METADATA_FIELDS.includes(full)) {
      setOwn(out, full, { full_name: full, mapping: { [full]: {} } });
      return;
    }
    const m = leafMapping(typeJson, full);
    if (m !== undefined) setOwn(out, full, fieldEntry(full, m, includeDefaults));
  };
  for (const pattern of patterns) {
    if (pattern === '*' || pattern === '_all') {
      for (const p of [...paths, ...METADATA_FIELDS]) add(p);
    } else if (pattern.includes('*')) {
      for (const p of [...paths, ...METADATA_FIELDS]) if (simpleMatch(pattern, p)) add(p);
    } else if (paths.includes(pattern) || METADATA_FIELDS.includes(pattern)) {
      add(pattern);
    } else if (singleField) {
      // One index, one type, one field that is missing: the response is `{}` (FieldMappingMetaData.NULL).
      return {};
    }
  }
  return out;
}

export function fieldMappingHandlers(node: NodeContext) {
  const get = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = query(req);
    const p = params(req);
    const resolved = resolveIndices(node.cluster, p.index, indicesOptions(q));
    const metas = [...new Map(resolved.map((r) => [r.meta.name, r.meta])).values()];
    const types = p.type === undefined || p.type === '_all' ? null : splitExpression(p.type);
    const fields = splitExpression(p.fields);
    const includeDefaults = boolParam(q, 'include_defaults', false);
    const typed = includeTypeName(q);
    const single = metas.length === 1 && (types === null || types.length === 1) && fields.length === 1;
    const out: Json = {};
    for (const meta of metas) {
      const typeName = meta.mapping?.typeName ?? null;
      if (types !== null && (typeName === null || !types.some((t) => simpleMatch(t, typeName)))) {
        throw new EsError('type_missing_exception', `type[[${types.join(', ')}]] missing`, 404, { index_uuid: meta.uuid, index: meta.name });
      }
      const selected = selectFields(meta, fields, includeDefaults, single);
      if (selected === null) {
        setOwn(out, meta.name, { mappings: {} });
        continue;
      }
      if (single && Object.keys(selected).length === 0) return sendJson(reply, 200, {});
      setOwn(out, meta.name, { mappings: typed ? { [typeName!]: selected } : selected });
    }
    return sendJson(reply, Object.keys(out).length === 0 && fields.length > 0 ? 404 : 200, out);
  };
  return { get };
}
