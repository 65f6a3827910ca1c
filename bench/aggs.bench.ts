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
import { generatePassRecords } from './pass-records.ts';
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
    const plate = generatePassRecords({ count: 1 }).next().value!.plate;
    const agg = (aggs: unknown, query: unknown = { match_all: {} }) => async () => {
      const r = await client.request('POST', '/passinfo/_search', { size: 0, query, aggs });
      if (r.status !== 200) throw new Error(r.text.slice(0, 300));
    };
    const cases: [string, () => Promise<void>][] = [
      ['terms land_id (all docs)', agg({ lands: { terms: { field: 'land_id', size: 200 } } })],
      ['date_histogram per day (all docs)', agg({ days: { date_histogram: { field: 'pass_time', interval: 'day' } } })],
      ['land_id x day (all docs)', agg({ lands: { terms: { field: 'land_id', size: 200 }, aggs: { days: { date_histogram: { field: 'pass_time', interval: 'day' } } } } })],
      ['landing points of one plate', agg({ lands: { terms: { field: 'land_id', size: 200 } } }, { term: { 'plate.keyword': plate } })],
      [
        'plates with _count > 10 (bucket_selector)',
        agg({
          plates: {
            terms: { field: 'plate.keyword', size: 10000 },
            aggs: { many: { bucket_selector: { buckets_path: { c: '_count' }, script: 'params.c > 10' } } },
          },
        }),
      ],
      ['cardinality plate.keyword', agg({ plates: { cardinality: { field: 'plate.keyword' } } })],
    ];
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
