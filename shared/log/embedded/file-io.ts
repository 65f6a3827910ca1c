/**
 * Promise wrappers over Node's fd-based file calls. The log keeps raw file
 * descriptors (not FileHandle objects) and positional reads/writes: one
 * syscall per batch, no per-call object churn.
 */
import fs from 'node:fs';

export function openFile(path: string, flags: string): Promise<number> {
  return new Promise((resolve, reject) => fs.open(path, flags, 0o644, (err, fd) => (err ? reject(err) : resolve(fd))));
}

export function closeFile(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.close(fd, (err) => (err ? reject(err) : resolve())));
}

export function fileSize(fd: number): Promise<number> {
  return new Promise((resolve, reject) => fs.fstat(fd, (err, st) => (err ? reject(err) : resolve(st.size))));
}

export function truncateFile(fd: number, length: number): Promise<void> {
  return new Promise((resolve, reject) => fs.ftruncate(fd, length, (err) => (err ? reject(err) : resolve())));
}

export function syncData(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
}

/** Makes a directory's entries (new or renamed files) durable. */
export async function syncDir(path: string): Promise<void> {
  const fd = await openFile(path, 'r');
  try {
    await new Promise<void>((resolve, reject) => fs.fsync(fd, (err) => (err ? reject(err) : resolve())));
  } finally {
    await closeFile(fd);
  }
}

function readOnce(fd: number, buf: Buffer, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) =>
    fs.read(fd, buf, offset, length, position, (err, n) => (err ? reject(err) : resolve(n))),
  );
}

/** Reads `length` bytes at `position` (fewer only at end of file). */
export async function readAt(fd: number, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const n = await readOnce(fd, buf, done, length - done, position + done);
    if (n === 0) return buf.subarray(0, done);
    done += n;
  }
  return buf;
}

function writevOnce(fd: number, buffers: readonly Buffer[], position: number): Promise<number> {
  return new Promise((resolve, reject) =>
    fs.writev(fd, buffers as Buffer[], position, (err, n) => (err ? reject(err) : resolve(n))),
  );
}

function writeOnce(fd: number, buffer: Buffer, position: number): Promise<number> {
  return new Promise((resolve, reject) =>
    fs.write(fd, buffer, 0, buffer.length, position, (err, n) => (err ? reject(err) : resolve(n))),
  );
}

/**
 * Writes all of `buffers` at `position`: one write (or writev) syscall unless
 * the kernel accepts only part of it, in which case the rest follows.
 */
export async function writeAllAt(fd: number, buffers: readonly Buffer[], position: number): Promise<void> {
  let pending = buffers.filter((b) => b.length > 0);
  let pos = position;
  while (pending.length > 0) {
    const n = pending.length === 1 ? await writeOnce(fd, pending[0]!, pos) : await writevOnce(fd, pending, pos);
    pos += n;
    let skip = n;
    const rest: Buffer[] = [];
    for (const b of pending) {
      if (skip >= b.length) {
        skip -= b.length;
      } else {
        rest.push(skip > 0 ? b.subarray(skip) : b);
        skip = 0;
      }
    }
    pending = rest;
  }
}
