/**
 * Work proportional to a request's size (the lines of a 100 MB `_bulk`, the
 * searches of an `_msearch`, the items of a response, the records of a
 * bulk's append and their outcomes) runs on the thread that serves HTTP in
 * slices: after each slice of about SLICE_MS the loop gives the event loop a
 * turn, so `GET /` and small searches are answered in between instead of
 * after the whole request (a 48 MB bulk held every other request for 8 s).
 */
import { nextTurn } from './run-steps.ts';

/**
 * The longest stretch of one request's work between two turns of the event
 * loop, on the HTTP thread and on the shard workers alike. A small search
 * waits for up to one slice on each thread it passes (the HTTP thread, each
 * shard's worker, the HTTP thread again), more when they share the cores
 * with a heavy request's other threads: with 10 ms its p99 was 57-74 ms
 * while a 10 MB document or `_bulk` was indexed (issue 11, item 6). A turn
 * costs a few µs, so 5 ms slices cost the heavy request well under 1%.
 */
export const SLICE_MS = 5;

/** A clock for one request: `due()` is cheap enough to ask once per item. */
export class TimeSlice {
  private started = performance.now();

  /** True when this slice has run its time: the caller awaits `pause()` before going on. */
  due(): boolean {
    return performance.now() - this.started >= SLICE_MS;
  }

  /** Gives the event loop a turn and starts a new slice. */
  async pause(): Promise<void> {
    await nextTurn();
    this.started = performance.now();
  }
}
