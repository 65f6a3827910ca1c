// Entry of a shard worker thread: the sources are TypeScript, and Node 20
// does not pass the main thread's loader on to workers, so each worker
// registers tsx itself (as bin/logsearch.mjs does for the main thread).
import { register } from 'tsx/esm/api';

register();
await import('./worker-main.ts');
