/**
 * bench:transport — the node-to-node transport over loopback: round-trip
 * latency of a shard query phase and of an empty RPC, throughput of
 * concurrent RPCs on one connection, and the fetch phase of 1000 hits, each
 * through RemoteShardClient beside LocalShardClient on the same copy.
 * Both ends run in this process (one event loop), so the figures include the
 * serving side's work as well as the transport's.
 *
 *   npx tsx bench/transport.bench.ts                 # 20,000 records, 1 shard
 *   npx tsx bench/transport.bench.ts --count 50000 --runs 500
 */
import { generatePassRecords, PASSINFO_INDEX_BODY } from './pass-records.ts';
import { argNumber, measure } from './dataset.ts';
import { percentile, printTable } from './report.ts';
import { startServer, http } from '../test/helpers/server.ts';
import { parseSearchBody } from '../shared/dsl/query/search-body.ts';
import type { ShardClient } from '../services/node/search/shard-client.ts';
import { SearchContexts } from '../services/node/search/search-contexts.ts';
import { TransportServer } from '../services/node/transport/transport-server.ts';
import { TransportClient } from '../services/node/transport/transport-client.ts';
import { ShardService } from '../services/node/transport/shard-service.ts';
import { RemoteShardClient } from '../services/node/transport/remote-shard-client.ts';
import { FREE_CONTEXT } from '../services/node/transport/rpc-messages.ts';

const count = argNumber('count', 20_000);
const runs = argNumber('runs', 300);
const FETCH_HITS = 1000;

async function main(): Promise<void> {
  const server = await startServer();
  const contexts = new SearchContexts(500);
  const transportServer = new TransportServer();
  const transport = new TransportClient();
  try {
    const body = { ...PASSINFO_INDEX_BODY, settings: { ...PASSINFO_INDEX_BODY.settings, number_of_shards: 1 } };
    await http(server.url, 'PUT', '/passinfo', body);
    const records = [...generatePassRecords({ count })];
    for (let i = 0; i < records.length; i += 5000) {
      const lines = records.slice(i, i + 5000).flatMap((r) => [JSON.stringify({ index: { _type: 'passinfo', _id: r.event_id } }), JSON.stringify(r)]);
      await http(server.url, 'POST', '/passinfo/_bulk', lines.join('\n') + '\n');
    }
    await http(server.url, 'POST', '/passinfo/_refresh');
    const meta = server.node.cluster.index('passinfo')!;
    const copy = (await server.node.indices.copiesOf(meta)).get(0)!;

    new ShardService(
      {
        copy: (uuid, shard) => server.node.indices.held(uuid, shard)?.copy,
        meta: (uuid) => server.node.cluster.indexByUuid(uuid),
        held: () => [],
      },
      contexts,
      'bench',
    ).register(transportServer);
    const port = await transportServer.listen('127.0.0.1', 0);
    const node = { name: 'bench', host: '127.0.0.1', port };
    const clients: [string, ShardClient][] = [
      ['local', copy.searchClient(meta, contexts)],
      ['remote', new RemoteShardClient(transport, node, meta, 0)],
    ];

    const queryBody = { query: { bool: { must: [{ match: { plate: records[0].plate.slice(1, 5) } }], filter: [{ range: { speed: { gte: 20 } } }] } }, size: 10 };
    const querySearch = parseSearchBody(queryBody);
    const fetchBody = { query: { match_all: {} }, size: FETCH_HITS };
    const fetchSearch = parseSearchBody(fetchBody);

    const rows: string[][] = [['scenario', 'client', 'p50 ms', 'p99 ms', 'ops/s', 'hits/s']];
    for (const [name, client] of clients) {
      const q = await measure(runs, async () => {
        const r = await client.query({ search: querySearch, source: { body: queryBody, url: {} }, size: 10, after: null, nowMillis: Date.now(), keepAliveMs: 0, contextId: null });
        client.release(r.contextId);
      });
      rows.push(['query phase (size 10)', name, percentile(q, 50).toFixed(3), percentile(q, 99).toFixed(3), (1000 / percentile(q, 50)).toFixed(0), '']);
    }
    for (const [name, client] of clients) {
      const f = await measure(Math.max(20, Math.floor(runs / 5)), async () => {
        const r = await client.query({ search: fetchSearch, source: { body: fetchBody, url: {} }, size: FETCH_HITS, after: null, nowMillis: Date.now(), keepAliveMs: 0, contextId: null });
        const docs = [...r.result.docs];
        const hits = await client.fetch({ contextId: r.contextId, docs, scores: [...r.result.scores], sortValues: docs.map(() => null), release: true });
        if (hits.length !== FETCH_HITS) throw new Error(`fetched ${hits.length} hits`);
      });
      const p50 = percentile(f, 50);
      rows.push([`query+fetch ${FETCH_HITS} hits`, name, p50.toFixed(3), percentile(f, 99).toFixed(3), (1000 / p50).toFixed(0), ((FETCH_HITS * 1000) / p50).toFixed(0)]);
    }
    const ping = await measure(runs * 3, async () => {
      await transport.call(node, FREE_CONTEXT, { context_id: -1 });
    });
    rows.push(['empty RPC (free_context)', 'remote', percentile(ping, 50).toFixed(3), percentile(ping, 99).toFixed(3), (1000 / percentile(ping, 50)).toFixed(0), '']);
    const concurrent = 64;
    const total = 20_000;
    const t0 = performance.now();
    let sent = 0;
    await Promise.all(
      Array.from({ length: concurrent }, async () => {
        while (sent < total) {
          sent++;
          await transport.call(node, FREE_CONTEXT, { context_id: -1 });
        }
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    rows.push([`empty RPC, ${concurrent} in flight`, 'remote', '', '', (total / secs).toFixed(0), '']);
    printTable(`transport over loopback (${count} records, 1 shard, RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB)`, rows);
  } finally {
    await transport.close();
    await transportServer.close();
    contexts.close();
    await server.stop();
  }
}

await main();
