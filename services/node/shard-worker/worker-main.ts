/**
 * A shard worker thread: the indexer and store of the shard copies the node
 * gives it (protocol.ts, copy-engine.ts): applies their log records, answers
 * their realtime gets and their query and fetch phases. Started by
 * ShardWorkers through boot.mjs.
 */
import { parentPort } from 'node:worker_threads';
import { buildCharacterTables } from '../../../shared/engine/analysis/character-tables.ts';
import { parseSearchBody } from '../../../shared/dsl/query/search-body.ts';
import { parseAggregations } from '../../../shared/dsl/aggs/parse.ts';
import { evaluateFilterBits } from '../../../shared/dsl/query/filter-bits.ts';
import type { AggSpec } from '../../../shared/engine/aggs/spec.ts';
import type { ParsedSearch, RenderedHits, ShardQueryResult, SortValue } from '../../../shared/engine/search/types.ts';
import { pageRow, scoresShown, sortedByDocAlone } from '../../../shared/engine/search/merge-top-hits.ts';
import { LocalShardClient } from '../search/local-shard-client.ts';
import { emptyMapping } from '../search/empty-mapping.ts';
import { errorToWire } from '../../../shared/errors/transport-errors.ts';
import { CopyEngine, indexMetaOf } from './copy-engine.ts';
import type { FetchMessage, FetchReply, FromWorker, QueryMessage, QueryReply, ToWorker } from './protocol.ts';
import { MessageBatcher, type Port } from './message-batcher.ts';
import { packResultRows, unpackSortRows, type PackedSortRows } from './sort-rows.ts';
import { RenderCut } from './render-cut.ts';
import { adoptSearchesInFlight, searchAnswerPosted, searchReceived } from '../../../shared/steps/searches-first.ts';

const port = parentPort;
if (port === null) throw new Error('worker-main.ts runs in a worker thread');
// Built while the node starts (as the main thread's): the first text document
// or query of this thread built them in one step of 100-500 ms while the
// copy's searches waited (issue 11).
buildCharacterTables();

/** Copies by id; a copy's entry is there from its `open` message on, resolved once it opened. */
const copies = new Map<number, Promise<CopyEngine>>();
const out = new MessageBatcher<FromWorker>(port as Port<FromWorker>);

function post(msg: FromWorker, transfer: ArrayBuffer[] = []): void {
  out.post(msg, transfer);
}

function copyOf(id: number): Promise<CopyEngine> {
  const c = copies.get(id);
  if (c === undefined) return Promise.reject(new Error(`shard worker has no copy [${id}]`));
  return c;
}

function reply(seq: number, value: unknown, transfer: ArrayBuffer[] = []): void {
  post({ t: 'reply', seq, value }, transfer);
}

/** The shards of one search in this worker render only the hits that can be on its page. */
const renderCut = new RenderCut();

/** The last search body parsed, by parse key: the shards of one search in this worker share it. */
let lastParse: { key: number; search: ParsedSearch; aggs: Map<string, AggSpec[] | null> } | null = null;

function parsed(msg: QueryMessage, copy: CopyEngine): { search: ParsedSearch; aggs: AggSpec[] | null } {
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

/**
 * A query result as it travels: a sort column as it is (no rows are made
 * from it), other sort values packed (sort-rows.ts); the matches stay.
 */
function wireResult(r: ShardQueryResult): QueryReply['result'] {
  return {
    totalHits: r.totalHits,
    maxScore: r.maxScore,
    docs: r.docs,
    scores: r.scores,
    sortValues: r.sortColumn !== undefined ? { kind: 'numbers', values: r.sortColumn } : packResultRows(r.sortValues),
    terminatedEarly: r.terminatedEarly,
  };
}

function sortBuffers(p: PackedSortRows | null): ArrayBuffer[] {
  return p !== null && p.kind === 'numbers' ? ownBuffer(p.values) : [];
}

/** Transferable when the array is the only view of its buffer. */
function ownBuffer(a: ArrayBufferView): ArrayBuffer[] {
  return a.byteOffset === 0 && a.byteLength === a.buffer.byteLength && a.buffer instanceof ArrayBuffer ? [a.buffer] : [];
}

async function query(msg: QueryMessage): Promise<void> {
  const copy = await copyOf(msg.copy);
  await copy.search(() => queryNow(msg, copy));
}

async function queryNow(msg: QueryMessage, copy: CopyEngine): Promise<void> {
  const started = performance.now();
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
    maxBuckets: msg.maxBuckets,
  });
  if (first && msg.scroll) copy.markScroll(msg.contextId);
  const queried = performance.now();
  copy.searched('query', queried - started);
  let rendered: FetchReply | null = null;
  if (first && msg.renderFrom !== undefined) {
    const docs = res.result.docs;
    const to = msg.renderCut !== undefined ? renderCut.cut(`${msg.renderCut}:${copy.meta.uuid}`, msg.size, res.result.scores) : docs.length;
    rendered = renderPage(client, msg.contextId, res.result, search!, msg.renderFrom, to);
    // Counted as a fetch phase when it had hits to render (a shard whose hits miss the page counts one too, unlike a fetch round trip).
    if (rendered !== null && docs.length > msg.renderFrom) copy.searched('fetch', performance.now() - queried);
  }
  // Nothing will be fetched from this view: it goes now rather than on a later message.
  if (first && (msg.transient === true || rendered !== null)) copy.dropContext(msg.contextId);
  const result = wireResult(res.result);
  const value: QueryReply = { result, aggs: res.aggs, suggest: res.suggest ?? null, rendered };
  const transfer = [...ownBuffer(result.docs), ...ownBuffer(result.scores), ...sortBuffers(result.sortValues)];
  if (rendered !== null) transfer.push(...ownBuffer(rendered.bytes), ...ownBuffer(rendered.starts));
  searchAnswerPosted();
  post({ t: 'reply', seq: msg.seq, value }, transfer);
}

/**
 * The fetch phase of a query phase's hits from `from` on, as the node would
 * ask for them after merging the shards' lists: each hit with the score and
 * sort values the merged page shows (mergeTopHits, scoresShown). Null when
 * rendering failed.
 */
function renderPage(client: LocalShardClient, contextId: number, result: ShardQueryResult, search: ParsedSearch, from: number, to: number): FetchReply | null {
  const n = Math.max(0, to - from);
  const showScores = scoresShown(search);
  const docOrder = sortedByDocAlone(search);
  const scores = new Float64Array(n);
  const sortValues = new Array<SortValue[] | null>(n);
  for (let i = 0; i < n; i++) {
    scores[i] = showScores ? result.scores[from + i]! : NaN;
    sortValues[i] = pageRow(result, from + i, docOrder);
  }
  let rendered: RenderedHits;
  try {
    rendered = client.renderNow({ contextId, docs: result.docs.subarray(from, from + n), scores, sortValues, release: false });
  } catch {
    // The view stays: the node's fetch phase asks for the hits and fails as a fetch phase does.
    return null;
  }
  return ownCopy(rendered);
}

/** Rendered hits in a buffer of their own (they may sit in a pooled one), to transfer. */
function ownCopy(rendered: RenderedHits): FetchReply {
  const bytes = new Uint8Array(rendered.bytes.length);
  bytes.set(rendered.bytes);
  rendered.release?.();
  return { bytes, starts: rendered.starts };
}

async function fetch(msg: FetchMessage): Promise<void> {
  const copy = await copyOf(msg.copy);
  await copy.search(() => fetchNow(msg, copy));
}

async function fetchNow(msg: FetchMessage, copy: CopyEngine): Promise<void> {
  const started = performance.now();
  const client = new LocalShardClient(copy.meta, copy, copy.contexts, copy.filterCache, null, evaluateFilterBits);
  const rendered = await client.fetchRendered({
    contextId: msg.contextId,
    docs: msg.docs,
    scores: msg.scores,
    sortValues: unpackSortRows(msg.sortValues),
    release: msg.release,
  });
  const fetched = ownCopy(rendered);
  const queried = performance.now();
  copy.searched('fetch', queried - started);
  const next = msg.next === undefined || msg.release ? undefined : await queryAhead(client, copy, msg.contextId, msg.next);
  if (next !== undefined && next !== null) copy.searched('query', performance.now() - queried);
  const value: FetchReply = next === undefined ? fetched : { ...fetched, next };
  const transfer = [...ownBuffer(value.bytes), ...ownBuffer(value.starts)];
  if (next !== undefined && next !== null) transfer.push(...ownBuffer(next.docs), ...ownBuffer(next.scores), ...sortBuffers(next.sortValues));
  searchAnswerPosted();
  post({ t: 'reply', seq: msg.seq, value }, transfer);
}

/**
 * The next scroll page's query phase on a context, run with this page's
 * fetch (FetchMessage.next): the same query phase a continuation message
 * would run from that cursor. Null when it failed: the next page then asks
 * with a query message and reports the failure as a query phase does.
 */
async function queryAhead(client: LocalShardClient, copy: CopyEngine, contextId: number, next: NonNullable<FetchMessage['next']>): Promise<QueryReply['result'] | null> {
  try {
    const search = copy.contexts.get(contextId)?.search as ParsedSearch | undefined;
    if (search === undefined) return null;
    const res = await client.query({ search, size: next.size, after: next.after, nowMillis: next.nowMillis, keepAliveMs: 0, contextId });
    return wireResult(res.result);
  } catch {
    return null;
  }
}

function handle(msg: ToWorker): void | Promise<void> {
  switch (msg.t) {
    case 'open': {
      const id = msg.copy;
      const opening = CopyEngine.open(
        msg.shard,
        indexMetaOf(msg.meta, null),
        msg.dir,
        {
          onStats: (stats) => post({ t: 'stats', copy: id, stats }),
          onError: (context, err) => post({ t: 'error', copy: id, context, error: errorToWire(err) }),
        },
        msg.partitions,
        msg.logPartitions,
      );
      const engine = opening.then((o) => o.engine);
      copies.set(id, engine);
      // A copy that failed to open answers every later message with that failure.
      engine.catch(() => undefined);
      return opening.then((o) => {
        reply(msg.seq, o.reply);
        post({ t: 'stats', copy: id, stats: o.engine.stats() });
      });
    }
    case 'meta':
      return copyOf(msg.copy).then((copy) => {
        copy.meta = indexMetaOf(msg.meta, copy.meta);
      });
    case 'apply':
      return copyOf(msg.copy)
        .then((copy) => copy.apply(msg.partition, msg.records, msg.end))
        .then((value) => reply(msg.seq, value, [value.results.buffer, value.versions.buffer, value.seqNos.buffer] as ArrayBuffer[]));
    case 'get':
      return copyOf(msg.copy)
        .then((copy) => copy.get(msg.ids))
        .then(({ packed, transfer }) => reply(msg.seq, packed, transfer));
    case 'refresh':
      return copyOf(msg.copy).then((copy) => copy.refresh());
    case 'flush':
      return copyOf(msg.copy)
        .then((copy) => copy.flush())
        .then(() => reply(msg.seq, null));
    case 'reset':
      return copyOf(msg.copy)
        .then((copy) => copy.reset())
        .then((value) => reply(msg.seq, value));
    case 'close': {
      const copy = copies.get(msg.copy);
      copies.delete(msg.copy);
      if (copy === undefined) return reply(msg.seq, null);
      return copy
        .then((c) => c.close(msg.flush), () => undefined)
        .then(() => reply(msg.seq, null));
    }
    case 'stats':
      return copyOf(msg.copy).then((copy) => reply(msg.seq, copy.statsNow()));
    case 'segments':
      return copyOf(msg.copy).then((copy) => reply(msg.seq, copy.segments()));
    case 'forcemerge':
      return copyOf(msg.copy)
        .then((copy) => copy.forceMerge(msg.maxNumSegments, msg.onlyExpungeDeletes, msg.flush))
        .then(() => reply(msg.seq, null));
    case 'clear_cache':
      return copyOf(msg.copy)
        .then((copy) => copy.clearCache())
        .then(() => reply(msg.seq, null));
    case 'query':
      return query(msg);
    case 'fetch':
      return fetch(msg);
    case 'drop':
      return dropContexts(msg.contextIds);
    case 'ping':
      reply(msg.seq, null);
      return;
    case 'searches':
      adoptSearchesInFlight(msg.buffer, msg.posted);
      return;
    case 'settle':
      return copyOf(msg.copy)
        .then((copy) => copy.run(() => null))
        .then(() => reply(msg.seq, null));
    case 'batch':
      for (const m of msg.messages) receive(m);
      return;
  }
}

async function dropContexts(ids: readonly number[]): Promise<void> {
  const engines = await Promise.all([...copies.values()].map((c) => c.catch(() => null)));
  for (const id of ids) {
    for (const copy of engines) if (copy !== null && copy.dropContext(id)) break;
  }
}

function receive(msg: ToWorker): void {
  const search = msg.t === 'query' || msg.t === 'fetch';
  if (search) searchReceived();
  const failed = (err: unknown) => {
    if ('seq' in msg) {
      if (search) searchAnswerPosted();
      post({ t: 'fail', seq: msg.seq, error: errorToWire(err) });
    } else if ('copy' in msg) post({ t: 'error', copy: msg.copy, context: msg.t, error: errorToWire(err) });
  };
  try {
    const done = handle(msg);
    if (done !== undefined) done.catch(failed);
  } catch (err) {
    failed(err);
  }
}

port.on('message', receive);
