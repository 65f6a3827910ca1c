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
  private readonly scores: Float64Array[] = [];
  private readonly counts: Uint16Array[] = [];
  private readonly docs: Int32Array[] = [];
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
}

const shared = new ScratchArena();

/** The shared arena, or a fresh one when it is in use (re-entrant evaluation). */
export function acquireArena(): ScratchArena {
  if (shared.busy) return new ScratchArena();
  shared.busy = true;
  shared.reset();
  return shared;
}

export function releaseArena(arena: ScratchArena): void {
  arena.reset();
  arena.busy = false;
}
