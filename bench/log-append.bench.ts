/**
 * Embedded log throughput: appends 1,000,000 records of 300 bytes in batches
 * of 1000 to one partition, then reads them all back, then times reopening.
 *
 *   npx tsx bench/log-append.bench.ts [records] [recordBytes] [batchSize] [--fsync]
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EmbeddedLog } from '../shared/log/embedded-log.ts';
import type { AppendRecord } from '../shared/log/commit-log.ts';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const fsync = process.argv.includes('--fsync');
const total = Number(args[0] ?? 1_000_000);
const recordBytes = Number(args[1] ?? 300);
const batchSize = Number(args[2] ?? 1000);

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'log-bench-'));
const topic = 'bench.passinfo.0001';
const value = Buffer.alloc(recordBytes, 'x');
const batch: AppendRecord[] = Array.from({ length: batchSize }, () => ({ value }));

const rows: [string, string][] = [];
const rate = (n: number, ms: number): string => `${Math.round((n / ms) * 1000).toLocaleString('en-US')} records/s`;
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

try {
  let log = await EmbeddedLog.open(dir, { fsync });
  await log.ensureTopic(topic, 1);

  const appendLatencies: number[] = [];
  let t0 = performance.now();
  for (let written = 0; written < total; written += batchSize) {
    const a = performance.now();
    await log.append(topic, 0, written + batchSize <= total ? batch : batch.slice(0, total - written));
    appendLatencies.push(performance.now() - a);
  }
  const appendMs = performance.now() - t0;
  appendLatencies.sort((x, y) => x - y);
  rows.push(['append', `${rate(total, appendMs)}  (${(appendMs / 1000).toFixed(2)} s, ${mib((total * recordBytes * 1000) / appendMs)}/s of payload)`]);
  rows.push(['append batch latency', `median ${appendLatencies[appendLatencies.length >> 1]!.toFixed(2)} ms, p99 ${appendLatencies[Math.floor(appendLatencies.length * 0.99)]!.toFixed(2)} ms`]);

  t0 = performance.now();
  let read = 0;
  let bytes = 0;
  while (read < total) {
    const records = await log.read(topic, 0, read, batchSize);
    for (const r of records) bytes += r.value.length;
    read += records.length;
  }
  const readMs = performance.now() - t0;
  if (bytes !== total * recordBytes) throw new Error(`read back ${bytes} bytes, expected ${total * recordBytes}`);
  rows.push(['read back (disk)', `${rate(total, readMs)}  (${(readMs / 1000).toFixed(2)} s)`]);

  await log.close();
  t0 = performance.now();
  log = await EmbeddedLog.open(dir, { fsync });
  const reopenMs = performance.now() - t0;
  const hwm = await log.highWatermark(topic, 0);
  rows.push(['reopen', `${reopenMs.toFixed(0)} ms for ${hwm.toLocaleString('en-US')} records`]);
  await log.close();

  rows.push(['log size on disk', mib(await dirSize(dir))]);
  rows.push(['RSS', mib(process.memoryUsage().rss)]);
} finally {
  await fs.rm(dir, { recursive: true, force: true });
}

console.log(`embedded log: ${total.toLocaleString('en-US')} records x ${recordBytes} B, batches of ${batchSize}, fsync ${fsync}`);
const width = Math.max(...rows.map(([k]) => k.length));
for (const [k, v] of rows) console.log(`  ${k.padEnd(width)}  ${v}`);

async function dirSize(d: string): Promise<number> {
  let sum = 0;
  for (const e of await fs.readdir(d, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) sum += (await fs.stat(path.join(e.parentPath, e.name))).size;
  }
  return sum;
}
