/**
 * A shard worker thread: hosts the searchable segments of the shard copies
 * the node gives it (protocol.ts) and answers their query and fetch phases.
 * Started by ShardWorkers through boot.mjs.
 */
import { parentPort } from 'node:worker_threads';
import { parseSearchBody } from '../../../shared/dsl/query/search-body.ts';
import { parseAggregations } from '../../../shared/dsl/aggs/parse.ts';
import { evaluateFilterBits } from '../../../shared/dsl/query/filter-bits.ts';
import type { AggSpec } from '../../../shared/engine/aggs/spec.ts';
import type { ParsedSearch } from '../../../shared/engine/search/types.ts';
import { LocalShardClient } from '../search/local-shard-client.ts';
import { emptyMapping } from '../search/empty-mapping.ts';
import { errorToWire } from '../transport/transport-errors.ts';
import { CopySegments, indexMetaOf } from './copy-segments.ts';
import type { FetchMessage, FetchReply, FromWorker, QueryMessage, QueryReply, ToWorker } from './protocol.ts';
import { MessageBatcher, type Port } from './message-batcher.ts';
import { packResultRows, unpackSortRows } from './sort-rows.ts';

const port = parentPort;
if (port === null) throw new Error('worker-main.ts runs in a worker thread');

const copies = new Map<number, CopySegments>();
const out = new MessageBatcher<FromWorker>(port as Port<FromWorker>);

function post(msg: FromWorker, transfer: ArrayBuffer[] = []): void {
  out.post(msg, transfer);
}

function copyOf(id: number): CopySegments {
  const c = copies.get(id);
  if (c === undefined) throw new Error(`shard worker has no copy [${id}]`);
  return c;
}

/** The last search body parsed, by parse key: the shards of one search in this worker share it. */
let lastParse: { key: number; search: ParsedSearch; aggs: Map<string, AggSpec[] | null> } | null = null;

function parsed(msg: QueryMessage, copy: CopySegments): { search: ParsedSearch; aggs: AggSpec[] | null } {
  if (lastParse === null || lastParse.key !== msg.parseKey) {
    // A Buffer body arrives as a plain Uint8Array.
    const body = msg.body instanceof Uint8Array && !Buffer.isBuffer(msg.body) ? Buffer.from(msg.body.buffer, msg.body.byteOffset, msg.body.byteLength) : msg.body;
    lastParse = { key: msg.parseKey, search: parseSearchBody(body, msg.url ?? {}), aggs: new Map() };
  }
  const { search, aggs } = lastParse;
  // Aggregations resolve fields against a mapping: once per index.
  let specs = aggs.get(copy.meta.uuid);
  if (specs === undefined) {
    specs = search.aggregations ? parseAggregations(search.aggregations, copy.meta.mapping ?? emptyMapping) : null;
    aggs.set(copy.meta.uuid, specs);
  }
  return { search, aggs: specs };
}

/** Transferable when the array is the only view of its buffer. */
function ownBuffer(a: ArrayBufferView): ArrayBuffer[] {
  return a.byteOffset === 0 && a.byteLength === a.buffer.byteLength && a.buffer instanceof ArrayBuffer ? [a.buffer] : [];
}

async function query(msg: QueryMessage): Promise<void> {
  const copy = copyOf(msg.copy);
  const first = !msg.continuation;
  const { search, aggs } = first ? parsed(msg, copy) : { search: null, aggs: null };
  const client = new LocalShardClient(copy.meta, copy, copy.contexts, copy.filterCache, aggs, evaluateFilterBits, msg.contextId);
  const res = await client.query({
    // A continuation reads the search its context was pinned with.
    search: search ?? (copy.contexts.get(msg.contextId)?.search as ParsedSearch),
    size: msg.size,
    after: msg.after,
    nowMillis: msg.nowMillis,
    keepAliveMs: 0,
    contextId: first ? null : msg.contextId,
  });
  const { matches: _matches, sortValues, ...rest } = res.result;
  void _matches;
  const result = { ...rest, sortValues: packResultRows(sortValues) };
  const value: QueryReply = { result, aggs: res.aggs };
  post({ t: 'reply', seq: msg.seq, value }, [...ownBuffer(result.docs), ...ownBuffer(result.scores)]);
}

async function fetch(msg: FetchMessage): Promise<void> {
  const copy = copyOf(msg.copy);
  const client = new LocalShardClient(copy.meta, copy, copy.contexts, copy.filterCache, null, evaluateFilterBits);
  const rendered = await client.fetchRendered({
    contextId: msg.contextId,
    docs: msg.docs,
    scores: msg.scores,
    sortValues: unpackSortRows(msg.sortValues),
    release: msg.release,
  });
  // The rendered bytes may sit in a pooled buffer: hand over a copy of their own.
  const bytes = new Uint8Array(rendered.bytes.length);
  bytes.set(rendered.bytes);
  rendered.release?.();
  const value: FetchReply = { bytes, starts: rendered.starts };
  post({ t: 'reply', seq: msg.seq, value }, [bytes.buffer, ...ownBuffer(rendered.starts)]);
}

function handle(msg: ToWorker): void | Promise<void> {
  switch (msg.t) {
    case 'open': {
      const id = msg.copy;
      const copy = new CopySegments(
        msg.shard,
        indexMetaOf(msg.meta, null),
        (stats) => post({ t: 'stats', copy: id, stats }),
        (context, err) => post({ t: 'error', copy: id, context, error: errorToWire(err) }),
      );
      copies.set(id, copy);
      return;
    }
    case 'meta': {
      const copy = copyOf(msg.copy);
      copy.meta = indexMetaOf(msg.meta, copy.meta);
      return;
    }
    case 'changes':
      try {
        copyOf(msg.copy).applyChanges(msg.bytes);
      } catch (err) {
        post({ t: 'error', copy: msg.copy, context: 'index', error: errorToWire(err) });
      }
      return;
    case 'refresh':
      copyOf(msg.copy).refresh();
      return;
    case 'close':
      copies.get(msg.copy)?.close();
      copies.delete(msg.copy);
      post({ t: 'reply', seq: msg.seq, value: null });
      return;
    case 'query':
      return query(msg);
    case 'fetch':
      return fetch(msg);
    case 'drop':
      for (const id of msg.contextIds) {
        for (const copy of copies.values()) if (copy.dropContext(id)) break;
      }
      return;
    case 'ping':
      post({ t: 'reply', seq: msg.seq, value: null });
      return;
    case 'batch':
      for (const m of msg.messages) receive(m);
      return;
  }
}

function receive(msg: ToWorker): void {
  try {
    const done = handle(msg);
    if (done !== undefined) {
      done.catch((err: unknown) => {
        if ('seq' in msg) post({ t: 'fail', seq: msg.seq, error: errorToWire(err) });
      });
    }
  } catch (err) {
    if ('seq' in msg) post({ t: 'fail', seq: msg.seq, error: errorToWire(err) });
    else if ('copy' in msg) post({ t: 'error', copy: msg.copy, context: msg.t, error: errorToWire(err) });
  }
}

port.on('message', receive);
