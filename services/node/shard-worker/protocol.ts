/**
 * Messages between a node's main thread and its shard worker threads.
 *
 * A shard copy is split along DESIGN.md's two halves: the main thread
 * consumes the copy's partition and applies each op to the doc store (the
 * durable state, with the checkpoint), and the copy's worker holds its
 * searchable segments: it analyzes and indexes the documents the applied ops
 * produced, refreshes, merges, and runs the shard's query and fetch phases.
 * Messages on one port arrive in order, so a search posted after a refresh
 * sees what the refresh made visible.
 *
 * Everything here is plain data (structured clone); errors travel as
 * RemoteError records, as they do between nodes.
 */
import type { IndexSettings } from '../../../shared/engine/mapping/index-settings.ts';
import type { ShardAggState } from '../../../shared/engine/aggs/state.ts';
import type { ShardCursor, ShardQueryResult } from '../../../shared/engine/search/types.ts';
import type { SearchUrlParams } from '../../../shared/dsl/query/search-body.ts';
import type { RemoteError } from '../transport/transport-errors.ts';
import type { PackedSortRows } from './sort-rows.ts';

/** What a worker needs of an index's metadata, as data. */
export interface CopyMeta {
  readonly name: string;
  readonly uuid: string;
  readonly settings: IndexSettings;
  readonly typeName: string | null;
  /** The mapping as `Mapping.toJSON()` gives it, null until the index has one. */
  readonly mappingJson: string | null;
  readonly mappingVersion: number;
}

/** Figures a copy's segments report after each refresh or merge (`_cat/indices`, `_cat/shards`, health). */
export interface SegmentStats {
  readonly docCount: number;
  readonly deletedCount: number;
  readonly sizeInBytes: number;
  readonly segmentCount: number;
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
}

export type ToWorker =
  | { readonly t: 'open'; readonly copy: number; readonly shard: number; readonly meta: CopyMeta }
  | { readonly t: 'meta'; readonly copy: number; readonly meta: CopyMeta }
  | { readonly t: 'changes'; readonly copy: number; readonly bytes: Uint8Array }
  | { readonly t: 'refresh'; readonly copy: number }
  | { readonly t: 'close'; readonly seq: number; readonly copy: number }
  | QueryMessage
  | FetchMessage
  /** Contexts the node freed (released, expired, cleared). */
  | { readonly t: 'drop'; readonly contextIds: readonly number[] }
  | { readonly t: 'ping'; readonly seq: number }
  /** Messages posted in one turn of the event loop, in order (one postMessage instead of one each). */
  | { readonly t: 'batch'; readonly messages: readonly ToWorker[] };

export interface QueryReply {
  readonly result: Omit<ShardQueryResult, 'matches' | 'sortValues'> & { readonly sortValues: PackedSortRows | null };
  readonly aggs: ShardAggState | null;
}

export interface FetchReply {
  /** Hit i is bytes[starts[i], starts[i + 1]). */
  readonly bytes: Uint8Array;
  readonly starts: Uint32Array;
}

export type FromWorker =
  | { readonly t: 'reply'; readonly seq: number; readonly value: unknown }
  | { readonly t: 'fail'; readonly seq: number; readonly error: RemoteError }
  | { readonly t: 'stats'; readonly copy: number; readonly stats: SegmentStats }
  /** Something failed outside any request (indexing a batch, a merge): for the node's log. */
  | { readonly t: 'error'; readonly copy: number; readonly context: string; readonly error: RemoteError }
  | { readonly t: 'batch'; readonly messages: readonly FromWorker[] };
