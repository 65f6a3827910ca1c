/**
 * Search contract between the DSL layer, the shard engine and the coordinator
 * (DESIGN.md section 2, "Searches"): a parsed search request, what one shard's
 * query phase returns, and the cursor a scroll continues from.
 */
import type { MatchSet } from '../aggs/types.ts';
import type { AnalyzerLookup } from '../analysis/types.ts';
import type { MappingLookup } from '../mapping/types.ts';
import type { FilterCache } from './filter-cache.ts';
import type { Query } from './query.ts';
import type { TermVectorsSpec } from './term-vectors.ts';
import type { HighlightSpec } from './highlight-options.ts';
import type { CollapseSpec } from './collapse.ts';
import type { SuggestRequest } from '../suggest/types.ts';

/**
 * A sort value as Elasticsearch reports it in `hits.hits[].sort`: numbers
 * (dates as epoch millis, booleans as 0/1), strings for keywords, null for a
 * missing keyword. Long.MIN/MAX_VALUE (missing numbers) are bigints so they
 * print exactly.
 */
export type SortValue = number | bigint | string | null;

export type SortOrder = 'asc' | 'desc';
export type SortMode = 'min' | 'max' | 'sum' | 'avg' | 'median';

export type SortSpec =
  | { readonly kind: 'score'; readonly order: SortOrder }
  | { readonly kind: 'doc'; readonly order: SortOrder }
  | {
      readonly kind: 'field';
      readonly field: string;
      readonly order: SortOrder;
      /** `_last` (default), `_first`, or a value used in place of a missing one. */
      readonly missing: '_last' | '_first' | string | number | boolean;
      /** Type to sort an unmapped field as (it then sorts as all-missing). */
      readonly unmappedType: string | null;
      readonly mode: SortMode | null;
      /** `nested.path` (or `nested_path`): the key comes from the nested objects of that path in each document. */
      readonly nestedPath?: string | null;
    }
  | {
      /** `_geo_distance`: the distance from the nearest of `points` (lat, lon) to the doc's points. */
      readonly kind: 'geo_distance';
      readonly field: string;
      readonly points: readonly (readonly [number, number])[];
      readonly order: SortOrder;
      /** Meters per unit of the reported distance. */
      readonly unitMeters: number;
      readonly plane: boolean;
      readonly mode: 'min' | 'max' | 'avg' | 'median' | null;
      readonly ignoreUnmapped: boolean;
    };

/** What `_source` to return: `fetch` false omits it; includes/excludes are path patterns with `*`. */
export interface SourceSpec {
  readonly fetch: boolean;
  readonly includes: readonly string[];
  readonly excludes: readonly string[];
}

/** Everything a shard needs to turn the request's query into an engine query. */
export interface ShardSearchContext {
  readonly mapping: MappingLookup;
  readonly analyzers: AnalyzerLookup;
  /** "now" for date math, fixed once per request so every shard agrees. */
  readonly nowMillis: number;
  readonly filterCache: FilterCache;
  /** The mapping type name (`ids` with `type`, `_type` in hits). */
  readonly typeName: string;
  /** Index name and uuid, for the `index`/`index_uuid` of shard-level errors. */
  readonly index?: string;
  readonly indexUuid?: string;
  /** The node holding the copy (`_node` of explained hits), when known. */
  readonly nodeId?: string;
}

/**
 * A parsed query that becomes an engine query on each shard (the mapping decides
 * field types and analyzers). Implemented by shared/dsl/query; throws the
 * shard-level EsErrors (query_shard_exception and friends).
 */
export interface QuerySource {
  toQuery(ctx: ShardSearchContext): Query;
  /** Whether some `nested` query in it asks for `inner_hits` (the fetch phase then renders them). */
  hasInnerHits?(): boolean;
  /** Elasticsearch's pretty-printed rendering of the query builder (used in error reasons). */
  toString(): string;
}

/** One of `script_fields`: a Painless script run per hit with `doc` and `params._source`. */
export interface ScriptFieldSpec {
  readonly name: string;
  /** The script's source (a stored script's, once the coordinator resolved it), or null while it names a stored id. */
  readonly source: string | null;
  readonly storedId: string | null;
  readonly params: Readonly<Record<string, unknown>>;
  readonly ignoreFailure: boolean;
}

export interface ParsedSearch {
  readonly query: QuerySource;
  /** Applied after aggregations: restricts hits only. */
  readonly postFilter: QuerySource | null;
  readonly from: number;
  readonly size: number;
  /** null = by score (descending), as without `sort`. */
  readonly sort: readonly SortSpec[] | null;
  readonly trackScores: boolean;
  readonly searchAfter: readonly SortValue[] | null;
  /** 0 = no limit. */
  readonly terminateAfter: number;
  readonly minScore: number | null;
  readonly version: boolean;
  /** `explain`: each hit carries `_explanation`. */
  readonly explain: boolean;
  /** `collapse`: one hit per value of a field. */
  readonly collapse: CollapseSpec | null;
  /** `highlight`: what each hit's `highlight` shows. */
  readonly highlight: HighlightSpec | null;
  /** Internal (`_termvectors`): each hit carries `_termvectors`. */
  readonly termVectors: TermVectorsSpec | null;
  readonly source: SourceSpec;
  /** `stored_fields` as given (null when absent); `_none_` disables fetching entirely. */
  readonly storedFields: readonly string[] | null;
  readonly docvalueFields: readonly string[];
  /** The raw `aggs`/`aggregations` object for the aggregation parser, or null. */
  readonly aggregations: Readonly<Record<string, unknown>> | null;
  /** `timeout` as given (`"10ms"`), or null. */
  readonly timeout: string | null;
  /** `indices_boost` resolved to index name/pattern → boost, in order. */
  readonly indicesBoost: readonly { readonly index: string; readonly boost: number }[];
  /**
   * Largest `rescore` window_size (default 10 per rescorer), or null without
   * rescore; the caller checks it against `index.max_rescore_window`. Rescoring
   * itself is not performed.
   */
  readonly rescoreWindow: number | null;
  /** Names of `script_fields` (checked against `index.max_script_fields`). */
  readonly scriptFields: readonly string[];
  /** The `script_fields` to compute for each hit, in request order. */
  readonly scriptFieldSpecs: readonly ScriptFieldSpec[];
  /** The `suggest` section, or null. */
  readonly suggest?: SuggestRequest | null;
}

export interface ShardQueryResult {
  /** Exact number of matching live docs (up to `terminate_after`). */
  readonly totalHits: number;
  /** NaN when scores were not computed. */
  readonly maxScore: number;
  /** Global doc ids in the snapshot, in sort order. */
  readonly docs: Int32Array;
  readonly scores: Float32Array;
  /**
   * Per hit when sorting by fields, else null. Also null in plain `_doc`
   * order, where a hit's only sort value is its doc.
   */
  readonly sortValues: SortValue[][] | null;
  /**
   * Present when every hit has one numeric sort value (a sort by time):
   * `sortValues[i]` is `[sortColumn[i]]`. The coordinator merges from it
   * and makes rows only for the page (a result from a shard worker makes
   * `sortValues` when first read).
   */
  readonly sortColumn?: Float64Array;
  /** true/false when `terminate_after` was given, else null. */
  readonly terminatedEarly: boolean | null;
  readonly matches: MatchSet[] | null;
}

/**
 * Hits rendered by a fetch phase as UTF-8 JSON, one object per hit, back to
 * back: hit i is bytes[starts[i], starts[i + 1]).
 */
export interface RenderedHits {
  readonly bytes: Buffer;
  /** Length hits + 1. */
  readonly starts: Uint32Array;
  /**
   * When present, `bytes` lives in a pooled buffer: the consumer calls this
   * once it has copied them onward and must not read them afterwards.
   */
  readonly release?: () => void;
}

/** Continue strictly after this hit (scroll over a pinned snapshot, search_after). */
export interface ShardCursor {
  readonly sortValues: readonly SortValue[] | null;
  readonly score: number;
  readonly doc: number;
}

export interface QueryPhaseOptions {
  /** from + size. */
  readonly size: number;
  readonly after?: ShardCursor | null;
  readonly collectMatches?: boolean;
  /**
   * With collectMatches: whether the matches carry their scores (an
   * aggregation reads them: top_hits, the samplers). Default true; false
   * saves a score array per segment.
   */
  readonly matchScores?: boolean;
}
