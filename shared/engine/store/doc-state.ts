/**
 * A document as realtime get and the apply step see it: its version entry
 * (version-store.ts) and its source, read from the indexing buffer or the
 * segment that holds it.
 */
import type { VersionEntry } from './version-store.ts';

export interface DocState extends VersionEntry {
  /** Raw `_source` JSON bytes; null for a delete tombstone. */
  readonly source: Buffer | null;
}
