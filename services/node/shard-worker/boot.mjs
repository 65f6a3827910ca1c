// Entry of a shard worker thread, or of its merge thread (workerData.entry),
// run from the TypeScript sources (tests, `node --import tsx`): Node 20 does
// not pass the main thread's loader on to workers, so each worker registers
// tsx itself. The compiled build (dist/) starts worker-main.js and
// merge-thread.js directly.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData?.entry ?? './worker-main.ts');
