/**
 * Gives the C heap's free memory back to the operating system.
 *
 * Every thread that allocates native memory (buffers of typed arrays,
 * Zstandard contexts, LevelDB) gets a glibc malloc arena of its own, and
 * glibc returns an arena's free memory only from its top: after a long bulk
 * load about 200 MB of the node's anonymous memory was free chunks inside
 * the arenas of the shard workers, merge threads and the main thread
 * (docs/performance.md, "Anonymous memory after a load"). malloc_trim
 * releases the free pages of every arena. It costs a walk of the free
 * chunks, so it runs when a load is over (a copy's idle commit, merges
 * finished on an idle copy), not while writes go on.
 */
import { addon } from './native-addon.ts';

/** malloc_trim(0) where the C library is glibc; false where it did nothing. */
export function releaseFreeNativeMemory(): boolean {
  return addon.trim?.() ?? false;
}
