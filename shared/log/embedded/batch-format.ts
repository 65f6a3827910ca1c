/**
 * On-disk format of the embedded log: a segment file is a sequence of frames,
 * one frame per appended batch, all integers little-endian:
 *
 *   frame   = u32 bodyLength, u32 crc32(body), body
 *   body    = u8 version, u32 baseOffset low, u32 baseOffset high,
 *             u32 recordCount, f64 timestamp (epoch ms), records
 *   records = record * recordCount                       (version 1)
 *           | u32 rawLength, zstd(record * recordCount)  (version 2)
 *   record  = u32 valueLength, i32 keyLength (-1: null key), u16 headerCount,
 *             key bytes, header * headerCount, value bytes
 *   header  = u16 nameLength, name (UTF-8), u32 valueLength, value (UTF-8)
 *
 * Batches whose records take COMPRESS_MIN_BYTES or more are compressed as a
 * whole with Zstandard (level 1), as a Kafka producer compresses a record
 * batch: pass records shrink about 8:1, and a log of every op stays smaller
 * than the segments it feeds. Both versions read back.
 *
 * One CRC per batch makes a batch all-or-nothing: a frame torn by a process
 * killed mid-write fails its length or CRC check and is cut off at open, as a
 * Kafka record batch would be, so an unacknowledged batch never half-appears.
 */
import zlib from 'node:zlib';
import { decompress } from 'zstd-napi';
import type { AppendRecord, LogRecord } from '../commit-log.ts';
import { OFF_THREAD_BYTES, compressHere, compressOffThread } from './compress-thread.ts';

export const FRAME_HEADER_BYTES = 8;
export const FORMAT_VERSION = 1;
export const COMPRESSED_FORMAT_VERSION = 2;
/** Smaller batches are written as they are: a single short record barely compresses. */
export const COMPRESS_MIN_BYTES = 1024;
const ZSTD_LEVEL = 1;
const BODY_FIXED_BYTES = 21;
const RECORD_FIXED_BYTES = 10;
/** Largest frame body accepted on write and believed on read; larger lengths mean garbage. */
export const MAX_FRAME_BODY_BYTES = 1024 * 1024 * 1024;

const TWO_POW_32 = 0x1_0000_0000;
const EMPTY_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** A batch encoded at append time; offsets, timestamp and CRC are filled in by `sealFrame`. */
export interface PreparedBatch {
  readonly frame: Buffer;
  readonly count: number;
  /**
   * The same batch uncompressed (version 1), when `frame` was compressed on
   * the compression thread: the tail cache keeps it, so followers read the
   * records of a large batch without decompressing them on their thread.
   */
  readonly plain: Buffer | null;
}

function checkBytes(v: unknown, what: string): Uint8Array {
  if (!(v instanceof Uint8Array)) throw new TypeError(`${what} must be a Buffer`);
  return v;
}

/**
 * Encodes a batch into one frame buffer. The payloads are copied now, so the
 * caller may reuse its buffers as soon as `append` returns. Records of
 * OFF_THREAD_BYTES or more are compressed on the compression thread: the
 * batch is then a promise, which the log awaits in append order.
 */
export function prepareBatch(records: readonly AppendRecord[]): PreparedBatch | Promise<PreparedBatch> {
  let bodyBytes = BODY_FIXED_BYTES;
  // Per record, its headers as they are written (count, then the names and values); null without.
  let encoded: (EncodedHeaders | null)[] | null = null;
  // The records of one append usually share one headers object (a write's trace context): encoded once.
  let lastHeaders: Readonly<Record<string, string>> | undefined;
  let lastEncoded: EncodedHeaders | null = null;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const value = checkBytes(r.value, `record ${i} value`);
    bodyBytes += RECORD_FIXED_BYTES + value.length;
    if (r.key != null) bodyBytes += checkBytes(r.key, `record ${i} key`).length;
    const headers = r.headers;
    if (headers !== undefined) {
      if (headers !== lastHeaders) {
        lastHeaders = headers;
        lastEncoded = encodeHeaders(headers, i);
      }
      if (lastEncoded !== null) {
        encoded ??= new Array<EncodedHeaders | null>(records.length).fill(null);
        encoded[i] = lastEncoded;
        bodyBytes += lastEncoded.bytes.length;
      }
    }
  }
  if (bodyBytes > MAX_FRAME_BODY_BYTES) {
    throw new RangeError(`batch of ${records.length} records is ${bodyBytes} bytes, more than the ${MAX_FRAME_BODY_BYTES} allowed`);
  }

  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + bodyBytes);
  frame.writeUInt32LE(bodyBytes, 0);
  frame[FRAME_HEADER_BYTES] = FORMAT_VERSION;
  frame.writeUInt32LE(records.length, FRAME_HEADER_BYTES + 9);
  let pos = FRAME_HEADER_BYTES + BODY_FIXED_BYTES;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const value = r.value;
    const key = r.key ?? null;
    const headers = encoded === null ? null : encoded[i]!;
    frame.writeUInt32LE(value.length, pos);
    frame.writeInt32LE(key === null ? -1 : key.length, pos + 4);
    frame.writeUInt16LE(headers === null ? 0 : headers.count, pos + 8);
    pos += RECORD_FIXED_BYTES;
    if (key !== null) {
      frame.set(key, pos);
      pos += key.length;
    }
    if (headers !== null) {
      frame.set(headers.bytes, pos);
      pos += headers.bytes.length;
    }
    frame.set(value, pos);
    pos += value.length;
  }
  const count = records.length;
  const recordBytes = bodyBytes - BODY_FIXED_BYTES;
  if (recordBytes < COMPRESS_MIN_BYTES) return { frame, count, plain: null };
  const recordsAt = FRAME_HEADER_BYTES + BODY_FIXED_BYTES;
  if (recordBytes < OFF_THREAD_BYTES) return { frame: compressedFrame(frame, compressHere(frame, recordsAt, ZSTD_LEVEL)) ?? frame, count, plain: null };
  return compressOffThread(frame, recordsAt, ZSTD_LEVEL).then(({ frame: lent, packed }) => {
    const compressed = compressedFrame(lent, packed);
    return compressed === null ? { frame: lent, count, plain: null } : { frame: compressed, count, plain: lent };
  });
}

/** A record's headers as written: per header a u16 name length, the name, a u32 value length, the value (UTF-8). */
interface EncodedHeaders {
  readonly count: number;
  readonly bytes: Buffer;
}

/** null for no headers. `i` names the record in errors. */
function encodeHeaders(headers: Readonly<Record<string, string>>, i: number): EncodedHeaders | null {
  const names = Object.keys(headers);
  if (names.length === 0) return null;
  let n = 0;
  for (const name of names) {
    const v: unknown = headers[name];
    if (typeof v !== 'string') throw new TypeError(`record ${i} header [${name}] must be a string`);
    const nameLen = Buffer.byteLength(name);
    if (nameLen > 0xffff) throw new RangeError(`record ${i} header name is longer than 65535 bytes`);
    n += 6 + nameLen + Buffer.byteLength(v);
  }
  const bytes = Buffer.allocUnsafe(n);
  let pos = 0;
  for (const name of names) {
    const nameLen = bytes.write(name, pos + 2, 'utf8');
    bytes.writeUInt16LE(nameLen, pos);
    pos += 2 + nameLen;
    const valueLen = bytes.write(headers[name]!, pos + 4, 'utf8');
    bytes.writeUInt32LE(valueLen, pos);
    pos += 4 + valueLen;
  }
  return { count: names.length, bytes };
}

/** The frame with its records replaced by `packed` (version 2); null when that would not make it smaller. */
function compressedFrame(frame: Buffer, packed: Buffer): Buffer | null {
  const recordsAt = FRAME_HEADER_BYTES + BODY_FIXED_BYTES;
  const rawLength = frame.length - recordsAt;
  if (packed.length + 4 >= rawLength) return null;
  const out = Buffer.allocUnsafe(recordsAt + 4 + packed.length);
  frame.copy(out, 0, 0, recordsAt);
  out.writeUInt32LE(out.length - FRAME_HEADER_BYTES, 0);
  out[FRAME_HEADER_BYTES] = COMPRESSED_FORMAT_VERSION;
  out.writeUInt32LE(rawLength, recordsAt);
  packed.copy(out, recordsAt + 4);
  return out;
}

/** Stamps the batch's base offset and timestamp and computes its CRC, just before it is written. */
export function sealFrame(frame: Buffer, baseOffset: number, timestamp: number): void {
  stampFrame(frame, baseOffset, timestamp);
  frame.writeUInt32LE(zlib.crc32(frame.subarray(FRAME_HEADER_BYTES)), 4);
}

/** sealFrame without the CRC: for a batch's `plain` frame, which is only read from memory. */
export function stampFrame(frame: Buffer, baseOffset: number, timestamp: number): void {
  const body = FRAME_HEADER_BYTES;
  frame.writeUInt32LE(baseOffset % TWO_POW_32, body + 1);
  frame.writeUInt32LE(Math.floor(baseOffset / TWO_POW_32), body + 5);
  frame.writeDoubleLE(timestamp, body + 13);
}

export type FrameCheck =
  | { readonly kind: 'ok'; readonly end: number; readonly baseOffset: number; readonly count: number }
  /** The buffer ends inside this frame; `end` is where the frame would end. */
  | { readonly kind: 'incomplete'; readonly end: number }
  | { readonly kind: 'bad'; readonly reason: string };

/**
 * Checks the frame starting at `pos` in `buf` (length, CRC when `verify`,
 * version). `end` is relative to `buf`.
 */
export function checkFrame(buf: Buffer, pos: number, verify: boolean): FrameCheck {
  if (pos + FRAME_HEADER_BYTES > buf.length) return { kind: 'incomplete', end: pos + FRAME_HEADER_BYTES };
  const bodyLength = buf.readUInt32LE(pos);
  if (bodyLength < BODY_FIXED_BYTES || bodyLength > MAX_FRAME_BODY_BYTES) {
    return { kind: 'bad', reason: `implausible frame length ${bodyLength}` };
  }
  const bodyStart = pos + FRAME_HEADER_BYTES;
  const end = bodyStart + bodyLength;
  if (end > buf.length) return { kind: 'incomplete', end };
  if (verify) {
    const crc = zlib.crc32(buf.subarray(bodyStart, end));
    if (crc !== buf.readUInt32LE(pos + 4)) return { kind: 'bad', reason: 'CRC mismatch' };
  }
  const version = buf[bodyStart];
  if (version !== FORMAT_VERSION && version !== COMPRESSED_FORMAT_VERSION) return { kind: 'bad', reason: `unknown frame version ${version}` };
  const baseOffset = buf.readUInt32LE(bodyStart + 5) * TWO_POW_32 + buf.readUInt32LE(bodyStart + 1);
  const count = buf.readUInt32LE(bodyStart + 9);
  return { kind: 'ok', end, baseOffset, count };
}

/**
 * Decodes the records of the (checked) frame at `pos` whose offsets are >=
 * `fromOffset`, appending at most `max` of them to `out`. Keys and values are
 * views into `buf`. Returns how many were appended.
 */
export function decodeFrame(frameBuf: Buffer, pos: number, fromOffset: number, max: number, out: LogRecord[]): number {
  let buf = frameBuf;
  const bodyStart = pos + FRAME_HEADER_BYTES;
  const frameEnd = bodyStart + buf.readUInt32LE(pos);
  const baseOffset = buf.readUInt32LE(bodyStart + 5) * TWO_POW_32 + buf.readUInt32LE(bodyStart + 1);
  const count = buf.readUInt32LE(bodyStart + 9);
  const timestamp = buf.readDoubleLE(bodyStart + 13);
  let p = bodyStart + BODY_FIXED_BYTES;
  let end = frameEnd;
  if (buf[bodyStart] === COMPRESSED_FORMAT_VERSION) {
    const rawLength = buf.readUInt32LE(p);
    const raw = decompress(buf.subarray(p + 4, frameEnd));
    if (raw.length !== rawLength) throw new Error(`batch at offset ${baseOffset} decompressed to ${raw.length} bytes, expected ${rawLength}`);
    buf = raw;
    p = 0;
    end = raw.length;
  }
  let added = 0;
  let prevHeaders: Readonly<Record<string, string>> | null = null;
  let prevStart = 0;
  let prevEnd = 0;
  for (let i = 0; i < count && added < max; i++) {
    if (p + RECORD_FIXED_BYTES > end) throw new Error(`record ${baseOffset + i} runs past the end of its batch`);
    const valueLength = buf.readUInt32LE(p);
    const keyLength = buf.readInt32LE(p + 4);
    const headerCount = buf.readUInt16LE(p + 8);
    p += RECORD_FIXED_BYTES;
    let key: Buffer | null = null;
    if (keyLength >= 0) {
      key = buf.subarray(p, p + keyLength);
      p += keyLength;
    }
    let headers = EMPTY_HEADERS;
    if (headerCount > 0) {
      const start = p;
      for (let j = 0; j < headerCount; j++) {
        p += 2 + buf.readUInt16LE(p);
        p += 4 + buf.readUInt32LE(p);
      }
      // Records of one append carry the same headers (a write's trace context): decoded once, shared.
      if (prevHeaders !== null && p - start === prevEnd - prevStart && buf.compare(buf, prevStart, prevEnd, start, p) === 0) {
        headers = prevHeaders;
      } else {
        headers = decodeHeaders(buf, start, headerCount);
        prevHeaders = headers;
      }
      prevStart = start;
      prevEnd = p;
    }
    const valueEnd = p + valueLength;
    if (valueEnd > end) throw new Error(`record ${baseOffset + i} runs past the end of its batch`);
    const offset = baseOffset + i;
    if (offset >= fromOffset) {
      out.push({ offset, value: buf.subarray(p, valueEnd), key, headers, timestamp });
      added++;
    }
    p = valueEnd;
  }
  return added;
}

function decodeHeaders(buf: Buffer, start: number, count: number): Readonly<Record<string, string>> {
  const h: Record<string, string> = {};
  let p = start;
  for (let j = 0; j < count; j++) {
    const nameLength = buf.readUInt16LE(p);
    const name = buf.toString('utf8', p + 2, p + 2 + nameLength);
    p += 2 + nameLength;
    const valueLen = buf.readUInt32LE(p);
    h[name] = buf.toString('utf8', p + 4, p + 4 + valueLen);
    p += 4 + valueLen;
  }
  return Object.freeze(h);
}
