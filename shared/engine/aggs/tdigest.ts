/**
 * A t-digest (Dunning) for `percentiles` and `percentile_ranks`, with the
 * centroid size limit and the quantile/cdf interpolation of the AVLTreeDigest
 * Elasticsearch 6.8 uses (compression 100 by default): a centroid at quantile
 * q may hold up to 4·n·q·(1−q)/compression values, so up to a couple of
 * hundred values every value is its own centroid and percentiles are exact
 * linear interpolations between sorted values, as Elasticsearch answers them.
 *
 * Centroids live in two parallel arrays sorted by mean; values are buffered
 * and merged in sorted batches (no object per value).
 */

/** TDigestState's default compression. */
export const DEFAULT_COMPRESSION = 100;

export class TDigest {
  means: Float64Array;
  counts: Float64Array;
  size = 0;
  total = 0;
  private buffer: Float64Array;
  private buffered = 0;

  constructor(readonly compression: number) {
    this.means = new Float64Array(16);
    this.counts = new Float64Array(16);
    this.buffer = new Float64Array(Math.max(64, Math.ceil(compression * 5)));
  }

  static fromCentroids(compression: number, means: Float64Array, counts: Float64Array): TDigest {
    const d = new TDigest(compression);
    d.means = Float64Array.from(means);
    d.counts = Float64Array.from(counts);
    d.size = means.length;
    d.total = counts.reduce((a, b) => a + b, 0);
    return d;
  }

  add(value: number): void {
    if (this.buffered === this.buffer.length) this.flush();
    this.buffer[this.buffered++] = value;
  }

  /** Adds another digest's centroids. */
  addCentroids(means: Float64Array, counts: Float64Array): void {
    this.flush();
    const n = this.size + means.length;
    const m = new Float64Array(n);
    const c = new Float64Array(n);
    // merge two sorted runs
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < this.size || j < means.length) {
      if (j >= means.length || (i < this.size && this.means[i]! <= means[j]!)) {
        m[k] = this.means[i]!;
        c[k++] = this.counts[i++]!;
      } else {
        m[k] = means[j]!;
        c[k++] = counts[j++]!;
      }
    }
    this.compressSorted(m, c, n);
  }

  /** Merges buffered values into the centroids. */
  flush(): void {
    if (this.buffered === 0) return;
    const vals = this.buffer.subarray(0, this.buffered).sort();
    const n = this.size + this.buffered;
    const m = new Float64Array(n);
    const c = new Float64Array(n);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < this.size || j < vals.length) {
      if (j >= vals.length || (i < this.size && this.means[i]! <= vals[j]!)) {
        m[k] = this.means[i]!;
        c[k++] = this.counts[i++]!;
      } else {
        m[k] = vals[j++]!;
        c[k++] = 1;
      }
    }
    this.buffered = 0;
    this.compressSorted(m, c, n);
  }

  /** Greedy merge of sorted (mean, count) runs under the size limit. */
  private compressSorted(m: Float64Array, c: Float64Array, n: number): void {
    let total = 0;
    for (let i = 0; i < n; i++) total += c[i]!;
    const outM = new Float64Array(Math.max(16, n));
    const outC = new Float64Array(Math.max(16, n));
    let size = 0;
    let before = 0; // count in centroids before the current one
    for (let i = 0; i < n; i++) {
      const w = c[i]!;
      if (size > 0) {
        const cur = outC[size - 1]!;
        const q = total === 1 ? 0.5 : (before + (cur - 1) / 2) / (total - 1);
        const limit = (4 * total * q * (1 - q)) / this.compression;
        if (cur + w <= limit) {
          const merged = cur + w;
          outM[size - 1] = outM[size - 1]! + ((m[i]! - outM[size - 1]!) * w) / merged;
          outC[size - 1] = merged;
          continue;
        }
        before += cur;
      }
      outM[size] = m[i]!;
      outC[size] = w;
      size++;
    }
    this.means = outM;
    this.counts = outC;
    this.size = size;
    this.total = total;
  }

  /** Value at quantile q in [0, 1]; NaN when empty. */
  quantile(q: number): number {
    this.flush();
    const n = this.size;
    if (n === 0) return NaN;
    if (n === 1) return this.means[0]!;
    const count = this.total;
    const index = q * (count - 1);
    let previousMean = NaN;
    let previousIndex = 0;
    let total = 0;
    // first centroid whose cumulative count reaches floor(index)
    let next = 0;
    const target = Math.floor(index);
    while (next < n - 1 && total + this.counts[next]! <= target) {
      total += this.counts[next]!;
      next++;
    }
    if (next > 0) {
      previousMean = this.means[next - 1]!;
      previousIndex = total - (this.counts[next - 1]! + 1) / 2;
    }
    while (true) {
      const nextIndex = total + (this.counts[next]! - 1) / 2;
      if (nextIndex >= index) {
        if (Number.isNaN(previousMean)) {
          // before the first centroid: extrapolate from the first two
          if (nextIndex === previousIndex) return this.means[next]!;
          const nextIndex2 = total + this.counts[next]! + (this.counts[next + 1]! - 1) / 2;
          previousMean = (nextIndex2 * this.means[next]! - nextIndex * this.means[next + 1]!) / (nextIndex2 - nextIndex);
        }
        return interpolate(index, previousIndex, nextIndex, previousMean, this.means[next]!);
      }
      if (next === n - 1) {
        // beyond the last centroid: extrapolate up to the highest index
        const nextIndex2 = count - 1;
        const nextMean2 =
          (this.means[next]! * (nextIndex2 - previousIndex) - previousMean * (nextIndex2 - nextIndex)) /
          (nextIndex - previousIndex);
        return interpolate(index, nextIndex, nextIndex2, this.means[next]!, nextMean2);
      }
      total += this.counts[next]!;
      previousMean = this.means[next]!;
      previousIndex = nextIndex;
      next++;
    }
  }

  /** Fraction of values ≤ x (percentile_ranks); NaN when empty. */
  cdf(x: number): number {
    this.flush();
    const n = this.size;
    if (n === 0) return NaN;
    if (n === 1) return x < this.means[0]! ? 0 : 1;
    let r = 0;
    let a = 0;
    let b = 1;
    let left = (this.means[b]! - this.means[a]!) / 2;
    let right = left;
    while (b < n - 1) {
      if (x < this.means[a]! + right) {
        const value = (r + this.counts[a]! * frac(x, this.means[a]! - left, this.means[a]! + right)) / this.total;
        return value > 0 ? value : 0;
      }
      r += this.counts[a]!;
      a = b;
      left = right;
      b++;
      right = (this.means[b]! - this.means[a]!) / 2;
    }
    if (x < this.means[a]! + right) {
      return (r + this.counts[a]! * frac(x, this.means[a]! - right, this.means[a]! + right)) / this.total;
    }
    return 1;
  }
}

function interpolate(index: number, previousIndex: number, nextIndex: number, previousMean: number, nextMean: number): number {
  const delta = nextIndex - previousIndex;
  const previousWeight = (nextIndex - index) / delta;
  const nextWeight = (index - previousIndex) / delta;
  return previousMean * previousWeight + nextMean * nextWeight;
}

function frac(x: number, x0: number, x1: number): number {
  return (x - x0) / (x1 - x0);
}
