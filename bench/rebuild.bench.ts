/**
 * bench:rebuild — a replay-based rebuild (`POST /{index}/_rebuild`,
 * docs/rebuild.md) beside `_reindex` by scroll and bulk, on the same pass
 * records, each with a writer indexing through an alias the whole time
 * (issue 15). Both build a 3-shard index with a new edge n-gram sub-field
 * from a 5-shard one. The table gives the time from start to the switch (for
 * `_reindex`: to its answer, no switch), documents or ops per second, what
 * the writer got acknowledged meanwhile, and the node's peak RSS.
 *
 *   npm run bench:rebuild                    # 1,000,000 records
 *   npm run bench:rebuild -- --docs 200000
 *   npm run bench:rebuild -- --skip-reindex  # the rebuild only
 *
 * The target: a 1M-record rebuild in at most 40 s with the writer running.
 */
import { readFile, rm } from 'node:fs/promises';
import { spawnServer, tempDir } from '../test/helpers/server.ts';
import { KeepAliveClient } from './keep-alive-client.ts';
import { argNumber, bulkLoad } from './dataset.ts';
import { printTable } from './report.ts';
import { generatePassRecords, PASSINFO_INDEX_BODY, type PassRecord } from './pass-records.ts';
import { Progress } from '../shared/terminal/progress.ts';

const DOCS = argNumber('docs', 1_000_000);
const SKIP_REINDEX = process.argv.includes('--skip-reindex');
/** The writer's bulk size and pause: a steady live load, not a second bulk load. */
const WRITER_BATCH = 200;
const WRITER_PAUSE_MS = 50;

const NEW_SETTINGS = {
  number_of_shards: 3,
  number_of_replicas: 0,
  refresh_interval: '1s',
  analysis: {
    ...PASSINFO_INDEX_BODY.settings.analysis,
    analyzer: { ...PASSINFO_INDEX_BODY.settings.analysis.analyzer, plate_edge: { type: 'custom', tokenizer: 'plate_edge_tokenizer', filter: ['lowercase'] } },
    tokenizer: { ...PASSINFO_INDEX_BODY.settings.analysis.tokenizer, plate_edge_tokenizer: { type: 'edge_ngram', min_gram: 1, max_gram: 10, token_chars: ['letter', 'digit'] } },
  },
};
const NEW_MAPPINGS = {
  passinfo: {
    properties: {
      ...PASSINFO_INDEX_BODY.mappings.passinfo.properties,
      plate: { type: 'text', analyzer: 'plate_ngram', fields: { keyword: { type: 'keyword' }, edge: { type: 'text', analyzer: 'plate_edge', search_analyzer: 'keyword' } } },
    },
  },
};

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** Samples the node's RSS every 250 ms until stopped; the peak. */
function rssPeak(pid: number) {
  let peak = 0;
  const timer = setInterval(() => {
    rssMiB(pid).then(
      (m) => (peak = Math.max(peak, m)),
      () => undefined,
    );
  }, 250);
  return {
    stop(): number {
      clearInterval(timer);
      return peak;
    },
  };
}

/** Indexes new records through `target` until stopped; counts acknowledged ops. */
function startWriter(client: KeepAliveClient, target: string, seed: number) {
  let stopped = false;
  let acked = 0;
  let failed = 0;
  const gen = generatePassRecords({ count: 10_000_000, seed, plates: 5000 });
  const run = (async () => {
    while (!stopped) {
      let body = '';
      for (let i = 0; i < WRITER_BATCH; i++) {
        const r = gen.next().value as PassRecord;
        body += `{"index":{"_type":"passinfo","_id":"${r.event_id}"}}\n${JSON.stringify(r)}\n`;
      }
      const res = await client.send('POST', `/${target}/_bulk`, Buffer.from(body), 'application/x-ndjson');
      const items = (res.body as { items?: { index: { status: number } }[] }).items ?? [];
      for (const it of items) {
        if (it.index.status < 300) acked++;
        else failed++;
      }
      await new Promise((r) => setTimeout(r, WRITER_PAUSE_MS));
    }
  })();
  return {
    async stop(): Promise<{ acked: number; failed: number }> {
      stopped = true;
      await run;
      return { acked, failed };
    },
  };
}

async function main(): Promise<void> {
  const dir = await tempDir('bench-rebuild-');
  const server = await spawnServer(dir, ['--node.processors', '2'], 120_000, true);
  const pid = server.child.pid!;
  const client = new KeepAliveClient(server.url);
  const rows: string[][] = [['', 'seconds', 'per second', 'writer acked', 'writer failed', 'peak RSS MiB']];
  try {
    const created = await client.request('PUT', '/passinfo', {
      ...PASSINFO_INDEX_BODY,
      settings: { ...PASSINFO_INDEX_BODY.settings, number_of_shards: 5, number_of_replicas: 0 },
      aliases: { live: {} },
    });
    if (created.status !== 200) throw new Error(created.text);
    const loadStarted = performance.now();
    await bulkLoad(server.url, DOCS, { progress: new Progress({ label: 'loaded', total: DOCS }) });
    await client.request('POST', '/passinfo/_refresh');
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    rows.push(['bulk load (5 shards)', loadSeconds.toFixed(1), `${Math.round(DOCS / loadSeconds)} docs`, '-', '-', (await rssMiB(pid)).toFixed(0)]);

    if (!SKIP_REINDEX) {
      const made = await client.request('PUT', '/reindexed', { settings: NEW_SETTINGS, mappings: NEW_MAPPINGS });
      if (made.status !== 200) throw new Error(made.text);
      const writer = startWriter(client, 'live', 1001);
      const rss = rssPeak(pid);
      const t0 = performance.now();
      const r = await client.request('POST', '/_reindex', { source: { index: 'passinfo', size: 5000 }, dest: { index: 'reindexed', type: 'passinfo' } });
      const seconds = (performance.now() - t0) / 1000;
      const peak = rss.stop();
      const w = await writer.stop();
      if (r.status !== 200) throw new Error(r.text);
      const copied = (r.body as { created: number; updated: number }).created + (r.body as { updated: number }).updated;
      rows.push([`_reindex scroll+bulk (${copied} docs)`, seconds.toFixed(1), `${Math.round(copied / seconds)} docs`, String(w.acked), String(w.failed), peak.toFixed(0)]);
      await client.request('DELETE', '/reindexed');
    }

    const writer = startWriter(client, 'live', 2002);
    const rss = rssPeak(pid);
    const t0 = performance.now();
    const started = await client.request('POST', '/passinfo/_rebuild?wait_for_completion=false', {
      dest: { index: 'passinfo-v2', settings: NEW_SETTINGS, mappings: NEW_MAPPINGS },
      alias: 'live',
    });
    if (started.status !== 200) throw new Error(started.text);
    const task = (started.body as { task: string }).task;
    const progress = new Progress({ label: 'replayed' });
    let response: { ops_replayed: number; took: number } | null = null;
    for (;;) {
      const t = await client.request('GET', `/_tasks/${task}`);
      const body = t.body as { completed: boolean; task: { status?: { ops_replayed: number; ops_behind: number; phase: string } }; response?: { ops_replayed: number; took: number }; error?: unknown };
      if (body.completed) {
        if (body.error !== undefined) throw new Error(JSON.stringify(body.error));
        response = body.response!;
        break;
      }
      const st = body.task.status;
      if (st) progress.update(st.ops_replayed, `behind ${st.ops_behind}, ${st.phase}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const seconds = (performance.now() - t0) / 1000;
    progress.finish(response.ops_replayed);
    const peak = rss.stop();
    const w = await writer.stop();
    rows.push([`_rebuild replay to switch (${response.ops_replayed} ops)`, seconds.toFixed(1), `${Math.round(response.ops_replayed / seconds)} ops`, String(w.acked), String(w.failed), peak.toFixed(0)]);
    const alias = await client.request('GET', '/_alias/live');
    if (!Object.keys(alias.body as object).includes('passinfo-v2')) throw new Error(`alias not switched: ${alias.text}`);
    printTable(`bench:rebuild — ${DOCS.toLocaleString('en-US')} pass records, 5 shards → 3 with plate.edge, writer through the alias (${WRITER_BATCH} docs per bulk, ${WRITER_PAUSE_MS} ms pause)`, rows);
  } finally {
    client.close();
    server.child.kill('SIGTERM');
    await server.exited;
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
