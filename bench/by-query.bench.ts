/**
 * bench:by-query — `_update_by_query`, `_delete_by_query` and `_reindex` over
 * the pass records (issue 13): documents per second of each, and whether the
 * node keeps answering while they run. Each runs as a task
 * (`wait_for_completion=false`, polled through `_tasks`) while a probe sends
 * `GET /` and a small search every 50 ms; the table gives docs/s, the
 * probes' p50/p99/max and the node's RSS.
 *
 *   npm run bench:by-query                   # 1,000,000 pass records
 *   npm run bench:by-query -- --docs 100000
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from '../test/helpers/server.ts';
import { KeepAliveClient } from './keep-alive-client.ts';
import { argNumber, bulkLoad } from './dataset.ts';
import { PASSINFO_INDEX_BODY } from './pass-records.ts';
import { percentile, printTable } from './report.ts';

const DOCS = argNumber('docs', 1_000_000);
const PROBE_EVERY_MS = 50;

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

interface Scenario {
  readonly name: string;
  readonly path: string;
  readonly body: unknown;
  /** The response member that counts the documents it handled. */
  readonly counted: 'updated' | 'deleted' | 'created';
}

const SCENARIOS: readonly Scenario[] = [
  { name: '_update_by_query, no script (re-index every record)', path: '/passinfo/_update_by_query?conflicts=proceed&refresh=true', body: { query: { match_all: {} } }, counted: 'updated' },
  {
    name: '_update_by_query, script speed += 1',
    path: '/passinfo/_update_by_query?conflicts=proceed&refresh=true',
    body: { query: { match_all: {} }, script: { source: 'ctx._source.speed += params.d', params: { d: 1 } } },
    counted: 'updated',
  },
  {
    name: '_reindex into a new index, script',
    path: '/_reindex?refresh=true',
    body: { source: { index: 'passinfo' }, dest: { index: 'passinfo-copy' }, script: { source: 'ctx._source.plate_color = 9' } },
    counted: 'created',
  },
  { name: '_delete_by_query, speed < 70 (about half)', path: '/passinfo/_delete_by_query?conflicts=proceed&refresh=true', body: { query: { range: { speed: { lt: 70 } } } }, counted: 'deleted' },
];

/** `GET /` and a small search, each every PROBE_EVERY_MS until `until()`; any failure (a refused request) throws. */
async function probe(client: KeepAliveClient, until: () => boolean): Promise<number[]> {
  const times: number[] = [];
  const loop = async (path: string): Promise<void> => {
    while (!until()) {
      const t0 = performance.now();
      const r = await client.request('GET', path);
      if (r.status !== 200) throw new Error(`probe ${path} answered ${r.status}: ${r.text.slice(0, 200)}`);
      times.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  };
  await Promise.all([loop('/'), loop('/passinfo/_search?q=speed:80&size=1')]);
  return times;
}

async function runTask(client: KeepAliveClient, s: Scenario): Promise<{ count: number; seconds: number; failures: number }> {
  const t0 = performance.now();
  const sep = s.path.includes('?') ? '&' : '?';
  const started = await client.request('POST', `${s.path}${sep}wait_for_completion=false`, s.body);
  const task = (started.body as { task?: string }).task;
  if (started.status !== 200 || task === undefined) throw new Error(`${s.name}: ${started.status} ${started.text.slice(0, 300)}`);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const r = await client.request('GET', `/_tasks/${task}`);
    const body = r.body as { completed?: boolean; response?: Record<string, unknown>; error?: unknown };
    if (body.completed !== true) continue;
    if (body.error !== undefined) throw new Error(`${s.name}: ${JSON.stringify(body.error).slice(0, 300)}`);
    const resp = body.response!;
    return { count: Number(resp[s.counted] ?? 0), seconds: (performance.now() - t0) / 1000, failures: (resp.failures as unknown[] | undefined)?.length ?? 0 };
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-by-query-'));
  const server = await spawnServer(dir, ['--node.processors', '2']);
  const client = new KeepAliveClient(server.url);
  const probeClient = new KeepAliveClient(server.url);
  try {
    const created = await client.request('PUT', '/passinfo', { ...PASSINFO_INDEX_BODY, settings: { ...PASSINFO_INDEX_BODY.settings, number_of_replicas: 0 } });
    if (created.status !== 200) throw new Error(created.text);
    const t0 = performance.now();
    await bulkLoad(server.url, DOCS);
    await client.request('POST', '/passinfo/_refresh');
    const loadSeconds = (performance.now() - t0) / 1000;
    const rows: string[][] = [['operation', 'docs', 'seconds', 'docs/s', 'probe p50 ms', 'p99', 'max', 'RSS MiB']];
    rows.push(['(bulk load)', String(DOCS), loadSeconds.toFixed(1), (DOCS / loadSeconds).toFixed(0), '-', '-', '-', (await rssMiB(server.child.pid!)).toFixed(0)]);
    for (const s of SCENARIOS) {
      let done = false;
      const probes = probe(probeClient, () => done);
      const result = await runTask(client, s).finally(() => {
        done = true;
      });
      const times = await probes;
      if (result.failures > 0) throw new Error(`${s.name}: ${result.failures} failures`);
      rows.push([
        s.name,
        String(result.count),
        result.seconds.toFixed(1),
        (result.count / result.seconds).toFixed(0),
        percentile(times, 50).toFixed(1),
        percentile(times, 99).toFixed(1),
        Math.max(...times).toFixed(1),
        (await rssMiB(server.child.pid!)).toFixed(0),
      ]);
    }
    printTable(`bench:by-query (${DOCS} pass records, 5 shards, 0 replicas; probes: GET / and a search every ${PROBE_EVERY_MS} ms)`, rows);
  } finally {
    client.close();
    probeClient.close();
    server.child.kill('SIGTERM');
    await server.exited;
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
