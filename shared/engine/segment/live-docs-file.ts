/**
 * A segment's deletes as of a commit: its live-docs bitset in a file of its
 * own, `_<segment>_<generation>.liv`, written anew (next generation) by each
 * commit after which the segment lost docs, as Lucene writes `.liv` files.
 * The segment's other files never change.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CorruptSegmentError, FOOTER_BYTES, HEADER_BYTES, verifyFile } from '../codec/file-format.ts';
import { FileOutput } from '../codec/file-output.ts';

export function liveDocsFileName(segmentId: number, generation: number): string {
  return `_${segmentId.toString(36)}_${generation.toString(36)}.liv`;
}

/** The segment and generation a `.liv` file name is of, or null. */
export function liveDocsFileOf(name: string): { segmentId: number; generation: number } | null {
  const m = /^_([0-9a-z]+)_([0-9a-z]+)\.liv$/.exec(name);
  return m === null ? null : { segmentId: parseInt(m[1]!, 36), generation: parseInt(m[2]!, 36) };
}

/** Writes a live-docs file; `sync` false leaves its fsync to the caller (a commit syncs its files together). */
export function writeLiveDocs(dir: string, segmentId: number, generation: number, bits: Uint32Array, sync = true): void {
  const out = new FileOutput(join(dir, liveDocsFileName(segmentId, generation)), 'liv');
  out.writeArray(bits);
  out.finish(sync);
}

export function readLiveDocs(dir: string, segmentId: number, generation: number, words: number): Uint32Array {
  const name = liveDocsFileName(segmentId, generation);
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(dir, name));
  } catch (err) {
    // A missing file is damage the copy recovers from (rebuilt from the log), not a failure of its open.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new CorruptSegmentError(name, 'missing');
    throw err;
  }
  verifyFile(bytes, 'liv', name);
  const body = bytes.subarray(HEADER_BYTES, bytes.length - FOOTER_BYTES);
  if (body.length !== words * 4) throw new CorruptSegmentError(name, `${body.length} bytes of live docs where the segment needs ${words * 4}`);
  const bits = new Uint32Array(words);
  new Uint8Array(bits.buffer).set(body);
  return bits;
}
