/**
 * Shard worker threads started before the node's own modules load: a thread
 * loads the engine's modules (a third of a second of CPU each) while the
 * main thread loads the node's, instead of after them. `logsearch start`
 * starts them right after reading its configuration; ShardWorkers adopts
 * them (messages posted before a thread is up wait for it).
 */
import type { Worker } from 'node:worker_threads';
import { newThread } from './new-thread.ts';

const started = new Map<number, { readonly worker: Worker; exited: boolean }>();

/** Starts the threads of workers 0..count-1 now. */
export function startEarlyThreads(count: number): void {
  for (let i = 0; i < Math.max(1, count); i++) {
    if (started.has(i)) continue;
    const entry = { worker: newWorkerThread(i), exited: false };
    // Until adopted it does not hold the process open (a start that fails before exits as before).
    entry.worker.unref();
    // A thread that stopped before it was adopted is not adopted: the worker starts again and fails as it would.
    entry.worker.once('exit', () => (entry.exited = true));
    started.set(i, entry);
  }
}

/** The thread started early for worker `index`, once; null when none (or it stopped). */
export function adoptEarlyThread(index: number): Worker | null {
  const entry = started.get(index);
  if (entry === undefined) return null;
  started.delete(index);
  if (!entry.exited) {
    entry.worker.ref();
    return entry.worker;
  }
  void entry.worker.terminate();
  return null;
}

export function newWorkerThread(index: number): Worker {
  return newThread(import.meta.url, './worker-main', { name: `shard-worker-${index}` });
}
