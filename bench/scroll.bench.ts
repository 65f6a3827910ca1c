/**
 * bench:scroll — `_search?scroll` sorted by `_doc` over a whole index, then
 * `_search/scroll` until a page comes back empty (issue 18: >= 300,000
 * docs/s). Starts a compiled node on a kept data directory (one with the
 * pass-record index, e.g. from `npm run bench:scale -- --keep DIR
 * --load-only`), and prints per pass: docs/s, the node's CPU seconds per
 * page (every thread, and the busiest threads apart, from /proc; the
 * client's own, which parses every page, beside it), its RSS
 * and peak RSS, and the load average (the machine is shared: CPU per page
 * says more than docs/s there).
 *
 *   npm run bench:scroll -- --data /tmp/scale-1m
 *   npm run bench:scroll -- --data /tmp/scale-1m --size 1000 --passes 3
 *   npm run bench:scroll -- --data /tmp/scale-1m --root /tmp/main-build   # another checkout's build (before/after)
 *   npm run bench:scroll -- --data /tmp/scale-1m --cpu-prof /tmp/prof     # .cpuprofile of every thread of the node
 *
 * Never run it on a data directory another node has open.
 */
import { execSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { KeepAliveClient } from './keep-alive-client.ts';
import { argNumber, argString } from './dataset.ts';
import { printTable } from './report.ts';
import { cpuBetween, memoryMiB, threadCpu } from './node-cpu.ts';
import { spawnServer } from '../test/helpers/server.ts';


const DATA = argString('data');
const ROOT = argString('root');
const INDEX = argString('index') ?? 'passinfo';
const size = argNumber('size', 5000);
const passes = argNumber('passes', 2);
const CPU_PROF = argString('cpu-prof');

interface Page {
  hits: { total: number; hits: unknown[] };
  _scroll_id: string;
}

async function main(): Promise<void> {
  if (DATA === undefined) throw new Error('--data DIR: a data directory holding the index to scroll (see the header)');
  if (ROOT === undefined) execSync('npm run --silent build', { stdio: 'inherit' });
  const server = await spawnServer(DATA, [], 600_000, true, ROOT, CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`]);
  const pid = server.child.pid!;
  const client = new KeepAliveClient(server.url);
  const load = () => loadavg().map((n) => n.toFixed(1)).join(' ');
  try {
    const health = await client.request('GET', `/_cluster/health/${INDEX}?wait_for_status=green&timeout=600s`);
    if (health.status !== 200) throw new Error(`health: ${health.text}`);
    const count = ((await client.request('GET', `/${INDEX}/_count`)).body as { count: number }).count;
    process.stdout.write(`bench:scroll ${new Date().toISOString()} ${ROOT ?? 'this build'}: ${count} docs in [${INDEX}], size ${size}, load average ${load()}\n`);
    const rows: string[][] = [['pass', 'docs', 's', 'docs/s', 'pages', 'node CPU ms/page', 'busiest threads ms/page', 'client CPU ms/page', 'RSS MiB', 'peak RSS', 'load avg']];
    for (let pass = 1; pass <= passes; pass++) {
      const cpu0 = threadCpu(pid);
      const client0 = process.cpuUsage();
      const t0 = performance.now();
      let r = await client.request('POST', `/${INDEX}/_search?scroll=1m`, { sort: ['_doc'], size });
      if (r.status !== 200) throw new Error(`scroll: ${r.text}`);
      let body = r.body as Page;
      const total = body.hits.total;
      let docs = body.hits.hits.length;
      let pages = 1;
      while (body.hits.hits.length > 0) {
        r = await client.request('POST', '/_search/scroll', { scroll: '1m', scroll_id: body._scroll_id });
        if (r.status !== 200) throw new Error(`scroll page: ${r.text}`);
        body = r.body as Page;
        if (body.hits.total !== total) throw new Error(`hits.total changed from ${total} to ${body.hits.total}`);
        docs += body.hits.hits.length;
        pages++;
      }
      const seconds = (performance.now() - t0) / 1000;
      const cpu1 = threadCpu(pid);
      const clientCpu = process.cpuUsage(client0);
      await client.request('DELETE', '/_search/scroll/_all');
      if (docs !== count) throw new Error(`the scroll returned ${docs} docs of ${count}`);
      const { total: all, threads: used } = cpuBetween(cpu0, cpu1);
      const perPage = (s: number) => ((s * 1000) / pages).toFixed(1);
      const m = memoryMiB(pid);
      rows.push([
        String(pass),
        String(docs),
        seconds.toFixed(2),
        String(Math.round(docs / seconds)),
        String(pages),
        perPage(all),
        used
          .slice(0, 4)
          .map(([k, s]) => `${k} ${perPage(s)}`)
          .join(', '),
        perPage((clientCpu.user + clientCpu.system) / 1e6),
        m.rss.toFixed(0),
        m.hwm.toFixed(0),
        load(),
      ]);
    }
    printTable(`bench:scroll: _search?scroll=1m sorted by _doc, size ${size}, ${passes} passes over ${count} docs`, rows);
  } finally {
    client.close();
    server.child.kill('SIGTERM');
    await server.exited;
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
