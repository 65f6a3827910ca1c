/**
 * Reusable per-doc working arrays for query evaluation: score accumulators and
 * clause counters sized to a segment, handed out during one segment's
 * evaluation and all taken back before the next. Reusing them keeps a query
 * from allocating (and the GC from reclaiming) megabytes per request.
 *
 * Scores accumulate in doubles, as Lucene's BooleanScorer and
 * ConjunctionScorer sum clause scores, and are rounded to floats when a
 * clause's sum is final.
 */

export class ScratchArena {
  /** Slots emptied by trim() are undefined until a take fills them again. */
  private readonly scores: (Float64Array | undefined)[] = [];
  private readonly counts: (Uint16Array | undefined)[] = [];
  private readonly docs: (Int32Array | undefined)[] = [];
  private scoresUsed = 0;
  private countsUsed = 0;
  private docsUsed = 0;
  /** True while a searcher holds arrays from it (a nested evaluation takes a fresh arena). */
  busy = false;

  /** A score array of at least `maxDoc` entries; contents are stale (callers write before reading). */
  takeScores(maxDoc: number): Float64Array {
    let a = this.scores[this.scoresUsed];
    if (a === undefined || a.length < maxDoc) {
      a = new Float64Array(maxDoc);
      this.scores[this.scoresUsed] = a;
    }
    this.scoresUsed++;
    return a;
  }

  /** A zeroed counter array of at least `maxDoc` entries. */
  takeCounts(maxDoc: number): Uint16Array {
    let a = this.counts[this.countsUsed];
    if (a === undefined || a.length < maxDoc) {
      a = new Uint16Array(maxDoc);
      this.counts[this.countsUsed] = a;
    } else {
      a.fill(0, 0, maxDoc);
    }
    this.countsUsed++;
    return a;
  }

  /** A doc id array of at least `n` entries (a conjunction's candidates); contents are stale. */
  takeDocs(n: number): Int32Array {
    let a = this.docs[this.docsUsed];
    if (a === undefined || a.length < n) {
      a = new Int32Array(Math.max(n, 256));
      this.docs[this.docsUsed] = a;
    }
    this.docsUsed++;
    return a;
  }

  /** Everything handed out is free again. */
  reset(): void {
    this.scoresUsed = 0;
    this.countsUsed = 0;
    this.docsUsed = 0;
  }

  /** Bytes of the arrays kept. */
  get bytes(): number {
    let n = 0;
    for (const list of this.lists()) for (const a of list) n += a?.byteLength ?? 0;
    return n;
  }

  /** Drops the largest arrays until those kept take at most `budget` bytes (the next take allocates anew). */
  trim(budget: number): void {
    let total = this.bytes;
    while (total > budget) {
      let list: (ArrayBufferView | undefined)[] | null = null;
      let at = -1;
      let bytes = 0;
      for (const l of this.lists()) {
        for (let i = 0; i < l.length; i++) {
          const n = l[i]?.byteLength ?? 0;
          if (n > bytes) [list, at, bytes] = [l, i, n];
        }
      }
      if (list === null) return;
      list[at] = undefined;
      total -= bytes;
    }
  }

  private lists(): (ArrayBufferView | undefined)[][] {
    return [this.scores, this.counts, this.docs];
  }
}

/**
 * Bytes of arrays the shared arena keeps once idle. Its arrays are sized to
 * the largest segment searched (8 bytes a doc for scores, one per scoring
 * clause): ~3 MB each on a 5M-doc index, 18 MB on a 20M one, several a
 * search. Searches that follow one another reuse them (allocating them per
 * search cost the 20M fragment search 2.5 times its CPU); once no search has
 * used the arena for SCRATCH_IDLE_MS, the arrays beyond this budget go
 * (docs/performance.md, stop 32).
 */
export const SCRATCH_KEEP_BYTES = 16 * 1024 * 1024;
export const SCRATCH_IDLE_MS = 1000;

const shared = new ScratchArena();

/** The shared arena, or a fresh one when it is in use (re-entrant evaluation). */
export function acquireArena(): ScratchArena {
  if (shared.busy) return new ScratchArena();
  shared.busy = true;
  shared.reset();
  return shared;
}

let lastRelease = 0;
let idleTrim: NodeJS.Timeout | null = null;

/** Trims the shared arena once it has been idle for SCRATCH_IDLE_MS (checked again while in use). */
function trimWhenIdle(): void {
  if (idleTrim !== null) return;
  const wait = Math.max(100, lastRelease + SCRATCH_IDLE_MS - performance.now());
  idleTrim = setTimeout(() => {
    idleTrim = null;
    if (shared.busy || performance.now() - lastRelease < SCRATCH_IDLE_MS) trimWhenIdle();
    else shared.trim(SCRATCH_KEEP_BYTES);
  }, wait);
  idleTrim.unref();
}

export function releaseArena(arena: ScratchArena): void {
  arena.reset();
  arena.busy = false;
  if (arena !== shared) return;
  lastRelease = performance.now();
  if (shared.bytes > SCRATCH_KEEP_BYTES) trimWhenIdle();
}

/** Bytes the thread's shared arena keeps between searches. */
export function sharedArenaBytes(): number {
  return shared.bytes;
}
