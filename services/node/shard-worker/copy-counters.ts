/**
 * What one shard copy has done since it opened, counted where it happens (in
 * its shard worker): index and delete ops applied, realtime gets, query and
 * fetch phases, scroll contexts, refreshes, commits (Elasticsearch's
 * flushes) and merges, with the time each took. These are the figures of
 * Elasticsearch's indexing, get, search, refresh, flush and merges stats;
 * the node sums them per index and per node (services/node/stats).
 *
 * Counters start at zero when the copy opens (as an Elasticsearch shard's
 * do when it starts), and only ever grow.
 */

/** The counters as plain data (they travel to the main thread inside SegmentStats). */
export interface CopyCounterFigures {
  readonly indexTotal: number;
  readonly indexTimeMs: number;
  readonly indexFailed: number;
  readonly deleteTotal: number;
  readonly deleteTimeMs: number;
  readonly noopUpdateTotal: number;
  readonly getTotal: number;
  readonly getTimeMs: number;
  readonly getExistsTotal: number;
  readonly getExistsTimeMs: number;
  readonly getMissingTotal: number;
  readonly getMissingTimeMs: number;
  readonly queryTotal: number;
  readonly queryTimeMs: number;
  readonly fetchTotal: number;
  readonly fetchTimeMs: number;
  /** Scroll contexts closed, and how long they were open in all. */
  readonly scrollTotal: number;
  readonly scrollTimeMs: number;
  /** Scroll contexts open now. */
  readonly scrollCurrent: number;
  /** Search contexts open now (scrolls, and searches between their query and fetch phases). */
  readonly openContexts: number;
  readonly refreshTotal: number;
  readonly refreshTimeMs: number;
  readonly flushTotal: number;
  /** Commits the copy made on its own (interval, size, idle), not asked for by `_flush`. */
  readonly flushPeriodic: number;
  readonly flushTimeMs: number;
  readonly mergeTotal: number;
  readonly mergeTimeMs: number;
  readonly mergeDocs: number;
  readonly mergeBytes: number;
  readonly queryCacheHits: number;
  readonly queryCacheMisses: number;
  readonly queryCacheCached: number;
  readonly queryCacheEvictions: number;
  readonly queryCacheBytes: number;
  readonly queryCacheEntries: number;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export function zeroCounters(): CopyCounterFigures {
  return {
    indexTotal: 0,
    indexTimeMs: 0,
    indexFailed: 0,
    deleteTotal: 0,
    deleteTimeMs: 0,
    noopUpdateTotal: 0,
    getTotal: 0,
    getTimeMs: 0,
    getExistsTotal: 0,
    getExistsTimeMs: 0,
    getMissingTotal: 0,
    getMissingTimeMs: 0,
    queryTotal: 0,
    queryTimeMs: 0,
    fetchTotal: 0,
    fetchTimeMs: 0,
    scrollTotal: 0,
    scrollTimeMs: 0,
    scrollCurrent: 0,
    openContexts: 0,
    refreshTotal: 0,
    refreshTimeMs: 0,
    flushTotal: 0,
    flushPeriodic: 0,
    flushTimeMs: 0,
    mergeTotal: 0,
    mergeTimeMs: 0,
    mergeDocs: 0,
    mergeBytes: 0,
    queryCacheHits: 0,
    queryCacheMisses: 0,
    queryCacheCached: 0,
    queryCacheEvictions: 0,
    queryCacheBytes: 0,
    queryCacheEntries: 0,
  };
}

/** The running counters of one copy. Times are kept in fractional milliseconds and reported as such. */
export class CopyCounters {
  readonly c: Mutable<CopyCounterFigures> = zeroCounters();

  /** An op the apply step ran: `kind` as its outcome, `ms` its share of the batch's time. */
  applied(kind: 'index' | 'delete' | 'noop' | 'failed', ms: number): void {
    const c = this.c;
    switch (kind) {
      case 'index':
        c.indexTotal++;
        c.indexTimeMs += ms;
        break;
      case 'delete':
        c.deleteTotal++;
        c.deleteTimeMs += ms;
        break;
      case 'noop':
        c.noopUpdateTotal++;
        break;
      case 'failed':
        c.indexFailed++;
        break;
    }
  }

  get(found: boolean, ms: number): void {
    const c = this.c;
    c.getTotal++;
    c.getTimeMs += ms;
    if (found) {
      c.getExistsTotal++;
      c.getExistsTimeMs += ms;
    } else {
      c.getMissingTotal++;
      c.getMissingTimeMs += ms;
    }
  }

  query(ms: number): void {
    this.c.queryTotal++;
    this.c.queryTimeMs += ms;
  }

  fetch(ms: number): void {
    this.c.fetchTotal++;
    this.c.fetchTimeMs += ms;
  }

  scrollClosed(openMs: number): void {
    this.c.scrollTotal++;
    this.c.scrollTimeMs += openMs;
  }

  refreshed(ms: number): void {
    this.c.refreshTotal++;
    this.c.refreshTimeMs += ms;
  }

  flushed(ms: number, periodic: boolean): void {
    this.c.flushTotal++;
    if (periodic) this.c.flushPeriodic++;
    this.c.flushTimeMs += ms;
  }

  merged(docs: number, bytes: number, ms: number): void {
    this.c.mergeTotal++;
    this.c.mergeDocs += docs;
    this.c.mergeBytes += bytes;
    this.c.mergeTimeMs += ms;
  }
}
