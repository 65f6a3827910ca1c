/**
 * Merging a mapping update into a mapping, as Elasticsearch 6.8's
 * DocumentMapper.merge and FieldTypeLookup.checkCompatibility do: new fields
 * and sub-fields are added, a field's type never changes ("mapper [f] of
 * different type, current_type [long], merged_type [text]"), and settings
 * that shape the index (analyzer, index, doc_values, format, ...) may not
 * change ("Mapper for [f] conflicts with existing mapping:\n[...]"). The
 * result is a fresh tree: nodes are never shared between mappings.
 */
import { javaCause } from '../../errors/es-errors.ts';
import { geoShapeConflicts } from './geo-shape-params.ts';
import { makeLeaf } from './leaf-field.ts';
import { newObjectNode, type LeafNode, type MappingNode, type ObjectNode, type RootOptions } from './mapping-nodes.ts';

function iae(reason: string): ReturnType<typeof javaCause> {
  return javaCause('illegal_argument_exception', reason);
}

/** A deep copy (mappings never share nodes, see mapping-nodes.ts). */
export function cloneNode<T extends MappingNode>(node: T): T {
  if (node.kind === 'leaf') {
    return makeLeaf(node.name, node.path, node.type, { ...node.opts, copyTo: [...node.opts.copyTo] }, node.fields.map(cloneNode), node.parent) as T;
  }
  if (node.kind === 'alias') return { ...node };
  const o = newObjectNode(node.name, node.path);
  o.nested = node.nested;
  o.includeInParent = node.includeInParent;
  o.includeInRoot = node.includeInRoot;
  o.dynamic = node.dynamic;
  o.enabled = node.enabled;
  o.enabledGiven = node.enabledGiven;
  for (const [k, child] of node.children) o.children.set(k, cloneNode(child));
  return o as T;
}

function termVectorFlags(tv: string): [boolean, boolean, boolean, boolean] {
  return [tv !== 'no', tv.includes('offsets'), tv.includes('positions'), tv.includes('payloads')];
}

/** The analyzer name MappedFieldType compares (null and `default` both mean the default). */
function indexAnalyzer(leaf: LeafNode): string | null {
  if (leaf.type === 'text') return leaf.opts.analyzer === null || leaf.opts.analyzer === 'default' ? null : leaf.opts.analyzer;
  if (leaf.type === 'keyword') return leaf.opts.normalizer ?? 'keyword';
  return null;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** MappedFieldType.checkCompatibility and the type-specific checks, in Elasticsearch's order. */
function conflicts(a: LeafNode, b: LeafNode): string[] {
  const p = a.path;
  const out: string[] = [];
  if (a.opts.index !== b.opts.index) out.push(`mapper [${p}] has different [index] values`);
  if (a.opts.store !== b.opts.store) out.push(`mapper [${p}] has different [store] values`);
  if (a.mapping.docValues !== b.mapping.docValues) out.push(`mapper [${p}] has different [doc_values] values`);
  const aNorms = a.opts.norms ?? a.type === 'text';
  const bNorms = b.opts.norms ?? b.type === 'text';
  if (!aNorms && bNorms) out.push(`mapper [${p}] has different [norms] values, cannot change from disable to enabled`);
  const ta = termVectorFlags(a.opts.termVector);
  const tb = termVectorFlags(b.opts.termVector);
  const tvNames = ['store_term_vector', 'store_term_vector_offsets', 'store_term_vector_positions', 'store_term_vector_payloads'];
  for (let i = 0; i < 4; i++) if (ta[i] !== tb[i]) out.push(`mapper [${p}] has different [${tvNames[i]}] values`);
  if (indexAnalyzer(a) !== indexAnalyzer(b)) out.push(`mapper [${p}] has different [analyzer]`);
  if (a.opts.similarity !== b.opts.similarity) out.push(`mapper [${p}] has different [similarity]`);
  switch (a.type) {
    case 'text':
      if (!sameJson(a.opts.indexPrefixes, b.opts.indexPrefixes)) out.push(`mapper [${p}] has different [index_prefixes] settings`);
      if (a.opts.indexPhrases !== b.opts.indexPhrases) out.push(`mapper [${p}] has different [index_phrases] settings`);
      break;
    case 'keyword':
      if (a.opts.normalizer !== b.opts.normalizer) out.push(`mapper [${p}] has different [normalizer]`);
      break;
    case 'date':
      if (a.formatter?.pattern !== b.formatter?.pattern) out.push(`mapper [${p}] has different [format] values`);
      if (a.opts.locale !== b.opts.locale) out.push(`mapper [${p}] has different [locale] values`);
      break;
    case 'scaled_float':
      if (a.opts.scalingFactor !== b.opts.scalingFactor) out.push(`mapper [${p}] has different [scaling_factor]`);
      break;
    case 'geo_shape':
      out.push(...geoShapeConflicts(p, a.opts, b.opts));
      break;
  }
  return out;
}

/** Pairs of (existing, update) leaves whose compatibility is checked once the whole tree has merged. */
type Pairs = [LeafNode, LeafNode][];

function mergeLeaf(a: LeafNode, b: LeafNode, pairs: Pairs): LeafNode {
  if (a.type !== b.type) {
    throw iae(`mapper [${a.path}] of different type, current_type [${a.type}], merged_type [${b.type}]`);
  }
  pairs.push([a, b]);
  const fields = new Map<string, LeafNode>();
  for (const f of a.fields) fields.set(f.name, cloneNode(f));
  for (const f of b.fields) {
    const existing = a.fields.find((x) => x.name === f.name);
    fields.set(f.name, existing === undefined ? cloneNode(f) : mergeLeaf(existing, f, pairs));
  }
  // the update's definition wins for everything that may change (ignore_above, search_analyzer, copy_to, ...)
  return makeLeaf(b.name, b.path, b.type, { ...b.opts, copyTo: [...b.opts.copyTo] }, [...fields.values()], a.parent);
}

function mergeObject(a: ObjectNode, b: ObjectNode, pairs: Pairs): ObjectNode {
  if (a.nested && !b.nested) throw iae(`object mapping [${a.path || a.name}] can't be changed from nested to non-nested`);
  if (!a.nested && b.nested) throw iae(`object mapping [${a.path || a.name}] can't be changed from non-nested to nested`);
  const o = cloneNode({ ...a, children: new Map() } as ObjectNode);
  if (b.dynamic !== null) o.dynamic = b.dynamic;
  for (const [k, child] of a.children) o.children.set(k, cloneNode(child));
  for (const [k, child] of b.children) {
    const existing = a.children.get(k);
    o.children.set(k, existing === undefined ? cloneNode(child) : mergeAny(existing, child, pairs));
  }
  return o;
}

function mergeAny(a: MappingNode, b: MappingNode, pairs: Pairs): MappingNode {
  // FieldAliasMapper.merge: an alias may change its path (checked against the merged mapping), nothing else
  if (a.kind === 'alias') {
    if (b.kind !== 'alias') throw iae(`Cannot merge a field alias mapping [${a.path}] with a mapping that is not for a field alias.`);
    return { ...b };
  }
  if (b.kind === 'alias') {
    if (a.kind === 'object') throw iae(`Can't merge a non object mapping [${b.path}] with an object mapping [${a.path}]`);
    throw iae(`mapper [${a.path}] of different type, current_type [${a.type}], merged_type [FieldAliasMapper]`);
  }
  if (a.kind === 'leaf') {
    if (b.kind === 'object') throw iae(`mapper [${a.path}] of different type, current_type [${a.type}], merged_type [ObjectMapper]`);
    return mergeLeaf(a, b, pairs);
  }
  if (b.kind === 'leaf') throw iae(`Can't merge a non object mapping [${b.path}] with an object mapping [${a.path}]`);
  return mergeObject(a, b, pairs);
}

function checkPairs(pairs: Pairs): void {
  for (const [a, b] of pairs) {
    const found = conflicts(a, b);
    if (found.length > 0) throw iae(`Mapper for [${a.path}] conflicts with existing mapping:\n[${found.join(', ')}]`);
  }
}

/** Merges two nodes of the same name (also used when one mapping defines a path twice, `a` and `a.b`). */
export function mergeNodes(a: MappingNode, b: MappingNode): MappingNode {
  const pairs: Pairs = [];
  const merged = mergeAny(a, b, pairs);
  checkPairs(pairs);
  return merged;
}

function sameList(a: readonly string[] | null, b: readonly string[] | null): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
}

/** Root options: explicit values of the update win, metadata fields follow their mappers' merge rules. */
function mergeRootOptions(a: RootOptions, b: RootOptions): RootOptions {
  if (b.source !== null) {
    const cur = a.source ?? { enabled: true, includes: null, excludes: null };
    const problems: string[] = [];
    if (cur.enabled !== b.source.enabled) problems.push('Cannot update enabled setting for [_source]');
    if (!sameList(cur.includes, b.source.includes)) problems.push('Cannot update includes setting for [_source]');
    if (!sameList(cur.excludes, b.source.excludes)) problems.push('Cannot update excludes setting for [_source]');
    if (problems.length > 0) throw iae(`Can't merge because of conflicts: [${problems.join(', ')}]`);
  }
  return {
    dateDetection: b.dateDetection ?? a.dateDetection,
    numericDetection: b.numericDetection ?? a.numericDetection,
    dynamicDateFormats: b.dynamicDateFormats ?? a.dynamicDateFormats,
    dynamicTemplates: b.dynamicTemplates ?? a.dynamicTemplates,
    source: a.source ?? b.source,
    // RoutingFieldMapper and AllFieldMapper keep what the type was created with
    routingRequired: a.routingRequired,
    allEnabled: a.allEnabled ?? b.allEnabled,
    fieldNamesEnabled: b.fieldNamesEnabled ?? a.fieldNamesEnabled,
    meta: b.meta ?? a.meta,
  };
}

export function mergeRoot(
  a: ObjectNode,
  aOpts: RootOptions,
  b: ObjectNode,
  bOpts: RootOptions,
): { root: ObjectNode; rootOptions: RootOptions } {
  const pairs: Pairs = [];
  const root = mergeObject(a, b, pairs);
  checkPairs(pairs);
  return { root, rootOptions: mergeRootOptions(aOpts, bOpts) };
}
