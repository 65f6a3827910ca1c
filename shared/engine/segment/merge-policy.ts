/**
 * Which segments of a shard copy to merge: a small tiered policy in the spirit
 * of Lucene's TieredMergePolicy, counted in docs rather than bytes.
 */

export interface MergeCandidate {
  readonly maxDoc: number;
  /** Live docs. */
  readonly numDocs: number;
}

/** Lucene TieredMergePolicy's segmentsPerTier default: more segments than this in one tier get merged. */
export const SEGMENTS_PER_TIER = 10;
/** Lucene TieredMergePolicy's maxMergeAtOnce default. */
export const MAX_MERGE_AT_ONCE = 10;
/** A segment with a larger share of deleted docs is rewritten to reclaim them. */
export const MAX_DELETED_RATIO = 0.3;
/** Segments below this many live docs all count as one (smallest) tier, like Lucene's floor segment size. */
export const FLOOR_SEGMENT_DOCS = 1000;
/**
 * No merge produces a segment larger than this (Lucene's maxMergedSegmentMB,
 * 5 GB, counted in docs): a merge rewrites every byte of its inputs, and a
 * segment's files stay well under the 4 GB their 32-bit offsets address.
 */
export const MAX_MERGED_SEGMENT_DOCS = 4_000_000;

/** Tier of a segment: docs up to the floor are tier 0, then one tier per factor of ten. */
function tierOf(numDocs: number): number {
  return numDocs <= FLOOR_SEGMENT_DOCS ? 0 : Math.floor(Math.log10(numDocs / FLOOR_SEGMENT_DOCS)) + 1;
}

/** Disjoint groups of segment indices (each ascending) to merge, each group into one segment. */
export function findMerges(segments: readonly MergeCandidate[]): number[][] {
  const merges: number[][] = [];
  const taken = new Set<number>();

  const tooManyDeletes = segments
    .map((s, i) => ({ i, s }))
    .filter(({ s }) => s.maxDoc > 0 && (s.maxDoc - s.numDocs) / s.maxDoc > MAX_DELETED_RATIO)
    .map(({ i }) => i);
  for (let at = 0; at < tooManyDeletes.length; at += MAX_MERGE_AT_ONCE) {
    const group = tooManyDeletes.slice(at, at + MAX_MERGE_AT_ONCE);
    for (const i of group) taken.add(i);
    merges.push(group);
  }

  const tiers = new Map<number, number[]>();
  segments.forEach((s, i) => {
    if (taken.has(i)) return;
    const tier = tierOf(s.numDocs);
    const members = tiers.get(tier);
    if (members === undefined) tiers.set(tier, [i]);
    else members.push(i);
  });
  for (const all of tiers.values()) {
    // Segments already at half the largest size are left alone: merging them would exceed it.
    const members = all.filter((i) => segments[i].numDocs < MAX_MERGED_SEGMENT_DOCS / 2);
    // Smallest first: merging them costs least and brings the tier back under its budget.
    members.sort((a, b) => segments[a].numDocs - segments[b].numDocs || a - b);
    while (members.length > SEGMENTS_PER_TIER) {
      const group: number[] = [];
      let docs = 0;
      while (members.length > 0 && group.length < MAX_MERGE_AT_ONCE && docs + segments[members[0]!].numDocs <= MAX_MERGED_SEGMENT_DOCS) {
        docs += segments[members[0]!].numDocs;
        group.push(members.shift()!);
      }
      if (group.length < 2) break;
      merges.push(group.sort((a, b) => a - b));
    }
  }
  return merges;
}

/**
 * Elasticsearch's `index.merge.policy.expunge_deletes_allowed` (10%): with
 * `only_expunge_deletes`, segments with a larger share of deleted docs are
 * rewritten (Lucene's forceMergeDeletes).
 */
export const EXPUNGE_DELETES_ALLOWED = 0.1;

/** Groups that rewrite every segment with more than EXPUNGE_DELETES_ALLOWED deleted docs. */
export function findDeletesMerges(segments: readonly MergeCandidate[]): number[][] {
  const eligible = segments
    .map((s, i) => ({ s, i }))
    .filter(({ s }) => s.maxDoc > 0 && (s.maxDoc - s.numDocs) / s.maxDoc > EXPUNGE_DELETES_ALLOWED)
    .map(({ i }) => i);
  return packGroups(eligible, segments);
}

/**
 * Groups that leave at most `maxNumSegments` segments (Lucene's forceMerge):
 * the smallest segments are merged first. No merge exceeds
 * MAX_MERGED_SEGMENT_DOCS (the files' 32-bit offsets), so a copy larger than
 * that keeps as few segments as the limit allows. When the count is already
 * within `maxNumSegments`, segments that hold deleted docs are rewritten on
 * their own, as a forced merge leaves no deletes behind.
 */
export function findForcedMerges(segments: readonly MergeCandidate[], maxNumSegments: number): number[][] {
  if (segments.length <= maxNumSegments) {
    return segments.map((s, i) => ({ s, i })).filter(({ s }) => s.numDocs < s.maxDoc && s.numDocs > 0).map(({ i }) => [i]);
  }
  // Merge the smallest ones into as few groups as needed to reach the target count.
  const order = segments.map((_, i) => i).sort((a, b) => segments[a]!.numDocs - segments[b]!.numDocs || a - b);
  const groups: number[][] = [];
  let remaining = segments.length;
  let at = 0;
  while (remaining > maxNumSegments && at < order.length) {
    const group: number[] = [];
    let docs = 0;
    // A group of k segments removes k - 1; take just as many as the target needs, within the size limit.
    const wanted = remaining - maxNumSegments + 1;
    while (at < order.length && group.length < wanted && docs + segments[order[at]!]!.numDocs <= MAX_MERGED_SEGMENT_DOCS) {
      docs += segments[order[at]!]!.numDocs;
      group.push(order[at]!);
      at++;
    }
    if (group.length < 2) break;
    remaining -= group.length - 1;
    groups.push(group.sort((a, b) => a - b));
  }
  return groups;
}

/** Consecutive groups of at most MAX_MERGE_AT_ONCE segments and MAX_MERGED_SEGMENT_DOCS live docs. */
function packGroups(members: readonly number[], segments: readonly MergeCandidate[]): number[][] {
  const groups: number[][] = [];
  let group: number[] = [];
  let docs = 0;
  for (const i of members) {
    const n = segments[i]!.numDocs;
    if (group.length > 0 && (group.length >= MAX_MERGE_AT_ONCE || docs + n > MAX_MERGED_SEGMENT_DOCS)) {
      groups.push(group);
      group = [];
      docs = 0;
    }
    group.push(i);
    docs += n;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}
