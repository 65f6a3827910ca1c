/**
 * Mapping contract: the resolved, typed view of an index's mapping that the
 * segment writer, the query layer and the aggregations work from. Built from
 * Elasticsearch mapping JSON by this folder's `Mapping` class.
 */

export type FieldType =
  | 'text'
  | 'keyword'
  | 'long'
  | 'integer'
  | 'short'
  | 'byte'
  | 'double'
  | 'float'
  | 'half_float'
  | 'scaled_float'
  | 'boolean'
  | 'date'
  /** base64 bytes: stored in `_source` only, never searched. */
  | 'binary'
  /** latitude/longitude pairs, kept as point values (segment `points`). */
  | 'geo_point'
  /** Ranges (RangeFieldMapper), kept as tuples of their two ends in the points column. */
  | 'integer_range'
  | 'long_range'
  | 'float_range'
  | 'double_range'
  | 'date_range'
  | 'ip_range'
  /** Inputs of the completion suggester: each input's analyzed form, text and weight as one term of the field's dictionary. */
  | 'completion'
  /** Shapes (GeoJSON or WKT), each kept exactly as shape-codec.ts encodes it in the points column. */
  | 'geo_shape'
  | 'object';

export type NumericFieldType = 'long' | 'integer' | 'short' | 'byte' | 'double' | 'float' | 'half_float' | 'scaled_float';

/** Parses and prints dates for one `format` (possibly `||`-joined alternatives). */
export interface DateFormatter {
  /** The format string as given in the mapping, e.g. `yyyy-MM-dd HH:mm:ss||epoch_millis`. */
  readonly pattern: string;
  /**
   * Epoch milliseconds for a value; strings are tried against each alternative,
   * numbers are taken as epoch millis. Throws an EsError (illegal_argument /
   * mapper_parsing style) naming the value and the format when nothing parses.
   * `timeZone` applies to patterns without an explicit zone (default UTC).
   */
  parse(value: string | number, timeZone?: string): number;
  /** Prints epoch millis with the first alternative (as `key_as_string` and `docvalue_fields` do). */
  format(epochMillis: number, timeZone?: string): string;
}

/** One leaf field (a sub-field like `plate.keyword` is its own entry). */
export interface FieldMapping {
  /** Full dotted path: `plate`, `plate.keyword`, `owner.name`. */
  readonly path: string;
  readonly type: FieldType;
  /** False for `index: false`: not searchable (doc values may still exist). */
  readonly index: boolean;
  /** Keyword, numeric, date and boolean fields have doc values unless `doc_values: false`. Text never. */
  readonly docValues: boolean;
  /** Text: index analyzer name (default `standard`). */
  readonly analyzer: string | null;
  /** Text: search analyzer name (defaults to `analyzer`). */
  readonly searchAnalyzer: string | null;
  /** Keyword: values longer than this are not indexed (ES `ignore_above`). */
  readonly ignoreAbove: number | null;
  /** Date: the field's formatter. */
  readonly dateFormat: DateFormatter | null;
  /** scaled_float's scaling_factor. */
  readonly scalingFactor: number | null;
  /** Value indexed in place of an explicit null (ES `null_value`), already typed. */
  readonly nullValue: string | number | boolean | null;
  readonly boost: number;
  /** Path of the multi-field parent (`plate` for `plate.keyword`), else null. */
  readonly parent: string | null;
  /**
   * The Elasticsearch field type's name (_field_caps, error messages); as
   * GET _mapping prints the type but for `token_count`, whose field type is
   * Elasticsearch's `integer`. Differs from `type` only for `ip`, which the
   * engine indexes as a `keyword` of canonical addresses (`127.0.0.1`, `::1`).
   */
  readonly mappedType?: string;
  /** Keyword: the `normalizer` to apply to values and query terms, or null. */
  readonly normalizer?: string | null;
  /** Text: `fielddata: true` (sorting and aggregating on the analyzed terms allowed). */
  readonly fielddata?: boolean;
  /** `store: true`. */
  readonly store?: boolean;
  /** `copy_to` targets (values are copied by the document parser already). */
  readonly copyTo?: readonly string[];
  /** Text: the analyzer for phrase queries (`search_quote_analyzer`, defaults to the search analyzer). */
  readonly searchQuoteAnalyzer?: string | null;
  /** Norms kept for scoring (text: true unless `norms: false`). */
  readonly norms?: boolean;
  /** `term_vector` as mapped (`no`, `yes`, `with_positions_offsets`, ...). */
  readonly termVector?: string;
  /** Completion fields: how inputs become keys (`analyzer`/`searchAnalyzer` name the analyzers). */
  readonly completion?: CompletionOptions;
  /**
   * token_count fields (type and mappedType `integer`, as their field type is in Elasticsearch): the
   * parsed values are the texts, which the segment builder replaces by their
   * token count under `analyzer` before indexing them as integers.
   */
  readonly tokenCount?: TokenCountOptions;
  /** geo_shape: how values are read and which relations queries may ask. */
  readonly geoShape?: GeoShapeOptions;
}

/** TokenCountFieldMapper's options. */
export interface TokenCountOptions {
  /** Count every position increment (a removed stop word counts) rather than each token once. */
  readonly enablePositionIncrements: boolean;
}

/** GeoShapeFieldMapper's options that parsing and querying need. */
export interface GeoShapeOptions {
  /** Right-hand rule (counterclockwise shells). */
  readonly right: boolean;
  readonly coerce: boolean;
  readonly ignoreZValue: boolean;
  readonly ignoreMalformed: boolean;
  readonly pointsOnly: boolean;
  /** `recursive` or `term` (term answers `intersects` only). */
  readonly strategy: string;
}

/** CompletionFieldMapper's options. */
export interface CompletionOptions {
  readonly preserveSeparators: boolean;
  readonly preservePositionIncrements: boolean;
  readonly maxInputLength: number;
}

/**
 * The values of one leaf field in one document, in document order, already
 * coerced to the field's type: text/keyword → string, numeric/date → number
 * (dates as epoch millis), boolean → boolean. `ignore_above` already applied.
 * A geo_point gives two numbers per point: latitude then longitude.
 */
/**
 * The `_ignored` metadata field (IgnoredFieldMapper, 6.4+): the paths of a
 * document's fields whose values were dropped by `ignore_malformed` or
 * `ignore_above`, indexed (term, terms, exists) and kept as doc values (the
 * hit prints them).
 */
export const IGNORED_FIELD = '_ignored';

export interface ParsedField {
  readonly mapping: FieldMapping;
  readonly values: readonly (string | number | boolean)[];
}

/** A value of a `nested` object, indexed as a hidden document before its parent (Lucene's block join). */
export interface NestedDocument {
  /** The nested object's full path (`comments`, `comments.replies`). */
  readonly path: string;
  readonly fields: readonly ParsedField[];
}

export interface ParsedDocument {
  readonly fields: readonly ParsedField[];
  /** Nested documents in block order (each one's own nested documents before it), when the mapping has nested objects. */
  readonly nested?: readonly NestedDocument[];
  /**
   * Mapping JSON (the `properties` form of a PUT mapping body) for fields the
   * document introduced by dynamic mapping, or null when it introduced none.
   * The caller merges it into the index mapping before the document counts as
   * indexed.
   */
  readonly dynamicUpdate: Record<string, unknown> | null;
}

/** What queries and aggregations need of a mapping. */
export interface MappingLookup {
  /** When `path` is a `nested` object: the nested object it is under (null at the root). */
  nestedObject?(path: string): { readonly parent: string | null } | undefined;
  /** The innermost `nested` object a field is under (its values live in nested documents), or null. */
  nestedPathOf?(field: string): string | null;
  /** True when `path` is an object (or nested) field. */
  isObject?(path: string): boolean;
  /** The leaf field at this full path (`plate`, `plate.keyword`), or undefined when unmapped. */
  field(path: string): FieldMapping | undefined;
  /**
   * Full paths of leaf fields matching a pattern where `*` matches any run of
   * characters (`pla*`, `*.keyword`, `owner.*`); an exact path matches itself.
   */
  matchingFields(pattern: string): string[];
}
