/**
 * The mapping of an index: one mapping type, as in Elasticsearch 6.x.
 * Immutable: `merge` returns a new Mapping. Built from the type's mapping JSON,
 * printed back as GET _mapping prints it, and used to parse documents.
 *
 *   const m = Mapping.fromJSON('doc', {properties: {plate: {type: 'keyword'}}});
 *   const parsed = m.parse({plate: 'ABC123', speed: 80});   // speed mapped dynamically
 *   const next = m.merge('doc', parsed.dynamicUpdate);
 */
import { javaCause } from '../../errors/es-errors.ts';
import { DocumentParser, type ParserMapping } from './document-parser.ts';
import { simpleMatch } from './dynamic-templates.ts';
import { javaHashSetOrder } from './java-hash-order.ts';
import { mergeRoot } from './mapping-merge.ts';
import { emptyRootOptions, newObjectNode, type AliasNode, type Dynamic, type LeafNode, type ObjectNode, type RootOptions } from './mapping-nodes.ts';
import { parseRootMapping, validateCopyTo, type MappingParseOptions } from './mapping-parser.ts';
import { renderRoot } from './mapping-render.ts';
import { QuickDocumentCheck } from './quick-document-check.ts';
import type { FieldMapping, MappingLookup, NestedDocument, ParsedDocument } from './types.ts';
import type { RootStream } from '../../json/json-steps.ts';

/** `index.mapping.total_fields.limit` default. */
export const DEFAULT_TOTAL_FIELDS_LIMIT = 1000;
/** `index.mapping.depth.limit` default. */
export const DEFAULT_DEPTH_LIMIT = 20;
/**
 * Elasticsearch counts its metadata mappers against the total fields limit:
 * in 6.8 _ignored, _uid, _id, _routing, _index, _source, _type, _all,
 * _version, _parent, _seq_no and _field_names.
 */
const METADATA_MAPPER_COUNT = 12;
/** Type name used in messages when documents arrive before any type exists. */
const DEFAULT_TYPE = '_doc';

export interface MappingOptions extends MappingParseOptions {
  /** Index name for error messages ("Rejecting mapping update to [index] ..."). */
  readonly index?: string;
  readonly totalFieldsLimit?: number;
  readonly depthLimit?: number;
  /** `index.mapping.nested_fields.limit`: how many `nested` objects the mapping may have. */
  readonly nestedFieldsLimit?: number;
}

/** `index.mapping.nested_fields.limit` default. */
export const DEFAULT_NESTED_FIELDS_LIMIT = 50;

export class Mapping implements MappingLookup {
  private readonly leaves = new Map<string, LeafNode>();
  private readonly objects = new Map<string, ObjectNode>();
  private readonly leafList: LeafNode[] = [];
  /** Nested objects by path, with the nested object each is under. */
  private readonly nestedObjects = new Map<string, { readonly parent: string | null }>();
  /** Leaves under a nested object: their innermost nested object. */
  private readonly leafNested = new Map<string, string>();
  /** Field aliases by their full path, in mapping order. */
  private readonly aliasNodes = new Map<string, AliasNode>();
  private parser: DocumentParser | null = null;
  private quick: QuickDocumentCheck | null = null;

  private constructor(
    /** The mapping type (`doc`, `_doc`, ...), null while the index has none. */
    readonly typeName: string | null,
    private readonly root: ObjectNode,
    private readonly rootOptions: RootOptions,
    private readonly parseOptions: MappingParseOptions,
  ) {
    const walk = (obj: ObjectNode, nested: string | null): void => {
      for (const child of obj.children.values()) {
        if (child.kind === 'object') {
          this.objects.set(child.path, child);
          if (child.nested) this.nestedObjects.set(child.path, { parent: nested });
          walk(child, child.nested ? child.path : nested);
          continue;
        }
        if (child.kind === 'alias') this.aliasNodes.set(child.path, child);
        else this.addLeaf(child, nested);
      }
    };
    walk(root, null);
  }

  private addLeaf(leaf: LeafNode, nested: string | null): void {
    leaf.slot = this.leafList.length;
    this.leafList.push(leaf);
    this.leaves.set(leaf.path, leaf);
    if (nested !== null) this.leafNested.set(leaf.path, nested);
    for (const sub of leaf.fields) this.addLeaf(sub, nested);
  }

  nestedObject(path: string): { readonly parent: string | null } | undefined {
    return this.nestedObjects.get(path);
  }

  nestedPathOf(field: string): string | null {
    return this.leafNested.get(field) ?? null;
  }

  /** Whether any object of the mapping is `nested`. */
  get hasNested(): boolean {
    return this.nestedObjects.size > 0;
  }

  /** A mapping from a type's mapping body (`{properties: {...}, dynamic, _source, ...}`, optionally wrapped in `{type: ...}`). */
  static fromJSON(typeName: string, body: unknown, opts: MappingOptions = {}): Mapping {
    const { root, rootOptions } = parseRootMapping(typeName, body, opts);
    const m = new Mapping(typeName, root, rootOptions, parserOptions(opts));
    m.checkAliases();
    m.checkLimits(opts);
    return m;
  }

  /** The mapping of an index without mappings. */
  static empty(typeName?: string): Mapping {
    return new Mapping(typeName ?? null, newObjectNode(typeName ?? '', ''), emptyRootOptions(), {});
  }

  /** This mapping with `body` merged in; throws Elasticsearch's errors for conflicting changes. */
  merge(typeName: string, body: unknown, opts: MappingOptions = {}): Mapping {
    if (this.typeName !== null && this.typeName !== typeName) {
      throw javaCause(
        'illegal_argument_exception',
        `Rejecting mapping update to [${opts.index ?? '_na_'}] as the final mapping would have more than 1 type: [${javaHashSetOrder([this.typeName, typeName]).join(', ')}]`,
      );
    }
    const update = parseRootMapping(typeName, body, opts);
    const base = this.typeName === null ? { ...this.root, name: typeName } : this.root;
    const merged = mergeRoot(base as ObjectNode, this.rootOptions, update.root, update.rootOptions);
    validateCopyTo(merged.root);
    const m = new Mapping(typeName, merged.root, merged.rootOptions, parserOptions({ ...this.parseOptions, ...opts }));
    m.checkAliases();
    m.checkLimits(opts);
    return m;
  }

  /**
   * FieldTypeLookup.validateAlias and MapperMergeValidator's nested-scope
   * check: an alias names an existing concrete field (not itself, an object
   * or another alias) in the same nested object as the alias.
   */
  private checkAliases(): void {
    for (const alias of this.aliasNodes.values()) {
      const name = alias.path;
      const target = alias.target;
      const invalid = (why: string) => javaCause('illegal_argument_exception', `Invalid [path] value [${target}] for field alias [${name}]: ${why}`);
      if (this.leaves.has(name)) {
        throw javaCause('illegal_argument_exception', `The name for field alias [${name}] has already been used to define a concrete field.`);
      }
      if (target === name) throw invalid('an alias cannot refer to itself.');
      if (this.aliasNodes.has(target)) throw invalid('an alias cannot refer to another alias.');
      if (!this.leaves.has(target)) throw invalid('an alias must refer to an existing field in the mappings.');
      const aliasScope = this.nestedScope(name);
      const targetScope = this.nestedScope(target);
      if (aliasScope !== targetScope) {
        throw invalid(
          'an alias must have the same nested scope as its target. ' +
            (aliasScope === null ? 'The alias is not nested' : `The alias's nested scope is [${aliasScope}]`) +
            ', but ' +
            (targetScope === null ? 'the target is not nested.' : `the target's nested scope is [${targetScope}].`),
        );
      }
    }
  }

  /** The innermost `nested` object above `path`, or null (MapperMergeValidator.getNestedScope). */
  private nestedScope(path: string): string | null {
    for (let dot = path.lastIndexOf('.'); dot > 0; dot = path.lastIndexOf('.', dot - 1)) {
      const parent = path.slice(0, dot);
      if (this.nestedObjects.has(parent)) return parent;
    }
    return null;
  }

  /** MapperService's total-fields and depth limits. */
  private checkLimits(opts: MappingOptions): void {
    const index = opts.index ?? '_na_';
    const total = this.objects.size + this.leafList.length + this.aliasNodes.size + METADATA_MAPPER_COUNT;
    const limit = opts.totalFieldsLimit ?? DEFAULT_TOTAL_FIELDS_LIMIT;
    if (total > limit) throw javaCause('illegal_argument_exception', `Limit of total fields [${limit}] in index [${index}] has been exceeded`);
    const nestedLimit = opts.nestedFieldsLimit ?? DEFAULT_NESTED_FIELDS_LIMIT;
    if (this.nestedObjects.size > nestedLimit) {
      throw javaCause('illegal_argument_exception', `Limit of nested fields [${nestedLimit}] in index [${index}] has been exceeded`);
    }
    const depthLimit = opts.depthLimit ?? DEFAULT_DEPTH_LIMIT;
    for (const path of this.objects.keys()) {
      const depth = path.split('.').length + 1;
      if (depth > depthLimit) {
        throw javaCause(
          'illegal_argument_exception',
          `Limit of mapping depth [${depthLimit}] in index [${index}] has been exceeded due to object field [${path}]`,
        );
      }
    }
  }

  /** The type's mapping body as Elasticsearch 6.8's GET _mapping prints it. */
  toJSON(): Record<string, unknown> {
    return renderRoot(this.root, this.rootOptions);
  }

  /** The field at `path`; for a field alias, its target's (whose `path` is the target's: what to read values from). */
  field(path: string): FieldMapping | undefined {
    const leaf = this.leaves.get(path);
    if (leaf !== undefined) return leaf.mapping;
    const alias = this.aliasNodes.get(path);
    return alias === undefined ? undefined : this.leaves.get(alias.target)?.mapping;
  }

  /** Field and field alias names matching the pattern (MapperService.simpleMatchToFullName). */
  matchingFields(pattern: string): string[] {
    if (!pattern.includes('*')) return this.leaves.has(pattern) || this.aliasNodes.has(pattern) ? [pattern] : [];
    const out: string[] = [];
    for (const leaf of this.leafList) if (simpleMatch(pattern, leaf.path)) out.push(leaf.path);
    for (const name of this.aliasNodes.keys()) if (simpleMatch(pattern, name)) out.push(name);
    return out.sort();
  }

  /** Full paths of the field aliases. */
  aliasNames(): string[] {
    return [...this.aliasNodes.keys()];
  }

  /** Each field alias with its target's mapping. */
  aliases(): [string, FieldMapping][] {
    const out: [string, FieldMapping][] = [];
    for (const alias of this.aliasNodes.values()) {
      const target = this.leaves.get(alias.target);
      if (target !== undefined) out.push([alias.path, target.mapping]);
    }
    return out;
  }

  /** Every leaf field, sub-fields included, sub-fields right after their parent. */
  fields(): FieldMapping[] {
    return this.leafList.map((l) => l.mapping);
  }

  /** True when `path` is an object (or nested) field. */
  isObject(path: string): boolean {
    return this.objects.has(path);
  }

  /** Paths of `nested` objects. */
  nestedPaths(): string[] {
    return [...this.nestedObjects.keys()];
  }

  /** The root `dynamic` setting (`true` unless given). */
  get dynamic(): Dynamic {
    return this.root.dynamic ?? 'true';
  }

  /** `_source.enabled` (true unless disabled). */
  get sourceEnabled(): boolean {
    return this.rootOptions.source?.enabled ?? true;
  }

  get sourceIncludes(): readonly string[] {
    return this.rootOptions.source?.includes ?? [];
  }

  get sourceExcludes(): readonly string[] {
    return this.rootOptions.source?.excludes ?? [];
  }

  /** `_routing.required`. */
  get routingRequired(): boolean {
    return this.rootOptions.routingRequired ?? false;
  }

  /** `_meta`, or null. */
  get meta(): Readonly<Record<string, unknown>> | null {
    return this.rootOptions.meta;
  }

  /**
   * The typed values of every field of a document, and the mapping of the
   * fields it introduced (`dynamicUpdate`, to merge before it counts as
   * indexed). Throws Elasticsearch's mapper_parsing_exception and
   * strict_dynamic_mapping_exception.
   */
  parse(source: Record<string, unknown>, nestedObjectsLimit?: number, materializeNested = true): ParsedDocument {
    if (this.parser === null) {
      this.parser = new DocumentParser(this.parserMapping());
    }
    return this.parser.parse(source, nestedObjectsLimit, materializeNested);
  }

  /**
   * True when parse() would accept the document (its JSON bytes, read
   * strictly) and find nothing to add to the mapping; false when only
   * parse() can tell (quick-document-check.ts). Builds no objects.
   */
  passesQuickCheck(doc: Uint8Array): boolean {
    this.quick ??= new QuickDocumentCheck(this.root);
    return this.quick.passes(doc);
  }

  /**
   * parse() as a generator of steps (DocumentParser.parseSteps), with a
   * parser of its own: other documents may be parsed between the steps.
   */
  parseInSteps(source: Record<string, unknown>, nestedObjectsLimit?: number): Generator<void, ParsedDocument> {
    return new DocumentParser(this.parserMapping()).parseSteps(source, nestedObjectsLimit);
  }

  /**
   * A parse of a document read as a stream of root fields, with a parser of
   * its own; its nested documents go to `onNested` as they are parsed
   * (DocumentParser.stream).
   */
  parseStreaming(nestedObjectsLimit: number, onNested: (doc: NestedDocument) => void): RootStream & { finish(): ParsedDocument } {
    return new DocumentParser(this.parserMapping()).stream(nestedObjectsLimit, onNested);
  }

  private parserMapping(): ParserMapping {
    return {
      typeName: this.typeName ?? DEFAULT_TYPE,
      root: this.root,
      rootOptions: this.rootOptions,
      leaves: this.leaves,
      leafCount: this.leafList.length,
      parseOptions: this.parseOptions,
    };
  }
}

function parserOptions(opts: MappingParseOptions): MappingParseOptions {
  return { analyzerExists: opts.analyzerExists, normalizerExists: opts.normalizerExists };
}
