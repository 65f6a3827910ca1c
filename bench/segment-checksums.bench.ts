/**
 * bench:segment-checksums — what verifying every byte of a kept directory's
 * segment files costs, from a cold page cache (each file dropped first, as
 * bench:restart does) or a warm one, by how the bytes are read:
 *
 *   map     through a memory map advised sequential, one CRC over the whole map
 *           (what an open with checksums did before verify-segment-files.ts)
 *   read    positional reads into one reused buffer of --block MiB, a CRC a
 *           block, one file after another
 *   verify  verifySegmentFiles on every copy's segments at once (what a
 *           restart's opens do; here on one thread, the node's on its workers)
 *
 *   npm run bench:segment-checksums -- --data /tmp/open/s5m --runs 3 --block 2 --modes map,verify
 *
 * Prints the wall time, the process's CPU, its RSS, and the disk's read rate.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { mapFile } from '../shared/engine/store/mapped-file.ts';
import { verifySegmentFiles } from '../shared/engine/segment/verify-segment-files.ts';
import { argString } from './dataset.ts';
import { percentile, printTable } from './report.ts';

const data = argString('data');
if (data === undefined) throw new Error('--data DIR: a kept data directory (e.g. bench:scale --keep DIR)');
const runs = Number(argString('runs') ?? 3);
const block = Number(argString('block') ?? 2) * 1024 * 1024;
const modes = (argString('modes') ?? 'map,read,verify').split(',');
const temps = (argString('temps') ?? 'cold,warm').split(',');

const files = readdirSync(data, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.parentPath.endsWith('segments'))
  .map((e) => join(e.parentPath, e.name));
const totalBytes = files.reduce((n, f) => n + statSync(f).size, 0);

function drop(): void {
  for (const f of files) spawnSync('dd', [`if=${f}`, 'iflag=nocache', 'count=0', 'status=none']);
}

function viaMap(file: string): number {
  const m = mapFile(file);
  m.advise('sequential');
  const crc = zlib.crc32(m.bytes);
  m.unmap();
  return crc;
}

const buffer = Buffer.allocUnsafe(block);
function viaRead(file: string): number {
  const fd = openSync(file, 'r');
  let crc = 0;
  try {
    for (let at = 0; ; ) {
      const n = readSync(fd, buffer, 0, block, at);
      if (n === 0) break;
      crc = zlib.crc32(buffer.subarray(0, n), crc);
      at += n;
    }
  } finally {
    closeSync(fd);
  }
  return crc;
}

/** What a restart's opens do: each copy's segments checked by verifySegmentFiles, every copy at once. */
async function viaVerify(): Promise<void> {
  const dirs = new Map<string, number[]>();
  for (const f of files) {
    const m = /\/_([0-9a-z]+)\.si$/.exec(f);
    if (m === null) continue;
    const dir = f.slice(0, f.lastIndexOf('/'));
    dirs.set(dir, [...(dirs.get(dir) ?? []), parseInt(m[1]!, 36)]);
  }
  await Promise.all([...dirs].map(([dir, ids]) => verifySegmentFiles(dir, ids, block)));
}

function cpu(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}
function rssMb(): number {
  return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;
}
function diskReadMb(): number {
  // Sectors read by every block device (whole disks only), 512 bytes each.
  let sectors = 0;
  for (const line of readFileSync('/proc/diskstats', 'utf8').split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length > 6 && /^(vd|sd|nvme\d+n)[a-z0-9]*$/.test(f[2]!) && !/\d$/.test(f[2]!.replace(/^nvme\d+n\d+$/, 'x'))) sectors += Number(f[5]);
  }
  return (sectors * 512) / 1024 / 1024;
}

const results = new Map<string, number[][]>();
for (let r = 0; r < runs; r++) {
  for (const mode of modes) {
    for (const temp of temps) {
      if (temp === 'cold') drop();
      const load = Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
      const [c0, d0, t0] = [cpu(), diskReadMb(), performance.now()];
      if (mode === 'map') for (const f of files) viaMap(f);
      else if (mode === 'read') for (const f of files) viaRead(f);
      else await viaVerify();
      const ms = performance.now() - t0;
      const row = [ms, cpu() - c0, diskReadMb() - d0, rssMb(), load];
      const key = `${mode}, ${temp}`;
      process.stdout.write(`${key}: ${ms.toFixed(0)} ms, cpu ${row[1]!.toFixed(2)} s, disk read ${row[2]!.toFixed(0)} MiB, RSS ${row[3]!.toFixed(0)} MiB, load ${load}\n`);
      results.set(key, [...(results.get(key) ?? []), row]);
    }
  }
}
const rows: string[][] = [['read', 'p50 ms', 'MB/s', 'cpu p50 s', 'disk MiB', 'RSS MiB', 'load']];
for (const [key, samples] of results) {
  const col = (i: number) => samples.map((s) => s[i]!);
  const ms = percentile(col(0), 50);
  rows.push([key, ms.toFixed(0), (totalBytes / 1e6 / (ms / 1000)).toFixed(0), percentile(col(1), 50).toFixed(2), percentile(col(2), 50).toFixed(0), Math.max(...col(3)).toFixed(0), `${Math.min(...col(4))}-${Math.max(...col(4))}`]);
}
printTable(`CRC of every byte of ${files.length} segment files, ${(totalBytes / 1e6).toFixed(0)} MB, in ${data} (block ${block / 1024 / 1024} MiB)`, rows);
