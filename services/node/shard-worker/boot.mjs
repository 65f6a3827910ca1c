// Entry of every worker thread run from the TypeScript sources (tests,
// `node --import tsx`; new-thread.ts starts them): Node 20 does not pass the
// main thread's loader on to workers, so each registers tsx itself, then
// imports its module (workerData.entry, a file URL). The compiled build
// (dist/) starts each thread's .js module directly.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
