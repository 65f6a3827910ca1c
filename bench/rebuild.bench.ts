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
 *   npm run bench:rebuild -- --skip-rebuild  # the `_reindex` only
 *   npm run bench:rebuild -- --reindex-by-scroll   # `_reindex` with a query, so it copies by scroll and bulk, not by replay
 *   npm run bench:rebuild -- --keep /tmp/rebuild-1m   # keep the loaded 5-shard index; a rerun copies it instead of loading
 *   npm run bench:rebuild -- --cpu-prof /tmp/prof     # .cpuprofile of every thread of the node (with --keep: the rebuild only)
 *   npm run bench:rebuild -- --keep /tmp/rebuild-1m --root /tmp/main-build   # the rebuild on another checkout's build (a before/after)
 *   npm run bench:rebuild -- --processors 3           # the node's `node.processors` (default 2)
 *
 * The issue's target: a 1M-record rebuild in at most 40 s with the writer running.
 */
import { cp, readdir, readFile, rm } from 'node:fs/promises';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { spawnServer, tempDir } from '../test/helpers/server.ts';
import { KeepAliveClient } from './keep-alive-client.ts';
import { argNumber, argString, bulkLoad } from './dataset.ts';
import { printTable } from './report.ts';
import { generatePassRecords, PASSINFO_INDEX_BODY, type PassRecord } from './pass-records.ts';
import { Progress } from '../shared/terminal/progress.ts';

const DOCS = argNumber('docs', 1_000_000);
const SKIP_REINDEX = process.argv.includes('--skip-reindex');
const SKIP_REBUILD = process.argv.includes('--skip-rebuild');
/** A query that matches every document: `_reindex` then takes the scroll path (docs/rebuild.md, "`_reindex` of a whole index"). */
const BY_SCROLL = process.argv.includes('--reindex-by-scroll');
const KEEP = argString('keep');
const CPU_PROF = argString('cpu-prof');
const ROOT = argString('root');
const PROCESSORS = argString('processors') ?? '2';
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

/** CPU seconds (user + system) each thread of `pid` used so far, by thread id (Linux /proc; clock ticks of 10 ms). */
async function threadCpu(pid: number): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => '');
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (f.length > 13) out.set(Number(tid), (Number(f[11]) + Number(f[12])) / 100);
  }
  return out;
}

/** The CPU seconds each thread used between two threadCpu readings, busiest first (the main thread's id is the pid). */
function cpuUsed(before: Map<number, number>, after: Map<number, number>, pid: number): string {
  const used = [...after].map(([tid, s]) => [tid, s - (before.get(tid) ?? 0)] as const).filter(([, s]) => s >= 0.5);
  used.sort((a, b) => b[1] - a[1]);
  const total = used.reduce((n, [, s]) => n + s, 0);
  return `${total.toFixed(1)} s (${used.map(([tid, s]) => `${tid === pid ? 'main' : tid} ${s.toFixed(1)}`).join(', ')})`;
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

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

/** Loads DOCS records into a 5-shard `passinfo` (alias `live`) on the node at `url`; seconds taken. */
async function loadSource(client: KeepAliveClient, url: string): Promise<number> {
  const created = await client.request('PUT', '/passinfo', {
    ...PASSINFO_INDEX_BODY,
    settings: { ...PASSINFO_INDEX_BODY.settings, number_of_shards: 5, number_of_replicas: 0 },
    aliases: { live: {} },
  });
  if (created.status !== 200) throw new Error(created.text);
  const loadStarted = performance.now();
  await bulkLoad(url, DOCS, { progress: new Progress({ label: 'loaded', total: DOCS }) });
  await client.request('POST', '/passinfo/_refresh');
  return (performance.now() - loadStarted) / 1000;
}

/**
 * The node's data directory with the source index loaded. With `--keep DIR`
 * the load is kept in DIR (stopped cleanly, so it opens without replaying) and
 * each run works on a copy of it: a rebuild changes the aliases.
 */
async function loadedDataDir(rows: string[][]): Promise<string> {
  const dir = await tempDir('bench-rebuild-');
  if (KEEP === undefined) return dir;
  const marker = join(KEEP, 'bench-rebuild.json');
  if (!(existsSync(marker) && readFileSync(marker, 'utf8') === JSON.stringify({ docs: DOCS }))) {
    await rm(KEEP, { recursive: true, force: true });
    const server = await spawnServer(KEEP, ['--node.processors', '2'], 120_000, true);
    const client = new KeepAliveClient(server.url);
    try {
      const seconds = await loadSource(client, server.url);
      rows.push(['bulk load (5 shards)', seconds.toFixed(1), `${Math.round(DOCS / seconds)} docs`, '-', '-', (await rssMiB(server.child.pid!)).toFixed(0)]);
    } finally {
      client.close();
      server.child.kill('SIGTERM');
      await server.exited;
    }
    writeFileSync(marker, JSON.stringify({ docs: DOCS }));
  }
  await cp(KEEP, dir, { recursive: true });
  return dir;
}

async function main(): Promise<void> {
  process.stdout.write(`bench:rebuild ${new Date().toISOString()} ${ROOT ?? 'this build'} processors ${PROCESSORS} docs ${DOCS} load average ${load()}\n`);
  const rows: string[][] = [['', 'seconds', 'per second', 'writer acked', 'writer failed', 'peak RSS MiB']];
  const dir = await loadedDataDir(rows);
  // A profile per thread, written when the node stops.
  const profFlags = CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`];
  const server = await spawnServer(dir, ['--node.processors', PROCESSORS], 120_000, true, ROOT, profFlags);
  const pid = server.child.pid!;
  const client = new KeepAliveClient(server.url);
  try {
    if (KEEP === undefined) {
      const loadSeconds = await loadSource(client, server.url);
      rows.push(['bulk load (5 shards)', loadSeconds.toFixed(1), `${Math.round(DOCS / loadSeconds)} docs`, '-', '-', (await rssMiB(pid)).toFixed(0)]);
    } else {
      const health = await client.request('GET', '/_cluster/health/passinfo?wait_for_status=green&timeout=120s');
      if (health.status !== 200) throw new Error(health.text);
      const count = await client.request('GET', '/passinfo/_count');
      if ((count.body as { count: number }).count !== DOCS) throw new Error(`kept index holds ${count.text}`);
    }
    process.stdout.write(`load average before the rebuild ${load()}\n`);

    if (!SKIP_REINDEX) {
      const made = await client.request('PUT', '/reindexed', { settings: NEW_SETTINGS, mappings: NEW_MAPPINGS });
      if (made.status !== 200) throw new Error(made.text);
      const writer = startWriter(client, 'live', 1001);
      const rss = rssPeak(pid);
      const t0 = performance.now();
      const cpuBefore = await threadCpu(pid);
      const query = BY_SCROLL ? { query: { exists: { field: 'plate' } } } : {};
      const r = await client.request('POST', '/_reindex', { source: { index: 'passinfo', size: 5000, ...query }, dest: { index: 'reindexed', type: 'passinfo' } });
      const seconds = (performance.now() - t0) / 1000;
      const cpuAfter = await threadCpu(pid);
      const peak = rss.stop();
      const w = await writer.stop();
      if (r.status !== 200) throw new Error(r.text);
      const copied = (r.body as { created: number; updated: number }).created + (r.body as { updated: number }).updated;
      rows.push([`_reindex ${BY_SCROLL ? 'scroll+bulk' : 'whole index (replay)'} (${copied} docs)`, seconds.toFixed(1), `${Math.round(copied / seconds)} docs`, String(w.acked), String(w.failed), peak.toFixed(0)]);
      process.stdout.write(`load average after the _reindex ${load()}\n`);
      process.stdout.write(`node CPU time of the _reindex, by thread: ${cpuUsed(cpuBefore, cpuAfter, pid)}\n`);
      await client.request('DELETE', '/reindexed');
    }
    if (SKIP_REBUILD) {
      printTable(`bench:rebuild — ${DOCS.toLocaleString('en-US')} pass records, 5 shards → 3 with plate.edge, writer through the alias`, rows);
      return;
    }

    const writer = startWriter(client, 'live', 2002);
    const rss = rssPeak(pid);
    const cpuBefore = await threadCpu(pid);
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
    const cpuAfter = await threadCpu(pid);
    progress.finish(response.ops_replayed);
    const peak = rss.stop();
    const w = await writer.stop();
    rows.push([`_rebuild replay to switch (${response.ops_replayed} ops)`, seconds.toFixed(1), `${Math.round(response.ops_replayed / seconds)} ops`, String(w.acked), String(w.failed), peak.toFixed(0)]);
    const alias = await client.request('GET', '/_alias/live');
    if (!Object.keys(alias.body as object).includes('passinfo-v2')) throw new Error(`alias not switched: ${alias.text}`);
    process.stdout.write(`load average after the rebuild ${load()}\n`);
    process.stdout.write(`node CPU time from the request to the switch, by thread: ${cpuUsed(cpuBefore, cpuAfter, pid)}\n`);
    printTable(`bench:rebuild — ${DOCS.toLocaleString('en-US')} pass records, 5 shards → 3 with plate.edge, writer through the alias (${WRITER_BATCH} docs per bulk, ${WRITER_PAUSE_MS} ms pause)`, rows);
  } finally {
    client.close();
    server.child.kill('SIGTERM');
    await server.exited;
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
