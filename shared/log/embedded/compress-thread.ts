/**
 * Zstandard compression of large batches on a thread of its own. The log is
 * appended to from the thread that serves HTTP, and compressing a 10 MB
 * batch there held every other request for about 25 ms (decompressing it
 * for the followers another 17). zstd-napi has no asynchronous call, so
 * batches of OFF_THREAD_BYTES or more go to this thread; smaller ones cost
 * well under a millisecond and stay where they are.
 *
 * The thread is started on first use and does not keep the process alive
 * while it has nothing to do. Its code is plain CommonJS given as a string
 * (`eval`), so it starts the same from the TypeScript sources and from
 * dist/, and shared/ needs nothing from services/ to start it.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { compress } from 'zstd-napi';

/** Records of at least this many bytes are compressed on the compression thread. */
export const OFF_THREAD_BYTES = 256 * 1024;

const THREAD_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const { compress } = require(workerData.zstd);
parentPort.on('message', (m) => {
  try {
    const frame = Buffer.from(m.frame, m.byteOffset, m.length);
    const packed = compress(frame.subarray(m.from), { compressionLevel: m.level });
    parentPort.postMessage({ id: m.id, frame: m.frame, packed }, m.transferred ? [m.frame] : []);
  } catch (err) {
    parentPort.postMessage({ id: m.id, frame: m.frame, error: String((err && err.message) || err) }, m.transferred ? [m.frame] : []);
  }
});
`;

interface Job {
  readonly resolve: (r: { frame: Buffer; packed: Buffer }) => void;
  readonly reject: (err: Error) => void;
  readonly byteOffset: number;
  readonly length: number;
}

interface Reply {
  readonly id: number;
  readonly frame: ArrayBuffer;
  readonly packed?: Uint8Array;
  readonly error?: string;
}

let worker: Worker | null = null;
let nextId = 0;
let done = 0;

/** Batches the compression thread has compressed in this process (tests show large batches go there). */
export function offThreadCompressions(): number {
  return done;
}
const jobs = new Map<number, Job>();

function thread(): Worker {
  if (worker !== null) return worker;
  const zstd = createRequire(import.meta.url).resolve('zstd-napi');
  const w = new Worker(THREAD_CODE, { eval: true, workerData: { zstd }, name: 'log-compress' });
  w.unref();
  w.on('message', (m: Reply) => {
    const job = jobs.get(m.id);
    if (job === undefined) return;
    jobs.delete(m.id);
    if (jobs.size === 0) w.unref();
    if (m.error !== undefined) job.reject(new Error(`zstd compression failed: ${m.error}`));
    else {
      done++;
      const packed = m.packed!;
      job.resolve({ frame: Buffer.from(m.frame, job.byteOffset, job.length), packed: Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength) });
    }
  });
  const fail = (err: Error) => {
    if (worker === w) worker = null;
    const pending = [...jobs.values()];
    jobs.clear();
    for (const job of pending) job.reject(err);
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`the log compression thread exited (code ${code})`)));
  worker = w;
  return w;
}

/**
 * Compresses `frame.subarray(from)` at `level`. Resolves to the frame (the
 * same bytes; its memory was lent to the thread and handed back) and the
 * compressed bytes. A frame that owns its whole ArrayBuffer (any large
 * Buffer.allocUnsafe) is moved to the thread and back, not copied; the
 * caller must not touch it until this resolves.
 */
export function compressOffThread(frame: Buffer, from: number, level: number): Promise<{ frame: Buffer; packed: Buffer }> {
  const w = thread();
  const id = nextId++;
  // A large Buffer.allocUnsafe owns its ArrayBuffer; anything else is copied into one that does.
  const owns = frame.byteOffset === 0 && frame.buffer.byteLength === frame.length && frame.buffer instanceof ArrayBuffer;
  const source = owns ? frame : Buffer.from(frame);
  return new Promise((resolve, reject) => {
    jobs.set(id, { resolve, reject, byteOffset: 0, length: source.length });
    w.ref();
    const buffer = source.buffer as ArrayBuffer;
    try {
      w.postMessage({ id, frame: buffer, byteOffset: 0, length: source.length, from, level, transferred: true }, [buffer]);
    } catch (err) {
      jobs.delete(id);
      if (jobs.size === 0) w.unref();
      reject(err as Error);
    }
  });
}

/** The same compression on this thread (small batches, and tests comparing the two). */
export function compressHere(frame: Buffer, from: number, level: number): Buffer {
  return compress(frame.subarray(from), { compressionLevel: level });
}
