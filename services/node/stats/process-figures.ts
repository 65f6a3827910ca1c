/**
 * The node's own process and machine, in the shapes of Elasticsearch's
 * `os`, `process`, `jvm` and `fs` node stats. The "JVM" is Node.js: the
 * heap is V8's (max = its heap limit), the young and old pools are V8's new
 * and old spaces, the collectors count V8's minor (scavenge) and major
 * (mark-sweep-compact) collections as a GC observer sees them, the buffer
 * pools are array buffers outside the heap and the memory-mapped segment
 * files. Figures Linux gives (`/proc`) are read from it; on another system
 * they are -1, as Elasticsearch reports what it cannot probe.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import os from 'node:os';
import v8 from 'node:v8';
import { PerformanceObserver, constants as perfConstants, type PerformanceEntry } from 'node:perf_hooks';

interface GcCounts {
  count: number;
  timeMs: number;
}

/** V8's collections since the observer started, young (scavenges) and old (the others). */
const gc = { young: { count: 0, timeMs: 0 } as GcCounts, old: { count: 0, timeMs: 0 } as GcCounts };
let observer: PerformanceObserver | null = null;
/** Nodes of this process that want the counts (tests run several). */
let observers = 0;

/** Starts counting collections (once per process, however many nodes it runs). */
export function observeGc(): void {
  observers++;
  if (observer !== null) return;
  observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries() as (PerformanceEntry & { detail?: { kind?: number } })[]) {
      const kind = e.detail?.kind;
      const bucket = kind === perfConstants.NODE_PERFORMANCE_GC_MINOR ? gc.young : gc.old;
      bucket.count++;
      bucket.timeMs += e.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
}

export function stopObservingGc(): void {
  observers = Math.max(0, observers - 1);
  if (observers > 0) return;
  observer?.disconnect();
  observer = null;
}

/** CPU time of the process sampled at the previous call, for `percent` since then (as Elasticsearch's probe does). */
let lastCpu = { at: process.hrtime.bigint(), usage: process.cpuUsage() };
let lastOsCpu = osCpuTimes();

function osCpuTimes(): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const c of os.cpus()) {
    idle += c.times.idle;
    total += c.times.user + c.times.nice + c.times.sys + c.times.idle + c.times.irq;
  }
  return { idle, total };
}

function processCpuPercent(): number {
  const now = process.hrtime.bigint();
  const usage = process.cpuUsage();
  const wallUs = Number(now - lastCpu.at) / 1000;
  const cpuUs = usage.user - lastCpu.usage.user + usage.system - lastCpu.usage.system;
  lastCpu = { at: now, usage };
  if (wallUs <= 0) return 0;
  return Math.round((100 * cpuUs) / wallUs / Math.max(1, os.availableParallelism()));
}

function osCpuPercent(): number {
  const now = osCpuTimes();
  const total = now.total - lastOsCpu.total;
  const idle = now.idle - lastOsCpu.idle;
  lastOsCpu = now;
  return total <= 0 ? 0 : Math.round((100 * (total - idle)) / total);
}

function procLines(path: string): Map<string, string> {
  const out = new Map<string, string>();
  try {
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      const i = line.indexOf(':');
      if (i > 0) out.set(line.slice(0, i).trim(), line.slice(i + 1).trim());
    }
  } catch {
    // Not Linux: the figure stays unknown.
  }
  return out;
}

/** `1234 kB` in /proc files → bytes; -1 when absent. */
function kb(v: string | undefined): number {
  const m = v === undefined ? null : /^(\d+)\s*kB$/.exec(v);
  return m === null ? -1 : Number(m[1]) * 1024;
}

function openFileDescriptors(): number {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return -1;
  }
}

function maxFileDescriptors(): number {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    return soft === undefined ? -1 : soft === 'unlimited' ? -1 : Number(soft);
  } catch {
    return -1;
  }
}

const percent = (part: number, whole: number): number => (whole <= 0 ? 0 : Math.round((100 * part) / whole));

export function osStats(now: number): Record<string, unknown> {
  const [l1, l5, l15] = os.loadavg();
  const total = os.totalmem();
  const free = os.freemem();
  const mem = procLines('/proc/meminfo');
  const swapTotal = kb(mem.get('SwapTotal'));
  const swapFree = kb(mem.get('SwapFree'));
  return {
    timestamp: now,
    cpu: { percent: osCpuPercent(), load_average: { '1m': round2(l1!), '5m': round2(l5!), '15m': round2(l15!) } },
    mem: {
      total_in_bytes: total,
      free_in_bytes: free,
      used_in_bytes: total - free,
      free_percent: percent(free, total),
      used_percent: percent(total - free, total),
    },
    swap: {
      total_in_bytes: Math.max(0, swapTotal),
      free_in_bytes: Math.max(0, swapFree),
      used_in_bytes: Math.max(0, swapTotal - swapFree),
    },
  };
}

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}

export function processStats(now: number): Record<string, unknown> {
  const usage = process.cpuUsage();
  const status = procLines('/proc/self/status');
  return {
    timestamp: now,
    open_file_descriptors: openFileDescriptors(),
    max_file_descriptors: maxFileDescriptors(),
    cpu: { percent: processCpuPercent(), total_in_millis: Math.floor((usage.user + usage.system) / 1000) },
    mem: { total_virtual_in_bytes: kb(status.get('VmSize')) },
  };
}

/** Heap figures the `_cat/nodes` and `_cluster/stats` pages need too. */
export interface HeapFigures {
  readonly used: number;
  readonly committed: number;
  readonly max: number;
}

export function heapFigures(): HeapFigures {
  const h = v8.getHeapStatistics();
  return { used: h.used_heap_size, committed: h.total_heap_size, max: h.heap_size_limit };
}

export function jvmStats(now: number, extra: { readonly threads: number; readonly mappedBytes: number; readonly mappedCount: number }): Record<string, unknown> {
  const heap = heapFigures();
  const mem = process.memoryUsage();
  const spaces = new Map(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s]));
  const pool = (...names: string[]) => {
    let used = 0;
    let max = 0;
    for (const n of names) {
      const s = spaces.get(n);
      if (s === undefined) continue;
      used += s.space_used_size;
      max += s.space_size;
    }
    return { used_in_bytes: used, max_in_bytes: max, peak_used_in_bytes: used, peak_max_in_bytes: max };
  };
  return {
    timestamp: now,
    uptime_in_millis: Math.floor(process.uptime() * 1000),
    mem: {
      heap_used_in_bytes: heap.used,
      heap_used_percent: percent(heap.used, heap.max),
      heap_committed_in_bytes: heap.committed,
      heap_max_in_bytes: heap.max,
      non_heap_used_in_bytes: Math.max(0, mem.rss - heap.committed),
      non_heap_committed_in_bytes: Math.max(0, mem.rss - heap.committed),
      pools: {
        young: pool('new_space'),
        survivor: pool('new_large_object_space'),
        old: pool('old_space', 'large_object_space', 'code_space', 'code_large_object_space'),
      },
    },
    threads: { count: extra.threads, peak_count: extra.threads },
    gc: {
      collectors: {
        young: { collection_count: gc.young.count, collection_time_in_millis: Math.floor(gc.young.timeMs) },
        old: { collection_count: gc.old.count, collection_time_in_millis: Math.floor(gc.old.timeMs) },
      },
    },
    buffer_pools: {
      direct: { count: 0, used_in_bytes: mem.arrayBuffers, total_capacity_in_bytes: mem.arrayBuffers },
      mapped: { count: extra.mappedCount, used_in_bytes: extra.mappedBytes, total_capacity_in_bytes: extra.mappedBytes },
    },
    classes: { current_loaded_count: 0, total_loaded_count: 0, total_unloaded_count: 0 },
  };
}

export interface DiskFigures {
  readonly path: string;
  readonly type: string;
  readonly total: number;
  readonly free: number;
  readonly available: number;
}

/** The file system holding `path.data`. */
export async function diskFigures(dataPath: string): Promise<DiskFigures> {
  try {
    const s = await statfs(dataPath);
    return { path: dataPath, type: FS_TYPES.get(s.type) ?? String(s.type), total: s.blocks * s.bsize, free: s.bfree * s.bsize, available: s.bavail * s.bsize };
  } catch {
    return { path: dataPath, type: '', total: -1, free: -1, available: -1 };
  }
}

/** statfs magic numbers of common Linux file systems, for `fs.data[].type`. */
const FS_TYPES = new Map<number, string>([
  [0xef53, 'ext4'],
  [0x58465342, 'xfs'],
  [0x9123683e, 'btrfs'],
  [0x01021994, 'tmpfs'],
  [0x794c7630, 'overlay'],
  [0x2fc12fc1, 'zfs'],
]);

export async function fsStats(now: number, dataPath: string): Promise<Record<string, unknown>> {
  const d = await diskFigures(dataPath);
  return {
    timestamp: now,
    total: { total_in_bytes: d.total, free_in_bytes: d.free, available_in_bytes: d.available },
    data: [{ path: d.path, mount: d.path, type: d.type, total_in_bytes: d.total, free_in_bytes: d.free, available_in_bytes: d.available }],
  };
}
