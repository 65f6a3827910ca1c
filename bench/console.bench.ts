/**
 * bench:console — the web console's first view and the size of its files.
 *
 *   npm run bench:console                 # 6 loads
 *   npm run bench:console -- --loads 10
 *
 * Starts a node in its own process (the console built first), creates two
 * indices, then opens `/_console/#/cluster` in headless Chromium
 * (test/console/browser.ts) in a new browser context each time (nothing
 * cached) and times navigation to the shard grid drawn. Prints each load,
 * the median, and app.js / app.css / index.html as built and gzipped.
 */
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { http, spawnServer, tempDir } from '../test/helpers/server.ts';
import { buildConsole, launch, skipReason } from '../test/console/browser.ts';
import { percentile, printTable } from './report.ts';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}

async function main(): Promise<void> {
  const skip = skipReason();
  if (skip) throw new Error(skip);
  const loads = arg('loads', 6);
  buildConsole();
  const root = new URL('../', import.meta.url).pathname;
  const dir = await tempDir('bench-console-');
  const server = await spawnServer(dir);
  const browser = await launch();
  try {
    await http(server.url, 'PUT', '/logs', { settings: { number_of_shards: 3, number_of_replicas: 0 } });
    await http(server.url, 'PUT', '/orders', { settings: { number_of_shards: 2, number_of_replicas: 0 } });
    const times: number[] = [];
    for (let i = 0; i < loads; i++) {
      const ctx = await browser.newContext({ viewport: { width: 1366, height: 900 } });
      const page = await ctx.newPage();
      const t0 = performance.now();
      await page.goto(`${server.url}/_console/#/cluster`);
      await page.locator('#shard-grid tbody tr', { hasText: 'orders / 1' }).waitFor();
      times.push(performance.now() - t0);
      await ctx.close();
    }
    const rows: [string, string][] = times.map((t, i) => [`load ${i + 1} (ms)`, t.toFixed(0)]);
    rows.push(['median (ms)', percentile(times, 50).toFixed(0)]);
    for (const f of ['app.js', 'app.css', 'index.html']) {
      const bytes = readFileSync(join(root, 'dist', 'console-app', f));
      rows.push([`${f} (bytes, gzipped)`, `${bytes.length}, ${gzipSync(bytes, { level: 9 }).length}`]);
    }
    printTable('bench:console (first view of the cluster page)', rows);
  } finally {
    await browser.close();
    server.child.kill('SIGTERM');
    await server.exited;
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
