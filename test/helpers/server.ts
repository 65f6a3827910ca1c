/**
 * Test fixtures: a search node on a free port with a fresh data directory,
 * in this process (fast) or as a child process (for kill -9 tests).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { loadConfig } from '../../services/node/config.ts';
import { Node } from '../../services/node/node.ts';

export interface TestServer {
  readonly url: string;
  readonly node: Node;
  readonly dataDir: string;
  stop(): Promise<void>;
}

export async function tempDir(prefix = 'logsearch-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** `env`: the environment the configuration reads (ELASTIC_PASSWORD for a node with security on). */
export async function startServer(flags: readonly string[] = [], dataDir?: string, env: NodeJS.ProcessEnv = {}): Promise<TestServer> {
  const dir = dataDir ?? (await tempDir());
  const config = loadConfig(['--path.data', dir, '--path.logs', join(dir, 'logs'), '--http.port', '0', '--node.name', 'test-node', ...flags], env);
  const node = await Node.start(config, { logger: pino({ level: 'silent' }) });
  return {
    url: `${config.security.http.enabled ? 'https' : 'http'}://127.0.0.1:${node.httpPort}`,
    node,
    dataDir: dir,
    async stop() {
      await node.stop();
      if (!dataDir) await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface ChildServer {
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves when the process exited. */
  readonly exited: Promise<number | null>;
}

/**
 * Starts `services/node/main.ts` in a child process; resolves once it logs
 * that it listens (its JSON log lines are read from stdout, so do not raise
 * `logger.level` above info), or rejects after `startTimeoutMs`.
 */
export async function spawnServer(
  dataDir: string,
  flags: readonly string[] = [],
  startTimeoutMs = 60_000,
  compiled = false,
  /** Another checkout's build to run (a benchmark's "before"); default this one. */
  root = new URL('../../', import.meta.url).pathname,
  /** Flags for node itself (`--cpu-prof`: not allowed in NODE_OPTIONS). */
  nodeFlags: readonly string[] = [],
): Promise<ChildServer> {
  // Compiled: what `npm start` runs (benchmarks build dist/ first); otherwise the sources through tsx.
  const entry = compiled ? [join(root, 'dist/services/cli/main.js'), 'start'] : ['--import', 'tsx', join(root, 'services/node/main.ts')];
  const child = spawn(process.execPath, [...nodeFlags, ...entry, '--path.data', dataDir, '--path.logs', join(dataDir, 'logs'), '--http.port', '0', ...flags], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      try {
        const rec = JSON.parse(line) as { msg?: string; port?: number };
        if (rec.msg === 'started' && rec.port) resolve(rec.port);
      } catch {
        // not a log line
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening`)));
    setTimeout(() => reject(new Error(`server did not start within ${startTimeoutMs / 1000} s`)), startTimeoutMs).unref();
  });
  return { url: `http://127.0.0.1:${port}`, child, exited };
}

/** Small JSON-over-HTTP client for tests: returns status, headers and parsed body. */
export async function http(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown; headers: Headers; text: string }> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    // Text and bytes go as they are (bytes: a body that is not UTF-8, say), anything else as JSON.
    init.body = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  const res = await fetch(base + path, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // plain-text answer (_cat, errors of unknown endpoints)
  }
  return { status: res.status, body: parsed, headers: res.headers, text };
}
