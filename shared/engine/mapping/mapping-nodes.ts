/**
 * The parsed form of a mapping: a tree of object nodes and leaf (field)
 * nodes, with every parameter normalised. Built by mapping-parser.ts, merged
 * by mapping-merge.ts, printed by mapping-render.ts, walked by
 * document-parser.ts. Each Mapping owns its tree (merges copy, never share),
 * so per-mapping bookkeeping like `slot` can live on the nodes.
 */
import type { DateFormatter, FieldMapping, FieldType } from './types.ts';
import type { GeoShapeParams } from './geo-shape-params.ts';

export type Dynamic = 'true' | 'false' | 'strict';

/** Type codes for the document parser's switch. */
export const T_TEXT = 0;
export const T_KEYWORD = 1;
export const T_LONG = 2;
export const T_INTEGER = 3;
export const T_SHORT = 4;
export const T_BYTE = 5;
export const T_DOUBLE = 6;
export const T_FLOAT = 7;
export const T_HALF_FLOAT = 8;
export const T_SCALED_FLOAT = 9;
export const T_BOOLEAN = 10;
export const T_DATE = 11;
export const T_IP = 12;
export const T_BINARY = 13;
export const T_GEO_POINT = 14;
/** Every range type (the type name tells them apart). */
export const T_RANGE = 15;
/** `completion`: inputs with weights (document-parser.ts reads its strings, arrays and objects). */
export const T_COMPLETION = 16;
/** `token_count`: the text's token count under the field's analyzer, indexed as an integer (segment-builder.ts counts). */
export const T_TOKEN_COUNT = 17;
/** `geo_shape`: GeoJSON objects or WKT strings (geo-shape/shape-parser.ts), each encoded as shape-codec.ts keeps it. */
export const T_GEO_SHAPE = 18;

/** Field types a leaf can have: the contract's types plus `ip` (indexed as a keyword of canonical addresses). */
export type LeafType = Exclude<FieldType, 'object'> | 'ip' | 'token_count';

export const TYPE_CODES: Readonly<Record<LeafType, number>> = {
  text: T_TEXT,
  keyword: T_KEYWORD,
  long: T_LONG,
  integer: T_INTEGER,
  short: T_SHORT,
  byte: T_BYTE,
  double: T_DOUBLE,
  float: T_FLOAT,
  half_float: T_HALF_FLOAT,
  scaled_float: T_SCALED_FLOAT,
  boolean: T_BOOLEAN,
  date: T_DATE,
  ip: T_IP,
  binary: T_BINARY,
  geo_point: T_GEO_POINT,
  integer_range: T_RANGE,
  long_range: T_RANGE,
  float_range: T_RANGE,
  double_range: T_RANGE,
  date_range: T_RANGE,
  ip_range: T_RANGE,
  completion: T_COMPLETION,
  token_count: T_TOKEN_COUNT,
  geo_shape: T_GEO_SHAPE,
};

/** Every parameter of a leaf field, normalised; null means "not given" where Elasticsearch prints only given values. */
export interface LeafOptions {
  index: boolean;
  store: boolean;
  docValues: boolean;
  boost: number;
  /** Explicit `index_options`, else null (the type's default). */
  indexOptions: string | null;
  /** `term_vector`: `no` unless given. */
  termVector: string;
  /** Explicit `norms`, else null (text: enabled, others: disabled). */
  norms: boolean | null;
  similarity: string | null;
  eagerGlobalOrdinals: boolean;
  copyTo: string[];
  /** `null_value` as printed (typed for numbers and booleans, the string for dates). */
  nullValue: string | number | boolean | null;
  // text
  analyzer: string | null;
  searchAnalyzer: string | null;
  searchQuoteAnalyzer: string | null;
  positionIncrementGap: number | null;
  fielddata: boolean;
  fielddataFrequencyFilter: Record<string, unknown> | null;
  indexPrefixes: Record<string, unknown> | null;
  indexPhrases: boolean;
  // keyword
  ignoreAbove: number | null;
  normalizer: string | null;
  splitQueriesOnWhitespace: boolean;
  // numbers, dates, booleans, ips
  coerce: boolean | null;
  ignoreMalformed: boolean | null;
  scalingFactor: number | null;
  /** date: `format` as given (null: the default). */
  format: string | null;
  locale: string | null;
  /** geo_point: `ignore_z_value` as given (Elasticsearch's default is true). */
  ignoreZValue: boolean | null;
  // completion
  preserveSeparators: boolean;
  preservePositionIncrements: boolean;
  maxInputLength: number;
  // token_count
  enablePositionIncrements: boolean;
  /** geo_shape: its own parameters (geo-shape-params.ts); null for other types. */
  geoShape: GeoShapeParams | null;
}

export interface LeafNode {
  readonly kind: 'leaf';
  readonly name: string;
  readonly path: string;
  readonly type: LeafType;
  readonly code: number;
  readonly opts: LeafOptions;
  /** Multi-fields, sorted by name. */
  readonly fields: LeafNode[];
  /** Null for a top-level field, else the path of the field this multi-field belongs to. */
  readonly parent: string | null;
  readonly mapping: FieldMapping;
  /** The date formatter of a date field (the one in `mapping.dateFormat`). */
  readonly formatter: DateFormatter | null;
  /** Typed null_value (dates as epoch millis); null when none or when a date null_value does not parse. */
  readonly nullTyped: string | number | boolean | null;
  /** Index of this leaf in its Mapping's slot arrays (document parsing bookkeeping). */
  slot: number;
}

export interface ObjectNode {
  readonly kind: 'object';
  readonly name: string;
  readonly path: string;
  nested: boolean;
  includeInParent: boolean | null;
  includeInRoot: boolean | null;
  /** Given `dynamic`, else null (inherits). */
  dynamic: Dynamic | null;
  enabled: boolean;
  /** `enabled` was given explicitly (printed only then). */
  enabledGiven: boolean;
  readonly children: Map<string, MappingNode>;
}

/** A field alias (FieldAliasMapper): another name for the concrete field at `target`, holding no values of its own. */
export interface AliasNode {
  readonly kind: 'alias';
  readonly name: string;
  readonly path: string;
  /** The full path of the field it stands for (`path` in the mapping JSON). */
  readonly target: string;
}

export type MappingNode = LeafNode | ObjectNode | AliasNode;

export interface DynamicTemplateDef {
  readonly name: string;
  /** The template body as given (printed back with `mapping` keys sorted). */
  readonly body: Record<string, unknown>;
  readonly match: string | null;
  readonly unmatch: string | null;
  readonly pathMatch: string | null;
  readonly pathUnmatch: string | null;
  /** null: any type. */
  readonly matchMappingType: string | null;
  readonly regex: boolean;
  readonly mapping: Record<string, unknown>;
}

/** Root-level settings of a type's mapping. */
export interface RootOptions {
  /** Explicit values only (Elasticsearch prints only those). */
  dateDetection: boolean | null;
  numericDetection: boolean | null;
  dynamicDateFormats: string[] | null;
  dynamicTemplates: DynamicTemplateDef[] | null;
  source: { enabled: boolean; includes: string[] | null; excludes: string[] | null } | null;
  routingRequired: boolean | null;
  allEnabled: boolean | null;
  fieldNamesEnabled: boolean | null;
  meta: Record<string, unknown> | null;
}

export function newObjectNode(name: string, path: string): ObjectNode {
  return {
    kind: 'object',
    name,
    path,
    nested: false,
    includeInParent: null,
    includeInRoot: null,
    dynamic: null,
    enabled: true,
    enabledGiven: false,
    children: new Map(),
  };
}

export function emptyRootOptions(): RootOptions {
  return {
    dateDetection: null,
    numericDetection: null,
    dynamicDateFormats: null,
    dynamicTemplates: null,
    source: null,
    routingRequired: null,
    allEnabled: null,
    fieldNamesEnabled: null,
    meta: null,
  };
}

export function defaultLeafOptions(type: LeafType): LeafOptions {
  return {
    index: true,
    store: false,
    docValues: type !== 'text' && type !== 'binary' && type !== 'completion' && type !== 'geo_shape',
    boost: 1,
    indexOptions: null,
    termVector: 'no',
    norms: null,
    similarity: null,
    eagerGlobalOrdinals: false,
    copyTo: [],
    nullValue: null,
    analyzer: null,
    searchAnalyzer: null,
    searchQuoteAnalyzer: null,
    positionIncrementGap: null,
    fielddata: false,
    fielddataFrequencyFilter: null,
    indexPrefixes: null,
    indexPhrases: false,
    ignoreAbove: null,
    normalizer: null,
    splitQueriesOnWhitespace: false,
    coerce: null,
    ignoreMalformed: null,
    scalingFactor: null,
    format: null,
    locale: null,
    ignoreZValue: null,
    preserveSeparators: true,
    preservePositionIncrements: true,
    maxInputLength: 50,
    enablePositionIncrements: true,
    geoShape: null,
  };
}
