/**
 * What the fetch phase computes per hit beyond its stored fields, built once
 * per fetch from the search request: `_explanation` (explain.ts) and the
 * term vectors `_termvectors` asks for (term-vectors.ts). The explanation
 * re-evaluates the engine query on the hit's segment, so it agrees with the
 * query phase that chose the hit.
 */
import type { SearcherSnapshot, SegmentView } from '../segment/types.ts';
import { acquireArena, releaseArena } from './scratch-arena.ts';
import { explainQuery, explanationJson } from './explain.ts';
import { ShardTermStats } from './term-stats.ts';
import type { HitHooks } from './render-hit.ts';
import type { Query } from './query.ts';
import type { ParsedSearch, ShardSearchContext } from './types.ts';
import type { ParsedDocument } from '../mapping/types.ts';
import type { AnalyzerLookup } from '../analysis/types.ts';
import { SnapshotTermStatistics, buildTermVectors, type TermVectorsSpec } from './term-vectors.ts';

export interface FetchHookContext {
  readonly snapshot: SearcherSnapshot;
  readonly search: ParsedSearch;
  readonly shardCtx: ShardSearchContext;
  /** `[index][shard]`, for `_shard` of an explained hit. */
  readonly shardLabel: string;
  /** The document as the mapping indexes it (null: the index has no mapping yet). */
  readonly parseSource: ((source: Record<string, unknown>) => ParsedDocument) | null;
  readonly analyzers: AnalyzerLookup;
}

/** The hooks a fetch needs, or undefined when the request asks for nothing beyond stored fields. */
export function fetchHooks(c: FetchHookContext): HitHooks | undefined {
  const tv = c.search.termVectors;
  if (tv !== null) return termVectorHooks(c, tv);
  if (!c.search.explain) return undefined;
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
