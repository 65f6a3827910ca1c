/**
 * Test fixtures for commands run as a user runs them: the bin and
 * `npm start` in child processes, their children, and whether a port is
 * free again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';

export const ROOT = new URL('../../', import.meta.url).pathname;

export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `node bin/logsearch.mjs ...args` (the compiled CLI, built first when stale) to its end. */
export function runBin(args: readonly string[], timeoutMs = 180_000): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/logsearch.mjs', ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`logsearch ${args.join(' ')} did not end within ${timeoutMs / 1000} s; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The pids of a process's children (Linux). */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** A process's command line, as its arguments (Linux). */
export function commandLine(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether a TCP port on 127.0.0.1 can be bound now. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Resolves with the `port` of the first JSON log line `{"msg":"started"}` on the child's stdout. */
export function startedPort(child: ChildProcess, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      try {
        const rec = JSON.parse(line) as { msg?: string; port?: number };
        if (rec.msg === 'started' && rec.port) resolve(rec.port);
      } catch {
        // npm's own lines, not a log record
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening`)));
    setTimeout(() => reject(new Error(`did not listen within ${timeoutMs / 1000} s`)), timeoutMs).unref();
  });
}

/** Polls `check` every 50 ms until it holds; false when `ms` ran out first. */
export async function within(ms: number, check: () => boolean | Promise<boolean>): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Ends a process and everything under it with SIGKILL (a test's cleanup after a failed assertion). */
export function killTree(pid: number): void {
  for (const child of childPids(pid)) killTree(child);
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
