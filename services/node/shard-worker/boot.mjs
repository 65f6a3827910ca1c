// Entry of a shard worker thread run from the TypeScript sources (tests,
// `node --import tsx`): Node 20 does not pass the main thread's loader on to
// workers, so each worker registers tsx itself. The compiled build (dist/)
// starts workers from worker-main.js directly (shard-workers.ts).
import { register } from 'tsx/esm/api';

register();
await import('./worker-main.ts');
