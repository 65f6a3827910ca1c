/**
 * Length-prefixed framing of the transport's TCP stream: each frame is a
 * 4-byte big-endian length followed by that many bytes (one encoded
 * Envelope). The decoder reassembles frames from arbitrary chunk boundaries
 * without copying a frame that arrived in one chunk.
 */

const HEADER_BYTES = 4;

/** Largest frame accepted (Elasticsearch's http.max_content_length default, 100mb). */
export const MAX_FRAME_BYTES = 100 * 1024 * 1024;

export function frameHeader(length: number): Buffer {
  if (length > MAX_FRAME_BYTES) throw new FrameTooLargeError(length);
  const out = Buffer.allocUnsafe(HEADER_BYTES);
  out.writeUInt32BE(length, 0);
  return out;
}

export function encodeFrame(body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES + body.length);
  out.writeUInt32BE(body.length, 0);
  body.copy(out, HEADER_BYTES);
  return out;
}

export class FrameTooLargeError extends Error {
  constructor(readonly length: number) {
    super(`transport frame of [${length}] bytes exceeds the limit of [${MAX_FRAME_BYTES}] bytes`);
  }
}

export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Length of the frame being assembled, or -1 while its header is incomplete. */
  private need = -1;

  /** Adds received bytes; returns the frames they complete, in order. */
  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Buffer[] = [];
    while (true) {
      if (this.need < 0) {
        if (this.buffered < HEADER_BYTES) break;
        this.need = this.take(HEADER_BYTES).readUInt32BE(0);
        if (this.need > MAX_FRAME_BYTES) throw new FrameTooLargeError(this.need);
      }
      if (this.buffered < this.need) break;
      frames.push(this.take(this.need));
      this.need = -1;
    }
    return frames;
  }

  private take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    const first = this.chunks[0];
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let at = 0;
      while (at < n) {
        const c = this.chunks[0];
        const k = Math.min(c.length, n - at);
        c.copy(out, at, 0, k);
        at += k;
        if (k === c.length) this.chunks.shift();
        else this.chunks[0] = c.subarray(k);
      }
    }
    this.buffered -= n;
    return out;
  }
}
