/**
 * The shard RPCs (schemas/rpc/*.avsc) as TypeScript sees them, and their
 * action names: Elasticsearch's where one exists, so logs and errors read as
 * an Elasticsearch operator expects.
 */
import { rpcMethod } from './envelope.ts';
import type { RemoteError } from '../../../shared/errors/transport-errors.ts';

/** A sort value on the wire: bigints (Long.MIN/MAX_VALUE) as decimal text so they stay exact. */
export type WireSortValue = number | string | null | { decimal: string };

export interface WireCursor {
  sort_values: WireSortValue[] | null;
  score: number;
  doc: number;
}

export interface ShardQueryWireRequest {
  index_uuid: string;
  shard: number;
  body_json: string | null;
  url_params_json: string | null;
  size: number;
  after: WireCursor | null;
  now_millis: number;
  keep_alive_ms: number;
  context_id: number | null;
}

export interface ShardQueryWireResponse {
  context_id: number;
  total_hits: number;
  max_score: number;
  docs: Buffer;
  scores: Buffer;
  sort_values: WireSortValue[][] | null;
  terminated_early: boolean | null;
  aggs: Buffer | null;
  suggest?: Buffer | null;
}

export interface ShardFetchWireRequest {
  index_uuid: string;
  shard: number;
  context_id: number;
  docs: Buffer;
  scores: Buffer;
  sort_values: (WireSortValue[] | null)[];
  release: boolean;
  /** Scrolls: the last of this shard's hits on the page (absent = null). */
  last_emitted?: WireCursor | null;
}

export interface ShardFetchWireResponse {
  hits: string[];
}

export interface FreeContextWireRequest {
  context_id: number;
}

export interface FreeContextWireResponse {
  freed: boolean;
}

export type FreeScrollContextsWireRequest = Record<string, never>;

export interface FreeScrollContextsWireResponse {
  freed: number;
}

export interface GetWireRequest {
  index_uuid: string;
  shard: number;
  id: string;
}

export interface WireDocState {
  version: number;
  seq_no: number;
  deleted: boolean;
  routing: string | null;
  source: Buffer | null;
}

export interface GetWireResponse {
  doc: WireDocState | null;
  applied_offset: number;
  refreshed_offset: number;
}

export interface WaitAppliedWireRequest {
  index_uuid: string;
  shard: number;
  offset: number;
  timeout_ms: number;
  /** Make every applied op searchable once applied (absent = false). */
  refresh?: boolean;
  /** Answer once the ops are searchable after the copy's next refresh (absent = false). */
  wait_for_refresh?: boolean;
  flush?: boolean;
  /** The partition of the copy's log `offset` is in (absent or -1: the shard's own). */
  partition?: number;
}

export interface WaitAppliedWireResponse {
  applied: boolean;
  applied_offset: number;
}

export interface WaitOutcomesWireRequest {
  index_uuid: string;
  shard: number;
  from_offset: number;
  to_offset: number;
  timeout_ms: number;
  /** The partition the offsets are in (absent or -1: the shard's own). */
  partition?: number;
}

export interface WireDocOutcome {
  result: string | null;
  version: number;
  seq_no: number;
  source: Buffer | null;
  error: RemoteError | null;
}

export interface WaitOutcomesWireResponse {
  applied: boolean;
  outcomes: (WireDocOutcome | null)[];
}

export type NodeStatusWireRequest = Record<string, never>;

export type CopyState = 'INITIALIZING' | 'STARTED';

export interface CopyStatus {
  index_uuid: string;
  shard: number;
  state: CopyState;
  applied_offset: number;
  doc_count: number;
  /** How the copy was built when it opened (indexer/indices-service.ts CopyRecovery): existing_store or empty_store. */
  recovery_type: string;
  start_offset: number;
  target_offset: number;
  start_time: number;
  stop_time: number | null;
  /** The first document a copy of an index being rebuilt refused, and why (absent from nodes before rebuilds). */
  rebuild_failure?: string | null;
}

export interface NodeStatusWireResponse {
  node_name: string;
  copies: CopyStatus[];
}

export const SHARD_QUERY = rpcMethod<ShardQueryWireRequest, ShardQueryWireResponse>(
  'indices:data/read/search[phase/query]',
  'rpc/shard-query-request.avsc',
  'rpc/shard-query-response.avsc',
);

export const SHARD_FETCH = rpcMethod<ShardFetchWireRequest, ShardFetchWireResponse>(
  'indices:data/read/search[phase/fetch/id]',
  'rpc/shard-fetch-request.avsc',
  'rpc/shard-fetch-response.avsc',
);

export const FREE_CONTEXT = rpcMethod<FreeContextWireRequest, FreeContextWireResponse>(
  'indices:data/read/search[free_context]',
  'rpc/free-context-request.avsc',
  'rpc/free-context-response.avsc',
);

export const FREE_SCROLL_CONTEXTS = rpcMethod<FreeScrollContextsWireRequest, FreeScrollContextsWireResponse>(
  'indices:data/read/search[clear_scroll_contexts]',
  'rpc/free-scroll-contexts-request.avsc',
  'rpc/free-scroll-contexts-response.avsc',
);

export const SHARD_GET = rpcMethod<GetWireRequest, GetWireResponse>('indices:data/read/get[s]', 'rpc/get-request.avsc', 'rpc/get-response.avsc');

export const WAIT_APPLIED = rpcMethod<WaitAppliedWireRequest, WaitAppliedWireResponse>(
  'internal:logsearch/shard/wait_applied',
  'rpc/wait-applied-request.avsc',
  'rpc/wait-applied-response.avsc',
);

export const WAIT_OUTCOMES = rpcMethod<WaitOutcomesWireRequest, WaitOutcomesWireResponse>(
  'internal:logsearch/shard/wait_outcomes',
  'rpc/wait-outcomes-request.avsc',
  'rpc/wait-outcomes-response.avsc',
);

export const NODE_STATUS = rpcMethod<NodeStatusWireRequest, NodeStatusWireResponse>(
  'internal:logsearch/node/status',
  'rpc/node-status-request.avsc',
  'rpc/node-status-response.avsc',
);

export interface NodeAdminWireRequest {
  action: string;
  body_json: string;
}

export interface NodeAdminWireResponse {
  body_json: string;
}

export const NODE_ADMIN = rpcMethod<NodeAdminWireRequest, NodeAdminWireResponse>(
  'internal:logsearch/node/admin',
  'rpc/node-admin-request.avsc',
  'rpc/node-admin-response.avsc',
);
