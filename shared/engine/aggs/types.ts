/**
 * Aggregation contract between the search layer and the aggregations.
 *
 * A shard collects partial states from the docs a query matched; the
 * coordinator reduces the partial states of all shards and then runs the
 * pipeline aggregations on the reduced tree.
 */
import type { MappingLookup } from '../mapping/types.ts';
import type { AnalyzerLookup } from '../analysis/types.ts';
import type { SegmentView } from '../segment/types.ts';

/** The docs one query matched in one segment view. */
export interface MatchSet {
  readonly view: SegmentView;
  /** Bit d set = local doc d matched (already restricted to live docs). Length ceil(maxDoc/32). */
  readonly bits: Uint32Array;
  /** Score per local doc when the query scored, else null. */
  readonly scores: Float32Array | null;
  /** `bits` are the query phase's own (not the filter cache's): given back (recycled-bits.ts) once the aggregations are built. */
  readonly owned?: boolean;
}

export interface AggContext {
  readonly mapping: MappingLookup;
  /** Evaluates a query DSL object (for `filter`/`filters` aggs) as a filter on one segment view; live docs only. */
  filterBits(query: unknown, view: SegmentView): Uint32Array;
  /** "now" for date math, fixed once per request so every shard agrees. */
  readonly nowMillis: number;
  /** `_index` of hits rendered by top_hits (the concrete index name). */
  readonly indexName?: string;
  /** `_type` of hits rendered by top_hits. */
  readonly typeName?: string;
  /**
   * number_of_shards of the index (the terms shard_size heuristic depends on
   * it, as in Elasticsearch); default 5.
   */
  readonly numberOfShards?: number;
  /** `search.max_buckets`: the most buckets this shard may return; no limit when absent. */
  readonly maxBuckets?: number;
  /** The index's analyzers (significant_text re-analyses `_source`). */
  readonly analyzers?: AnalyzerLookup;
  /** `index.max_adjacency_matrix_filters` of the index (default 100). */
  readonly maxAdjacencyMatrixFilters?: number;
}
