/**
 * Trajectory similarity (query 8): how alike two plates' journeys are.
 *
 * A trajectory is the plate's visits (checkpoint, time) in time order. Two
 * visits *match* when they are at the same checkpoint within `tolerance`
 * seconds of each other. The similarity is built on the longest common
 * subsequence of the two trajectories under that match relation (an LCS
 * where "equal" means "same checkpoint, close in time"):
 *
 *   similarity(A, B) = 2 · LCS(A, B) / (|A| + |B|)        (0 when both are empty)
 *
 * the Dice form: 1 when every visit of each has a partner in order, 0 when
 * none does, symmetric, and a short trip inside a long one scores low
 * (|B| small against |A|), while `lcs` itself says how many visits were shared.
 *
 * Computed the Hunt–Szymanski way: list the matching pairs (i, j) (few,
 * because a match needs closeness in time), then the LCS is the longest
 * chain strictly increasing in both i and j, found as a longest increasing
 * subsequence in O(r log r) for r pairs, instead of an |A|·|B| table.
 */
import type { Visit } from './trajectory.ts';

export interface Similarity {
  readonly lcs: number;
  readonly length_a: number;
  readonly length_b: number;
  readonly similarity: number;
}

/** Indices j of b matching a[i] (same checkpoint, |Δt| ≤ tol), for every i, j descending within each i. */
function matchingPairs(a: readonly Visit[], b: readonly Visit[], tolMs: number, visit: (j: number) => void): void {
  let lo = 0;
  for (let i = 0; i < a.length; i++) {
    const { land, t } = a[i]!;
    while (lo < b.length && b[lo]!.t < t - tolMs) lo++;
    let hi = lo;
    while (hi < b.length && b[hi]!.t <= t + tolMs) hi++;
    for (let j = hi - 1; j >= lo; j--) if (b[j]!.land === land) visit(j);
  }
}

export function lcsWithTolerance(a: readonly Visit[], b: readonly Visit[], toleranceSeconds: number): number {
  // tails[k]: smallest j that ends an increasing chain of length k + 1.
  const tails: number[] = [];
  matchingPairs(a, b, toleranceSeconds * 1000, (j) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (tails[mid]! < j) lo = mid + 1;
      else hi = mid;
    }
    tails[lo] = j;
  });
  return tails.length;
}

export function trajectorySimilarity(a: readonly Visit[], b: readonly Visit[], toleranceSeconds: number): Similarity {
  const lcs = lcsWithTolerance(a, b, toleranceSeconds);
  const n = a.length + b.length;
  return { lcs, length_a: a.length, length_b: b.length, similarity: n === 0 ? 0 : (2 * lcs) / n };
}
