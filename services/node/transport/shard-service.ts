/**
 * The serving side of the shard RPCs: runs a remote coordinator's query,
 * fetch, free-context, get, wait-for-applied and node-status requests against
 * this node's own shard copies. Searches go through LocalShardClient over the
 * node's SearchContexts, so a remote copy answers exactly as a local one.
 */
import { EsError } from '../../../shared/errors/es-errors.ts';
import type { IndexMetadata } from '../cluster/index-metadata.ts';
import { OWN_PARTITION, type ShardCopy } from '../indexer/shard-copy.ts';
import type { CopyRecovery } from '../indexer/indices-service.ts';
import type { SearchContexts } from '../search/search-contexts.ts';
import {
  FREE_CONTEXT,
  FREE_SCROLL_CONTEXTS,
  NODE_STATUS,
  SHARD_FETCH,
  SHARD_GET,
  SHARD_QUERY,
  WAIT_APPLIED,
  WAIT_OUTCOMES,
  type CopyState,
  type FreeContextWireRequest,
  type FreeContextWireResponse,
  type FreeScrollContextsWireResponse,
  type GetWireRequest,
  type GetWireResponse,
  type NodeStatusWireResponse,
  type ShardFetchWireRequest,
  type ShardFetchWireResponse,
  type ShardQueryWireRequest,
  type ShardQueryWireResponse,
  type WaitAppliedWireRequest,
  type WaitAppliedWireResponse,
  type WaitOutcomesWireRequest,
  type WaitOutcomesWireResponse,
  type WireDocOutcome,
} from './rpc-messages.ts';
import { errorToWire } from '../../../shared/errors/transport-errors.ts';
import { appliedWithin, settledWithin } from '../indexer/wait-applied.ts';
import type { DocOutcome } from '../shard-worker/apply-doc-op.ts';
import { fetchRequestFromWire, queryRequestFromWire, queryResponseToWire } from './shard-messages.ts';
import type { TransportServer } from './transport-server.ts';

/** A copy this node holds, with its allocation state (initializing while it catches up). */
export interface HeldCopy {
  readonly uuid: string;
  readonly shard: number;
  readonly copy: ShardCopy;
  readonly state: CopyState;
  readonly recovery: CopyRecovery;
}

/** How the service finds this node's copies (the indices service, in the node). */
export interface LocalCopies {
  copy(uuid: string, shard: number): ShardCopy | undefined;
  meta(uuid: string): IndexMetadata | undefined;
  held(): readonly HeldCopy[];
}

/** ShardNotFoundException: this node holds no copy of that shard (any more). */
export function shardNotFound(uuid: string, shard: number, index = uuid): EsError {
  return new EsError('shard_not_found_exception', 'no such shard', 404, { index_uuid: uuid, shard: String(shard), index });
}

export class ShardService {
  constructor(
    private readonly copies: LocalCopies,
    private readonly contexts: SearchContexts,
    private readonly nodeName: string,
  ) {}

  /** Registers every shard RPC on the node's transport server. */
  register(server: TransportServer): void {
    server
      .handle(SHARD_QUERY, (r) => this.query(r))
      .handle(SHARD_FETCH, (r) => this.fetch(r))
      .handle(FREE_CONTEXT, (r) => this.freeContext(r))
      .handle(FREE_SCROLL_CONTEXTS, () => this.freeScrollContexts())
      .handle(SHARD_GET, (r) => this.get(r))
      .handle(WAIT_APPLIED, (r) => this.waitApplied(r))
      .handle(WAIT_OUTCOMES, (r) => this.waitOutcomes(r))
      .handle(NODE_STATUS, () => this.status());
  }

  private resolve(uuid: string, shard: number): { meta: IndexMetadata; copy: ShardCopy } {
    const meta = this.copies.meta(uuid);
    const copy = meta ? this.copies.copy(uuid, shard) : undefined;
    if (!meta || !copy) throw shardNotFound(uuid, shard, meta?.name);
    return { meta, copy };
  }

  async query(w: ShardQueryWireRequest): Promise<ShardQueryWireResponse> {
    const { meta, copy } = this.resolve(w.index_uuid, w.shard);
    const req = queryRequestFromWire(w);
    // The coordinator validated the body already (its deprecation warnings are reported there); the copy's worker parses it.
    const res = await copy.searchClient(meta, this.contexts).querySource({ ...req, source: req.source ?? undefined });
    return queryResponseToWire(res);
  }

  async fetch(w: ShardFetchWireRequest): Promise<ShardFetchWireResponse> {
    const { meta, copy } = this.resolve(w.index_uuid, w.shard);
    const hits = await copy.searchClient(meta, this.contexts).fetch(fetchRequestFromWire(w));
    return { hits };
  }

  freeContext(w: FreeContextWireRequest): FreeContextWireResponse {
    return { freed: this.contexts.free(w.context_id) };
  }

  freeScrollContexts(): FreeScrollContextsWireResponse {
    return { freed: this.contexts.freeAllScrolls() };
  }

  async get(w: GetWireRequest): Promise<GetWireResponse> {
    const { copy } = this.resolve(w.index_uuid, w.shard);
    const doc = await copy.get(w.id);
    return {
      doc: doc ? { version: doc.version, seq_no: doc.seqNo, deleted: doc.deleted, routing: doc.routing, source: doc.source } : null,
      applied_offset: copy.appliedOffset,
      refreshed_offset: copy.refreshedOffset,
    };
  }

  async waitApplied(w: WaitAppliedWireRequest): Promise<WaitAppliedWireResponse> {
    const { copy } = this.resolve(w.index_uuid, w.shard);
    const then = w.flush ? 'flush' : w.wait_for_refresh ? 'wait_for' : w.refresh ? 'refresh' : 'none';
    const applied = await settledWithin(copy, w.offset, w.timeout_ms, then, w.partition ?? OWN_PARTITION);
    return { applied, applied_offset: copy.appliedOffset };
  }

  async waitOutcomes(w: WaitOutcomesWireRequest): Promise<WaitOutcomesWireResponse> {
    const { copy } = this.resolve(w.index_uuid, w.shard);
    const partition = w.partition ?? OWN_PARTITION;
    const applied = await appliedWithin(copy, w.to_offset, w.timeout_ms, partition);
    const outcomes: (WireDocOutcome | null)[] = [];
    for (let o = w.from_offset; o < w.to_offset; o++) {
      const outcome = copy.outcomeAt(partition, o);
      outcomes.push(outcome ? outcomeToWire(outcome) : null);
    }
    return { applied, outcomes };
  }

  status(): NodeStatusWireResponse {
    return {
      node_name: this.nodeName,
      copies: this.copies.held().map((h) => ({
        index_uuid: h.uuid,
        shard: h.shard,
        state: h.state,
        applied_offset: h.copy.appliedOffset,
        doc_count: h.copy.docCount,
        recovery_type: h.recovery.type,
        start_offset: h.recovery.startOffset,
        target_offset: h.recovery.targetOffset,
        start_time: h.recovery.startTime,
        stop_time: h.recovery.stopTime,
        rebuild_failure: h.copy.rebuildFailure,
      })),
    };
  }
}

function outcomeToWire(o: DocOutcome): WireDocOutcome {
  if (!o.ok) return { result: null, version: 0, seq_no: 0, source: null, error: errorToWire(o.error) };
  return { result: o.result, version: o.version, seq_no: o.seqNo, source: o.source, error: null };
}

