/**
 * Segment files of one partition: `<20-digit base offset>.log`, append-only
 * frames (batch-format.ts). A sealed segment also gets `<base>.index`, its
 * sparse index saved at roll time, so opening a large log reads only the
 * active segment; a missing or stale index file just means a rescan.
 */
import fsp from 'node:fs/promises';
import zlib from 'node:zlib';
import type { LogRecord } from '../commit-log.ts';
import { checkFrame, decodeFrame } from './batch-format.ts';
import type { FrameCheck } from './batch-format.ts';
import { readAt } from './file-io.ts';
import { SparseIndex } from './sparse-index.ts';

/** One index entry per this many bytes of log. */
export const INDEX_INTERVAL_BYTES = 4096;
/** Size of one disk read while scanning or reading. */
const READ_CHUNK_BYTES = 4 * 1024 * 1024;

export interface Segment {
  readonly baseOffset: number;
  readonly path: string;
  /** Open descriptor, or null until a read needs it (sealed segments open lazily). */
  fd: number | null;
  opening: Promise<number> | null;
  /** Bytes of complete, acknowledged frames. Reads never look past it. */
  size: number;
  /** Offset after the segment's last record. */
  nextOffset: number;
  readonly index: SparseIndex;
}

export function newSegment(
  path: string,
  baseOffset: number,
  fd: number | null,
  loaded?: { size: number; nextOffset: number; index: SparseIndex },
): Segment {
  return {
    baseOffset,
    path,
    fd,
    opening: null,
    size: loaded?.size ?? 0,
    nextOffset: loaded?.nextOffset ?? baseOffset,
    index: loaded?.index ?? new SparseIndex(),
  };
}

export function segmentFileName(baseOffset: number): string {
  return `${String(baseOffset).padStart(20, '0')}.log`;
}

/** Base offset of a segment file name, or null if the name is not one. */
export function parseSegmentFileName(name: string): number | null {
  const m = /^(\d{20})\.log$/.exec(name);
  return m === null ? null : Number(m[1]);
}

export function indexFilePath(segmentPath: string): string {
  return segmentPath.replace(/\.log$/, '.index');
}

/** Notes a frame just committed at `position` in the segment's sparse index. */
export function indexFrame(seg: Segment, baseOffset: number, position: number): void {
  if (position - seg.index.lastPosition >= INDEX_INTERVAL_BYTES) seg.index.add(baseOffset, position);
}

type OkFrame = Extract<FrameCheck, { kind: 'ok' }>;

interface WalkResult {
  /** File position where walking ended: after the last visited frame, or at the bad one. */
  readonly stoppedAt: number;
  readonly problem: string | null;
}

/**
 * Visits the frames in [start, end) of a file in order, reading a few MiB at
 * a time (a frame larger than that is read whole). `visit` returns false to
 * stop after that frame.
 */
async function walkFrames(
  fd: number,
  start: number,
  end: number,
  verify: boolean,
  visit: (buf: Buffer, pos: number, frame: OkFrame, filePosition: number) => boolean,
): Promise<WalkResult> {
  let chunkStart = start;
  while (chunkStart < end) {
    let buf = await readAt(fd, chunkStart, Math.min(end - chunkStart, READ_CHUNK_BYTES));
    let p = 0;
    while (p < buf.length) {
      const c = checkFrame(buf, p, verify);
      if (c.kind === 'bad') return { stoppedAt: chunkStart + p, problem: c.reason };
      if (c.kind === 'incomplete') {
        if (chunkStart + c.end > end) return { stoppedAt: chunkStart + p, problem: 'incomplete frame' };
        if (p > 0) break;
        const whole = await readAt(fd, chunkStart, c.end);
        if (whole.length < c.end) return { stoppedAt: chunkStart, problem: 'unexpected end of file' };
        buf = whole;
        continue;
      }
      const more = visit(buf, p, c, chunkStart + p);
      p = c.end;
      if (!more) return { stoppedAt: chunkStart + p, problem: null };
    }
    chunkStart += p;
  }
  return { stoppedAt: chunkStart, problem: null };
}

export interface ScanResult {
  /** Bytes of valid frames from the start of the file. */
  readonly validBytes: number;
  readonly nextOffset: number;
  readonly index: SparseIndex;
  /**
   * Why scanning stopped before the end of the file: `torn` for a frame cut
   * short or failing its CRC (a write interrupted by a crash), `inconsistent`
   * for a well-formed frame with the wrong offsets (never produced by a crash).
   */
  readonly problem: { readonly kind: 'torn' | 'inconsistent'; readonly reason: string } | null;
}

/** Reads a whole segment file, checking every frame's CRC and offsets, and rebuilds its index. */
export async function scanSegment(fd: number, baseOffset: number, fileSize: number): Promise<ScanResult> {
  const index = new SparseIndex();
  let expected = baseOffset;
  let validEnd = 0;
  let inconsistency: string | null = null;
  const walk = await walkFrames(fd, 0, fileSize, true, (_buf, pos, frame, filePosition) => {
    if (frame.baseOffset !== expected || frame.count === 0) {
      inconsistency = `batch at byte ${filePosition} has offsets [${frame.baseOffset}, +${frame.count}), expected ${expected}`;
      return false;
    }
    if (filePosition - index.lastPosition >= INDEX_INTERVAL_BYTES) index.add(frame.baseOffset, filePosition);
    expected += frame.count;
    validEnd = filePosition + (frame.end - pos);
    return true;
  });
  let problem: ScanResult['problem'] = null;
  if (inconsistency !== null) problem = { kind: 'inconsistent', reason: inconsistency };
  else if (walk.problem !== null) problem = { kind: 'torn', reason: walk.problem };
  return { validBytes: validEnd, nextOffset: expected, index, problem };
}

/**
 * Appends to `out` the records of the segment from `fromOffset` on, at most
 * `max` of them, reading only up to the segment's committed size.
 */
export async function readSegment(
  fd: number,
  seg: Segment,
  fromOffset: number,
  max: number,
  out: LogRecord[],
): Promise<void> {
  const first = seg.index.floor(fromOffset);
  const start = first < 0 ? 0 : seg.index.positionAt(first);
  const last = seg.index.ceil(fromOffset + max);
  const end = last < seg.index.length ? seg.index.positionAt(last) : seg.size;
  const target = out.length + max;
  const walk = await walkFrames(fd, start, end, true, (buf, pos, frame) => {
    if (frame.baseOffset + frame.count <= fromOffset) return true;
    decodeFrame(buf, pos, fromOffset, target - out.length, out);
    return out.length < target;
  });
  if (walk.problem !== null) {
    throw new Error(`corrupt segment ${seg.path} at byte ${walk.stoppedAt}: ${walk.problem}`);
  }
}

const INDEX_MAGIC = 0x58494c45; // 'ELIX'
const INDEX_VERSION = 1;
const INDEX_HEADER_BYTES = 4 + 4 + 8 + 8 + 4;

/** Saves a sealed segment's index (write to a temporary file, then rename). */
export async function writeIndexFile(seg: Segment): Promise<void> {
  const n = seg.index.length;
  const buf = Buffer.alloc(INDEX_HEADER_BYTES + n * 16 + 4);
  buf.writeUInt32LE(INDEX_MAGIC, 0);
  buf.writeUInt32LE(INDEX_VERSION, 4);
  buf.writeDoubleLE(seg.size, 8);
  buf.writeDoubleLE(seg.nextOffset, 16);
  buf.writeUInt32LE(n, 24);
  for (let i = 0; i < n; i++) {
    buf.writeDoubleLE(seg.index.offsetAt(i), INDEX_HEADER_BYTES + i * 16);
    buf.writeDoubleLE(seg.index.positionAt(i), INDEX_HEADER_BYTES + i * 16 + 8);
  }
  const crcAt = buf.length - 4;
  buf.writeUInt32LE(zlib.crc32(buf.subarray(0, crcAt)), crcAt);
  const path = indexFilePath(seg.path);
  await fsp.writeFile(`${path}.tmp`, buf);
  await fsp.rename(`${path}.tmp`, path);
}

/** A saved index that matches the segment file's current size, or null (missing, damaged or stale). */
export async function loadIndexFile(
  segmentPath: string,
  fileSize: number,
): Promise<{ index: SparseIndex; nextOffset: number } | null> {
  let buf: Buffer;
  try {
    buf = await fsp.readFile(indexFilePath(segmentPath));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  if (buf.length < INDEX_HEADER_BYTES + 4) return null;
  const n = buf.readUInt32LE(24);
  if (buf.length !== INDEX_HEADER_BYTES + n * 16 + 4) return null;
  const crcAt = buf.length - 4;
  if (zlib.crc32(buf.subarray(0, crcAt)) !== buf.readUInt32LE(crcAt)) return null;
  if (buf.readUInt32LE(0) !== INDEX_MAGIC || buf.readUInt32LE(4) !== INDEX_VERSION) return null;
  if (buf.readDoubleLE(8) !== fileSize) return null;
  const index = new SparseIndex(Math.max(16, n));
  for (let i = 0; i < n; i++) {
    index.add(buf.readDoubleLE(INDEX_HEADER_BYTES + i * 16), buf.readDoubleLE(INDEX_HEADER_BYTES + i * 16 + 8));
  }
  return { index, nextOffset: buf.readDoubleLE(16) };
}
