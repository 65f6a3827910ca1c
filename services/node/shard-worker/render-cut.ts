/**
 * How much of a shard's hit list a worker renders with its query phase
 * (QueryMessage.renderFrom). A search of five shards renders each shard's
 * top `window` hits with its query phase, five lists for the one page the
 * client gets, and a hit costs tens of microseconds to render (its stored
 * source read and written out). The shards of one search that a worker holds
 * answer here one after the other: once this worker's shards of the search
 * hold `window` hits scoring at least s, a later hit scoring below s cannot be
 * on the page (the merge puts those `window` hits before it), so it is not
 * rendered. The hits kept are a prefix of the shard's list (it is sorted by
 * score); hits scoring s itself are kept, whatever the merge's tie order.
 * The coordinator asks for the cut (QueryMessage.renderCut, a number naming
 * that one execution of the search: the same body run twice must not share
 * hits) only when the search is ordered by score alone and every shard's
 * answer is merged (no `timeout` leaving a late one out), and the hits of a
 * shard count only once it answers with them.
 */
const MAX_WINDOW = 64;

export class RenderCut {
  /** The search and index the best scores are of (a new one starts over). */
  private key = '';
  private window = 0;
  /** The best scores so far, descending, at most `window`. */
  private best: number[] = [];

  /**
   * The end of the prefix of `scores` (a shard's list, descending) to render,
   * counting them among the search's hits in this worker.
   */
  cut(key: string, window: number, scores: ArrayLike<number>): number {
    // The query-and-fetch page is small (QUERY_AND_FETCH_HITS); a bigger one is not kept sorted here.
    if (window > MAX_WINDOW) return scores.length;
    if (key !== this.key || window !== this.window) {
      this.key = key;
      this.window = window;
      this.best = [];
    }
    for (let i = 0; i < scores.length; i++) {
      const s = scores[i]!;
      // A score that does not compare (NaN) cuts nothing.
      if (!(s === s)) return scores.length;
      if (this.best.length === window && s <= this.best[window - 1]!) break;
      let at = this.best.length;
      while (at > 0 && this.best[at - 1]! < s) at--;
      this.best.splice(at, 0, s);
      if (this.best.length > window) this.best.pop();
    }
    if (this.best.length < window) return scores.length;
    const worst = this.best[window - 1]!;
    let n = 0;
    while (n < scores.length && !(scores[n]! < worst)) n++;
    return n;
  }
}
