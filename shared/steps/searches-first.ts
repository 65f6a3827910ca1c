/**
 * Searches before indexing (issue 11, item 6). While a 10 MB `_bulk` runs,
 * the HTTP thread and both shard workers keep the node's two cores busy
 * with its slices, and a small search needs a turn of each: a probe found
 * the worker it waited for runnable but not running for 50-240 ms (its
 * /proc schedstat run delay), not behind queued work.
 *
 * So the node counts the shard searches it has posted and not had answered
 * yet, in memory every thread sees (a SharedArrayBuffer the main thread
 * owns and gives each shard worker), and indexing work ends each slice with
 * `yieldToSearches`: while a search is in flight, the thread waits, idle,
 * until none is or GATE_MAX_MS passed. The threads serving the search get
 * the cores meanwhile. Searches' own slices (an aggregation's collection, an
 * `_msearch`) do not wait. Without searches nothing changes: one atomic
 * read per slice. With searches all the time, indexing still gets at least
 * SLICE_MS of every SLICE_MS + GATE_MAX_MS.
 */
import { nextTurn } from './run-steps.ts';
import { INDEXING_SLICE_MS, TimeSlice } from './time-slice.ts';

/** Atomics.waitAsync (Node 16 on; not in this TypeScript's lib). */
interface AtomicsWaitAsync {
  waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number): { async: false; value: string } | { async: true; value: Promise<string> };
}

/** The longest an indexing slice waits for the searches in flight. */
export const GATE_MAX_MS = 10;

let inFlight: Int32Array | null = null;
/**
 * In a shard worker, its two counts (a buffer per worker): [POSTED] the
 * searches the main thread posted to it that it has not received yet,
 * [REPLIED] its answers to searches that the main thread has not received.
 */
let postedHere: Int32Array | null = null;
const POSTED = 0;
const REPLIED = 1;
/** On the main thread: each live worker's counts. */
const workerCounts = new Set<Int32Array>();

/** The counter of this process (created by the first caller on the main thread), to give to a worker thread. */
export function searchesInFlightBuffer(): SharedArrayBuffer {
  inFlight ??= new Int32Array(new SharedArrayBuffer(4));
  return inFlight.buffer as SharedArrayBuffer;
}

/** The main thread: a new worker's counts (see postedHere), until the returned function drops them (the worker stopped). */
export function workerSearchCounts(): { counts: Int32Array; drop: () => void } {
  const counts = new Int32Array(new SharedArrayBuffer(8));
  workerCounts.add(counts);
  return { counts, drop: () => workerCounts.delete(counts) };
}

/** The main thread posts a search to the worker of `counts`: in flight until searchAnswerReceived (or searchEnded, its worker gone). */
export function searchPosted(counts: Int32Array): void {
  Atomics.add(counts, POSTED, 1);
  searchStarted();
}

/** The main thread received the worker's answer to a search. */
export function searchAnswerReceived(counts: Int32Array): void {
  Atomics.sub(counts, REPLIED, 1);
  searchEnded();
}

/**
 * The main thread: a worker's answer to a search is waiting for this thread.
 * Its indexing slices end at once (TimeSlice's `cut`) rather than at
 * SLICE_MS: the answer is handled at the next turn.
 */
export function searchAnswerWaiting(): boolean {
  for (const c of workerCounts) if (Atomics.load(c, REPLIED) > 0) return true;
  return false;
}

/**
 * A worker thread counts in the main thread's buffer (ShardWorkers sends it)
 * and in its own counts (workerSearchCounts).
 */
export function adoptSearchesInFlight(buffer: SharedArrayBuffer, counts: SharedArrayBuffer): void {
  inFlight = new Int32Array(buffer);
  postedHere = new Int32Array(counts);
}

/** A worker: a search message arrived (one of those counted posted). */
export function searchReceived(): void {
  if (postedHere !== null) Atomics.sub(postedHere, POSTED, 1);
}

/** A worker is about to post its answer to a search (reply or failure). */
export function searchAnswerPosted(): void {
  if (postedHere !== null) Atomics.add(postedHere, REPLIED, 1);
}

/**
 * A search is on its way to this worker: indexing ends its slice now rather
 * than at SLICE_MS, so the search runs at the next turn (it waited up to a
 * whole slice on each worker it needs).
 */
export function searchPostedHere(): boolean {
  return postedHere !== null && Atomics.load(postedHere, POSTED) > 0;
}

/** A shard search was posted: indexing slices wait for it (until `searchEnded`). */
export function searchStarted(): void {
  Atomics.add(inFlight ?? new Int32Array(searchesInFlightBuffer()), 0, 1);
}

/** The shard search answered or failed (its worker gone). */
export function searchEnded(): void {
  const counter = inFlight;
  if (counter === null) return;
  if (Atomics.sub(counter, 0, 1) === 1) Atomics.notify(counter, 0);
}

/**
 * Searches of this thread waiting for work queued before them (a shard
 * worker's search behind a refresh, itself behind applies): that work does
 * not wait for searches, or it would hold up the very search it waits for.
 */
let waitingHere = 0;

/** A search of this thread waits for queued work until it starts: call `started` then. */
export function searchWaiting(): { started(): void } {
  waitingHere++;
  let waiting = true;
  return {
    started() {
      if (!waiting) return;
      waiting = false;
      waitingHere--;
    },
  };
}

/** Shard searches in flight now. */
export function searchesInFlight(): number {
  return inFlight === null ? 0 : Atomics.load(inFlight, 0);
}

/**
 * The end of a slice of indexing work: a turn of the event loop, then,
 * while searches are in flight, an idle wait for them of up to `maxWaitMs`.
 */
export async function yieldToSearches(maxWaitMs = GATE_MAX_MS): Promise<void> {
  await nextTurn();
  const counter = inFlight;
  if (counter === null || waitingHere > 0) return;
  let n = Atomics.load(counter, 0);
  if (n <= 0) return;
  const deadline = performance.now() + maxWaitMs;
  while (n > 0 && waitingHere === 0) {
    const left = deadline - performance.now();
    if (left <= 0) return;
    const wait = (Atomics as unknown as AtomicsWaitAsync).waitAsync(counter, 0, n, left);
    if (wait.async) {
      // The wait alone does not keep the event loop alive (a thread with nothing else to do would end).
      const alive = setTimeout(() => undefined, left + 1);
      await wait.value;
      clearTimeout(alive);
    }
    n = Atomics.load(counter, 0);
  }
}

/** The end of a write's slice on the HTTP thread: its idle wait for searches is as short as the slice (half its time kept). */
function yieldToSearchesBriefly(): Promise<void> {
  return yieldToSearches(INDEXING_SLICE_MS);
}

/**
 * The clock of a write's work on the HTTP thread (a bulk's parse, encoding,
 * outcomes and response): INDEXING_SLICE_MS slices, cut short when a
 * worker's answer to a search waits for this thread.
 */
export function writeSlice(): TimeSlice {
  return new TimeSlice(yieldToSearchesBriefly, searchAnswerWaiting, INDEXING_SLICE_MS);
}
