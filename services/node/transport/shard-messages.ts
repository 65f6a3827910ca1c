/**
 * The coordinator's shard requests and responses (search/shard-client.ts)
 * converted to and from their wire records (rpc-messages.ts). Doc ids and
 * scores travel as raw typed-array bytes; hits come back as final JSON texts.
 */
import { deserialize, serialize } from 'node:v8';
import { EsError } from '../../../shared/errors/es-errors.ts';
import type { ShardAggState } from '../../../shared/engine/aggs/state.ts';
import type { ShardSuggestResult } from '../../../shared/engine/suggest/types.ts';
import type { ShardCursor, SortValue } from '../../../shared/engine/search/types.ts';
import type { SearchUrlParams } from '../../../shared/dsl/query/search-body.ts';
import type { ShardFetchRequest, ShardQueryRequest, ShardQueryResponse, ShardSearchSource } from '../search/shard-client.ts';
import type { ShardFetchWireRequest, ShardQueryWireRequest, ShardQueryWireResponse, WireCursor } from './rpc-messages.ts';
import {
  float32FromBytes,
  float64FromBytes,
  int32FromBytes,
  sortValuesFromWire,
  sortValuesToWire,
  typedArrayBytes,
} from './wire-arrays.ts';

/**
 * Partial aggregation states travel as a node:v8 (structured clone)
 * serialization rather than an Avro schema: the states are plain data with
 * typed arrays (cardinality registers, t-digest centroids), which structured
 * clone keeps as typed arrays with exact doubles, while JSON would turn them
 * into objects and lose -0; and one Avro schema per aggregation kind would
 * have to change with every new aggregation. The cost: v8's format is only
 * guaranteed readable by the same or a newer V8, so the nodes of a cluster
 * run the same Node.js major version (as Elasticsearch nodes run one version).
 */
export function aggsToBytes(aggs: ShardAggState): Buffer {
  return serialize(aggs);
}

export function aggsFromBytes(bytes: Buffer): ShardAggState {
  return deserialize(bytes) as ShardAggState;
}

/** The body as JSON text, exactly as the DSL parser would read it (shared/dsl/query/json-source.ts). */
export function bodyToJson(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  return JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)) ?? null;
}

function cursorToWire(c: ShardCursor): WireCursor {
  return { sort_values: c.sortValues ? sortValuesToWire(c.sortValues) : null, score: c.score, doc: c.doc };
}

function cursorFromWire(c: WireCursor): ShardCursor {
  return { sortValues: c.sort_values ? sortValuesFromWire(c.sort_values) : null, score: c.score, doc: c.doc };
}

function missingSource(uuid: string, shard: number): EsError {
  return new EsError(
    'illegal_state_exception',
    `a query phase on a remote copy of [${uuid}][${shard}] needs the search body it was parsed from (ShardQueryRequest.source)`,
    500,
  );
}

export function queryRequestToWire(uuid: string, shard: number, req: ShardQueryRequest): ShardQueryWireRequest {
  // A continuation reuses the search its context was opened with: no body.
  const continuation = req.contextId !== null;
  if (!continuation && !req.source) throw missingSource(uuid, shard);
  return {
    index_uuid: uuid,
    shard,
    body_json: continuation ? null : bodyToJson(req.source!.body),
    url_params_json: continuation ? null : JSON.stringify(req.source!.url),
    size: req.size,
    after: req.after ? cursorToWire(req.after) : null,
    now_millis: req.nowMillis,
    keep_alive_ms: req.keepAliveMs,
    context_id: req.contextId,
  };
}

/** The parts of a wire query request the serving node needs besides the parsed search. */
export interface DecodedQueryRequest {
  readonly source: ShardSearchSource | null;
  readonly size: number;
  readonly after: ShardCursor | null;
  readonly nowMillis: number;
  readonly keepAliveMs: number;
  readonly contextId: number | null;
}

export function queryRequestFromWire(w: ShardQueryWireRequest): DecodedQueryRequest {
  const source: ShardSearchSource | null =
    w.context_id === null
      ? { body: w.body_json, url: w.url_params_json === null ? {} : (JSON.parse(w.url_params_json) as SearchUrlParams) }
      : null;
  return {
    source,
    size: w.size,
    after: w.after ? cursorFromWire(w.after) : null,
    nowMillis: w.now_millis,
    keepAliveMs: w.keep_alive_ms,
    contextId: w.context_id,
  };
}

export function queryResponseToWire(r: ShardQueryResponse): ShardQueryWireResponse {
  const res = r.result;
  return {
    context_id: r.contextId,
    total_hits: res.totalHits,
    max_score: res.maxScore,
    docs: typedArrayBytes(res.docs),
    scores: typedArrayBytes(res.scores),
    sort_values: res.sortValues ? res.sortValues.map(sortValuesToWire) : null,
    terminated_early: res.terminatedEarly,
    aggs: r.aggs ? aggsToBytes(r.aggs) : null,
    // Plain data (names, texts, numbers), cloned the way aggregation states are.
    suggest: r.suggest ? serialize(r.suggest) : null,
  };
}

export function queryResponseFromWire(w: ShardQueryWireResponse): ShardQueryResponse {
  return {
    contextId: w.context_id,
    result: {
      totalHits: w.total_hits,
      maxScore: w.max_score,
      docs: int32FromBytes(w.docs),
      scores: float32FromBytes(w.scores),
      sortValues: w.sort_values ? w.sort_values.map(sortValuesFromWire) : null,
      terminatedEarly: w.terminated_early,
      matches: null,
    },
    aggs: w.aggs ? aggsFromBytes(w.aggs) : null,
    suggest: w.suggest ? (deserialize(w.suggest) as ShardSuggestResult) : null,
  };
}

export function fetchRequestToWire(uuid: string, shard: number, req: ShardFetchRequest): ShardFetchWireRequest {
  return {
    index_uuid: uuid,
    shard,
    context_id: req.contextId,
    docs: typedArrayBytes(Int32Array.from(req.docs)),
    // Float64, not Float32: the interface's scores are plain numbers and the
    // transport must hand the renderer exactly the numbers it was given.
    scores: typedArrayBytes(Float64Array.from(req.scores)),
    sort_values: req.sortValues.map((v) => (v ? sortValuesToWire(v) : null)),
    release: req.release,
    last_emitted: req.lastEmitted ? cursorToWire(req.lastEmitted) : null,
  };
}

export function fetchRequestFromWire(w: ShardFetchWireRequest): ShardFetchRequest {
  const sortValues: (SortValue[] | null)[] = w.sort_values.map((v) => (v ? sortValuesFromWire(v) : null));
  return {
    contextId: w.context_id,
    docs: Array.from(int32FromBytes(w.docs)),
    scores: Array.from(float64FromBytes(w.scores)),
    sortValues,
    release: w.release,
    lastEmitted: w.last_emitted ? cursorFromWire(w.last_emitted) : null,
  };
}
