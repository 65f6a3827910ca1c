/**
 * Gives the C heap's free memory back to the operating system.
 *
 * Every thread that allocates native memory (buffers of typed arrays,
 * Zstandard contexts, LevelDB) gets a glibc malloc arena of its own, and
 * glibc returns an arena's free memory only from its top: after a 2M bulk
 * load about 200 MB of the node's anonymous memory were free chunks inside
 * the arenas of the shard workers, merge threads and the main thread
 * (docs/performance.md, "Anonymous memory after a load"). malloc_trim
 * releases the free pages of every arena. Memory given back is faulted in
 * again when it is needed, so a thread trims at most every TRIM_INTERVAL_MS:
 * a call within it is deferred to the interval's end, and the last call of
 * a load still trims.
 */
import { addon } from './native-addon.ts';

const TRIM_INTERVAL_MS = 30_000;
let lastTrim = -Infinity;
let deferred: NodeJS.Timeout | null = null;

function trimNow(): void {
  lastTrim = performance.now();
  addon.trim?.();
}

/** malloc_trim(0) (where the C library is glibc) now, or at the end of the current interval. */
export function releaseFreeNativeMemory(): void {
  const since = performance.now() - lastTrim;
  if (since >= TRIM_INTERVAL_MS) {
    trimNow();
    return;
  }
  if (deferred !== null) return;
  deferred = setTimeout(() => {
    deferred = null;
    trimNow();
  }, TRIM_INTERVAL_MS - since);
  deferred.unref();
}
