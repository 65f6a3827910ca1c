/**
 * Work proportional to a request's size (the lines of a 100 MB `_bulk`, the
 * searches of an `_msearch`, the items of a response, the records of a
 * bulk's append and their outcomes) runs on the thread that serves HTTP in
 * slices: after each slice of about SLICE_MS the loop gives the event loop a
 * turn, so `GET /` and small searches are answered in between instead of
 * after the whole request (a 48 MB bulk held every other request for 8 s).
 */
import { nextTurn, noCut } from './run-steps.ts';

/**
 * The longest stretch of one request's work between two turns of the event
 * loop, on the HTTP thread and on the shard workers alike. A small search
 * waits for up to one slice on each thread it passes. 5 ms cut a small
 * search's p50 behind a 10 MB `_bulk` (20-23 -> 16-18 ms) but not its p99,
 * and cost the 1M bulk load 6-20% more CPU a document (alternated three times:
 * 0.068 / 0.074 / 0.078 against 0.064 / 0.066 / 0.064 CPU s per 1,000 docs).
 */
export const SLICE_MS = 10;

/** A clock for one request: `due()` is cheap enough to ask once per item. */
export class TimeSlice {
  private started = performance.now();

  /**
   * `turn`: how a slice ends; `cut`: true when it should end now (indexing
   * work passes yieldToSearches and searchAnswerWaiting, searches-first.ts).
   */
  constructor(
    private readonly turn: () => Promise<void> = nextTurn,
    private readonly cut: () => boolean = noCut,
  ) {}

  /** True when this slice has run its time: the caller awaits `pause()` before going on. */
  due(): boolean {
    return performance.now() - this.started >= SLICE_MS || this.cut();
  }

  /** Gives the event loop a turn and starts a new slice. */
  async pause(): Promise<void> {
    await this.turn();
    this.started = performance.now();
  }
}
