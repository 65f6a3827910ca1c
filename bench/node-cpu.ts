/**
 * A node process's CPU time by thread and its memory, from /proc: on a
 * machine shared with other work, CPU time per request says more than wall
 * time (bench:scale, bench:scroll, bench:seed-queries).
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
