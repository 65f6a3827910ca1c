/**
 * bench:aggs — the pass-record analytics as aggregations over the whole
 * index (5 shards), through HTTP against a node in its own process.
 *
 *   npm run bench:aggs                      # 1,000,000 records
 *   npm run bench:aggs -- --count 5000000   # the linearity check
 *   npm run bench:aggs -- --warmup 10        # untimed calls of each aggregation first (default 30)
 *
 * Requests go through a keep-alive node:http client, as the official client sends them.
 */
import { seedAggregations } from './seed-workload.ts';
import { argNumber, measure, openDataset } from './dataset.ts';
import { percentile, printTable } from './report.ts';
import { KeepAliveClient } from './keep-alive-client.ts';

const count = argNumber('count', 1_000_000);
const runs = argNumber('runs', 30);
const warmup = argNumber('warmup', 30);

async function main(): Promise<void> {
  const ds = await openDataset(count);
  const client = new KeepAliveClient(ds.server.url);
  try {
    const cases: [string, () => Promise<void>][] = seedAggregations().map(([name, body]) => [
      name,
      async () => {
        const r = await client.request('POST', '/passinfo/_search', body);
        if (r.status !== 200) throw new Error(r.text.slice(0, 300));
      },
    ]);
    const rows: string[][] = [['aggregation', 'p50 ms', 'p99 ms']];
    for (const [name, fn] of cases) {
      const s = await measure(runs, fn, warmup);
      rows.push([name, percentile(s, 50).toFixed(1), percentile(s, 99).toFixed(1)]);
    }
    printTable(`bench:aggs (${count} records, 5 shards, ${runs} runs each)`, rows);
  } finally {
    client.close();
    await ds.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
