/** What a shard's suggesters read: its view, mapping and analyzers. */
import type { AnalyzerLookup } from '../analysis/types.ts';
import type { MappingLookup } from '../mapping/types.ts';
import type { SearcherSnapshot } from '../segment/types.ts';
import type { SourceSpec } from '../search/types.ts';

export interface SuggestShardContext {
  readonly snapshot: SearcherSnapshot;
  readonly mapping: MappingLookup;
  readonly analyzers: AnalyzerLookup;
  readonly index: string;
  readonly typeName: string;
  /** The request's `_source` filtering, for completion options' `_source`. */
  readonly source: SourceSpec;
}
