/**
 * A node process's CPU time by thread and its memory, from /proc: on a
 * machine shared with other work, CPU time per request says more than wall
 * time (bench:scale, bench:scroll, bench:seed-queries). Its anonymous
 * memory split by kind of mapping (V8 heap pages, malloc arenas, other) says
 * which side of the process holds it (bench/memory-probe.ts,
 * bench:seed-queries --memory).
 */
import { readFileSync, readdirSync } from 'node:fs';

/** CPU seconds (user + system) of each thread of `pid` so far, by thread (`main`, or name:tid). */
export function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended
    }
    const name = Number(tid) === pid ? 'main' : `${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}:${tid}`;
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (f.length > 13) out.set(name, (Number(f[11]) + Number(f[12])) / 100);
  }
  return out;
}

/** CPU seconds each thread used between two readings, busiest first, and their sum. */
export function cpuBetween(before: Map<string, number>, after: Map<string, number>): { total: number; threads: [string, number][] } {
  const threads = [...after].map(([k, s]) => [k, s - (before.get(k) ?? 0)] as [string, number]).filter(([, s]) => s > 0);
  threads.sort((a, b) => b[1] - a[1]);
  return { total: threads.reduce((n, [, s]) => n + s, 0), threads };
}

/** The process's resident memory now and at its peak (VmHWM), MiB. */
export function memoryMiB(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** The process's resident, anonymous and proportional memory (/proc/PID/smaps_rollup), MiB. */
export function smapsRollupMiB(pid: number): { rss: number; anon: number; pss: number } {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) / 1024;
  return { rss: kb('Rss'), anon: kb('Anonymous'), pss: kb('Pss') };
}

interface Mapping {
  readonly start: number;
  readonly end: number;
  readonly perm: string;
  readonly name: string;
  anon: number;
  rss: number;
}

/** The mappings of `pid` (/proc/PID/smaps), with their resident and anonymous KiB. */
function readMappings(pid: number): Mapping[] {
  const maps: Mapping[] = [];
  let cur: Mapping | null = null;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (m !== null) {
      cur = { start: parseInt(m[1]!, 16), end: parseInt(m[2]!, 16), perm: m[3]!, name: m[4]!, anon: 0, rss: 0 };
      maps.push(cur);
      continue;
    }
    const k = /^(Anonymous|Rss):\s+(\d+) kB/.exec(line);
    if (k !== null && cur !== null) cur[k[1] === 'Rss' ? 'rss' : 'anon'] = Number(k[2]);
  }
  return maps;
}

/**
 * Resident file-backed KiB of `pid` by kind of file: segment files by extension (.doc postings, .dvd
 * doc values, .tim terms, ...), the rest as code. Page cache the kernel reclaims, yet counted in RSS.
 */
export function filePagesByKind(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of readMappings(pid)) {
    const kb = m.rss - m.anon;
    if (kb <= 0 || !m.name.startsWith('/')) continue;
    const ext = /\/segments\/[^/]*\.(\w+)(?: \(deleted\))?$/.exec(m.name)?.[1];
    const kind = ext !== undefined ? `segment .${ext}` : 'code (node, libraries)';
    out.set(kind, (out.get(kind) ?? 0) + kb);
  }
  return out;
}

/** Anonymous KiB of `pid` by kind of mapping. */
export function anonymousByKind(pid: number): Map<string, number> {
  const maps = readMappings(pid);
  const out = new Map<string, number>();
  const add = (kind: string, kb: number) => out.set(kind, (out.get(kind) ?? 0) + kb);
  const ARENA = 64 << 20;
  maps.forEach((m, i) => {
    if (m.anon === 0) return;
    const size = m.end - m.start;
    const next = maps[i + 1];
    if (m.name === '[heap]') add('malloc: main arena', m.anon);
    else if (m.name !== '') add('other (stacks, libraries)', m.anon);
    // A thread arena's heap: 64 MiB aligned, its reserved tail right after it.
    else if (m.start % ARENA === 0 && (size === ARENA || (next !== undefined && next.start === m.end && next.perm === '---p' && next.end - m.start === ARENA))) add('malloc: thread arenas', m.anon);
    else if (size === 256 * 1024) add('V8 heap pages (256 KB)', m.anon);
    else add('other anonymous maps (V8 large objects, big mallocs)', m.anon);
  });
  return out;
}
