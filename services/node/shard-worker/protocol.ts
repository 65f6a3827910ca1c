/**
 * Messages between a node's main thread and its shard worker threads.
 *
 * A shard copy is split along DESIGN.md's two halves: the main thread
 * consumes the copy's partition and tells the coordinators the outcome of
 * each op; the copy's worker is its indexer and holds all of its state: it
 * applies the ops in offset order against its version map, analyzes and
 * indexes the documents, refreshes, merges, commits (segment files and the
 * version map with the log offset they cover), and runs the shard's realtime
 * gets and its query and fetch phases. Messages on one port arrive in order,
 * and a copy handles its messages one after another, so a get or search
 * posted after an apply or a refresh sees it.
 *
 * Everything here is plain data (structured clone); errors travel as
 * RemoteError records, as they do between nodes.
 */
import type { IndexSettings } from '../../../shared/engine/mapping/index-settings.ts';
import type { ShardAggState } from '../../../shared/engine/aggs/state.ts';
import type { ShardSuggestResult } from '../../../shared/engine/suggest/types.ts';
import type { ShardCursor, ShardQueryResult } from '../../../shared/engine/search/types.ts';
import type { SearchUrlParams } from '../../../shared/dsl/query/search-body.ts';
import type { RemoteError } from '../../../shared/errors/transport-errors.ts';
import type { PackedSortRows } from './sort-rows.ts';
import type { CopyCounterFigures } from './copy-counters.ts';

/** What a worker needs of an index's metadata, as data. */
export interface CopyMeta {
  readonly name: string;
  readonly uuid: string;
  readonly settings: IndexSettings;
  readonly typeName: string | null;
  /** The mapping as `Mapping.toJSON()` gives it, null until the index has one. */
  readonly mappingJson: string | null;
  readonly mappingVersion: number;
  /**
   * A rebuild in progress reads another index's log: a document its mapping
   * refuses fails the rebuild (it is not kept unsearchable, as a document
   * whose mapping changed after it was validated is).
   */
  readonly rebuilding: boolean;
}

/**
 * Figures a copy reports after each refresh, merge or commit, and on request
 * (`stats`): `_stats`, `_nodes/stats`, `_cat/indices`, `_cat/shards`, health.
 */
export interface SegmentStats {
  readonly docCount: number;
  readonly deletedCount: number;
  readonly sizeInBytes: number;
  readonly segmentCount: number;
  /** Log offset the last commit covers, summed over the partitions the copy reads (one, but for a rebuild): a restart replays from there. */
  readonly committedOffset: number;
  /** Heap the segments hold (those still in memory, live-docs bitsets). */
  readonly segmentMemoryBytes: number;
  /** Version-map entries not yet committed (Elasticsearch's version map). */
  readonly versionMapEntries: number;
  /** Bytes of the segments' files on disk, by extension (`include_segment_file_sizes`). */
  readonly fileSizes: Readonly<Record<string, number>>;
  /** What the copy did since it opened (copy-counters.ts). */
  readonly counters: CopyCounterFigures;
}

/** One segment as `_segments` describes it (ShardIndex.describeSegments). */
export interface WireSegment {
  readonly id: number;
  readonly maxDoc: number;
  readonly numDocs: number;
  readonly sizeInBytes: number;
  readonly memoryInBytes: number;
  readonly inMemory: boolean;
  readonly committed: boolean;
  readonly files: Readonly<Record<string, number>>;
}

export interface QueryMessage {
  readonly t: 'query';
  readonly seq: number;
  readonly copy: number;
  /** The context to pin a first page's view under, or the context a continuation reads. */
  readonly contextId: number;
  readonly continuation: boolean;
  /** The search as the client sent it (first pages); the worker parses it. */
  readonly body: unknown;
  readonly url: SearchUrlParams | null;
  /** Equal for the shards of one search of one index: a worker parses such a body once. */
  readonly parseKey: number;
  readonly size: number;
  readonly after: ShardCursor | null;
  readonly nowMillis: number;
  /** A first page that opens a scroll (its context counts in the scroll stats until freed). */
  readonly scroll: boolean;
  /** `search.max_buckets` for the aggregations, when limited. */
  readonly maxBuckets?: number;
  /**
   * A first page nothing will be fetched from or continued (`size` 0, no
   * scroll): the worker lets its view go as soon as it answered, and the node
   * forgets the context then, so no message frees it afterwards.
   */
  readonly transient?: boolean;
  /**
   * A first page whose hits from this position of the copy's list on are
   * rendered with the answer (ShardQueryRequest.renderFrom); it is transient.
   */
  readonly renderFrom?: number;
  /**
   * With renderFrom: the shards of this search (this number names it) in one
   * worker may render only the hits that can be on the page (render-cut.ts;
   * ShardQueryRequest.renderCut).
   */
  readonly renderCut?: number;
}

export interface FetchMessage {
  readonly t: 'fetch';
  readonly seq: number;
  readonly copy: number;
  readonly contextId: number;
  readonly docs: Int32Array;
  readonly scores: Float64Array;
  readonly sortValues: PackedSortRows;
  readonly release: boolean;
  /** The next scroll page's query phase on the context, run after the fetch (ShardFetchRequest.queryNext). */
  readonly next?: { readonly after: ShardCursor; readonly size: number; readonly nowMillis: number };
}

export type ToWorker =
  | OpenMessage
  | { readonly t: 'meta'; readonly copy: number; readonly meta: CopyMeta }
  | {
      readonly t: 'apply';
      readonly seq: number;
      readonly copy: number;
      /** Records of one partition of the copy's log, in offset order. */
      readonly partition: number;
      readonly records: Uint8Array;
      /**
       * The offset after the batch the records came from: a copy of a shared
       * log is sent only its own shard's records, and has read up to here.
       */
      readonly end: number;
    }
  | { readonly t: 'get'; readonly seq: number; readonly copy: number; readonly ids: readonly string[] }
  | { readonly t: 'refresh'; readonly copy: number }
  /** A commit now (`_flush`, a clean shutdown). */
  | { readonly t: 'flush'; readonly seq: number; readonly copy: number }
  /** Forget everything and start from offset 0 (the log lost records the copy had applied). */
  | { readonly t: 'reset'; readonly seq: number; readonly copy: number }
  | { readonly t: 'close'; readonly seq: number; readonly copy: number; readonly flush: boolean }
  /** The copy's figures now (answered with SegmentStats). */
  | { readonly t: 'stats'; readonly seq: number; readonly copy: number }
  /** Its segments (answered with WireSegment[]). */
  | { readonly t: 'segments'; readonly seq: number; readonly copy: number }
  /** `_forcemerge` (CopyEngine.forceMerge). */
  | { readonly t: 'forcemerge'; readonly seq: number; readonly copy: number; readonly maxNumSegments: number; readonly onlyExpungeDeletes: boolean; readonly flush: boolean }
  /** `_cache/clear`: the copy's filter cache. */
  | { readonly t: 'clear_cache'; readonly seq: number; readonly copy: number }
  | QueryMessage
  | FetchMessage
  /** Contexts the node freed (released, expired, cleared). */
  | { readonly t: 'drop'; readonly contextIds: readonly number[] }
  | { readonly t: 'ping'; readonly seq: number }
  /**
   * The node's count of shard searches in flight (searches-first.ts): the
   * worker's indexing slices wait for them; and the count of query and fetch
   * messages posted to this worker and not received: its slice ends at once.
   */
  | { readonly t: 'searches'; readonly buffer: SharedArrayBuffer; readonly posted: SharedArrayBuffer }
  /** Answered once the copy handled everything posted to it before (a refresh and its figures included). */
  | { readonly t: 'settle'; readonly seq: number; readonly copy: number }
  /** Messages posted in one turn of the event loop, in order (one postMessage instead of one each). */
  | { readonly t: 'batch'; readonly messages: readonly ToWorker[] };

export interface OpenMessage {
  readonly t: 'open';
  readonly seq: number;
  readonly copy: number;
  readonly shard: number;
  /**
   * The partitions of its log the copy reads (its own, or every partition of
   * a log it shares with the index it was rebuilt from), and the number of
   * partitions of that log.
   */
  readonly partitions: readonly number[];
  readonly logPartitions: number;
  readonly meta: CopyMeta;
  /** The copy's data directory. */
  readonly dir: string;
}

/** [partition, offset] of a copy's log. */
export type PartitionOffset = readonly [partition: number, offset: number];

/** How a copy opened: from its last commit, empty, or emptied because its files could not be used. */
export interface OpenReply {
  /** Per partition the copy reads, the offset of the first record to apply. */
  readonly nextOffsets: readonly PartitionOffset[];
  readonly recovery: 'existing_store' | 'empty_store' | 'rebuilt';
  /** Why the copy was rebuilt (a damaged segment file, an older format), for the node's log. */
  readonly reason: string | null;
}

/** Outcomes of an applied batch, one per record, in order. */
export interface ApplyReply {
  /** Index into APPLY_RESULTS, -1 for a refused op (its error in `errors`), SKIPPED for an op of another shard. */
  readonly results: Int8Array;
  readonly versions: Float64Array;
  readonly seqNos: Float64Array;
  /** Per op: its error when refused; null when every op succeeded. */
  readonly errors: (RemoteError | null)[] | null;
  /** Per op: the document's source after an update (the update API can return it); null when no op was an update. */
  readonly sources: (Uint8Array | null)[] | null;
  /** A rebuild in progress: the first document of the batch the new mapping refused, and why (the rebuild fails). */
  readonly refusal?: string | null;
}

/**
 * The context of the `error` a copy posts when a merge found one of its segment files damaged: the
 * node rebuilds the copy from the log (ShardCopy), as when the open finds one.
 */
export const DAMAGED_SEGMENT = 'damaged segment';

export const APPLY_RESULTS = ['created', 'updated', 'deleted', 'not_found', 'noop'] as const;
/** The result of a record of a shared log that routes to another shard of the index: no outcome. */
export const SKIPPED = -2;

/** A document as a realtime get sees it. */
export interface WireDocState {
  readonly version: number;
  readonly seqNo: number;
  readonly deleted: boolean;
  readonly routing: string | null;
  readonly source: Uint8Array | null;
}

export interface QueryReply {
  readonly result: Omit<ShardQueryResult, 'matches' | 'sortValues'> & { readonly sortValues: PackedSortRows | null };
  readonly aggs: ShardAggState | null;
  readonly suggest: ShardSuggestResult | null;
  /** The hits from QueryMessage.renderFrom on, when it asked for them. */
  readonly rendered?: FetchReply | null;
}

export interface FetchReply {
  /** Hit i is bytes[starts[i], starts[i + 1]). */
  readonly bytes: Uint8Array;
  readonly starts: Uint32Array;
  /** The query phase FetchMessage.next asked for; null when it failed (the next page asks again). */
  readonly next?: QueryReply['result'] | null;
}

export type FromWorker =
  | { readonly t: 'reply'; readonly seq: number; readonly value: unknown }
  | { readonly t: 'fail'; readonly seq: number; readonly error: RemoteError }
  | { readonly t: 'stats'; readonly copy: number; readonly stats: SegmentStats }
  /** Something failed outside any request (indexing a batch, a merge): for the node's log. */
  | { readonly t: 'error'; readonly copy: number; readonly context: string; readonly error: RemoteError }
  | { readonly t: 'batch'; readonly messages: readonly FromWorker[] };
