/**
 * Parses a type's mapping JSON into a node tree, validating it as
 * Elasticsearch 6.8's DocumentMapperParser and the field type parsers do:
 * the same accepted parameters, the same errors word for word ("No handler for
 * type [x] declared on field [f]", "Mapping definition for [f] has unsupported
 * parameters:  [a : b]", "analyzer [x] not found for field [f]", ...). The
 * legacy `string` type is upgraded to `text`/`keyword` as 5.x did.
 */
import { elasticsearchParseException, javaCause, mapperParsing, numberFormatException, type EsError } from '../../errors/es-errors.ts';
import { dateFormatter } from './date-format.ts';
import { nodeBooleanValue as bool, nodeFloatValue as float, nodeIntegerValue as int } from './node-values.ts';
import { javaHashOrder } from './java-hash-order.ts';
import { makeLeaf } from './leaf-field.ts';
import { mergeNodes } from './mapping-merge.ts';
import {
  defaultLeafOptions,
  emptyRootOptions,
  newObjectNode,
  type AliasNode,
  type Dynamic,
  type DynamicTemplateDef,
  type LeafNode,
  type LeafOptions,
  type LeafType,
  type MappingNode,
  type ObjectNode,
  type RootOptions,
} from './mapping-nodes.ts';
import { parseGeoPoints } from './geo-point.ts';
import { checkGeoShapeParams, parseGeoShapeParam } from './geo-shape-params.ts';
import { RANGE_TYPES } from './range-values.ts';
import { toByte, toDouble, toFloat, toHalfFloat, toInteger, toIp, toLong, toShort } from './value-coercion.ts';

export interface MappingParseOptions {
  /** Whether an analyzer of this name exists in the index (`default` always does). Absent: every name is accepted. */
  readonly analyzerExists?: (name: string) => boolean;
  /** Whether a normalizer of this name exists in the index. Absent: every name is accepted. */
  readonly normalizerExists?: (name: string) => boolean;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function iae(reason: string): EsError {
  return javaCause('illegal_argument_exception', reason);
}

/** Java's toString of a JSON value (`{a=b}`, `[x, y]`), as Elasticsearch prints leftover parameters. */
export function javaToString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(javaToString).join(', ')}]`;
  if (typeof v === 'object') {
    return `{${Object.entries(v as Json)
      .map(([k, x]) => `${k}=${javaToString(x)}`)
      .join(', ')}}`;
  }
  return String(v);
}

/** DocumentMapperParser.checkNoRemainingFields. */
function checkNoRemaining(rest: Map<string, unknown>, prefix: string): void {
  if (rest.size === 0) return;
  const keys = javaHashOrder([...rest.keys()]);
  throw mapperParsing(`${prefix}${keys.map((k) => ` [${k} : ${javaToString(rest.get(k))}]`).join('')}`);
}

const INDEX_OPTIONS: ReadonlySet<string> = new Set(['docs', 'freqs', 'positions', 'offsets']);
const TERM_VECTORS: ReadonlySet<string> = new Set([
  'no',
  'yes',
  'with_offsets',
  'with_positions',
  'with_positions_offsets',
  'with_positions_payloads',
  'with_positions_offsets_payloads',
]);
const SIMILARITIES: ReadonlySet<string> = new Set(['BM25', 'classic', 'boolean']);

const NUMERIC: ReadonlySet<string> = new Set(['long', 'integer', 'short', 'byte', 'double', 'float', 'half_float', 'scaled_float']);
const LEAF_TYPES: ReadonlySet<string> = new Set([...NUMERIC, 'text', 'keyword', 'boolean', 'date', 'ip', 'binary', 'geo_point', ...RANGE_TYPES, 'completion', 'token_count', 'geo_shape']);

interface Ctx {
  readonly opts: MappingParseOptions;
  readonly withinMultiField: boolean;
}

function analyzerExists(ctx: Ctx, name: string): boolean {
  return name === 'default' || ctx.opts.analyzerExists === undefined || ctx.opts.analyzerExists(name);
}

function parseNullValue(type: LeafType, value: unknown, name: string): string | number | boolean {
  if (value === null) throw mapperParsing('Property [null_value] cannot be null.');
  switch (type) {
    case 'keyword':
    case 'text':
      return typeof value === 'object' ? javaToString(value) : String(value);
    case 'boolean':
      return bool(value, `${name}.null_value`);
    case 'date':
      return String(value);
    case 'ip':
      return toIp(String(value));
    default:
      return numericNullValue(type, value);
  }
}

function numericNullValue(type: LeafType, value: unknown): number {
  const v = typeof value === 'number' || typeof value === 'string' ? value : String(value);
  let r: number | null;
  switch (type) {
    case 'long':
      r = toLong(v, false);
      break;
    case 'integer':
      r = toInteger(v, true);
      break;
    case 'short':
      r = toShort(v, true);
      break;
    case 'byte':
      r = toByte(v, true);
      break;
    case 'float':
      r = toFloat(v, true);
      break;
    case 'half_float':
      r = toHalfFloat(v, true);
      break;
    default:
      r = toDouble(v, true);
  }
  if (r === null) throw numberFormatException('empty String');
  return r;
}

/** The parameters every field type accepts (TypeParsers.parseField); true when `key` was one of them. */
function parseCommon(key: string, value: unknown, o: LeafOptions, name: string, ctx: Ctx, fields: LeafNode[], path: string): boolean {
  switch (key) {
    case 'store':
      o.store = bool(value, `${name}.store`);
      return true;
    case 'index':
      o.index = bool(value, `${name}.index`);
      return true;
    case 'doc_values':
      o.docValues = bool(value, `${name}.doc_values`);
      return true;
    case 'boost':
      o.boost = float(value);
      return true;
    case 'index_options': {
      const s = String(value);
      if (!INDEX_OPTIONS.has(s)) throw iae(`failed to parse index option [${s}]`);
      o.indexOptions = s;
      return true;
    }
    case 'include_in_all':
      if (ctx.withinMultiField) {
        throw mapperParsing(`include_in_all in multi fields is not allowed. Found the include_in_all in field [${name}] which is within a multi field.`);
      }
      throw mapperParsing(
        '[include_in_all] is not allowed for indices created on or after version 6.0.0 as [_all] is deprecated. As a replacement, you can use an [copy_to] on mapping fields to create your own catch all field.',
      );
    case 'similarity': {
      const s = String(value);
      if (!SIMILARITIES.has(s)) throw iae(`Unknown Similarity type [${s}] for field [${name}]`);
      o.similarity = s;
      return true;
    }
    case 'fields':
      fields.push(...parseMultiFields(name, path, value, ctx));
      return true;
    case 'copy_to':
      if (ctx.withinMultiField) {
        throw mapperParsing(`copy_to in multi fields is not allowed. Found the copy_to in field [${name}] which is within a multi field.`);
      }
      o.copyTo = Array.isArray(value) ? value.map((v) => String(v)) : [String(value)];
      return true;
    default:
      return false;
  }
}

function parseTextParams(key: string, value: unknown, o: LeafOptions, name: string, ctx: Ctx): boolean {
  switch (key) {
    case 'analyzer':
    case 'search_analyzer':
    case 'search_quote_analyzer': {
      const s = String(value);
      if (!analyzerExists(ctx, s)) throw mapperParsing(`analyzer [${s}] not found for field [${name}]`);
      if (key === 'analyzer') o.analyzer = s;
      else if (key === 'search_analyzer') o.searchAnalyzer = s;
      else o.searchQuoteAnalyzer = s;
      return true;
    }
    case 'term_vector': {
      const s = String(value);
      if (!TERM_VECTORS.has(s)) throw mapperParsing(`wrong value for termVector [${s}] for field [${name}]`);
      o.termVector = s;
      return true;
    }
    case 'norms':
      o.norms = bool(value, `${name}.norms`);
      return true;
    case 'position_increment_gap': {
      const gap = int(value);
      if (gap < 0) throw mapperParsing('[position_increment_gap] must be positive, got ' + gap);
      o.positionIncrementGap = gap;
      return true;
    }
    case 'fielddata':
      o.fielddata = bool(value, `${name}.fielddata`);
      return true;
    case 'fielddata_frequency_filter':
      if (!isObject(value)) throw mapperParsing(`[fielddata_frequency_filter] must be an object for field [${name}]`);
      o.fielddataFrequencyFilter = value;
      return true;
    case 'eager_global_ordinals':
      o.eagerGlobalOrdinals = bool(value, `${name}.eager_global_ordinals`);
      return true;
    case 'index_prefixes':
      if (!isObject(value)) throw mapperParsing(`[index_prefixes] must be an object for field [${name}]`);
      o.indexPrefixes = value;
      return true;
    case 'index_phrases':
      o.indexPhrases = bool(value, `${name}.index_phrases`);
      return true;
    default:
      return false;
  }
}

/** CompletionFieldMapper.TypeParser. */
function parseCompletionParams(key: string, value: unknown, o: LeafOptions, name: string, ctx: Ctx): boolean {
  switch (key) {
    case 'analyzer':
    case 'search_analyzer': {
      const s = String(value);
      if (!analyzerExists(ctx, s)) throw mapperParsing(`analyzer [${s}] not found for field [${name}]`);
      if (key === 'analyzer') o.analyzer = s;
      else o.searchAnalyzer = s;
      return true;
    }
    case 'preserve_separators':
      o.preserveSeparators = bool(value, `${name}.preserve_separators`);
      return true;
    case 'preserve_position_increments':
      o.preservePositionIncrements = bool(value, `${name}.preserve_position_increments`);
      return true;
    case 'max_input_length':
    case 'max_input_len': {
      const n = int(value);
      if (n <= 0) throw iae(`[max_input_length] must be > 0 but was [${n}]`);
      o.maxInputLength = n;
      return true;
    }
    case 'contexts':
      // Refused rather than ignored: context mappings change which documents a suggestion may return.
      throw mapperParsing(`[contexts] of completion field [${name}] are not supported by this engine (context suggesters)`);
    default:
      return false;
  }
}

function parseKeywordParams(key: string, value: unknown, o: LeafOptions, name: string, ctx: Ctx): boolean {
  switch (key) {
    case 'null_value':
      o.nullValue = parseNullValue('keyword', value, name);
      return true;
    case 'ignore_above': {
      const n = int(value);
      if (n < 0) throw iae(`[ignore_above] must be positive, got ${n}`);
      o.ignoreAbove = n;
      return true;
    }
    case 'norms':
      o.norms = bool(value, `${name}.norms`);
      return true;
    case 'eager_global_ordinals':
      o.eagerGlobalOrdinals = bool(value, `${name}.eager_global_ordinals`);
      return true;
    case 'normalizer': {
      const s = String(value);
      if (ctx.opts.normalizerExists !== undefined && !ctx.opts.normalizerExists(s)) {
        throw mapperParsing(`normalizer [${s}] not found for field [${name}]`);
      }
      o.normalizer = s;
      return true;
    }
    case 'split_queries_on_whitespace':
      o.splitQueriesOnWhitespace = bool(value, `${name}.split_queries_on_whitespace`);
      return true;
    default:
      return false;
  }
}

function parseValueTypeParams(type: LeafType, key: string, value: unknown, o: LeafOptions, name: string): boolean {
  switch (key) {
    case 'null_value':
      o.nullValue = parseNullValue(type, value, name);
      return true;
    case 'ignore_malformed':
      if (type === 'boolean') return false;
      o.ignoreMalformed = bool(value, `${name}.ignore_malformed`);
      return true;
    case 'coerce':
      if (!NUMERIC.has(type)) return false;
      o.coerce = bool(value, `${name}.coerce`);
      return true;
    case 'scaling_factor': {
      if (type !== 'scaled_float') return false;
      const f = typeof value === 'number' ? value : Number(String(value));
      if (!Number.isFinite(f) || f <= 0) throw iae(`[scaling_factor] must be a positive number, got [${String(value)}]`);
      o.scalingFactor = f;
      return true;
    }
    case 'format':
      if (type !== 'date') return false;
      dateFormatter(String(value)); // validates the pattern
      o.format = String(value);
      return true;
    case 'locale':
      if (type !== 'date') return false;
      o.locale = String(value);
      return true;
    default:
      return false;
  }
}

/** GeoPointFieldMapper.TypeParser's own parameters. */
function parseGeoPointParams(key: string, value: unknown, o: LeafOptions, name: string): boolean {
  switch (key) {
    case 'ignore_malformed':
      o.ignoreMalformed = bool(value, `${name}.ignore_malformed`);
      return true;
    case 'ignore_z_value':
      o.ignoreZValue = bool(value, `${name}.ignore_z_value`);
      return true;
    case 'null_value': {
      if (value === null) throw mapperParsing('Property [null_value] cannot be null.');
      // Checked now as Elasticsearch parses it; kept as `lat,lon` text (the form the document parser reads).
      const [lat, lon] = parseGeoPoints(value, true);
      o.nullValue = typeof value === 'string' ? value : `${lat},${lon}`;
      return true;
    }
    default:
      return false;
  }
}

/** RangeFieldMapper.TypeParser's own parameters. */
function parseRangeParams(type: LeafType, key: string, value: unknown, o: LeafOptions, name: string): boolean {
  switch (key) {
    case 'null_value':
      throw mapperParsing(`Property [null_value] is not supported for [${type}] field types.`);
    case 'coerce':
      o.coerce = bool(value, `${name}.coerce`);
      return true;
    case 'format':
    case 'locale':
      if (type !== 'date_range') return false;
      if (key === 'format') {
        dateFormatter(String(value));
        o.format = String(value);
      } else o.locale = String(value);
      return true;
    default:
      return false;
  }
}

/** TokenCountFieldMapper.TypeParser's own parameters (the rest are FieldMapper's: parseCommon). */
function parseTokenCountParams(key: string, value: unknown, o: LeafOptions, name: string, ctx: Ctx): boolean {
  switch (key) {
    case 'null_value':
      if (value === null) throw mapperParsing('Property [null_value] cannot be null.');
      o.nullValue = int(value);
      return true;
    case 'analyzer': {
      const s = String(value);
      if (!analyzerExists(ctx, s)) throw mapperParsing(`Analyzer [${s}] not found for field [${name}]`);
      o.analyzer = s;
      return true;
    }
    case 'enable_position_increments':
      o.enablePositionIncrements = bool(value, `${name}.enable_position_increments`);
      return true;
    default:
      return false;
  }
}

/** 5.x's automatic upgrade of `string` fields. */
const STRING_TO_KEYWORD: ReadonlySet<string> = new Set([
  'type',
  'index',
  'store',
  'doc_values',
  'omit_norms',
  'norms',
  'boost',
  'fields',
  'copy_to',
  'fielddata',
  'include_in_all',
  'ignore_above',
  'null_value',
  'index_options',
  'similarity',
]);
const STRING_TO_TEXT: ReadonlySet<string> = new Set([
  'type',
  'index',
  'store',
  'doc_values',
  'omit_norms',
  'norms',
  'boost',
  'fields',
  'copy_to',
  'fielddata',
  'include_in_all',
  'analyzer',
  'search_analyzer',
  'search_quote_analyzer',
  'position_increment_gap',
  'term_vector',
  'index_options',
  'similarity',
]);

function upgradeString(name: string, node: Json): { type: LeafType; node: Json } {
  const index = node.index;
  const keyword = index !== undefined && index !== 'analyzed' && index !== true && index !== 'true';
  const allowed = keyword ? STRING_TO_KEYWORD : STRING_TO_TEXT;
  const unsupported = Object.keys(node).filter((k) => !allowed.has(k));
  if (unsupported.length > 0) {
    throw iae(
      `The [string] type is removed in 5.0 and automatic upgrade failed because parameters [${javaHashOrder(unsupported).join(', ')}] are not supported for automatic upgrades. You should now use either a [text] or [keyword] field instead for field [${name}]`,
    );
  }
  const out: Json = { ...node };
  delete out.include_in_all;
  if (index !== undefined) out.index = !(index === 'no' || index === false || index === 'false');
  let norms = out.norms;
  delete out.norms;
  if (isObject(norms)) norms = norms.enabled;
  if (norms !== undefined) out.norms = bool(norms, 'norms');
  const omitNorms = out.omit_norms;
  delete out.omit_norms;
  if (omitNorms !== undefined) out.norms = !bool(omitNorms, 'omit_norms');
  const fielddata = out.fielddata;
  if (isObject(fielddata)) {
    if (keyword) delete out.fielddata;
    else out.fielddata = fielddata.format !== 'disabled';
    if (fielddata.loading !== undefined) out.eager_global_ordinals = fielddata.loading === 'eager_global_ordinals';
  }
  if (!keyword) delete out.doc_values;
  return { type: keyword ? 'keyword' : 'text', node: out };
}

function parseLeaf(name: string, path: string, type: LeafType, node: Json, ctx: Ctx, parent: string | null): LeafNode {
  if (name.length === 0) throw iae('name cannot be empty string');
  const o = defaultLeafOptions(type);
  const fields: LeafNode[] = [];
  const rest = new Map<string, unknown>();
  for (const key of Object.keys(node)) {
    if (key === 'type') continue;
    const value = node[key];
    if (value === null && key !== 'null_value') throw mapperParsing(`[${key}] must not have a [null] value`);
    let handled: boolean;
    if (type === 'text') handled = parseTextParams(key, value, o, name, ctx);
    else if (type === 'keyword') handled = parseKeywordParams(key, value, o, name, ctx);
    else if (type === 'geo_point') handled = parseGeoPointParams(key, value, o, name);
    else if (type === 'binary') handled = false;
    else if (type === 'geo_shape') {
      // GeoShapeFieldMapper.TypeParser reads only its own parameters
      if (!parseGeoShapeParam(key, value, o, name)) rest.set(key, value);
      continue;
    }
    else if (type === 'completion') {
      handled = parseCompletionParams(key, value, o, name, ctx);
      // CompletionFieldMapper.TypeParser reads its own options and multi-fields, none of FieldMapper's.
      if (!handled && key === 'fields') handled = parseCommon(key, value, o, name, ctx, fields, path);
      if (!handled) rest.set(key, value);
      continue;
    }
    else if (RANGE_TYPES.has(type)) handled = parseRangeParams(type, key, value, o, name);
    else if (type === 'token_count') handled = parseTokenCountParams(key, value, o, name, ctx);
    else handled = parseValueTypeParams(type, key, value, o, name);
    if (!handled) handled = parseCommon(key, value, o, name, ctx, fields, path);
    if (!handled) rest.set(key, value);
  }
  // TokenCountFieldMapper.TypeParser checks this before the leftover parameters are reported
  if (type === 'token_count' && o.analyzer === null) throw mapperParsing(`Analyzer must be set for field [${name}] but wasn't.`);
  checkNoRemaining(rest, `Mapping definition for [${name}] has unsupported parameters: `);
  if (type === 'geo_shape') checkGeoShapeParams(o);
  if (type === 'text') {
    if (o.docValues) throw iae('[text] fields do not support doc values');
    if (o.analyzer === null && o.searchAnalyzer !== null) throw mapperParsing(`analyzer on field [${name}] must be set when search_analyzer is set`);
    if (o.searchAnalyzer === null && o.searchQuoteAnalyzer !== null) {
      throw mapperParsing(`analyzer and search_analyzer on field [${name}] must be set when search_quote_analyzer is set`);
    }
  }
  if (type === 'scaled_float' && o.scalingFactor === null) throw iae(`Field [${name}] misses required parameter [scaling_factor]`);
  return makeLeaf(name, path, type, o, fields, parent);
}

/** TypeParsers.parseMultiField. */
function parseMultiFields(name: string, path: string, value: unknown, ctx: Ctx): LeafNode[] {
  if (Array.isArray(value) && value.length === 0) return [];
  if (!isObject(value)) {
    throw mapperParsing(`expected map for property [fields] on field [${javaToString(value)}] or [fields] but got a ${javaClassName(value)}`);
  }
  const out: LeafNode[] = [];
  for (const sub of Object.keys(value)) {
    const def = value[sub];
    if (sub.includes('.')) throw mapperParsing(`Field name [${sub}] which is a multi field of [${name}] cannot contain '.'`);
    if (!isObject(def)) throw mapperParsing(`illegal field [${sub}], only fields can be specified inside fields`);
    if (def.type === undefined || def.type === null) throw mapperParsing(`no type specified for property [${sub}]`);
    const typeName = String(def.type);
    if (typeName === 'object' || typeName === 'nested') throw mapperParsing(`Type [${typeName}] cannot be used in multi field`);
    let type: LeafType;
    let node: Json = def;
    if (typeName === 'string') ({ type, node } = upgradeString(sub, def));
    else if (LEAF_TYPES.has(typeName)) type = typeName as LeafType;
    else throw mapperParsing(`no handler for type [${typeName}] declared on field [${sub}]`);
    out.push(parseLeaf(sub, `${path}.${sub}`, type, node, { opts: ctx.opts, withinMultiField: true }, path));
  }
  return out;
}

function javaClassName(v: unknown): string {
  if (typeof v === 'string') return 'class java.lang.String';
  if (typeof v === 'boolean') return 'class java.lang.Boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'class java.lang.Integer' : 'class java.lang.Double';
  if (Array.isArray(v)) return 'class java.util.ArrayList';
  return 'class java.util.LinkedHashMap';
}

function parseDynamic(value: unknown, key: string): Dynamic {
  if (String(value).toLowerCase() === 'strict') return 'strict';
  return bool(value, `${key}.dynamic`) ? 'true' : 'false';
}

/** Parses one property definition (a field or an object) named `name` at `path`. */
export function parseProperty(name: string, path: string, def: Json, opts: MappingParseOptions): MappingNode {
  const ctx: Ctx = { opts, withinMultiField: false };
  let typeName: string;
  if (def.type !== undefined && def.type !== null) typeName = String(def.type);
  else if (def.properties !== undefined) typeName = 'object';
  else if (Object.keys(def).length === 1 && def.enabled !== undefined) typeName = 'object';
  else throw mapperParsing(`No type specified for field [${name}]`);
  if (typeName === 'object' || typeName === 'nested') return parseObject(name, path, def, opts);
  if (typeName === 'alias') return parseAlias(name, path, def);
  if (typeName === 'string') {
    const up = upgradeString(name, def);
    return parseLeaf(name, path, up.type, up.node, ctx, null);
  }
  if (!LEAF_TYPES.has(typeName)) throw mapperParsing(`No handler for type [${typeName}] declared on field [${name}]`);
  return parseLeaf(name, path, typeName as LeafType, def, ctx, null);
}

/** FieldAliasMapper.TypeParser: `path` and nothing else; the target is checked once the whole mapping is known (mapping.ts). */
function parseAlias(name: string, path: string, def: Json): AliasNode {
  if (name.length === 0) throw iae('name cannot be empty string');
  const target = def.path;
  if (target === undefined || target === null) throw mapperParsing(`The [path] property must be specified for field [${name}].`);
  const rest = new Map<string, unknown>();
  for (const key of Object.keys(def)) if (key !== 'type' && key !== 'path') rest.set(key, def[key]);
  checkNoRemaining(rest, `Mapping definition for [${name}] has unsupported parameters: `);
  return { kind: 'alias', name, path, target: typeof target === 'string' ? target : javaToString(target) };
}

/** ObjectMapper.TypeParser.parseProperties: dotted names become intermediate objects. */
function parseProperties(obj: ObjectNode, props: unknown, opts: MappingParseOptions): void {
  if (Array.isArray(props) && props.length === 0) return;
  if (!isObject(props)) throw elasticsearchParseException('properties must be a map type');
  const prefix = obj.path === '' ? '' : obj.path + '.';
  for (const fieldName of Object.keys(props)) {
    const def = props[fieldName];
    if (Array.isArray(def) && def.length === 0) continue;
    if (!isObject(def)) {
      throw mapperParsing(`Expected map for property [fields] on field [${fieldName}] but got a ${javaClassName(fieldName)}`);
    }
    // Java's split drops trailing empty strings
    const parts = fieldName.split('.');
    while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
    const last = parts[parts.length - 1];
    let node: MappingNode = parseProperty(last, prefix + parts.join('.'), def, opts);
    for (let i = parts.length - 2; i >= 0; i--) {
      if (parts[i].length === 0) throw iae('name cannot be empty string');
      const wrapper = newObjectNode(parts[i], prefix + parts.slice(0, i + 1).join('.'));
      wrapper.children.set(node.name, node);
      node = wrapper;
    }
    const existing = obj.children.get(node.name);
    obj.children.set(node.name, existing === undefined ? node : mergeNodes(existing, node));
  }
}

/** ObjectMapper.TypeParser.parse for `object` and `nested` fields. */
function parseObject(name: string, path: string, def: Json, opts: MappingParseOptions): ObjectNode {
  if (name.length === 0) throw iae('name cannot be empty string');
  const obj = newObjectNode(name, path);
  const rest = new Map<string, unknown>();
  for (const key of Object.keys(def)) {
    const value = def[key];
    switch (key) {
      case 'type': {
        const t = String(value);
        if (t === 'nested') obj.nested = true;
        else if (t !== 'object') throw mapperParsing(`Trying to parse an object but has a different type [${t}] for [${name}]`);
        break;
      }
      case 'include_in_parent':
        obj.includeInParent = bool(value, `${name}.include_in_parent`);
        break;
      case 'include_in_root':
        obj.includeInRoot = bool(value, `${name}.include_in_root`);
        break;
      case 'dynamic':
        obj.dynamic = parseDynamic(value, key);
        break;
      case 'enabled':
        obj.enabled = bool(value, `${key}.enabled`);
        obj.enabledGiven = true;
        break;
      case 'properties':
        parseProperties(obj, value, opts);
        break;
      case 'include_in_all':
        throw mapperParsing(
          '[include_in_all] is not allowed for indices created on or after version 6.0.0 as [_all] is deprecated. As a replacement, you can use an [copy_to] on mapping fields to create your own catch all field.',
        );
      default:
        rest.set(key, value);
    }
  }
  if (!obj.nested && (obj.includeInParent !== null || obj.includeInRoot !== null)) {
    // Elasticsearch ignores include_in_* on plain objects; keep them out of the printed mapping
    obj.includeInParent = null;
    obj.includeInRoot = null;
  }
  checkNoRemaining(rest, `Mapping definition for [${name}] has unsupported parameters: `);
  return obj;
}

const XCONTENT_FIELD_TYPES: ReadonlySet<string> = new Set(['object', 'string', 'long', 'double', 'boolean', 'date', 'binary']);

function parseDynamicTemplates(value: unknown): DynamicTemplateDef[] {
  if (!Array.isArray(value)) throw mapperParsing('Dynamic template syntax error. An array of named objects is expected.');
  return value.map((entry): DynamicTemplateDef => {
    if (!isObject(entry) || Object.keys(entry).length !== 1) {
      throw mapperParsing('A dynamic template must be defined with a name');
    }
    const name = Object.keys(entry)[0];
    const body = entry[name];
    if (!isObject(body)) throw mapperParsing('A dynamic template must be defined with a name');
    const str = (k: string): string | null => (body[k] === undefined || body[k] === null ? null : String(body[k]));
    for (const k of Object.keys(body)) {
      if (!['match', 'path_match', 'unmatch', 'path_unmatch', 'match_mapping_type', 'match_pattern', 'mapping'].includes(k)) {
        throw iae(`Illegal dynamic template parameter: [${k}]`);
      }
    }
    let mmt = str('match_mapping_type');
    if (mmt === '*') mmt = null;
    if (mmt !== null && !XCONTENT_FIELD_TYPES.has(mmt)) {
      throw iae(`No field type matched on [${mmt}], possible values are [object, string, long, double, boolean, date, binary]`);
    }
    const pattern = str('match_pattern');
    if (pattern !== null && pattern !== 'regex' && pattern !== 'simple') throw iae(`No matching pattern matched on [${pattern}]`);
    const mapping = body.mapping;
    if (!isObject(mapping)) throw iae(`template [${name}] must have a [mapping] object`);
    return {
      name,
      body,
      match: str('match'),
      unmatch: str('unmatch'),
      pathMatch: str('path_match'),
      pathUnmatch: str('path_unmatch'),
      matchMappingType: mmt,
      regex: pattern === 'regex',
      mapping,
    };
  });
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.map((v) => String(v)) : [String(value)];
}

/** A metadata field (`_source`, `_routing`, ...) or a root option; false when `key` is neither. */
function parseRootKey(key: string, value: unknown, root: RootOptions): boolean {
  switch (key) {
    case 'date_detection':
      root.dateDetection = bool(value, 'date_detection');
      return true;
    case 'numeric_detection':
      root.numericDetection = bool(value, 'numeric_detection');
      return true;
    case 'dynamic_date_formats':
    case 'date_formats': {
      const formats = stringList(value);
      for (const f of formats) dateFormatter(f);
      root.dynamicDateFormats = formats;
      return true;
    }
    case 'dynamic_templates':
      root.dynamicTemplates = parseDynamicTemplates(value);
      return true;
    case '_meta':
      if (!isObject(value)) throw mapperParsing('[_meta] must be an object, got ' + javaClassName(value));
      root.meta = value;
      return true;
    case '_source': {
      if (!isObject(value)) return false;
      const src = { enabled: true, includes: null as string[] | null, excludes: null as string[] | null };
      const rest = new Map<string, unknown>();
      for (const k of Object.keys(value)) {
        if (k === 'enabled') src.enabled = bool(value[k], 'enabled');
        else if (k === 'includes') src.includes = stringList(value[k]);
        else if (k === 'excludes') src.excludes = stringList(value[k]);
        else rest.set(k, value[k]);
      }
      checkNoRemaining(rest, 'Mapping definition for [_source] has unsupported parameters: ');
      root.source = src;
      return true;
    }
    case '_routing': {
      if (!isObject(value)) return false;
      const rest = new Map<string, unknown>();
      for (const k of Object.keys(value)) {
        if (k === 'required') root.routingRequired = bool(value[k], 'required');
        else rest.set(k, value[k]);
      }
      checkNoRemaining(rest, 'Mapping definition for [_routing] has unsupported parameters: ');
      return true;
    }
    case '_all': {
      if (!isObject(value)) return false;
      if (value.enabled !== undefined && bool(value.enabled, 'enabled')) {
        throw iae('Enabling [_all] is disabled in 6.0. As a replacement, you can use [copy_to] on mapping fields to create your own catch all field.');
      }
      root.allEnabled = value.enabled === undefined ? null : false;
      return true;
    }
    case '_field_names':
      if (!isObject(value)) return false;
      if (value.enabled !== undefined) root.fieldNamesEnabled = bool(value.enabled, 'enabled');
      return true;
    default:
      return false;
  }
}

export interface ParsedRoot {
  readonly root: ObjectNode;
  readonly rootOptions: RootOptions;
}

/** DocumentMapperParser.parse: a type's mapping body, optionally wrapped in `{type: {...}}`. */
export function parseRootMapping(typeName: string, body: unknown, opts: MappingParseOptions = {}): ParsedRoot {
  if (typeName.length === 0) throw iae('name cannot be empty string');
  let mapping: Json;
  if (body === null || body === undefined) mapping = {};
  else if (!isObject(body)) throw mapperParsing('malformed mapping no root object found');
  else {
    const first = Object.keys(body)[0];
    mapping = first === typeName && isObject(body[first]) ? (body[first] as Json) : body;
  }
  const root = newObjectNode(typeName, '');
  const rootOptions = emptyRootOptions();
  const rest = new Map<string, unknown>();
  for (const key of Object.keys(mapping)) {
    const value = mapping[key];
    switch (key) {
      case 'dynamic':
        root.dynamic = parseDynamic(value, key);
        break;
      case 'enabled':
        root.enabled = bool(value, 'enabled.enabled');
        root.enabledGiven = true;
        break;
      case 'properties':
        parseProperties(root, value, opts);
        break;
      default:
        if (!parseRootKey(key, value, rootOptions)) rest.set(key, value);
    }
  }
  checkNoRemaining(rest, 'Root mapping definition has unsupported parameters: ');
  validateCopyTo(root);
  return { root, rootOptions };
}

/** MapperService.validateCopyTo: copy_to may not point at an object. */
export function validateCopyTo(root: ObjectNode): void {
  const objects = new Set<string>();
  const leaves: LeafNode[] = [];
  const walk = (o: ObjectNode): void => {
    for (const child of o.children.values()) {
      if (child.kind === 'object') {
        objects.add(child.path);
        walk(child);
      } else if (child.kind === 'leaf') leaves.push(child);
    }
  };
  walk(root);
  for (const leaf of leaves) {
    for (const target of leaf.opts.copyTo) {
      if (objects.has(target)) throw iae(`Cannot copy to field [${target}] since it is mapped as an object`);
    }
  }
}
