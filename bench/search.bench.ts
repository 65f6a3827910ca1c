/**
 * bench:search — the seed's queries on the pass-record data set (5 shards),
 * through HTTP against a node in its own process, after a warm-up.
 *
 *   npm run bench:search                     # 1,000,000 records
 *   npm run bench:search -- --count 200000 --runs 50
 *   npm run bench:search -- --client fetch   # through fetch instead of a keep-alive node:http client
 *   npm run bench:search -- --scrolls 1      # one scroll pass (default 3, the median is reported)
 *   npm run bench:search -- --warmup 50      # untimed calls of each query first (default 500: every
 *                                            # shard worker thread compiles its own code, as a long-running node has)
 */
import { seedSearches } from './seed-workload.ts';
import { argNumber, measure, openDataset } from './dataset.ts';
import { KeepAliveClient, type JsonResponse } from './keep-alive-client.ts';
import { percentile, printTable } from './report.ts';
import { http as fetchHttp } from '../test/helpers/server.ts';

const count = argNumber('count', 1_000_000);
const runs = argNumber('runs', 100);
const scrollPasses = argNumber('scrolls', 3);
const warmup = argNumber('warmup', 500);
const clientArg = process.argv.indexOf('--client');
const clientKind = clientArg >= 0 ? process.argv[clientArg + 1] : 'http';
if (clientKind !== 'http' && clientKind !== 'fetch') throw new Error(`--client is http or fetch, not ${clientKind}`);

async function main(): Promise<void> {
  const ds = await openDataset(count);
  const url = ds.server.url;
  const keepAlive = new KeepAliveClient(url);
  const http = (_base: string, method: string, path: string, body?: unknown): Promise<JsonResponse> =>
    clientKind === 'fetch' ? fetchHttp(url, method, path, body) : keepAlive.request(method, path, body);
  try {
    const post = (body: unknown) => async () => {
      const r = await http(url, 'POST', '/passinfo/_search', body);
      if (r.status !== 200) throw new Error(r.text.slice(0, 300));
    };
    const queries: [string, () => Promise<void>][] = seedSearches().map(([name, body]) => [name, post(body)]);
    const rows: string[][] = [['query', 'p50 ms', 'p99 ms']];
    for (const [name, fn] of queries) {
      const s = await measure(runs, fn, warmup);
      rows.push([name, percentile(s, 50).toFixed(2), percentile(s, 99).toFixed(2)]);
    }
    // Scroll the whole index in _doc order, a few times (the first pass also warms up): the median pass.
    const scrollPass = async (): Promise<{ docs: number; rate: number }> => {
      const t0 = performance.now();
      let res = await http(url, 'POST', '/passinfo/_search?scroll=1m', { sort: ['_doc'], size: 5000 });
      let body = res.body as { _scroll_id: string; hits: { hits: unknown[] } };
      let docs = body.hits.hits.length;
      while (body.hits.hits.length > 0) {
        res = await http(url, 'POST', '/_search/scroll', { scroll: '1m', scroll_id: body._scroll_id });
        body = res.body as { _scroll_id: string; hits: { hits: unknown[] } };
        docs += body.hits.hits.length;
      }
      const secs = (performance.now() - t0) / 1000;
      await http(url, 'DELETE', '/_search/scroll/_all');
      return { docs, rate: docs / secs };
    };
    const passes: { docs: number; rate: number }[] = [];
    for (let i = 0; i < scrollPasses; i++) passes.push(await scrollPass());
    const rates = passes.map((p) => p.rate);
    rows.push([`scroll _doc, ${passes[0]!.docs} docs, median of ${scrollPasses}`, `${Math.round(percentile(rates, 50))} docs/s`, '']);
    printTable(`bench:search (${count} records, 5 shards, ${runs} runs each, ${clientKind === 'fetch' ? 'fetch' : 'keep-alive node:http'} client)`, rows);
  } finally {
    keepAlive.close();
    await ds.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
