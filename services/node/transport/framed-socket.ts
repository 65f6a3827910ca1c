/**
 * One TCP socket speaking length-prefixed frames (frame.ts), for both ends of
 * a transport connection: decodes incoming frames, and writes outgoing ones
 * without outrunning the peer — a sender waits for 'drain' while the socket's
 * buffer is above its high-water mark, so a slow reader cannot make this
 * process buffer without bound.
 */
import type { Socket } from 'node:net';
import { FrameDecoder, frameHeader } from './frame.ts';

export interface FramedSocketHandlers {
  onFrame(frame: Buffer): void;
  /** Called once, when the socket is gone; `err` when it failed (reset, bad frame). */
  onClose(err: Error | null): void;
}

export class FramedSocket {
  private readonly decoder = new FrameDecoder();
  private closedFlag = false;
  private failure: Error | null = null;
  private readonly closedPromise: Promise<void>;

  constructor(
    readonly socket: Socket,
    handlers: FramedSocketHandlers,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      let frames: Buffer[];
      try {
        frames = this.decoder.push(chunk);
      } catch (err) {
        socket.destroy(err as Error);
        return;
      }
      for (const f of frames) handlers.onFrame(f);
    });
    socket.on('error', (err) => {
      this.failure ??= err;
    });
    this.closedPromise = new Promise((resolve) => {
      socket.once('close', () => {
        this.closedFlag = true;
        handlers.onClose(this.failure);
        resolve();
      });
    });
  }

  get closed(): boolean {
    return this.closedFlag || this.socket.destroyed;
  }

  /** Writes one frame; resolves once it is handed to the socket (after waiting for drain if needed). */
  async send(body: Buffer): Promise<void> {
    while (this.socket.writableNeedDrain && !this.closed) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.socket.off('drain', done);
          this.socket.off('close', done);
          resolve();
        };
        this.socket.on('drain', done);
        this.socket.on('close', done);
      });
    }
    if (this.closed) throw new Error('socket closed');
    // Header and body as two writes under cork: no copy of a large body.
    this.socket.cork();
    this.socket.write(frameHeader(body.length));
    this.socket.write(body);
    this.socket.uncork();
  }

  /** Half-closes after the buffered frames are written; destroys it if the peer does not close within `graceMs`. */
  async end(graceMs = 1000): Promise<void> {
    if (!this.closed) {
      this.socket.end();
      const timer = setTimeout(() => this.socket.destroy(), graceMs);
      timer.unref();
      await this.closedPromise;
      clearTimeout(timer);
    }
    await this.closedPromise;
  }

  destroy(err?: Error): void {
    this.socket.destroy(err);
  }

  whenClosed(): Promise<void> {
    return this.closedPromise;
  }
}
