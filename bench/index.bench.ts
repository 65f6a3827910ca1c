/**
 * bench:index — bulk-loads pass records into the passinfo index of a node
 * running in its own process, then measures realtime GET latency.
 *
 *   npm run bench:index                  # 1,000,000 records
 *   npm run bench:index -- --count 200000 --concurrency 4 --batch 5000
 *   npm run bench:index -- --trace-buffer 0   # without the console's span buffer (tracing off; on by default)
 *
 * Prints documents/s, the server's peak RSS, data size on disk and GET p50/p99.
 *
 * The bulk bodies are built before the clock starts and sent over keep-alive
 * node:http connections; a response is checked for `"errors":false` without
 * parsing its items (as Rally does without detailed results). The load
 * generator shares the machine's cores with the server, so what it spends is
 * taken from the server: it must cost next to nothing while timed.
 */
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { execSync } from 'node:child_process';
import { PASSINFO_INDEX_BODY } from './pass-records.ts';
import { buildBulkBodies } from './seed-workload.ts';
import { KeepAliveClient } from './keep-alive-client.ts';
import { spawnServer, tempDir, http } from '../test/helpers/server.ts';
import { percentile, printTable } from './report.ts';
import { Progress } from '../shared/terminal/progress.ts';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}

const count = arg('count', 1_000_000);
const batch = arg('batch', 5000);
const concurrency = arg('concurrency', 3);
const getSamples = arg('gets', 2000);
/** `telemetry.traces.buffer_size` of the server: 0 = tracing off; the node's default is 10,000 spans. */
const traceBuffer = arg('trace-buffer', 10_000);

/** CPU seconds (user + system, all threads) the process has used: steadier than wall time on shared cores. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name; utime and stime are the 14th and 15th fields, in clock ticks.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** USER_HZ, 100 on Linux. */
const CLOCK_TICKS_PER_SECOND = 100;

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) / 1024 : NaN;
}

async function main(): Promise<void> {
  const dir = await tempDir('bench-index-');
  const server = await spawnServer(dir, ['--telemetry.traces.buffer_size', String(traceBuffer)]);
  process.stdout.write(traceBuffer > 0 ? `tracing on: the server keeps its last ${traceBuffer} spans\n` : 'tracing off (--trace-buffer 0)\n');
  try {
    const created = await http(server.url, 'PUT', '/passinfo', PASSINFO_INDEX_BODY);
    if (created.status !== 200) throw new Error(`create index: ${created.status} ${created.text}`);
    const ids: string[] = [];
    // The first 100,000 ids are read back in the GET phase.
    const bodies = buildBulkBodies(count, batch, (r) => {
      if (ids.length < 100_000) ids.push(r.event_id);
    });
    const client = new KeepAliveClient(server.url);
    let sent = 0;
    let next = 0;
    const start = performance.now();
    const cpuStart = cpuSeconds(server.child.pid!);
    const progress = new Progress({ label: 'indexed', total: count });
    const worker = async () => {
      while (next < bodies.length) {
        const b = bodies[next++];
        await client.bulk('/passinfo/_bulk', b.body);
        sent += b.docs;
        progress.update(sent);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    progress.finish(sent);
    const elapsed = (performance.now() - start) / 1000;
    const serverCpu = cpuSeconds(server.child.pid!) - cpuStart;
    await http(server.url, 'POST', '/passinfo/_refresh');
    const cnt = (await http(server.url, 'GET', '/passinfo/_count')).body as { count: number };

    const lat: number[] = [];
    for (let i = 0; i < getSamples; i++) {
      const id = ids[(i * 7919) % ids.length];
      const t0 = performance.now();
      // As the official client reads a document: a keep-alive connection, the answer parsed.
      const r = await client.request('GET', `/passinfo/passinfo/${id}`);
      if (r.status !== 200) throw new Error(`GET ${id}: ${r.status} ${r.text.slice(0, 200)}`);
      lat.push(performance.now() - t0);
    }
    const du = execSync(`du -sm ${dir}`).toString().split('\t')[0];
    printTable('bench:index', [
      ['documents', String(sent)],
      ['searchable (count)', String(cnt.count)],
      ['seconds', elapsed.toFixed(1)],
      ['documents/s', Math.round(sent / elapsed).toString()],
      ['server CPU s', serverCpu.toFixed(1)],
      ['server CPU µs/document', ((serverCpu * 1e6) / sent).toFixed(0)],
      ['server peak RSS (MB)', peakRssMb(server.child.pid!).toFixed(0)],
      ['data on disk (MB)', du],
      ['realtime GET p50 (ms)', percentile(lat, 50).toFixed(3)],
      ['realtime GET p99 (ms)', percentile(lat, 99).toFixed(3)],
    ]);
    client.close();
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
