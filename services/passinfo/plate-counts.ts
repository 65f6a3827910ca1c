/**
 * Passes per plate of a query, for region collision and day-hidden /
 * night-out: a `terms` aggregation on `plate.keyword` (one request, the
 * search service counts) when the query's plates fit in one, else every
 * pass read by scroll (`_doc` order, only the plate) into the same map, so
 * windows of millions of passes and plates still work.
 *
 * The aggregation's counts are exact when it left no passes out
 * (`sum_other_doc_count` 0: every shard returned all of its plates and the
 * reduce kept them all); otherwise it is not used.
 */
import type { SearchClient } from './search-client.ts';

/**
 * Plates asked of the aggregation: Elasticsearch's `search.max_buckets`
 * default in 7.0 (6.8 warns beyond it), so the application works against
 * Elasticsearch unchanged.
 */
export const MAX_AGGREGATED_PLATES = 10_000;

export interface PlateCounts {
  /** Passes of each plate. */
  readonly counts: Map<string, number>;
  /** Passes matched by the query (read, when scrolled). */
  readonly passes: number;
}

interface TermsAnswer {
  readonly sum_other_doc_count?: number;
  readonly buckets: readonly { readonly key: string; readonly doc_count: number }[];
}

export async function platePassCounts(
  client: SearchClient,
  index: string,
  query: object,
  options: { readonly batchSize: number; readonly maxAggregated?: number },
): Promise<PlateCounts> {
  const size = options.maxAggregated ?? MAX_AGGREGATED_PLATES;
  if (size > 0) {
    const res = await client.search<never>(index, { size: 0, query, aggs: { plates: { terms: { field: 'plate.keyword', size } } } }, `plates [${index}]`);
    const plates = res.aggregations?.plates as TermsAnswer | undefined;
    if (plates !== undefined && (plates.sum_other_doc_count ?? 0) === 0) {
      const counts = new Map<string, number>();
      for (const b of plates.buckets) counts.set(String(b.key), b.doc_count);
      return { counts, passes: res.hits.total };
    }
  }
  const counts = new Map<string, number>();
  let passes = 0;
  for await (const batch of client.scroll<{ plate: string }>(index, { query, _source: ['plate'] }, { batchSize: options.batchSize })) {
    passes += batch.length;
    for (const hit of batch) counts.set(hit._source.plate, (counts.get(hit._source.plate) ?? 0) + 1);
  }
  return { counts, passes };
}
