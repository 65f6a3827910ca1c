/**
 * A remote copy looks exactly like a local one: the same searches run through
 * LocalShardClient and through RemoteShardClient (transport on loopback, the
 * serving node's ShardService) against the copies of a real node give the
 * same merged hits, totals and aggregations; scrolls, gets, wait-for-applied
 * and node status answer as the copies themselves do.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../../helpers/server.ts';
import { generatePassRecords, PASSINFO_INDEX_BODY } from '../../../bench/pass-records.ts';
import { parseSearchBody, type SearchUrlParams } from '../../../shared/dsl/query/search-body.ts';
import { parseAggregations } from '../../../shared/dsl/aggs/parse.ts';
import { mergeTopHits } from '../../../shared/engine/search/merge-top-hits.ts';
import { reduceAggs } from '../../../shared/engine/aggs/reduce.ts';
import type { ShardAggState } from '../../../shared/engine/aggs/state.ts';
import { reduceSuggestToJson } from '../../../shared/engine/suggest/reduce-suggest.ts';
import type { ShardCursor } from '../../../shared/engine/search/types.ts';
import { EsError } from '../../../shared/errors/es-errors.ts';
import type { IndexMetadata } from '../../../services/node/cluster/index-metadata.ts';
import type { ShardClient } from '../../../services/node/search/shard-client.ts';
import type { ShardCopy } from '../../../services/node/indexer/shard-copy.ts';
import { SearchContexts } from '../../../services/node/search/search-contexts.ts';
import { TransportServer } from '../../../services/node/transport/transport-server.ts';
import { TransportClient, type NodeAddress } from '../../../services/node/transport/transport-client.ts';
import { ShardService, type LocalCopies } from '../../../services/node/transport/shard-service.ts';
import { RemoteShardClient } from '../../../services/node/transport/remote-shard-client.ts';
import { RemoteShardCopy } from '../../../services/node/transport/remote-shard-copy.ts';
import { fetchNodeStatus } from '../../../services/node/transport/remote-node-status.ts';

const SHARDS = 3;
const DOCS = 1500;
const NOW = Date.parse('2024-06-01T00:00:00Z');

let server: TestServer;
let meta: IndexMetadata;
let copies: ShardCopy[];
let transportServer: TransportServer;
let transport: TransportClient;
let remoteNode: NodeAddress;
const localContexts = new SearchContexts(100);
const remoteContexts = new SearchContexts(100);

before(async () => {
  server = await startServer();
  const body = { ...PASSINFO_INDEX_BODY, settings: { ...PASSINFO_INDEX_BODY.settings, number_of_shards: SHARDS } };
  assert.equal((await http(server.url, 'PUT', '/passinfo', body)).status, 200);
  const lines: string[] = [];
  for (const r of generatePassRecords({ count: DOCS, seed: 11, plates: 150 })) {
    lines.push(JSON.stringify({ index: { _type: 'passinfo', _id: r.event_id } }), JSON.stringify(r));
  }
  const bulk = await http(server.url, 'POST', '/passinfo/_bulk?refresh=true', lines.join('\n') + '\n');
  assert.equal((bulk.body as { errors: boolean }).errors, false);

  meta = server.node.cluster.index('passinfo')!;
  copies = [...(await server.node.indices.copiesOf(meta)).entries()].sort((a, b) => a[0] - b[0]).map(([, c]) => c);
  const local: LocalCopies = {
    copy: (uuid, shard) => server.node.indices.held(uuid, shard)?.copy,
    meta: (uuid) => server.node.cluster.indexByUuid(uuid),
    held: () => server.node.indices.allHeld().map((h) => ({ uuid: h.meta.uuid, shard: h.shard, copy: h.copy, state: h.state, recovery: h.recovery })),
  };
  transportServer = new TransportServer();
  new ShardService(local, remoteContexts, 'data-node-1').register(transportServer);
  const port = await transportServer.listen('127.0.0.1', 0);
  remoteNode = { name: 'data-node-1', host: '127.0.0.1', port };
  transport = new TransportClient();
});

after(async () => {
  await transport.close();
  await transportServer.close();
  localContexts.close();
  remoteContexts.close();
  await server.stop();
});

function localClients(): ShardClient[] {
  return copies.map((copy) => copy.searchClient(meta, localContexts));
}

function remoteClients(): ShardClient[] {
  return copies.map((_, s) => new RemoteShardClient(transport, remoteNode, meta, s));
}

/** query_then_fetch over the given clients, as the search coordinator does it. */
async function runSearch(kind: 'local' | 'remote', body: unknown, url: SearchUrlParams = {}) {
  const search = parseSearchBody(body, url);
  const aggs = search.aggregations ? parseAggregations(search.aggregations, meta.mapping!) : null;
  const clients = kind === 'local' ? localClients() : remoteClients();
  const responses = await Promise.all(
    clients.map((c) => c.query({ search, source: { body, url }, size: search.from + search.size, after: null, nowMillis: NOW, keepAliveMs: 0, contextId: null })),
  );
  const results = responses.map((r) => r.result);
  const merged = mergeTopHits(search, results, search.from, search.size);
  const hits: string[] = new Array(merged.length);
  const byShard = new Map<number, number[]>();
  merged.forEach((h, pos) => byShard.set(h.shardIndex, [...(byShard.get(h.shardIndex) ?? []), pos]));
  await Promise.all(
    [...byShard].map(async ([s, positions]) => {
      const texts = await clients[s].fetch({
        contextId: responses[s].contextId,
        docs: positions.map((p) => merged[p].doc),
        scores: positions.map((p) => (search.sort === null || search.trackScores ? merged[p].score : NaN)),
        sortValues: positions.map((p) => merged[p].sortValues),
        release: true,
      });
      positions.forEach((p, i) => (hits[p] = texts[i]));
    }),
  );
  responses.forEach((r, s) => {
    if (!byShard.has(s)) clients[s].release(r.contextId);
  });
  return {
    total: results.reduce((n, r) => n + r.totalHits, 0),
    maxScores: results.map((r) => r.maxScore),
    terminatedEarly: results.map((r) => r.terminatedEarly),
    hits,
    aggregations: aggs ? reduceAggs(aggs, responses.map((r) => r.aggs).filter((a): a is ShardAggState => a !== null), { typedKeys: false }) : null,
    suggest: search.suggest ? reduceSuggestToJson(responses.map((r) => r.suggest!), { typedKeys: true }) : null,
  };
}

const searches: { name: string; body: unknown; url?: SearchUrlParams; check?: (r: Awaited<ReturnType<typeof runSearch>>) => void }[] = [
  { name: 'n-gram match, by score', body: { query: { match: { plate: 'A1' } }, size: 25 } },
  {
    name: 'bool filter, sorted by date and keyword, second page',
    body: { query: { bool: { filter: [{ range: { speed: { gte: 40 } } }] } }, sort: [{ pass_time: 'desc' }, { 'plate.keyword': 'asc' }], from: 10, size: 20 },
  },
  {
    name: 'sorted by a missing numeric field (Long.MAX_VALUE sort values)',
    body: { sort: [{ no_such_field: { order: 'asc', unmapped_type: 'long' } }, { event_id: 'asc' }], size: 7 },
    check: (r) => assert.match(r.hits[0], /"sort":\[9223372036854775807,/),
  },
  {
    name: 'aggregations: terms with sub-stats, date_histogram, cardinality, percentiles',
    body: {
      size: 3,
      query: { match_all: {} },
      aggs: {
        lands: { terms: { field: 'land_id', size: 5 }, aggs: { speed: { stats: { field: 'speed' } } } },
        per_day: { date_histogram: { field: 'pass_time', interval: 'day' } },
        plates: { cardinality: { field: 'plate.keyword' } },
        speed_pct: { percentiles: { field: 'speed', percents: [50, 99] } },
      },
    },
    check: (r) => {
      const aggs = r.aggregations as { plates: { value: number }; speed_pct: { values: Record<string, number> }; lands: { buckets: unknown[] } };
      assert.ok(aggs.plates.value > 100);
      assert.ok(aggs.speed_pct.values['50.0'] > 0);
      assert.equal(aggs.lands.buckets.length, 5);
    },
  },
  { name: 'URL parameters: q, sort and _source filtering', body: undefined, url: { q: 'plate_color:2', sort: 'speed:desc,event_id', size: 15, sourceIncludes: ['plate', 'speed'] } },
  { name: 'source as JSON text', body: '{"query":{"term":{"plate_color":1}},"size":5,"version":true}' },
  {
    name: 'term and phrase suggestions travel with the query phase',
    body: { size: 1, suggest: { text: 'A123', t: { term: { field: 'plate.keyword', suggest_mode: 'always', min_word_length: 1, max_term_freq: 1000 } }, p: { phrase: { field: 'plate.keyword', confidence: 0 } } } },
    check: (r) => {
      const s = JSON.parse(r.suggest!) as Record<string, { text: string; options: unknown[] }[]>;
      assert.deepEqual(Object.keys(s), ['phrase#p', 'term#t']);
      assert.equal(s['term#t']![0]!.text, 'A123');
      assert.ok(s['phrase#p']![0]!.options.length > 0, r.suggest!);
    },
  },
];

for (const s of searches) {
  test(`remote and local copies answer alike: ${s.name}`, async () => {
    const local = await runSearch('local', s.body, s.url);
    const remote = await runSearch('remote', s.body, s.url);
    assert.ok(local.total > 0 && local.hits.length > 0, 'the search matches something');
    assert.deepEqual(remote, local);
    s.check?.(remote);
  });
}

test('a scroll continues on the remote context exactly as on the local one', async () => {
  const body = { query: { range: { speed: { gte: 30 } } }, sort: ['_doc'], size: 50 };
  const pages = async (kind: 'local' | 'remote') => {
    const search = parseSearchBody(body);
    const clients = kind === 'local' ? localClients() : remoteClients();
    const out: string[] = [];
    for (let s = 0; s < clients.length; s++) {
      let contextId: number | null = null;
      let after: ShardCursor | null = null;
      while (true) {
        const r = await clients[s].query({ search, source: { body, url: {} }, size: 50, after, nowMillis: NOW, keepAliveMs: 60_000, contextId });
        contextId = r.contextId;
        const n = r.result.docs.length;
        if (n === 0) break;
        const docs = [...r.result.docs];
        out.push(...(await clients[s].fetch({ contextId, docs, scores: docs.map(() => NaN), sortValues: r.result.sortValues ?? docs.map(() => null), release: false })));
        after = { sortValues: r.result.sortValues?.[n - 1] ?? null, score: r.result.scores[n - 1], doc: r.result.docs[n - 1] };
      }
      clients[s].release(contextId!);
    }
    return out;
  };
  const local = await pages('local');
  const remote = await pages('remote');
  assert.ok(local.length > 100);
  assert.deepEqual(remote, local);
});

test('a continuation on a freed remote context is search_context_missing_exception', async () => {
  const client = remoteClients()[0];
  const search = parseSearchBody({});
  const r = await client.query({ search, source: { body: {}, url: {} }, size: 1, after: null, nowMillis: NOW, keepAliveMs: 60_000, contextId: null });
  client.release(r.contextId);
  await new Promise((res) => setTimeout(res, 50));
  await assert.rejects(client.query({ search, size: 1, after: null, nowMillis: NOW, keepAliveMs: 60_000, contextId: r.contextId }), (err: unknown) => {
    assert.ok(err instanceof EsError);
    assert.equal(err.type, 'search_context_missing_exception');
    assert.equal(err.status, 404);
    assert.equal(err.reason, `No search context found for id [${r.contextId}]`);
    return true;
  });
});

test('a shard query error on the remote copy arrives as the same EsError as locally', async () => {
  const body = { query: { match: { speed: 'fast' } } };
  const search = parseSearchBody(body);
  const req = { search, source: { body, url: {} }, size: 10, after: null, nowMillis: NOW, keepAliveMs: 0, contextId: null };
  const localErr = await localClients()[1].query(req).then(() => null, (e: unknown) => e);
  const remoteErr = await remoteClients()[1].query(req).then(() => null, (e: unknown) => e);
  assert.ok(localErr instanceof EsError && remoteErr instanceof EsError);
  assert.equal(remoteErr.type, localErr.type);
  assert.equal(remoteErr.reason, localErr.reason);
  assert.equal(remoteErr.status, localErr.status);
  assert.deepEqual(remoteErr.extra, localErr.extra);
  assert.equal(remoteErr.causedBy?.type, localErr.causedBy?.type);
});

test('a realtime get and wait-for-applied through a RemoteShardCopy answer as the copy does', async () => {
  const put = await http(server.url, 'PUT', '/passinfo/passinfo/remote-get-1?routing=r7', { plate: '京A00001', speed: 77 });
  assert.equal(put.status, 201);
  const { _seq_no: seqNo } = put.body as { _seq_no: number };
  let owner = -1;
  for (let s = 0; s < SHARDS; s++) if ((await copies[s].get('remote-get-1')) !== undefined) owner = s;
  assert.ok(owner >= 0);
  assert.ok(copies[owner].appliedOffset > seqNo);
  const remote = new RemoteShardCopy(transport, remoteNode, meta, owner);
  const got = await remote.get('remote-get-1');
  assert.deepEqual(got.doc, await copies[owner].get('remote-get-1'));
  assert.equal(got.doc?.routing, 'r7');
  assert.equal(got.appliedOffset, copies[owner].appliedOffset);
  assert.equal((await remote.get('never-written')).doc, undefined);

  assert.equal(await remote.waitForApplied(copies[owner].appliedOffset, 1000), true);
  const started = Date.now();
  assert.equal(await remote.waitForApplied(copies[owner].appliedOffset + 1000, 100), false);
  assert.ok(Date.now() - started >= 90);
});

test('wait-for-applied with refresh makes the ops searchable; with wait_for it answers after the copy\'s own next refresh and forces none', async () => {
  const settings = async (interval: string | null) =>
    assert.equal((await http(server.url, 'PUT', '/passinfo/_settings', { index: { refresh_interval: interval } })).status, 200);
  await settings('60s');
  try {
    const write = async (id: string) => {
      assert.equal((await http(server.url, 'PUT', `/passinfo/passinfo/${id}?routing=r7`, { plate: '京A00002' })).status, 201);
      const owner = copies.findIndex((c) => c.appliedOffset > c.refreshedOffset);
      assert.ok(owner >= 0, 'the write is applied and not yet searchable');
      return { owner, offset: copies[owner].appliedOffset, remote: new RemoteShardCopy(transport, remoteNode, meta, owner) };
    };
    const a = await write('remote-refresh-1');
    assert.equal(await a.remote.waitForApplied(a.offset, 1000, 'refresh'), true);
    assert.ok(copies[a.owner].refreshedOffset >= a.offset, 'refreshed');

    const b = await write('remote-wait-for-1');
    assert.equal(await b.remote.waitForApplied(b.offset, 200, 'wait_for'), false, 'no refresh within 200 ms');
    assert.ok(copies[b.owner].refreshedOffset < b.offset, 'wait_for forced no refresh');
    const pending = b.remote.waitForApplied(b.offset, 10_000, 'wait_for');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal((await http(server.url, 'POST', '/passinfo/_refresh')).status, 200);
    assert.equal(await pending, true);
    assert.ok(copies[b.owner].refreshedOffset >= b.offset);
  } finally {
    await settings(null);
  }
});

test('a request for a shard this node does not hold is shard_not_found_exception', async () => {
  const remote = new RemoteShardCopy(transport, remoteNode, meta, SHARDS + 1);
  await assert.rejects(remote.get('x'), (err: unknown) => err instanceof EsError && err.type === 'shard_not_found_exception' && err.status === 404 && err.extra.index === 'passinfo');
});

test('node status lists the copies with their applied offsets and doc counts', async () => {
  const status = await fetchNodeStatus(transport, remoteNode);
  assert.equal(status.node_name, 'data-node-1');
  const mine = status.copies.filter((c) => c.index_uuid === meta.uuid).sort((a, b) => a.shard - b.shard);
  assert.deepEqual(
    mine.map((c) => [c.shard, c.state, c.applied_offset, c.doc_count]),
    copies.map((c, s) => [s, 'STARTED', c.appliedOffset, c.docCount]),
  );
  assert.ok(mine.reduce((n, c) => n + c.doc_count, 0) >= DOCS);
});
