/**
 * Starts a worker thread on `entry`, a module named relative to `from` (the
 * caller's import.meta.url) without its extension. Compiled (dist/), the
 * thread runs entry.js as it is; from the TypeScript sources, it starts in
 * boot.mjs, which registers tsx first (Node 20 does not pass the main
 * thread's loader on to workers).
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

const BOOT = new URL('./boot.mjs', import.meta.url);

export function newThread(from: string, entry: string, options: WorkerOptions = {}): Worker {
  if (!from.endsWith('.ts')) return new Worker(new URL(`${entry}.js`, from), options);
  return new Worker(BOOT, { ...options, workerData: { entry: new URL(`${entry}.ts`, from).href } });
}
