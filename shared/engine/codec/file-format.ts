/**
 * Every segment file starts with a header and ends with a footer, as Lucene's
 * CodecUtil does: a magic number, the format version and the file's kind up
 * front, and a CRC-32 of everything before the footer at the end. A file that
 * is short, of another kind or version, or whose bytes do not add up to the
 * checksum is refused.
 *
 * What is checked when (docs/decisions/003, "Damage"): a copy's open reads
 * every byte of every file (segment/verify-segment-files.ts), unless
 * `index.shard.check_on_startup` is `false`: then it reads the small files
 * (the `.si`, live docs) whole and checks the large ones' structure (length,
 * header, footer), as Lucene opens a segment. A merge checks every byte of its
 * inputs.
 */
import zlib from 'node:zlib';

/** 'LSEG' little-endian. */
export const HEADER_MAGIC = 0x4745534c;
/** 'LEND' little-endian. */
export const FOOTER_MAGIC = 0x444e454c;
export const HEADER_BYTES = 16;
export const FOOTER_BYTES = 8;
/**
 * Bumped whenever any segment file changes its layout or the meaning of its
 * terms; older files are refused (the copy rebuilds from the log).
 * 4: `ip` terms and doc values are the address's 16 bytes in hex, no longer its text.
 * 5: stored fields compressed with a per-segment dictionary; dictionary entries with one
 *    header byte for prefix and length and optional shared tails; postings metadata that
 *    shares a neighbour's doc or postings.
 */
export const SEGMENT_FORMAT_VERSION = 5;

/** The files of a segment, by extension. */
export type SegmentFileKind = 'si' | 'tim' | 'doc' | 'pos' | 'dvd' | 'fdt' | 'liv';

export class CorruptSegmentError extends Error {
  constructor(
    readonly file: string,
    why: string,
  ) {
    super(`segment file [${file}] is corrupt: ${why}`);
    this.name = 'CorruptSegmentError';
  }
}

function kindCode(kind: string): number {
  let code = 0;
  for (let i = 0; i < 4; i++) code |= (i < kind.length ? kind.charCodeAt(i) : 0x20) << (8 * i);
  return code >>> 0;
}

export function writeHeader(target: Uint8Array, kind: SegmentFileKind): void {
  const view = new DataView(target.buffer, target.byteOffset, HEADER_BYTES);
  view.setUint32(0, HEADER_MAGIC, true);
  view.setUint32(4, SEGMENT_FORMAT_VERSION, true);
  view.setUint32(8, kindCode(kind), true);
  view.setUint32(12, 0, true);
}

/**
 * How much of a segment's data files an open checks: `checksum` every byte
 * (3 GB/s of CRC from memory; from disk, as fast as the disk reads),
 * `structure` the length, header and footer (a few bytes a file, whatever
 * its size), `none` nothing (files this process has just written).
 */
export type SegmentCheck = 'checksum' | 'structure' | 'none';

/**
 * The check `index.shard.check_on_startup` asks for at a copy's open:
 * `checksum`, `true` (and 6.x's deprecated `fix`), and unlike Elasticsearch
 * the setting unset, verify every byte of every file (`true` also runs Lucene's
 * CheckIndex in Elasticsearch, which here is the same checksum check);
 * `false`, given explicitly, checks what Lucene checks at every open.
 */
export function checkOnStartup(setting: unknown): SegmentCheck {
  return setting === 'false' || setting === false ? 'structure' : 'checksum';
}

/**
 * Checks a file's structure without reading its body: long enough for a
 * header and footer, the header's magic, version and kind, the footer's magic.
 * Catches a truncated file, a file of another kind or version, and a file
 * cut short mid-write; not a flipped byte in the body (verifyFile does).
 */
export function checkFileStructure(bytes: Uint8Array, kind: SegmentFileKind, name: string): void {
  checkLength(bytes.length, name);
  checkHeader(bytes.subarray(0, HEADER_BYTES), kind, name);
  checkFooter(bytes.subarray(bytes.length - FOOTER_BYTES), name);
}

export function checkLength(length: number, name: string): void {
  if (length < HEADER_BYTES + FOOTER_BYTES) throw new CorruptSegmentError(name, `${length} bytes is shorter than a header and footer`);
}

/** The header's magic, format version and kind (`head`: the file's first HEADER_BYTES). */
export function checkHeader(head: Uint8Array, kind: SegmentFileKind, name: string): void {
  const view = new DataView(head.buffer, head.byteOffset, HEADER_BYTES);
  if (view.getUint32(0, true) !== HEADER_MAGIC) throw new CorruptSegmentError(name, 'no segment header');
  const version = view.getUint32(4, true);
  if (version !== SEGMENT_FORMAT_VERSION) throw new CorruptSegmentError(name, `format version ${version}, this node reads ${SEGMENT_FORMAT_VERSION}`);
  if (view.getUint32(8, true) !== kindCode(kind)) throw new CorruptSegmentError(name, `not a [${kind}] file`);
}

/** The footer's magic (`foot`: the file's last FOOTER_BYTES); returns the checksum it holds. */
export function checkFooter(foot: Uint8Array, name: string): number {
  const view = new DataView(foot.buffer, foot.byteOffset, FOOTER_BYTES);
  if (view.getUint32(0, true) !== FOOTER_MAGIC) throw new CorruptSegmentError(name, 'no footer (truncated?)');
  return view.getUint32(4, true);
}

/** `actual`, the CRC-32 of every byte before the footer, against the footer's. */
export function checkChecksum(actual: number, expected: number, name: string): void {
  if (actual !== expected) throw new CorruptSegmentError(name, `checksum ${actual.toString(16)} where the footer says ${expected.toString(16)}`);
}

/**
 * Checks a whole file: its structure and the checksum over every byte
 * before the footer (3 GB/s here: a gigabyte of segments in a third of a second).
 */
export function verifyFile(bytes: Uint8Array, kind: SegmentFileKind, name: string): void {
  checkFileStructure(bytes, kind, name);
  const footer = bytes.length - FOOTER_BYTES;
  checkChecksum(zlib.crc32(bytes.subarray(0, footer)), checkFooter(bytes.subarray(footer), name), name);
}
