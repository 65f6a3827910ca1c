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

/**
 * The slice of a write's work on the HTTP thread (a bulk's parse, mapping
 * check, encoding, outcomes and response): shorter than SLICE_MS, as that
 * thread reads every other request between two slices. Each turn costs a few
 * microseconds there (a 10 MB bulk holds it ~0.6 s: ~200 turns); the
 * shard workers' slices stay at SLICE_MS, where shorter ones cost the bulk
 * load CPU (see SLICE_MS). Its idle wait for searches in flight is as short
 * (yieldToSearchesBriefly), so a write keeps half its time. Under a 10 MB `_bulk` (bench:http-thread, load
 * average 3-4 from other sessions), 10 -> 3 ms gave the HTTP thread 130 and
 * 162 stretches over 15 ms in 12 s instead of 193 and 182, `GET /` p99 36.0
 * and 37.7 ms instead of 47.9 and 43.5.
 */
export const INDEXING_SLICE_MS = 3;

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
    private readonly sliceMs = SLICE_MS,
  ) {}

  /** True when this slice has run its time: the caller awaits `pause()` before going on. */
  due(): boolean {
    return performance.now() - this.started >= this.sliceMs || this.cut();
  }

  /** Gives the event loop a turn and starts a new slice. */
  async pause(): Promise<void> {
    await this.turn();
    this.started = performance.now();
  }
}
