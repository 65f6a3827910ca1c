/**
 * A query DSL object evaluated as a filter on one segment view (the `filter`
 * and `filters` aggregations, alias filters): the matching live docs as a
 * bitset. Parsed once per query object.
 */
import { andInto } from '../../engine/search/doc-bits.ts';
import { evaluate } from '../../engine/search/query-eval.ts';
import { acquireArena, releaseArena } from '../../engine/search/scratch-arena.ts';
import { ShardTermStats } from '../../engine/search/term-stats.ts';
import type { SegmentView } from '../../engine/segment/types.ts';
import type { ShardSearchContext } from '../../engine/search/types.ts';
import { DslQuery } from './build-query.ts';
import { jsonSourceOf } from './json-source.ts';
import { parseQuery } from './parse-query.ts';

const parsed = new WeakMap<object, DslQuery>();

/** Parses a query DSL object (`{"term": {...}}`) with Elasticsearch's errors. */
export function parseQueryObject(query: unknown): DslQuery {
  if (typeof query === 'object' && query !== null) {
    const hit = parsed.get(query);
    if (hit !== undefined) return hit;
  }
  const q = new DslQuery(parseQuery(jsonSourceOf(query)));
  if (typeof query === 'object' && query !== null) parsed.set(query, q);
  return q;
}

export function evaluateFilterBits(query: unknown, view: SegmentView, ctx: ShardSearchContext): Uint32Array {
  const q = parseQueryObject(query).toQuery(ctx);
  const stats = new ShardTermStats({ views: [view], maxDoc: view.segment.maxDoc, numDocs: view.numDocs });
  const arena = acquireArena();
  try {
    const set = evaluate(q, { view, segment: view.segment, stats, filterCache: ctx.filterCache, arena }, false);
    const bits = set.mutable ? set.bits : set.bits.slice();
    if (view.liveDocs !== null) andInto(bits, view.liveDocs);
    return bits;
  } finally {
    releaseArena(arena);
  }
}
