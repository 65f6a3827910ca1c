/**
 * Walks a document's `_source` against a mapping and produces the typed values
 * of every leaf field (Elasticsearch 6.8's DocumentParser): objects recurse,
 * arrays give several values, `null` is skipped or replaced by `null_value`,
 * multi-fields and `copy_to` targets get the same values, and unmapped fields
 * are mapped dynamically (or ignored with `dynamic: false`, or refused with
 * `dynamic: strict`). New mappings come back as `dynamicUpdate`.
 *
 * Hot path (bulk indexing): one ParsedField per field per document and nothing
 * else; which ParsedField belongs to a leaf is found through per-slot stamps
 * instead of a map per document.
 */
import {
  EsError,
  isEsError,
  javaCause,
  mapperParsing,
  strictDynamicMapping,
} from '../../errors/es-errors.ts';
import { DEFAULT_DATE_FORMAT, JodaDateFormatter, dateFormatter } from './date-format.ts';
import { F_DAY, F_HOUR, F_MINUTE, F_MONTH, F_SECOND, F_YEAR, alternatives, epoch, fixed, lit } from './date-steps.ts';
import { templateMapping, type DetectedType } from './dynamic-templates.ts';
import { binaryValue, geoPointValues, rangeValues } from './typed-values.ts';
import { geoShapeValues } from '../geo-shape/shape-values.ts';
import { completionValues } from './completion-values.ts';
import { makeLeaf } from './leaf-field.ts';
import { ipTerm } from './ip-address.ts';
import { getOwn, setOwn } from '../../json/own-keys.ts';
import type { RootStream } from '../../json/json-steps.ts';
import { parseProperty, type MappingParseOptions } from './mapping-parser.ts';
import { renderNode } from './mapping-render.ts';
import {
  T_BINARY,
  T_BOOLEAN,
  T_BYTE,
  T_COMPLETION,
  T_DATE,
  T_DOUBLE,
  T_FLOAT,
  T_GEO_POINT,
  T_GEO_SHAPE,
  T_HALF_FLOAT,
  T_RANGE,
  T_INTEGER,
  T_IP,
  T_KEYWORD,
  T_LONG,
  T_SCALED_FLOAT,
  T_SHORT,
  T_TEXT,
  T_TOKEN_COUNT,
  defaultLeafOptions,
  newObjectNode,
  type Dynamic,
  type LeafNode,
  type MappingNode,
  type ObjectNode,
  type RootOptions,
} from './mapping-nodes.ts';
import { IGNORED_FIELD, type FieldMapping, type NestedDocument, type ParsedDocument, type ParsedField } from './types.ts';
import {
  javaParseDouble,
  toBoolean,
  toByte,
  toDouble,
  toFloat,
  toHalfFloat,
  toInteger,
  toLong,
  toScaledFloat,
  toShort,
  toText,
} from './value-coercion.ts';

/** MapperService.META_FIELDS in 6.8, refused inside documents. */
const METADATA_FIELDS: ReadonlySet<string> = new Set([
  '_uid',
  '_id',
  '_type',
  '_parent',
  '_routing',
  '_index',
  '_size',
  '_timestamp',
  '_ttl',
  '_source',
  '_all',
  '_field_names',
  '_version',
  '_seq_no',
  '_primary_term',
  '_ignored',
]);

/** `_ignored`'s field: a keyword, indexed and with doc values, in no mapping. */
const IGNORED_MAPPING: FieldMapping = makeLeaf(IGNORED_FIELD, IGNORED_FIELD, 'keyword', { ...defaultLeafOptions('keyword'), index: true, docValues: true }, [], null).mapping;

/** Lucene's IndexWriter.MAX_TERM_LENGTH: the longest term, in UTF-8 bytes. */
const MAX_TERM_BYTES = 32766;

/** DefaultIndexingChain's error for a term Lucene cannot index (Elasticsearch answers it with 400). */
function immenseTerm(field: string, value: string): EsError {
  const bytes = Buffer.from(value, 'utf8');
  const prefix = Array.from(bytes.subarray(0, 30), (b) => (b > 127 ? b - 256 : b)).join(', ');
  const original = `bytes can be at most ${MAX_TERM_BYTES} in length; got ${bytes.length}`;
  return new EsError(
    'illegal_argument_exception',
    `Document contains at least one immense term in field="${field}" (whose UTF8 encoding is longer than the max length ${MAX_TERM_BYTES}), all of which were skipped.  Please correct the analyzer to not produce such terms.  The prefix of the first immense term is: '[${prefix}]...', original message: ${original}`,
    400,
    {},
    new EsError('max_bytes_length_exceeded_exception', original, 400),
  );
}

/** `ignore_above` of the `.keyword` sub-field dynamic strings get. */
const DYNAMIC_KEYWORD_IGNORE_ABOVE = 256;

/**
 * Joda.getStrictStandardDateFormatter: the second default dynamic date format,
 * with fixed widths for detection (the printed pattern reads back leniently,
 * as it does in Elasticsearch).
 */
const STRICT_STANDARD_PATTERN = 'yyyy/MM/dd HH:mm:ss||yyyy/MM/dd||epoch_millis';
const STRICT_STANDARD_DETECTOR = (() => {
  const date = [fixed(F_YEAR, 4), lit('/'), fixed(F_MONTH, 2), lit('/'), fixed(F_DAY, 2)];
  const long = [...date, lit(' '), fixed(F_HOUR, 2, true), lit(':'), fixed(F_MINUTE, 2, true), lit(':'), fixed(F_SECOND, 2, true)];
  return new JodaDateFormatter(STRICT_STANDARD_PATTERN, [alternatives(long, date, [epoch(true)])], long);
})();

/** `index.mapping.nested_objects.limit` default. */
export const DEFAULT_NESTED_OBJECTS_LIMIT = 10000;

interface ParsedFieldBuilder {
  readonly mapping: FieldMapping;
  values: (string | number | boolean)[];
  /** The leaf, so a nested document's fields can be copied into its parent (`include_in_parent`). */
  readonly leaf?: LeafNode;
}

/** What the parser needs of a Mapping. */
export interface ParserMapping {
  readonly typeName: string;
  readonly root: ObjectNode;
  readonly rootOptions: RootOptions;
  /** Leaves (incl. multi-fields) by full path, for copy_to. */
  readonly leaves: ReadonlyMap<string, LeafNode>;
  /** Number of slots the mapping's leaves use (0..leafCount-1). */
  readonly leafCount: number;
  readonly parseOptions: MappingParseOptions;
}

/** parseField takes an array's elements one at a time: not for an alias (an error) or a leaf that reads the array itself (a `[lon, lat]` point). */
function takesElementsOneByOne(node: MappingNode | undefined): boolean {
  if (node === undefined || node.kind === 'object') return true;
  if (node.kind === 'alias') return false;
  return node.code !== T_GEO_POINT && node.code !== T_RANGE && node.code !== T_COMPLETION && node.code !== T_GEO_SHAPE;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function iae(reason: string): EsError {
  return javaCause('illegal_argument_exception', reason);
}

/** DocumentParser.splitAndValidatePath (Java's split drops trailing empty parts). */
function splitPath(key: string): string[] {
  const parts = key.split('.');
  while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  for (const part of parts) {
    if (part.trim().length === 0) {
      if (part.length > 0) throw iae(`object field cannot contain only whitespace: ['${key}']`);
      throw iae(`object field starting or ending with a [.] makes object resolution ambiguous: [${key}]`);
    }
  }
  return parts;
}

/** DocumentParser's refusal of a value for a field alias (wrapped in `failed to parse`). */
function aliasWrite(path: string): EsError {
  return iae(`Cannot write to a field alias [${path}].`);
}

/** 2^63: just past Java's Long.MAX_VALUE (doubles cannot hold it exactly). */
const TWO_POW_63 = 2 ** 63;

function isJavaLong(text: string): boolean {
  if (!/^[+-]?\d+$/.test(text)) return false;
  const v = Number(text);
  return v < TWO_POW_63 && v >= -TWO_POW_63;
}

/**
 * A leaf's value of one of the types parsed from a scalar (not geo_point, range,
 * completion, geo_shape): null for "treat as null", undefined for "not
 * indexed" (ignore_above); throws the value's error.
 */
export function convertLeafValue(leaf: LeafNode, raw: unknown): string | number | boolean | null | undefined {
  const coerce = leaf.opts.coerce ?? true;
  switch (leaf.code) {
    case T_TEXT:
      return toText(raw);
    case T_KEYWORD: {
      const s = toText(raw);
      const limit = leaf.opts.ignoreAbove;
      if (limit !== null && s.length > limit) return undefined;
      // A term is at most 32,766 UTF-8 bytes (3 per UTF-16 unit at most: only long strings need counting).
      if (s.length > MAX_TERM_BYTES / 3 && Buffer.byteLength(s, 'utf8') > MAX_TERM_BYTES) throw immenseTerm(leaf.path, s);
      return s;
    }
    case T_LONG:
      return toLong(raw, coerce);
    case T_INTEGER:
      return toInteger(raw, coerce);
    case T_SHORT:
      return toShort(raw, coerce);
    case T_BYTE:
      return toByte(raw, coerce);
    case T_DOUBLE:
      return toDouble(raw, coerce);
    case T_FLOAT:
      return toFloat(raw, coerce);
    case T_HALF_FLOAT:
      return toHalfFloat(raw, coerce);
    case T_SCALED_FLOAT:
      return toScaledFloat(raw, coerce, leaf.opts.scalingFactor as number);
    case T_BOOLEAN:
      return toBoolean(raw);
    case T_DATE:
      return (leaf.formatter as JodaDateFormatter).parseText(toText(raw));
    case T_IP:
      // the address's 16 bytes as hex: terms and doc values in address order (ip-address.ts)
      return ipTerm(raw);
    case T_BINARY:
      return binaryValue(raw);
    case T_TOKEN_COUNT:
      // the text itself: the segment builder counts its tokens with the field's analyzer
      return toText(raw);
    default:
      throw new Error(`unknown field type code ${leaf.code}`);
  }
}

export class DocumentParser {
  private stamp: Int32Array;
  private slotIndex: Int32Array;
  private gen = 0;
  private out: ParsedFieldBuilder[] = [];
  /** Paths of fields whose values this document had dropped (`_ignored`); null while none. */
  private ignored: Set<string> | null = null;
  /** The nested documents of the document being parsed, in block order (a child's own children first). */
  private nested: NestedDocument[] = [];
  /** The root document's fields while a nested document is parsed (for `include_in_root`). */
  private rootOut: ParsedFieldBuilder[] | null = null;
  /** The last stamp generation handed out (documents and nested documents each get their own). */
  private lastGen = 0;
  /** Nested documents of the document being parsed, against `index.mapping.nested_objects.limit`. */
  private nestedCount = 0;
  private nestedLimit = DEFAULT_NESTED_OBJECTS_LIMIT;
  private materializeNested = true;
  /** Where nested documents go as they are parsed (DocumentParser.stream), instead of `nested`. */
  private onNested: ((doc: NestedDocument) => void) | null = null;
  /** New child nodes of existing objects, created by this document. */
  private overlay: Map<ObjectNode, Map<string, MappingNode>> | null = null;
  /** Dynamic additions in document order: (existing parent, new node). */
  private added: [ObjectNode, MappingNode][] = [];
  /** Objects this document created (not part of the mapping yet). */
  private created = new Set<ObjectNode>();
  private nextSlot: number;
  private readonly dateDetectors: readonly JodaDateFormatter[];

  constructor(private readonly m: ParserMapping) {
    const cap = Math.max(16, m.leafCount * 2);
    this.stamp = new Int32Array(cap);
    this.slotIndex = new Int32Array(cap);
    this.nextSlot = m.leafCount;
    const formats = m.rootOptions.dynamicDateFormats;
    this.dateDetectors =
      formats === null
        ? [dateFormatter(DEFAULT_DATE_FORMAT), STRICT_STANDARD_DETECTOR]
        : formats.map((f) => dateFormatter(f));
  }

  /**
   * `materializeNested` false parses nested objects as plain objects (same
   * errors, limits and dynamic mapping, no nested documents): what a caller
   * that only validates a document needs, at a fraction of the garbage.
   */
  parse(source: Record<string, unknown>, nestedObjectsLimit = DEFAULT_NESTED_OBJECTS_LIMIT, materializeNested = true): ParsedDocument {
    this.begin(nestedObjectsLimit, materializeNested);
    const root = this.m.root;
    this.failingAsElasticsearch(() => {
      if (root.enabled) this.parseObject(root, source, root.dynamic ?? 'true');
    });
    return this.finish();
  }

  /**
   * parse() as a generator of steps (shared/steps/run-steps.ts), for a large
   * document on a thread that answers searches meanwhile (issue 11): a step
   * is a root field, or one element of an array at the root (the 90,000
   * objects of a `nested` field), so no step holds the thread for more than
   * one such element. The result and errors are parse()'s. The parser keeps
   * the document's state between steps: nothing else may parse with this
   * instance until the generator is done (Mapping.parseInSteps uses a new one).
   */
  *parseSteps(source: Record<string, unknown>, nestedObjectsLimit = DEFAULT_NESTED_OBJECTS_LIMIT): Generator<void, ParsedDocument> {
    const stream = this.stream(nestedObjectsLimit, null);
    for (const key in source) {
      const value = source[key];
      if (!Array.isArray(value) || !stream.splits(key)) {
        stream.field(key, value);
        yield;
        continue;
      }
      for (let i = 0; i < value.length; i++) {
        stream.element(key, value[i]);
        yield;
      }
      stream.end(key, value.length);
    }
    return stream.finish();
  }

  /**
   * parse() of a document whose root fields come one at a time, as a
   * streaming JSON reader gives them (json-steps.ts RootStream), the
   * elements of a root array one by one; `finish` gives the result. With
   * `onNested`, each nested document goes there as soon as it is parsed (in
   * block order, a child's own nested documents before it) instead of into
   * the result: a document of 90,000 nested objects is never held whole
   * (issue 11). Errors are parse()'s, thrown by the call that meets them,
   * after `onNested` took the nested documents before it. Nothing else may
   * parse with this instance until `finish`.
   */
  stream(nestedObjectsLimit: number, onNested: ((doc: NestedDocument) => void) | null): RootStream & { finish(): ParsedDocument } {
    this.begin(nestedObjectsLimit, true);
    this.onNested = onNested;
    const root = this.m.root;
    const dynamic = root.dynamic ?? 'true';
    return {
      // An array of a plain root field: parseField would take its elements one by one, as here (arrays a leaf reads whole are not split).
      splits: (key) => {
        if (!root.enabled || key.length === 0 || key.indexOf('.') !== -1 || METADATA_FIELDS.has(key)) return false;
        const node = this.child(root, key);
        if (!takesElementsOneByOne(node)) return false;
        // parseField refuses an unmapped array under strict before its first element (even an empty one).
        if (node === undefined && dynamic === 'strict') this.failingAsElasticsearch(() => this.parseField(root, key, [], dynamic));
        return true;
      },
      field: (key, value) => {
        if (root.enabled) this.failingAsElasticsearch(() => this.parseObject(root, { [key]: value }, dynamic));
      },
      element: (key, value) => this.failingAsElasticsearch(() => this.parseField(root, key, value, dynamic)),
      end: () => undefined,
      finish: () => {
        this.onNested = null;
        return this.finish();
      },
    };
  }

  private begin(nestedObjectsLimit: number, materializeNested: boolean): void {
    this.materializeNested = materializeNested;
    this.onNested = null;
    this.gen = this.freshGen();
    this.out = [];
    this.ignored = null;
    this.nested = [];
    this.nestedCount = 0;
    this.nestedLimit = nestedObjectsLimit;
    this.rootOut = null;
    this.overlay = null;
    this.added = [];
    if (this.created.size > 0) this.created = new Set();
    this.nextSlot = this.m.leafCount;
  }

  /** Runs `walk`, turning an error of a value into Elasticsearch's mapper_parsing_exception. */
  private failingAsElasticsearch(walk: () => void): void {
    try {
      walk();
    } catch (e) {
      if (isEsError(e) && (e.type === 'mapper_parsing_exception' || e.type === 'strict_dynamic_mapping_exception')) throw e;
      // Lucene refuses an immense term while indexing, not while parsing: Elasticsearch reports it as it is.
      if (isEsError(e) && e.causedBy?.type === 'max_bytes_length_exceeded_exception') throw e;
      if (isEsError(e)) throw mapperParsing('failed to parse', e);
      throw e;
    }
  }

  private finish(): ParsedDocument {
    // IgnoredFieldMapper adds the root document's `_ignored` after its fields
    if (this.ignored !== null) this.out.push({ mapping: IGNORED_MAPPING, values: [...this.ignored].sort() });
    const doc: ParsedDocument = { fields: this.out as ParsedField[], dynamicUpdate: this.added.length === 0 ? null : this.dynamicUpdate() };
    return this.nested.length === 0 ? doc : { ...doc, nested: this.nested };
  }

  /**
   * A value of a `nested` object: a document of its own (Lucene's block
   * join), parsed with fresh field stamps and recorded after its own nested
   * documents and before its parent (the segment builder adds the root
   * last); its fields are copied into the parent (`include_in_parent`) or
   * the root (`include_in_root`) document as DocumentParser.nested does.
   */
  private parseNestedObject(node: ObjectNode, value: Record<string, unknown>, dynamic: Dynamic): void {
    if (++this.nestedCount > this.nestedLimit) {
      throw mapperParsing(
        `The number of nested documents has exceeded the allowed limit of [${this.nestedLimit}]. This limit can be set by changing the [index.mapping.nested_objects.limit] index level setting.`,
      );
    }
    if (!this.materializeNested) {
      this.parseObject(node, value, dynamic);
      return;
    }
    const parentOut = this.out;
    const parentGen = this.gen;
    const isTopLevel = this.rootOut === null;
    if (isTopLevel) this.rootOut = parentOut;
    this.gen = this.freshGen();
    this.out = [];
    let parsed = false;
    try {
      this.parseObject(node, value, dynamic);
      parsed = true;
    } finally {
      const fields = this.out;
      this.out = parentOut;
      this.gen = parentGen;
      const rootOut = this.rootOut!;
      if (isTopLevel) this.rootOut = null;
      // Copied to its length: the list grew to 17 slots at its first field, and is kept until the document is indexed.
      if (this.onNested === null) this.nested.push({ path: node.path, fields: fields.slice() as ParsedField[] });
      else if (parsed) this.onNested({ path: node.path, fields: fields as ParsedField[] });
      if (node.includeInParent === true) this.copyFields(fields, parentOut);
      // Not twice into a root that is also the parent.
      if (node.includeInRoot === true && (node.includeInParent !== true || !isTopLevel)) this.copyFields(fields, rootOut);
    }
  }

  /** A field-stamp generation no document or nested document used since the stamps were last cleared. */
  private freshGen(): number {
    if (++this.lastGen === 0x7fffffff) {
      this.stamp.fill(0);
      this.lastGen = 1;
    }
    return this.lastGen;
  }

  private copyFields(from: readonly ParsedFieldBuilder[], into: ParsedFieldBuilder[]): void {
    for (const f of from) {
      const existing = into.find((x) => x.mapping === f.mapping);
      if (existing) existing.values.push(...f.values);
      else into.push({ mapping: f.mapping, values: [...f.values], leaf: f.leaf });
    }
  }

  // ---- walking --------------------------------------------------------------------------

  private child(obj: ObjectNode, name: string): MappingNode | undefined {
    const c = obj.children.get(name);
    if (c !== undefined || this.overlay === null) return c;
    return this.overlay.get(obj)?.get(name);
  }

  private parseObject(obj: ObjectNode, json: Record<string, unknown>, dynamic: Dynamic): void {
    const atRoot = obj === this.m.root;
    const children = obj.children;
    for (const key in json) {
      const value = json[key];
      // fast path: a mapped leaf with one scalar value (mapped names are never empty, dotted or metadata)
      const mapped = children.get(key);
      if (mapped !== undefined && mapped.kind === 'leaf' && value !== null && typeof value !== 'object') {
        this.addValue(mapped, value, true);
        continue;
      }
      if (key.length === 0) throw iae('field name cannot be an empty string');
      if (atRoot && key.charCodeAt(0) === 95 && METADATA_FIELDS.has(key)) {
        throw mapperParsing(`Field [${key}] is a metadata field and cannot be added inside a document. Use the index API request parameters.`);
      }
      if (key.indexOf('.') === -1) this.parseField(obj, key, value, dynamic);
      else this.parseDotted(obj, key, value, dynamic);
    }
  }

  /** `"a.b": v` is `{"a": {"b": v}}`. */
  private parseDotted(obj: ObjectNode, key: string, value: unknown, dynamic: Dynamic): void {
    const parts = splitPath(key);
    let parent = obj;
    let dyn = dynamic;
    for (let i = 0; i < parts.length - 1; i++) {
      let next = this.child(parent, parts[i]);
      if (next === undefined) {
        if (dyn === 'strict') throw strictDynamicMapping(this.fullPath(parent), parts[i]);
        if (dyn === 'false') return;
        next = this.addDynamic(parent, newObjectNode(parts[i], this.pathOf(parent, parts[i])));
      } else if (next.kind === 'leaf') {
        throw mapperParsing(
          `Could not dynamically add mapping for field [${key}]. Existing mapping for [${next.path}] must be of type object but found [${next.type}].`,
        );
      } else if (next.kind === 'alias') {
        throw aliasWrite(next.path);
      }
      parent = next as ObjectNode;
      dyn = parent.dynamic ?? dyn;
      if (!parent.enabled) return;
    }
    this.parseField(parent, parts[parts.length - 1], value, dyn);
  }

  private parseField(parent: ObjectNode, name: string, value: unknown, dynamic: Dynamic): void {
    let node = this.child(parent, name);
    if (node !== undefined && node.kind === 'alias') throw aliasWrite(node.path);
    if (value === null) {
      if (node !== undefined) {
        if (node.kind === 'leaf') this.addNull(node, true);
      } else if (parent.dynamic === 'strict') {
        throw strictDynamicMapping(this.fullPath(parent), name);
      }
      return;
    }
    if (node !== undefined && node.kind === 'leaf' && (node.code === T_GEO_POINT || node.code === T_RANGE || node.code === T_COMPLETION || node.code === T_GEO_SHAPE)) {
      // `[lon, lat]` and `{lat, lon}` are one point, not an array or an object; a completion reads its arrays and objects itself
      this.addValue(node, value, true);
      return;
    }
    if (Array.isArray(value)) {
      // DocumentParser.parseArray refuses an unmapped array under strict even when it is empty
      if (node === undefined && dynamic === 'strict') throw strictDynamicMapping(this.fullPath(parent), name);
      for (let i = 0; i < value.length; i++) this.parseField(parent, name, value[i], dynamic);
      return;
    }
    if (node === undefined) {
      if (dynamic === 'strict') throw strictDynamicMapping(this.fullPath(parent), name);
      if (dynamic === 'false') return;
      node = this.addDynamic(parent, this.dynamicNode(parent, name, value));
      if (node.kind === 'alias') throw aliasWrite(node.path);
    }
    if (node.kind === 'leaf') {
      this.addValue(node, value, true);
      return;
    }
    if (!node.enabled) return;
    if (!isPlainObject(value)) {
      throw mapperParsing(`object mapping for [${node.path}] tried to parse field [${name}] as object, but found a concrete value`);
    }
    if (node.nested) this.parseNestedObject(node, value, node.dynamic ?? dynamic);
    else this.parseObject(node, value, node.dynamic ?? dynamic);
  }

  // ---- values -----------------------------------------------------------------------------

  private fieldFor(leaf: LeafNode): ParsedFieldBuilder {
    const slot = leaf.slot;
    if (this.stamp[slot] === this.gen) return this.out[this.slotIndex[slot]];
    this.stamp[slot] = this.gen;
    this.slotIndex[slot] = this.out.length;
    const f: ParsedFieldBuilder = { mapping: leaf.mapping, values: [], leaf };
    this.out.push(f);
    return f;
  }

  /**
   * One value of `leaf`. A field's first value starts its array (`[v]` holds
   * one slot; `[]` grows to 17 at its first push): a document of 100,000
   * nested objects kept 1 KB each in empty slots, and its shard worker
   * collected them again and again while indexing it.
   */
  private addOne(leaf: LeafNode, v: string | number | boolean): void {
    const slot = leaf.slot;
    if (this.stamp[slot] === this.gen) {
      const f = this.out[this.slotIndex[slot]];
      // A second value likewise: a pair of values (an array of two tags) holds two slots, not 17.
      if (f.values.length === 1) f.values = [f.values[0], v];
      else f.values.push(v);
      return;
    }
    this.stamp[slot] = this.gen;
    this.slotIndex[slot] = this.out.length;
    this.out.push({ mapping: leaf.mapping, values: [v], leaf });
  }

  private addNull(leaf: LeafNode, withCopies: boolean): void {
    if (leaf.code === T_GEO_POINT && leaf.opts.nullValue !== null) this.addValue(leaf, leaf.opts.nullValue, false);
    else if (leaf.nullTyped !== null) this.addOne(leaf, leaf.nullTyped);
    else if (leaf.type === 'date' && leaf.opts.nullValue !== null) this.addValue(leaf, leaf.opts.nullValue, false);
    for (let i = 0; i < leaf.fields.length; i++) this.addNull(leaf.fields[i], false);
    if (withCopies && leaf.opts.copyTo.length > 0) for (const target of leaf.opts.copyTo) this.copyTo(target, null);
  }

  private addValue(leaf: LeafNode, raw: unknown, withCopies: boolean): void {
    if (leaf.code === T_GEO_POINT) {
      this.addGeoPoints(leaf, raw, withCopies);
      return;
    }
    if (leaf.code === T_RANGE) {
      this.addRanges(leaf, raw, withCopies);
      return;
    }
    if (leaf.code === T_GEO_SHAPE) {
      const encoded = geoShapeValues(leaf.mapping, raw, () => this.ignore(leaf.path));
      if (encoded.length > 0) this.fieldFor(leaf).values.push(...encoded);
      return;
    }
    if (leaf.code === T_COMPLETION) {
      let inputs: string[];
      try {
        inputs = completionValues(raw, leaf.opts.maxInputLength);
      } catch (e) {
        if (!isEsError(e)) throw e;
        throw mapperParsing(`failed to parse field [${leaf.path}] of type [${leaf.type}]`, e);
      }
      if (inputs.length > 0) this.fieldFor(leaf).values.push(...inputs);
      // Multi-fields of a completion field index each input (CompletionFieldMapper hands them the inputs).
      for (const sub of leaf.fields) for (const v of inputs) this.addValue(sub, v.slice(v.indexOf('\u0000') + 1), false);
      return;
    }
    let v: string | number | boolean | null | undefined;
    try {
      v = convertLeafValue(leaf, raw);
    } catch (e) {
      if (!isEsError(e) || e.causedBy?.type === 'max_bytes_length_exceeded_exception') throw e;
      // the field type's name: `integer` for a token_count, as Elasticsearch reports it
      if (leaf.opts.ignoreMalformed !== true) throw mapperParsing(`failed to parse field [${leaf.path}] of type [${leaf.mapping.mappedType ?? leaf.type}]`, e);
      v = undefined;
      this.ignore(leaf.path);
    }
    if (v === null) {
      if (leaf.nullTyped !== null) this.addOne(leaf, leaf.nullTyped);
    } else if (v !== undefined) {
      this.addOne(leaf, v);
    }
    const subs = leaf.fields;
    for (let i = 0; i < subs.length; i++) this.addValue(subs[i], raw, false);
    if (withCopies && leaf.opts.copyTo.length > 0) for (const target of leaf.opts.copyTo) this.copyTo(target, raw);
  }

  private ignore(path: string): void {
    (this.ignored ??= new Set()).add(path);
  }

  /** A geo_point's points, two numbers each (latitude, longitude). */
  private addGeoPoints(leaf: LeafNode, raw: unknown, withCopies: boolean): void {
    let points: number[] = [];
    try {
      points = geoPointValues(raw, leaf.path, leaf.opts.ignoreZValue ?? true, leaf.opts.ignoreMalformed === true);
    } catch (e) {
      if (!isEsError(e)) throw e;
      if (leaf.opts.ignoreMalformed !== true) throw mapperParsing(`failed to parse field [${leaf.path}] of type [${leaf.type}]`, e);
      this.ignore(leaf.path);
    }
    if (points.length > 0) this.fieldFor(leaf).values.push(...points);
    if (withCopies && leaf.opts.copyTo.length > 0) for (const target of leaf.opts.copyTo) this.copyTo(target, raw);
  }

  /** A range field's ranges, each as its two ends (range-values.ts). */
  private addRanges(leaf: LeafNode, raw: unknown, withCopies: boolean): void {
    let ranges: number[];
    try {
      ranges = rangeValues(leaf, raw);
    } catch (e) {
      if (!isEsError(e) || e.type === 'mapper_parsing_exception') throw e;
      throw mapperParsing(`failed to parse field [${leaf.path}] of type [${leaf.type}]`, e);
    }
    if (ranges.length > 0) this.fieldFor(leaf).values.push(...ranges);
    if (withCopies && leaf.opts.copyTo.length > 0) for (const target of leaf.opts.copyTo) this.copyTo(target, raw);
  }

  /** copy_to: the value goes to the target field as if the document had it at that full path. */
  private copyTo(target: string, raw: unknown): void {
    const leaf = this.m.leaves.get(target) ?? this.findDynamicLeaf(target);
    if (leaf !== undefined) {
      if (raw === null) this.addNull(leaf, false);
      else this.addValue(leaf, raw, false);
      return;
    }
    if (raw === null) return;
    const parts = target.split('.');
    let parent = this.m.root;
    let dyn: Dynamic = parent.dynamic ?? 'true';
    for (let i = 0; i < parts.length - 1; i++) {
      let next = this.child(parent, parts[i]);
      if (next === undefined) {
        if (dyn === 'strict') throw strictDynamicMapping(this.fullPath(parent), parts[i]);
        if (dyn === 'false') return;
        next = this.addDynamic(parent, newObjectNode(parts[i], this.pathOf(parent, parts[i])));
      } else if (next.kind === 'leaf') {
        throw mapperParsing(`Cannot copy to field [${target}] since it is mapped as [${next.type}] at [${next.path}]`);
      } else if (next.kind === 'alias') {
        throw iae(`Cannot copy to a field alias [${next.path}].`);
      }
      parent = next as ObjectNode;
      dyn = parent.dynamic ?? dyn;
    }
    const name = parts[parts.length - 1];
    const existing = this.child(parent, name);
    if (existing !== undefined) {
      if (existing.kind === 'object') throw iae(`Cannot copy to field [${target}] since it is mapped as an object`);
      if (existing.kind === 'alias') throw iae(`Cannot copy to a field alias [${target}].`);
      this.addValue(existing, raw, false);
      return;
    }
    if (dyn === 'strict') throw strictDynamicMapping(this.fullPath(parent), name);
    if (dyn === 'false' || isPlainObject(raw)) return;
    const node = this.addDynamic(parent, this.dynamicNode(parent, name, raw));
    if (node.kind === 'leaf') this.addValue(node, raw, false);
  }

  private findDynamicLeaf(path: string): LeafNode | undefined {
    if (this.overlay === null) return undefined;
    const find = (node: MappingNode): LeafNode | undefined => {
      if (node.kind === 'alias') return undefined;
      if (node.kind === 'leaf') {
        if (node.path === path) return node;
        for (const f of node.fields) if (f.path === path) return f;
        return undefined;
      }
      for (const c of node.children.values()) {
        const hit = find(c);
        if (hit !== undefined) return hit;
      }
      return undefined;
    };
    for (const [, node] of this.added) {
      const hit = find(node);
      if (hit !== undefined) return hit;
    }
    return undefined;
  }

  // ---- dynamic mapping ----------------------------------------------------------------------

  private fullPath(obj: ObjectNode): string {
    return obj === this.m.root ? this.m.typeName : obj.path;
  }

  private pathOf(parent: ObjectNode, name: string): string {
    return parent.path === '' ? name : `${parent.path}.${name}`;
  }

  /** Registers a new node under `parent` and gives its leaves slots. */
  private addDynamic(parent: ObjectNode, node: MappingNode): MappingNode {
    this.markCreated(node);
    if (!this.created.has(parent)) {
      this.overlay ??= new Map();
      let map = this.overlay.get(parent);
      if (map === undefined) {
        map = new Map();
        this.overlay.set(parent, map);
      }
      map.set(node.name, node);
      this.added.push([parent, node]);
    } else {
      parent.children.set(node.name, node); // a node this document created: ours to change
    }
    this.assignSlots(node);
    return node;
  }

  private markCreated(node: MappingNode): void {
    if (node.kind !== 'object') return;
    this.created.add(node);
    for (const c of node.children.values()) this.markCreated(c);
  }

  private assignSlots(node: MappingNode): void {
    if (node.kind === 'alias') return;
    if (node.kind === 'object') {
      for (const c of node.children.values()) this.assignSlots(c);
      return;
    }
    const need = this.nextSlot + 1 + node.fields.length;
    if (need > this.stamp.length) {
      const cap = Math.max(need, this.stamp.length * 2);
      const stamp = new Int32Array(cap);
      stamp.set(this.stamp);
      const idx = new Int32Array(cap);
      idx.set(this.slotIndex);
      this.stamp = stamp;
      this.slotIndex = idx;
    }
    node.slot = this.nextSlot++;
    for (const f of node.fields) f.slot = this.nextSlot++;
  }

  /** The node dynamic mapping gives an unmapped field (DocumentParser.createBuilderFromDynamicValue). */
  private dynamicNode(parent: ObjectNode, name: string, value: unknown): MappingNode {
    const path = this.pathOf(parent, name);
    const root = this.m.rootOptions;
    const fromTemplate = (type: DetectedType): MappingNode | null => {
      const def = templateMapping(root.dynamicTemplates, path, name, type);
      return def === null ? null : parseProperty(name, path, def, this.m.parseOptions);
    };
    if (isPlainObject(value)) return fromTemplate('object') ?? newObjectNode(name, path);
    if (typeof value === 'boolean') return fromTemplate('boolean') ?? this.leaf(name, path, 'boolean');
    if (typeof value === 'number') {
      if (Number.isInteger(value) && Math.abs(value) < TWO_POW_63) return fromTemplate('long') ?? this.leaf(name, path, 'long');
      return fromTemplate('double') ?? this.leaf(name, path, 'float');
    }
    const text = String(value);
    const asLong = isJavaLong(text);
    const asDouble = javaParseDouble(text) !== null;
    if (asLong && root.numericDetection === true) return fromTemplate('long') ?? this.leaf(name, path, 'long');
    if (asDouble && root.numericDetection === true) return fromTemplate('double') ?? this.leaf(name, path, 'float');
    if (!asLong && !asDouble && root.dateDetection !== false) {
      // a cheap check first: dates have at least two of '-', ':' or '/'
      for (const detector of this.dateDetectors) {
        if (!detector.matches(text)) continue;
        const pattern = detector.pattern;
        const templ = fromTemplate('date');
        if (templ !== null) {
          if (templ.kind === 'leaf' && templ.type === 'date' && templ.opts.format === null && pattern !== DEFAULT_DATE_FORMAT) {
            return makeLeaf(templ.name, templ.path, 'date', { ...templ.opts, format: pattern }, templ.fields, null);
          }
          return templ;
        }
        const opts = defaultLeafOptions('date');
        opts.format = pattern === DEFAULT_DATE_FORMAT ? null : pattern;
        return makeLeaf(name, path, 'date', opts, [], null);
      }
    }
    const templ = fromTemplate('string');
    if (templ !== null) return templ;
    const kwOpts = defaultLeafOptions('keyword');
    kwOpts.ignoreAbove = DYNAMIC_KEYWORD_IGNORE_ABOVE;
    const keyword = makeLeaf('keyword', `${path}.keyword`, 'keyword', kwOpts, [], path);
    return makeLeaf(name, path, 'text', defaultLeafOptions('text'), [keyword], null);
  }

  private leaf(name: string, path: string, type: 'boolean' | 'long' | 'float'): LeafNode {
    return makeLeaf(name, path, type, defaultLeafOptions(type), [], null);
  }

  /** `{"properties": {...}}` holding the new fields under the objects they belong to. */
  private dynamicUpdate(): Record<string, unknown> {
    const top: Record<string, unknown> = {};
    for (const [parent, node] of this.added) {
      let props = top;
      if (parent !== this.m.root) {
        let mapped: MappingNode | undefined = this.m.root;
        for (const part of parent.path.split('.')) {
          mapped = mapped?.kind === 'object' ? mapped.children.get(part) : undefined;
          let entry = getOwn(props, part) as Record<string, unknown> | undefined;
          if (entry === undefined) setOwn(props, part, (entry = {}));
          // A mapped nested object stays nested (the merge refuses to make it a plain object).
          if (mapped?.kind === 'object' && mapped.nested) entry.type = 'nested';
          entry.properties ??= {};
          props = entry.properties as Record<string, unknown>;
        }
      }
      setOwn(props, node.name, renderNode(node));
    }
    return { properties: top };
  }
}
