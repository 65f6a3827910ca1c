/**
 * Threads that only do background work (the check of a large document, a
 * segment merge) run at a lower scheduling priority than the threads that
 * answer requests (issue 11, item 6). On 2 cores, a 10 MB document's parse
 * on the check thread took a core for seconds while the HTTP thread and
 * the shard workers shared the other, and small searches waited for it.
 * With a nice value of BACKGROUND_NICE the kernel gives such a thread about
 * a tenth of a core when request threads want the CPU, and all of it when
 * they do not: nothing is slower on an idle machine.
 */
import { setPriority } from 'node:os';

/** The nice value of background threads (0 is the default, 19 the lowest priority). */
export const BACKGROUND_NICE = 10;

/**
 * Lowers the calling thread's priority to BACKGROUND_NICE. Linux only: there
 * `setpriority(PRIO_PROCESS, 0, n)` changes the calling thread alone, where
 * other systems would change the whole process. Where it is refused, the
 * thread keeps its priority.
 */
export function runAtBackgroundPriority(): boolean {
  if (process.platform !== 'linux') return false;
  try {
    setPriority(0, BACKGROUND_NICE);
    return true;
  } catch {
    return false;
  }
}
