/**
 * What the fetch phase computes per hit beyond its stored fields, built once
 * per fetch from the search request: `highlight` (highlighter.ts),
 * `_explanation` (explain.ts) and the term vectors `_termvectors` asks for
 * (term-vectors.ts). Highlights and term vectors analyze the hit's stored
 * source again; the explanation re-evaluates the engine query on the hit's
 * segment, so it agrees with the query phase that chose the hit.
 */
import type { SearcherSnapshot, SegmentView } from '../segment/types.ts';
import { acquireArena, releaseArena } from './scratch-arena.ts';
import { explainQuery, explanationJson } from './explain.ts';
import { ShardTermStats } from './term-stats.ts';
import type { HitHooks } from './render-hit.ts';
import type { Query } from './query.ts';
import type { ParsedSearch, ShardSearchContext } from './types.ts';
import type { FieldMapping } from '../mapping/types.ts';
import { illegalArgument } from '../../errors/es-errors.ts';
import { setOwn } from '../../json/own-keys.ts';
import { resolveOptions, type HighlightSpec, type ResolvedHighlight } from './highlight-options.ts';
import { fieldTokens, indexAnalyzer } from './field-tokens.ts';
import { hasTerms, highlightField, termsForField } from './highlighter.ts';
import { collapseValue } from './collapse.ts';
import { storedFieldHooks } from './stored-field-hooks.ts';
import { nestedInnerHitQueries, nestedInnerHitsHooks } from './nested-inner-hits.ts';
import type { ParsedDocument } from '../mapping/types.ts';
import type { AnalyzerLookup } from '../analysis/types.ts';
import { SnapshotTermStatistics, buildTermVectors, type TermVectorsSpec } from './term-vectors.ts';

export interface FetchHookContext {
  readonly snapshot: SearcherSnapshot;
  readonly search: ParsedSearch;
  readonly shardCtx: ShardSearchContext;
  /** The index name (`_index` of nested inner hits). */
  readonly index?: string;
  /** `[index][shard]`, for `_shard` of an explained hit. */
  readonly shardLabel: string;
  /** The document as the mapping indexes it (null: the index has no mapping yet). */
  readonly parseSource: ((source: Record<string, unknown>) => ParsedDocument) | null;
  readonly analyzers: AnalyzerLookup;
}

/** The hooks a fetch needs, or undefined when the request asks for nothing beyond stored fields. */
export function fetchHooks(c: FetchHookContext, extra: readonly HitHooks[] = []): HitHooks | undefined {
  const parts: HitHooks[] = [...extra];
  const stored = storedFieldHooks(c.search.storedFields, c.shardCtx.mapping);
  if (stored !== null) parts.push(stored);
  if (c.search.termVectors !== null) parts.push(termVectorHooks(c, c.search.termVectors));
  if (c.search.highlight !== null) parts.push(highlightHooks(c, c.search.highlight));
  if (c.search.explain) parts.push(explainHooks(c));
  if (c.search.query.hasInnerHits?.() === true) {
    const queries = nestedInnerHitQueries(c.search.query.toQuery(c.shardCtx));
    let stats: ShardTermStats | null = null;
    if (queries.length > 0) {
      parts.push(nestedInnerHitsHooks(queries, { index: c.index ?? c.shardCtx.index ?? '', type: c.shardCtx.typeName, stats: () => (stats ??= new ShardTermStats(c.snapshot)) }));
    }
  }
  const collapse = c.search.collapse;
  if (collapse !== null) {
    // A collapsed hit shows its group's value in `fields` (under the name asked, a field alias's target's value), as Elasticsearch's does.
    const target = c.shardCtx.mapping.field(collapse.field)?.path ?? collapse.field;
    parts.push({
      fields: (view, doc) => {
        const v = collapseValue(view.segment, target, doc);
        return `${JSON.stringify(collapse.field)}:[${JSON.stringify(v)}]`;
      },
    });
  }
  if (parts.length === 0) return undefined;
  if (parts.length === 1) return parts[0];
  const join = (xs: string[]) => xs.filter((x) => x !== '').join(',');
  return {
    head: (view, doc) => join(parts.map((p) => p.head?.(view, doc) ?? '')),
    fields: (view, doc, source) => join(parts.map((p) => p.fields?.(view, doc, source) ?? '')),
    beforeSort: (view, doc, source) => join(parts.map((p) => p.beforeSort?.(view, doc, source) ?? '')),
    tail: (view, doc) => join(parts.map((p) => p.tail?.(view, doc) ?? '')),
  };
}

function explainHooks(c: FetchHookContext): HitHooks {
  let query: Query | null = null;
  let stats: ShardTermStats | null = null;
  const engineQuery = (): Query => (query ??= c.search.query.toQuery(c.shardCtx));
  const termStats = (): ShardTermStats => (stats ??= new ShardTermStats(c.snapshot));
  return {
    head: () => `"_shard":${JSON.stringify(c.shardLabel)},"_node":${JSON.stringify(c.shardCtx.nodeId ?? '')}`,
    tail: (view: SegmentView, doc: number) => {
      const arena = acquireArena();
      try {
        const e = explainQuery(engineQuery(), { view, segment: view.segment, stats: termStats(), filterCache: null, arena }, doc);
        return `"_explanation":${JSON.stringify(explanationJson(e))}`;
      } finally {
        releaseArena(arena);
      }
    },
  };
}

const FVH_NEEDS = (field: string) => `the field [${field}] should be indexed with term vector with position offsets to be used with fast vector highlighter`;

function highlightHooks(c: FetchHookContext, spec: HighlightSpec): HitHooks {
  const mapping = c.shardCtx.mapping;
  let mainQuery: Query | null = null;
  const queries = new Map<object, Query>();
  const queryOf = (opts: ResolvedHighlight): Query => {
    const src = opts.highlightQuery;
    if (src === null) return (mainQuery ??= c.search.query.toQuery(c.shardCtx));
    let q = queries.get(src);
    if (q === undefined) queries.set(src, (q = src.toQuery(c.shardCtx)));
    return q;
  };
  // Field patterns resolved once: text and keyword fields only, in the request's order.
  const fields: { path: string; field: FieldMapping; opts: ResolvedHighlight }[] = [];
  const seen = new Set<string>();
  for (const f of spec.fields) {
    const opts = resolveOptions(spec.global, f.options);
    const paths = f.name.includes('*') ? mapping.matchingFields(f.name) : [f.name];
    for (const path of paths) {
      const field = mapping.field(path);
      if (field === undefined || (field.type !== 'text' && field.type !== 'keyword') || seen.has(path)) continue;
      if (opts.type === 'fvh' && !(field.termVector ?? 'no').includes('positions_offsets')) throw illegalArgument(FVH_NEEDS(path));
      seen.add(path);
      fields.push({ path, field, opts });
    }
  }
  return {
    beforeSort: (_view, _doc, source) => {
      if (fields.length === 0 || c.parseSource === null) return '';
      const parsed = c.parseSource(JSON.parse(Buffer.from(source.buffer, source.byteOffset, source.length).toString('utf8')) as Record<string, unknown>);
      const out: Record<string, string[]> = {};
      let any = false;
      for (const { path, field, opts } of fields) {
        // a field alias is highlighted under its own name from its target's values and query terms
        const values = parsed.fields.filter((p) => p.mapping.path === field.path).flatMap((p) => p.values.map(String));
        if (values.length === 0) continue;
        const terms = termsForField(queryOf(opts), field.path, !opts.requireFieldMatch);
        if (!hasTerms(terms) && opts.noMatchSize <= 0) continue;
        const tokens = fieldTokens(values, indexAnalyzer(field, c.analyzers));
        const fragments = highlightField(values, tokens, terms, opts);
        if (fragments === null) continue;
        setOwn(out, path, fragments);
        any = true;
      }
      return any ? `"highlight":${JSON.stringify(out)}` : '';
    },
  };
}

function termVectorHooks(c: FetchHookContext, spec: TermVectorsSpec): HitHooks {
  const stats = new SnapshotTermStatistics(c.snapshot);
  return {
    beforeSort: (_view, _doc, source) => {
      if (c.parseSource === null) return '"_termvectors":{}';
      const doc = spec.doc ?? (JSON.parse(Buffer.from(source.buffer, source.byteOffset, source.length).toString('utf8')) as Record<string, unknown>);
      return `"_termvectors":${JSON.stringify(buildTermVectors(c.parseSource(doc), spec, c.shardCtx.mapping, c.analyzers, stats))}`;
    },
  };
}
