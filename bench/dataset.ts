/**
 * A pass-record data set served by a node in its own process, kept on disk
 * between benchmark runs (bench/.data/<count>) so search and aggregation
 * benchmarks do not reload a million records each time.
 */
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { generatePassRecords, PASSINFO_INDEX_BODY } from './pass-records.ts';
import { spawnServer, http, type ChildServer } from '../test/helpers/server.ts';
import { KeepAliveClient } from './keep-alive-client.ts';
import { nextBulkBody } from './seed-workload.ts';
import { Progress } from '../shared/terminal/progress.ts';

export interface Dataset {
  readonly server: ChildServer;
  readonly count: number;
  /** Seconds the load took (0 when reused). */
  readonly loadSeconds: number;
  stop(): Promise<void>;
}

/**
 * A bulk request, retried on a reset connection (a keep-alive socket closed
 * under the client): indexing the same ids again changes nothing.
 */
async function bulkWithRetry(client: KeepAliveClient, body: Buffer, attempts = 3): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      return await client.bulk('/passinfo/_bulk', body);
    } catch (err) {
      if (i >= attempts || !/ECONNRESET|socket hang up/.test((err as Error).message)) throw err;
      process.stderr.write(`bulk request failed (${(err as Error).message}), retrying\n`);
    }
  }
}

export async function bulkLoad(
  url: string,
  count: number,
  opts: { batch?: number; concurrency?: number; seed?: number; progress?: Progress } = {},
): Promise<number> {
  const batch = opts.batch ?? 5000;
  const gen = generatePassRecords({ count, seed: opts.seed });
  const client = new KeepAliveClient(url);
  let sent = 0;
  const worker = async () => {
    for (let b = nextBulkBody(gen, batch); b !== null; b = nextBulkBody(gen, batch)) {
      await bulkWithRetry(client, b.body);
      sent += b.docs;
      opts.progress?.update(sent);
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.concurrency ?? 3 }, worker));
  } finally {
    client.close();
  }
  opts.progress?.finish(sent);
  return sent;
}

export async function openDataset(count: number, opts: { fresh?: boolean } = {}): Promise<Dataset> {
  const dir = new URL(`./.data/${count}`, import.meta.url).pathname;
  if (opts.fresh) await rm(dir, { recursive: true, force: true });
  const existed = existsSync(join(dir, 'node.json'));
  await mkdir(dir, { recursive: true });
  const server = await spawnServer(dir);
  // A restart rebuilds segments from the doc store (docs/decisions/001): the copies start once that is done.
  await http(server.url, 'GET', '/_cluster/health?wait_for_status=yellow&timeout=15m');
  let loadSeconds = 0;
  const have = existed ? ((await http(server.url, 'GET', '/passinfo/_count')).body as { count?: number }).count : undefined;
  if (have !== count) {
    await http(server.url, 'DELETE', '/passinfo?ignore_unavailable=true');
    const created = await http(server.url, 'PUT', '/passinfo', PASSINFO_INDEX_BODY);
    if (created.status !== 200) throw new Error(`create index: ${created.text}`);
    const t0 = performance.now();
    await bulkLoad(server.url, count, { progress: new Progress({ label: 'loaded', total: count }) });
    loadSeconds = (performance.now() - t0) / 1000;
  }
  await http(server.url, 'POST', '/passinfo/_refresh');
  return {
    server,
    count,
    loadSeconds,
    async stop() {
      server.child.kill('SIGTERM');
      await server.exited;
    },
  };
}

/** Runs `fn` `warmup` times, then `runs` times, returning the timed samples in ms. */
/**
 * Times `runs` calls of `fn` after `warmup` untimed ones. Every shard worker
 * thread compiles its own code, so warming one query up takes a few dozen
 * calls (Rally warms queries up with hundreds of iterations).
 */
export async function measure(runs: number, fn: () => Promise<void>, warmup = 30): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return samples;
}

/** The value after `--name` on the command line, if given. */
export function argString(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export function argNumber(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}
