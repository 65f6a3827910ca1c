/**
 * Prints a mapping as Elasticsearch 6.8's GET _mapping does: only the
 * parameters that differ from their defaults, in the order the mappers'
 * `toXContent` writes them, properties and multi-fields sorted by name,
 * `type: object` only for objects without properties.
 */
import { DEFAULT_DATE_FORMAT } from './date-format.ts';
import type { DynamicTemplateDef, LeafNode, MappingNode, ObjectNode, RootOptions } from './mapping-nodes.ts';
import { setOwn } from '../../json/own-keys.ts';
import { renderGeoShape } from './geo-shape-params.ts';

type Json = Record<string, unknown>;

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function defaultIndexOptions(leaf: LeafNode): string {
  return leaf.type === 'text' ? 'positions' : 'docs';
}

/** TextFieldMapper's doXContentAnalyzers. */
function renderAnalyzers(leaf: LeafNode, out: Json): void {
  const o = leaf.opts;
  if (o.analyzer === null) return;
  const index = o.analyzer;
  const search = o.searchAnalyzer ?? index;
  const quote = o.searchQuoteAnalyzer ?? search;
  const differentSearch = search !== index;
  const differentQuote = search !== quote;
  if (index !== 'default' || differentSearch || differentQuote) {
    out.analyzer = index;
    if (differentSearch || differentQuote) {
      out.search_analyzer = search;
      if (differentQuote) out.search_quote_analyzer = quote;
    }
  }
}

export function renderLeaf(leaf: LeafNode): Json {
  const o = leaf.opts;
  if (leaf.type === 'completion') return renderCompletion(leaf);
  if (leaf.type === 'geo_shape') return renderGeoShape(leaf.opts);
  const out: Json = { type: leaf.type };
  // FieldMapper.doXContentBody
  if (o.boost !== 1) out.boost = o.boost;
  if (!o.index) out.index = false;
  if (o.store) out.store = true;
  if (leaf.type === 'binary') {
    if (o.docValues) out.doc_values = true;
  } else if (leaf.type !== 'text' && !o.docValues) out.doc_values = false;
  if (o.termVector !== 'no') out.term_vector = o.termVector;
  const defaultNorms = leaf.type === 'text';
  if (o.norms !== null && o.norms !== defaultNorms) out.norms = o.norms;
  if (o.index && o.indexOptions !== null && o.indexOptions !== defaultIndexOptions(leaf)) out.index_options = o.indexOptions;
  if (o.eagerGlobalOrdinals) out.eager_global_ordinals = true;
  if (o.similarity !== null) out.similarity = o.similarity;
  if (leaf.fields.length > 0) {
    const fields: Json = {};
    for (const f of [...leaf.fields].sort((a, b) => byName(a.name, b.name))) setOwn(fields, f.name, renderLeaf(f));
    out.fields = fields;
  }
  if (o.copyTo.length > 0) out.copy_to = [...o.copyTo];
  switch (leaf.type) {
    case 'text':
      renderAnalyzers(leaf, out);
      if (o.positionIncrementGap !== null) out.position_increment_gap = o.positionIncrementGap;
      if (o.fielddata) out.fielddata = true;
      if (o.fielddata && o.fielddataFrequencyFilter !== null) out.fielddata_frequency_filter = o.fielddataFrequencyFilter;
      if (o.indexPrefixes !== null) out.index_prefixes = o.indexPrefixes;
      if (o.indexPhrases) out.index_phrases = true;
      break;
    case 'keyword':
      if (o.nullValue !== null) out.null_value = o.nullValue;
      if (o.ignoreAbove !== null && o.ignoreAbove !== 2147483647) out.ignore_above = o.ignoreAbove;
      if (o.normalizer !== null) out.normalizer = o.normalizer;
      if (o.splitQueriesOnWhitespace) out.split_queries_on_whitespace = true;
      break;
    case 'date':
      if (o.ignoreMalformed !== null) out.ignore_malformed = o.ignoreMalformed;
      if (o.nullValue !== null) out.null_value = o.nullValue;
      if (o.format !== null && o.format !== DEFAULT_DATE_FORMAT) out.format = o.format;
      if (o.locale !== null) out.locale = o.locale;
      break;
    case 'boolean':
      if (o.nullValue !== null) out.null_value = o.nullValue;
      break;
    case 'binary':
      break;
    case 'token_count':
      // TokenCountFieldMapper.doXContentBody
      out.analyzer = o.analyzer;
      if (!o.enablePositionIncrements) out.enable_position_increments = false;
      // 6.8 does not print it (and so loses it when the mapping is read back); kept here so it survives
      if (o.nullValue !== null) out.null_value = o.nullValue;
      break;
    case 'integer_range':
    case 'long_range':
    case 'float_range':
    case 'double_range':
    case 'ip_range':
      if (o.coerce !== null) out.coerce = o.coerce;
      break;
    case 'date_range':
      if (o.coerce !== null) out.coerce = o.coerce;
      if (o.format !== null && o.format !== DEFAULT_DATE_FORMAT) out.format = o.format;
      if (o.locale !== null) out.locale = o.locale;
      break;
    case 'geo_point':
      if (o.ignoreMalformed !== null) out.ignore_malformed = o.ignoreMalformed;
      if (o.ignoreZValue !== null) out.ignore_z_value = o.ignoreZValue;
      if (o.nullValue !== null) out.null_value = o.nullValue;
      break;
    case 'scaled_float':
      out.scaling_factor = o.scalingFactor;
      if (o.ignoreMalformed !== null) out.ignore_malformed = o.ignoreMalformed;
      if (o.coerce !== null) out.coerce = o.coerce;
      if (o.nullValue !== null) out.null_value = o.nullValue;
      break;
    default:
      // numbers and ip
      if (o.ignoreMalformed !== null) out.ignore_malformed = o.ignoreMalformed;
      if (o.coerce !== null) out.coerce = o.coerce;
      if (o.nullValue !== null) out.null_value = o.nullValue;
  }
  return out;
}

/** CompletionFieldMapper.doXContentBody: every option, always. */
function renderCompletion(leaf: LeafNode): Json {
  const o = leaf.opts;
  const analyzer = o.analyzer ?? 'simple';
  const search = o.searchAnalyzer ?? analyzer;
  const out: Json = { type: 'completion', analyzer };
  if (search !== analyzer) out.search_analyzer = search;
  out.preserve_separators = o.preserveSeparators;
  out.preserve_position_increments = o.preservePositionIncrements;
  out.max_input_length = o.maxInputLength;
  if (leaf.fields.length > 0) {
    const fields: Json = {};
    for (const f of [...leaf.fields].sort((a, b) => byName(a.name, b.name))) setOwn(fields, f.name, renderLeaf(f));
    out.fields = fields;
  }
  return out;
}

function renderProperties(obj: ObjectNode, out: Json): void {
  const names = [...obj.children.keys()].sort(byName);
  if (names.length === 0) return;
  const props: Json = {};
  for (const name of names) setOwn(props, name, renderNode(obj.children.get(name) as MappingNode));
  out.properties = props;
}

/** ObjectMapper.toXContent. */
export function renderObject(obj: ObjectNode): Json {
  const out: Json = {};
  if (obj.nested) {
    out.type = 'nested';
    if (obj.includeInParent) out.include_in_parent = true;
    if (obj.includeInRoot) out.include_in_root = true;
  } else if (obj.children.size === 0) {
    out.type = 'object';
  }
  if (obj.dynamic !== null) out.dynamic = obj.dynamic;
  if (!obj.enabled) out.enabled = false;
  renderProperties(obj, out);
  return out;
}

export function renderNode(node: MappingNode): Json {
  if (node.kind === 'alias') return { type: 'alias', path: node.target }; // FieldAliasMapper.toXContent
  return node.kind === 'leaf' ? renderLeaf(node) : renderObject(node);
}

function renderTemplate(t: DynamicTemplateDef): Json {
  const body: Json = {};
  if (t.match !== null) body.match = t.match;
  if (t.pathMatch !== null) body.path_match = t.pathMatch;
  if (t.unmatch !== null) body.unmatch = t.unmatch;
  if (t.pathUnmatch !== null) body.path_unmatch = t.pathUnmatch;
  if (t.matchMappingType !== null) body.match_mapping_type = t.matchMappingType;
  else if (t.match === null && t.pathMatch === null) body.match_mapping_type = '*';
  if (t.regex) body.match_pattern = 'regex';
  const mapping: Json = {};
  for (const k of Object.keys(t.mapping).sort(byName)) setOwn(mapping, k, t.mapping[k]);
  body.mapping = mapping;
  return { [t.name]: body };
}

/** The type's mapping body: root object settings, metadata fields (sorted by name), root options, properties. */
export function renderRoot(root: ObjectNode, opts: RootOptions): Json {
  const out: Json = {};
  if (root.dynamic !== null) out.dynamic = root.dynamic;
  if (!root.enabled) out.enabled = false;
  if (opts.meta !== null) out._meta = opts.meta;
  // metadata mappers, sorted by name: _all, _field_names, _routing, _source
  if (opts.allEnabled !== null) out._all = { enabled: opts.allEnabled };
  if (opts.fieldNamesEnabled === false) out._field_names = { enabled: false };
  if (opts.routingRequired === true) out._routing = { required: true };
  const src = opts.source;
  if (src !== null && (!src.enabled || src.includes !== null || src.excludes !== null)) {
    const s: Json = {};
    if (!src.enabled) s.enabled = false;
    if (src.includes !== null) s.includes = [...src.includes];
    if (src.excludes !== null) s.excludes = [...src.excludes];
    out._source = s;
  }
  if (opts.dynamicDateFormats !== null) out.dynamic_date_formats = [...opts.dynamicDateFormats];
  if (opts.dynamicTemplates !== null) out.dynamic_templates = opts.dynamicTemplates.map(renderTemplate);
  if (opts.dateDetection !== null) out.date_detection = opts.dateDetection;
  if (opts.numericDetection !== null) out.numeric_detection = opts.numericDetection;
  renderProperties(root, out);
  return out;
}
