/**
 * Where a thread held the CPU for long without a turn of its event loop
 * (issue 11: nothing > ~10 ms at once on the thread that serves HTTP or on a
 * shard worker). Reads the `.cpuprofile` files `node --cpu-prof` writes (one
 * per thread: `npm run bench:http-thread -- --cpu-prof DIR`) and lists, per
 * file, the stretches of samples with no `(idle)` between them longer than
 * `--over` ms, each with the project functions on most of its samples.
 *
 *   npx tsx bench/long-stretches.ts DIR [--over 15] [--top 12] [--from µs --to µs]
 *
 * `--from`/`--to`: a window on the profiles' clock (µs, monotonic), as the
 * bench prints it per scenario; stretches outside it are left out.
 *
 * Wall time, not CPU time: on a loaded machine a stretch includes the time
 * the thread waited for a core. A run of samples without `(idle)` may be
 * many short steps with turns between them (a turn with work queued is not
 * idle); where the bench also wrote the threads' loop gaps (loop-gaps.mjs,
 * gaps.<pid>.<thread>.json beside the profiles), the stretches are those
 * gaps instead: times the thread's event loop took no turn at all.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { argNumber } from './dataset.ts';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
  readonly startTime: number;
}

const OVER_MS = argNumber('over', 15);
const TOP = argNumber('top', 12);
const FROM = argNumber('from', 0);
const TO = argNumber('to', Infinity);

function frameName(n: ProfileNode): string {
  const url = n.callFrame.url.replace(/^file:\/\//, '');
  const at = url.lastIndexOf('/wt-') >= 0 || url.includes('/work/') ? url.replace(/^.*?\/(services|shared|bench|test)\//, '$1/') : url;
  return `${n.callFrame.functionName || '(anonymous)'} ${at}:${n.callFrame.lineNumber + 1}`;
}

function isProjectFrame(n: ProfileNode): boolean {
  const url = n.callFrame.url;
  return (url.includes('/services/') || url.includes('/shared/')) && !url.includes('node_modules');
}

function analyse(name: string, p: Profile, gaps: readonly [number, number][] | null): void {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const idle = new Set(p.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  let t = p.startTime;
  let start = -1;
  let stretch: number[] = [];
  const found: { start: number; ms: number; samples: number[] }[] = [];
  const close = (end: number): void => {
    if (start >= 0 && (end - start) / 1000 > OVER_MS && start >= FROM && end <= TO) found.push({ start, ms: (end - start) / 1000, samples: stretch });
    start = -1;
    stretch = [];
  };
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0;
    const id = p.samples[i]!;
    if (idle.has(id) || t > TO) close(t);
    else {
      if (start < 0) start = t;
      stretch.push(id);
    }
  }
  close(t);
  if (gaps !== null) {
    // The loop's own record of when it took no turn: the samples inside each gap.
    found.length = 0;
    const times: number[] = [];
    let at = p.startTime;
    for (const d of p.timeDeltas) times.push((at += d));
    for (const [from, to] of gaps) {
      if ((to - from) / 1000 <= OVER_MS || from < FROM || to > TO) continue;
      const samples = p.samples.filter((id, i) => times[i]! >= from && times[i]! <= to && !idle.has(id));
      found.push({ start: from, ms: (to - from) / 1000, samples: samples.length > 0 ? samples : [p.samples[0]!] });
    }
  }
  if (found.length === 0) return;
  found.sort((a, b) => b.ms - a.ms);
  const total = found.reduce((s, f) => s + f.ms, 0);
  process.stdout.write(`\n${name}: ${found.length} stretches over ${OVER_MS} ms, ${total.toFixed(0)} ms in all; the longest:\n`);
  for (const f of found.slice(0, TOP)) {
    // Inclusive counts of project frames (each once per sample), then the deepest frames on at least half the samples.
    const counts = new Map<number, number>();
    for (const id of f.samples) {
      const seen = new Set<string>();
      for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
        const node = byId.get(n)!;
        if (!isProjectFrame(node)) continue;
        const key = frameName(node);
        if (seen.has(key)) continue;
        seen.add(key);
        counts.set(n, (counts.get(n) ?? 0) + 1);
      }
    }
    const byName = new Map<string, number>();
    for (const [id, c] of counts) {
      const key = frameName(byId.get(id)!);
      byName.set(key, (byName.get(key) ?? 0) + c);
    }
    const top = [...byName].filter(([, c]) => c >= f.samples.length * 0.3).sort((a, b) => a[1] - b[1]).slice(0, 4);
    const leaves = new Map<string, number>();
    for (const id of f.samples) {
      const key = frameName(byId.get(id)!);
      leaves.set(key, (leaves.get(key) ?? 0) + 1);
    }
    const leaf = [...leaves].sort((a, b) => b[1] - a[1]).slice(0, 2);
    const share = ([k, c]: [string, number]): string => `${k} (${Math.round((100 * c) / f.samples.length)}%)`;
    process.stdout.write(`  ${f.ms.toFixed(1)} ms at ${((f.start - p.startTime) / 1e6).toFixed(2)} s: ${top.map(share).join(' < ') || '(no project frame)'}; on top: ${leaf.map(share).join(', ')}\n`);
  }
}

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (dir === undefined) throw new Error('usage: tsx bench/long-stretches.ts DIR [--over ms] [--top n]');
  const files = await readdir(dir);
  for (const file of files.filter((f) => f.endsWith('.cpuprofile')).sort()) {
    // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile
    const [, , , pid, thread] = file.split('.');
    const gapsFile = `gaps.${pid}.${thread}.json`;
    const gaps = files.includes(gapsFile) ? (JSON.parse(await readFile(join(dir, gapsFile), 'utf8')) as [number, number][]) : null;
    analyse(`${file}${gaps === null ? '' : ' (loop gaps)'}`, JSON.parse(await readFile(join(dir, file), 'utf8')) as Profile, gaps);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
