/**
 * Every byte of a copy's segment files checked against its checksum before
 * the copy maps them: what a copy's open does unless
 * `index.shard.check_on_startup` is `false` (docs/decisions/003, "Damage").
 *
 * The bytes are read with positional reads into a reused buffer, several
 * files at once, not through the memory maps: a fault on a map reads ahead
 * the device's read-ahead (8 MB here) one fault at a time, and made a cold
 * open of 4.9 GB of segments take 52 s; reads in large blocks, four files in
 * flight a thread, go at what the disk reads. The pages read stay in the page cache
 * (the kernel's to reclaim) and never count as the process's: queries that
 * follow find them there.
 */
import { open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { CorruptSegmentError, FOOTER_BYTES, HEADER_BYTES, checkChecksum, checkFooter, checkHeader, checkLength, type SegmentFileKind } from '../codec/file-format.ts';
import { DATA_FILES, checkFileLength, parseSegmentInfo, segmentFileName } from './segment-info.ts';

/** Files read at once by a thread, whatever the number of copies it opens at once (libuv reads four at a time). */
const FILES_IN_FLIGHT = 4;
/** Bytes a read asks for. */
const BLOCK_BYTES = 2 * 1024 * 1024;

/** This thread's read buffers not in use; dropped once no check runs (8 MB a thread while copies open). */
let spare: Buffer[] = [];
let reading = 0;
const waiting: (() => void)[] = [];

/** Runs `read` with one of this thread's FILES_IN_FLIGHT buffers, once one is free. */
async function withBuffer(blockBytes: number, read: (buffer: Buffer) => Promise<void>): Promise<void> {
  if (reading < FILES_IN_FLIGHT) reading++;
  // A read that finishes hands its place over to the first waiting.
  else await new Promise<void>((r) => waiting.push(r));
  let buffer = spare.pop();
  if (buffer === undefined || buffer.length !== blockBytes) buffer = Buffer.allocUnsafe(blockBytes);
  try {
    await read(buffer);
  } finally {
    spare.push(buffer);
    const next = waiting.shift();
    if (next !== undefined) next();
    else if (--reading === 0) spare = [];
  }
}

interface DataFile {
  readonly path: string;
  readonly kind: SegmentFileKind;
  readonly name: string;
  readonly length: number;
}

/**
 * Checks the segments `ids` in `dir` whole: each `.si` (checksum, then the
 * data files' lengths against it), then every data file's header, footer and
 * checksum. Throws CorruptSegmentError for the first segment (in `ids`'
 * order) whose `.si` or lengths fail, else for a data file that fails.
 * `blockBytes`: what a read asks for (tests read small files in many blocks).
 */
export async function verifySegmentFiles(dir: string, ids: readonly number[], blockBytes = BLOCK_BYTES): Promise<void> {
  // The small reads first, all at once; their errors in segment order (as an open would meet them).
  const listed = await Promise.allSettled(ids.map((id) => dataFilesOf(dir, id)));
  const files: DataFile[] = [];
  for (const r of listed) {
    if (r.status === 'rejected') throw r.reason;
    files.push(...r.value);
  }
  let failure: { err: unknown } | null = null;
  await Promise.all(
    files.map((file) =>
      withBuffer(blockBytes, async (buffer) => {
        if (failure === null) await verifyByReads(file, buffer);
      }).catch((err: unknown) => {
        failure ??= { err };
      }),
    ),
  );
  if (failure !== null) throw (failure as { err: unknown }).err;
}

async function dataFilesOf(dir: string, id: number): Promise<DataFile[]> {
  const info = parseSegmentInfo(await readSegmentFile(dir, segmentFileName(id, 'si')), id);
  const sizes = await Promise.allSettled(DATA_FILES.map((kind) => statSegmentFile(dir, segmentFileName(id, kind))));
  return DATA_FILES.map((kind, i) => {
    const r = sizes[i]!;
    if (r.status === 'rejected') throw r.reason;
    checkFileLength(info, kind, r.value);
    return { path: join(dir, segmentFileName(id, kind)), kind, name: segmentFileName(id, kind), length: r.value };
  });
}

async function verifyByReads(file: DataFile, buffer: Buffer): Promise<void> {
  checkLength(file.length, file.name);
  const handle = await open(file.path, 'r').catch((err: unknown) => missing(err, file.name));
  try {
    const end = file.length - FOOTER_BYTES;
    let crc = 0;
    for (let at = 0; at < end; ) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, end - at), at);
      if (bytesRead === 0) throw new CorruptSegmentError(file.name, `ends at ${at} bytes, it had ${file.length}`);
      if (at === 0) checkHeader(buffer.subarray(0, HEADER_BYTES), file.kind, file.name);
      crc = zlib.crc32(buffer.subarray(0, bytesRead), crc);
      at += bytesRead;
    }
    const foot = Buffer.alloc(FOOTER_BYTES);
    if ((await handle.read(foot, 0, FOOTER_BYTES, end)).bytesRead !== FOOTER_BYTES) throw new CorruptSegmentError(file.name, 'no footer (truncated?)');
    checkChecksum(crc, checkFooter(foot, file.name), file.name);
  } finally {
    await handle.close();
  }
}

async function readSegmentFile(dir: string, name: string): Promise<Buffer> {
  return readFile(join(dir, name)).catch((err: unknown) => missing(err, name));
}

async function statSegmentFile(dir: string, name: string): Promise<number> {
  return (await stat(join(dir, name)).catch((err: unknown) => missing(err, name))).size;
}

/** A missing file is damage the copy recovers from (rebuilt from the log); any other error is rethrown. */
function missing(err: unknown, name: string): never {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new CorruptSegmentError(name, 'missing');
  throw err;
}
