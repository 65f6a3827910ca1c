/**
 * Builds a leaf node: the resolved FieldMapping the engine works from, the
 * date formatter and the typed null_value, from a leaf's normalised options.
 */
import { DEFAULT_DATE_FORMAT, dateFormatter, type JodaDateFormatter } from './date-format.ts';
import { TYPE_CODES, type LeafNode, type LeafOptions, type LeafType } from './mapping-nodes.ts';
import type { FieldMapping, FieldType, GeoShapeOptions } from './types.ts';
import { defaultGeoShapeParams, pointsOnly } from './geo-shape-params.ts';
import { ipTerm } from './ip-address.ts';

function geoShapeOptions(opts: LeafOptions): GeoShapeOptions {
  const g = opts.geoShape ?? defaultGeoShapeParams();
  return {
    right: g.right,
    coerce: opts.coerce ?? false,
    ignoreZValue: opts.ignoreZValue ?? true,
    ignoreMalformed: opts.ignoreMalformed ?? false,
    pointsOnly: pointsOnly(g),
    strategy: g.strategy,
  };
}

/** The name the analysis registry resolves to the index's default analyzer (standard unless the index defines `default`). */
export const DEFAULT_ANALYZER = 'default';
/** CompletionFieldMapper's default analyzer. */
export const COMPLETION_ANALYZER = 'simple';

function engineType(type: LeafType): FieldType {
  return type === 'ip' ? 'keyword' : type === 'token_count' ? 'integer' : type;
}

function typedNullValue(type: LeafType, opts: LeafOptions, formatter: JodaDateFormatter | null): string | number | boolean | null {
  const v = opts.nullValue;
  if (v === null) return null;
  // a point is two values: the document parser reads the null_value text as a document's value
  if (type === 'geo_point') return null;
  // an ip's term is its 16 bytes in hex (ip-address.ts); the parser checked it is an address
  if (type === 'ip') return ipTerm(v);
  if (type === 'date' && formatter !== null) {
    try {
      return formatter.parseText(String(v));
    } catch {
      return null; // Elasticsearch 6.8 reports it when a document hits the null
    }
  }
  return v;
}

export function makeLeaf(name: string, path: string, type: LeafType, opts: LeafOptions, fields: LeafNode[], parent: string | null): LeafNode {
  const formatter = type === 'date' || type === 'date_range' ? dateFormatter(opts.format ?? DEFAULT_DATE_FORMAT) : null;
  const text = type === 'text';
  const completion = type === 'completion';
  const tokenCount = type === 'token_count';
  const nullTyped = typedNullValue(type, opts, formatter);
  const mapping: FieldMapping = Object.freeze({
    path,
    type: engineType(type),
    index: opts.index,
    docValues: text ? false : opts.docValues,
    analyzer: text ? (opts.analyzer ?? DEFAULT_ANALYZER) : completion ? (opts.analyzer ?? COMPLETION_ANALYZER) : tokenCount ? opts.analyzer : null,
    searchAnalyzer: text || completion ? (opts.searchAnalyzer ?? opts.analyzer ?? (completion ? COMPLETION_ANALYZER : DEFAULT_ANALYZER)) : null,
    ignoreAbove: type === 'keyword' ? opts.ignoreAbove : null,
    dateFormat: formatter,
    scalingFactor: type === 'scaled_float' ? opts.scalingFactor : null,
    nullValue: nullTyped,
    boost: opts.boost,
    parent,
    // token_count's field type is Elasticsearch's integer one: _field_caps and error messages name it `integer`
    mappedType: tokenCount ? 'integer' : type,
    normalizer: type === 'keyword' ? opts.normalizer : null,
    fielddata: text ? opts.fielddata : false,
    store: opts.store,
    copyTo: Object.freeze([...opts.copyTo]),
    searchQuoteAnalyzer: text ? (opts.searchQuoteAnalyzer ?? opts.searchAnalyzer ?? opts.analyzer ?? DEFAULT_ANALYZER) : null,
    norms: opts.norms ?? text,
    termVector: opts.termVector,
    ...(completion
      ? { completion: { preserveSeparators: opts.preserveSeparators, preservePositionIncrements: opts.preservePositionIncrements, maxInputLength: opts.maxInputLength } }
      : {}),
    ...(tokenCount ? { tokenCount: { enablePositionIncrements: opts.enablePositionIncrements } } : {}),
    ...(type === 'geo_shape' ? { geoShape: geoShapeOptions(opts) } : {}),
  });
  return {
    kind: 'leaf',
    name,
    path,
    type,
    code: TYPE_CODES[type],
    opts,
    fields: [...fields].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    parent,
    mapping,
    formatter,
    nullTyped,
    slot: -1,
  };
}
