/**
 * Long work written as a generator of steps (a segment's build or write, an
 * aggregation's collection) runs either at once, or with turns of the event
 * loop in between so that a thread serving other requests answers them
 * meanwhile (issue 11). One driver for both, used by every stepped function.
 */

/** Runs a generator of steps to its end at once: the plain form of a stepped function. */
export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/** A turn of the event loop: what is queued runs, then this resolves (setImmediate, not a 1 ms timer). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs a generator of steps to its end, giving the thread a turn whenever
 * `sliceMs` passed since the last one, or sooner when `cut` says so.
 */
export async function runStepsInTurns<T>(steps: Generator<void, T>, sliceMs: number, turn: () => Promise<void> = nextTurn, cut: () => boolean = noCut): Promise<T> {
  let slice = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (performance.now() - slice < sliceMs && !cut()) continue;
    await turn();
    slice = performance.now();
  }
}

/** The default `cut`: slices end by time alone. */
export function noCut(): boolean {
  return false;
}
