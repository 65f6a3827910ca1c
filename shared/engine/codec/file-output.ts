/**
 * Appends to a new segment file through a buffer, keeping the running CRC-32
 * the footer records. Writes are synchronous: the shard worker that writes a
 * segment has nothing else to do for that copy meanwhile, and the bytes go to
 * the page cache; `sync()` makes them durable when a commit needs it.
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import zlib from 'node:zlib';
import { FOOTER_BYTES, FOOTER_MAGIC, HEADER_BYTES, writeHeader, type SegmentFileKind } from './file-format.ts';

const BUFFER_BYTES = 256 * 1024;
/** Buffers of closed outputs, reused: a refresh opens six files, and a zeroed buffer each would cost more than the writes. */
const freeBuffers: Uint8Array[] = [];
const MAX_FREE_BUFFERS = 12;

export class FileOutput {
  private readonly fd: number;
  private buffer: Uint8Array = freeBuffers.pop() ?? new Uint8Array(BUFFER_BYTES);
  private buffered = 0;
  private crc = 0;
  /** Bytes written so far (the file offset of the next byte). */
  position = 0;
  private closed = false;

  constructor(
    readonly path: string,
    kind: SegmentFileKind,
  ) {
    this.fd = openSync(path, 'wx');
    const header = new Uint8Array(HEADER_BYTES);
    writeHeader(header, kind);
    this.write(header);
  }

  write(bytes: Uint8Array): void {
    let from = 0;
    while (from < bytes.length) {
      if (this.buffered === BUFFER_BYTES) this.flush();
      const n = Math.min(bytes.length - from, BUFFER_BYTES - this.buffered);
      this.buffer.set(bytes.subarray(from, from + n), this.buffered);
      this.buffered += n;
      from += n;
    }
    this.position += bytes.length;
  }

  /** src[0..length), without a view of it (small writes, term after term). */
  writePrefix(src: Uint8Array, length: number): void {
    if (length <= BUFFER_BYTES - this.buffered) {
      const buf = this.buffer;
      let at = this.buffered;
      if (length <= 32) for (let i = 0; i < length; i++) buf[at++] = src[i]!;
      else buf.set(src.subarray(0, length), at);
      this.buffered += length;
      this.position += length;
      return;
    }
    this.write(src.subarray(0, length));
  }

  /** The bytes of a typed array, as they lie in memory (little-endian on every platform Node runs on here). */
  writeArray(array: ArrayBufferView): void {
    this.write(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
  }

  /** Zero bytes up to a multiple of `alignment`, so a typed array can be viewed in place when the file is mapped. */
  align(alignment: number): void {
    const pad = (alignment - (this.position % alignment)) % alignment;
    if (pad > 0) this.write(new Uint8Array(pad));
  }

  private flush(): void {
    if (this.buffered === 0) return;
    const chunk = this.buffer.subarray(0, this.buffered);
    this.crc = zlib.crc32(chunk, this.crc);
    let written = 0;
    while (written < chunk.length) written += writeSync(this.fd, chunk, written, chunk.length - written);
    this.buffered = 0;
  }

  /** Writes the footer and closes the file; returns its length. */
  finish(sync: boolean): number {
    this.flush();
    const footer = new Uint8Array(FOOTER_BYTES);
    const view = new DataView(footer.buffer);
    view.setUint32(0, FOOTER_MAGIC, true);
    view.setUint32(4, this.crc, true);
    writeSync(this.fd, footer);
    this.position += FOOTER_BYTES;
    if (sync) fsyncSync(this.fd);
    closeSync(this.fd);
    this.closed = true;
    this.recycle();
    return this.position;
  }

  /** Closes without a footer (a write that failed; the caller removes the file). */
  abandon(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
    this.recycle();
  }

  private recycle(): void {
    if (freeBuffers.length < MAX_FREE_BUFFERS) freeBuffers.push(this.buffer);
    this.buffer = new Uint8Array(0);
  }
}
