/**
 * Crash points for the storage tests (as Lucene's MockDirectoryWrapper
 * injects failures): when LOGSEARCH_CRASH_AT names a point (`point@n`: its
 * n-th time), the process is killed the moment it gets there, so a test can check that a commit, a
 * refresh or a merge cut short at that step loses nothing acknowledged and
 * leaves nothing behind after the next start. Unset in production: one
 * string comparison per refresh, merge or commit.
 */
export type CrashPoint =
  /** A segment's data files written, its `.si` not yet. */
  | 'segment-before-info'
  /** A merged segment written, not yet committed. */
  | 'merge-written'
  /** Segment and live-docs files synced, the commit batch not yet written. */
  | 'commit-files-synced'
  /** The commit batch durable, files the previous commit needed not yet removed. */
  | 'commit-durable';

/** `point` or `point@n`: killed at the n-th time the point is reached (default the first). */
const [armed, nth] = (process.env.LOGSEARCH_CRASH_AT ?? '').split('@');
let reached = 0;

export function crashPoint(point: CrashPoint): void {
  if (armed === point && ++reached >= Number(nth ?? 1)) process.kill(process.pid, 'SIGKILL');
}
