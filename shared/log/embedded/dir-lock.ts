/**
 * One process per log directory: two writers appending to the same segment
 * files would interleave frames. The LOCK file holds the owner's pid; a lock
 * left by a process that no longer runs (killed with -9) is taken over.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function acquireDirLock(dir: string): Promise<() => Promise<void>> {
  const lockPath = path.join(dir, 'LOCK');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await fsp.writeFile(lockPath, `${process.pid}\n`, { flag: 'wx' });
      return () => fsp.rm(lockPath, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = Number.parseInt(await fsp.readFile(lockPath, 'utf8').catch(() => ''), 10);
    if (Number.isInteger(owner) && owner > 0 && isRunning(owner)) {
      const who = owner === process.pid ? 'this process' : `process ${owner}`;
      throw new Error(`log directory ${dir} is already open by ${who} (remove ${lockPath} if that is wrong)`);
    }
    await fsp.rm(lockPath, { force: true });
  }
  throw new Error(`could not lock log directory ${dir}: ${lockPath} keeps reappearing`);
}
