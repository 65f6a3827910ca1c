/**
 * `sort` in every form Elasticsearch 6.8 accepts (SortBuilder.fromXContent):
 * `"field"`, `{"field": "desc"}`, `{"field": {"order", "missing",
 * "unmapped_type", "mode"}}`, `"_score"`, `"_doc"`, or an array of these; and
 * the URL's `sort=f:desc,g`.
 */
import { EsError, illegalArgument } from '../../errors/es-errors.ts';
import type { SortMode, SortOrder, SortSpec } from '../../engine/search/types.ts';
import type { DslReader } from './dsl-reader.ts';
import type { JsonMap } from './json-source.ts';
import { parseGeoDistanceSort } from './geo-sort.ts';

export function parseSortOrder(s: string): SortOrder {
  const l = s.toLowerCase();
  if (l === 'asc' || l === 'desc') return l;
  throw illegalArgument(`Unknown SortOrder [${s}]`);
}

function parseSortMode(s: string): SortMode {
  const l = s.toLowerCase();
  if (l === 'min' || l === 'max' || l === 'sum' || l === 'avg' || l === 'median') return l;
  throw illegalArgument(`Unknown SortMode [${s}]`);
}

function fieldOrScoreSort(field: string, order: SortOrder | null): SortSpec {
  if (field === '_score') return { kind: 'score', order: order ?? 'desc' };
  if (field === '_doc') return { kind: 'doc', order: order ?? 'asc' };
  return { kind: 'field', field, order: order ?? 'asc', missing: '_last', unmappedType: null, mode: null };
}

function fieldSortFromObject(r: DslReader, body: JsonMap, field: string): SortSpec {
  let order: SortOrder | null = null;
  let missing: Extract<SortSpec, { kind: 'field' }>['missing'] = '_last';
  let unmappedType: string | null = null;
  let mode: SortMode | null = null;
  let nestedPath: string | null = null;
  for (const key of Object.keys(body)) {
    const v = body[key];
    switch (key) {
      case 'order':
        order = parseSortOrder(r.text(body, key));
        break;
      case 'missing':
        if (v === null || typeof v === 'object') throw r.errorAt(body, key, `[field_sort] missing doesn't support values of type: ${v === null ? 'VALUE_NULL' : 'START_OBJECT'}`);
        missing = typeof v === 'bigint' ? Number(v) : v;
        break;
      case 'unmapped_type':
        unmappedType = r.text(body, key);
        break;
      case 'mode':
      case 'sort_mode':
        mode = parseSortMode(r.text(body, key));
        break;
      case 'nested_path':
        nestedPath = r.text(body, key);
        break;
      case 'nested': {
        if (!r.isMap(v)) throw r.errorAt(body, key, '[nested] must be an object');
        for (const nk of Object.keys(v)) {
          if (nk === 'path') nestedPath = r.text(v, nk);
          else if (nk === 'filter' || nk === 'nested' || nk === 'max_children') throw illegalArgument(`[field_sort] [nested.${nk}] is not supported by this engine`);
          else throw r.errorAt(v, nk, `[nested] unknown field [${nk}], parser not found`);
        }
        if (nestedPath === null) throw illegalArgument('[nested] requires \'path\' field');
        break;
      }
      case 'nested_filter':
        throw illegalArgument(`[field_sort] [${key}] is not supported by this engine`);
      default: {
        const l = r.src.keyAt(body, key);
        throw new EsError('x_content_parse_exception', `[${l.line}:${l.col}] [field_sort] unknown field [${key}], parser not found`, 400);
      }
    }
  }
  if (field === '_score') {
    if (missing !== '_last' || unmappedType !== null || mode !== null) {
      throw illegalArgument('[_score] only supports [order]');
    }
    return { kind: 'score', order: order ?? 'desc' };
  }
  if (field === '_doc') return { kind: 'doc', order: order ?? 'asc' };
  return { kind: 'field', field, order: order ?? 'asc', missing, unmappedType, mode, ...(nestedPath === null ? {} : { nestedPath }) };
}

function parseCompound(r: DslReader, obj: JsonMap, out: SortSpec[]): void {
  for (const field of Object.keys(obj)) {
    const v = obj[field];
    if (typeof v === 'string') out.push(fieldOrScoreSort(field, parseSortOrder(v)));
    else if (r.isMap(v)) {
      if (field === '_geo_distance' || field === '_geoDistance') {
        out.push(parseGeoDistanceSort(r, v));
        continue;
      }
      if (field === '_script') throw illegalArgument(`[${field}] sort is not supported by this engine`);
      out.push(fieldSortFromObject(r, v, field));
    } else throw r.errorAt(obj, field, `[field_sort] unknown token [${r.isMap(v) ? 'START_OBJECT' : 'VALUE'}]`);
  }
}

export function parseSortSpecs(r: DslReader, body: JsonMap, key: string): SortSpec[] {
  const v = body[key];
  const out: SortSpec[] = [];
  if (Array.isArray(v)) {
    for (const item of v) {
      if (r.isMap(item)) parseCompound(r, item, out);
      else if (typeof item === 'string') out.push(fieldOrScoreSort(item, null));
      else throw illegalArgument('malformed sort format, within the sort array, an object, or an actual string are allowed');
    }
  } else if (typeof v === 'string') out.push(fieldOrScoreSort(v, null));
  else if (r.isMap(v)) parseCompound(r, v, out);
  else throw illegalArgument('malformed sort format, either start with array, object, or an actual string');
  return out;
}

/** `sort=f:desc,g` (a suffix other than asc/desc is ignored, as Elasticsearch does). */
export function sortFromUrl(param: string): SortSpec[] {
  const out: SortSpec[] = [];
  for (const part of param.split(',')) {
    if (part === '') continue;
    const colon = part.lastIndexOf(':');
    if (colon < 0) {
      out.push(fieldOrScoreSort(part, null));
      continue;
    }
    const field = part.slice(0, colon);
    const dir = part.slice(colon + 1);
    if (dir === 'asc' || dir === 'desc') out.push(fieldOrScoreSort(field, dir));
  }
  return out;
}
