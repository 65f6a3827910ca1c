/**
 * Structured JSON logs (pino, as fastify uses): to stdout and to
 * `<path.logs>/<cluster.name>.log`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pino, type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

export function createLogger(opts: { level: string; pathLogs: string | null; clusterName: string; nodeName: string }): Logger {
  const streams: pino.StreamEntry[] = [{ stream: process.stdout }];
  if (opts.pathLogs) {
    mkdirSync(opts.pathLogs, { recursive: true });
    streams.push({ stream: pino.destination({ dest: join(opts.pathLogs, `${opts.clusterName}.log`), sync: false, mkdir: true }) });
  }
  return pino(
    { level: opts.level, base: { cluster: opts.clusterName, node: opts.nodeName }, timestamp: pino.stdTimeFunctions.isoTime },
    pino.multistream(streams),
  );
}

/**
 * Writes out what the log file's stream still buffers (it writes
 * asynchronously); called before the process exits, so the last lines
 * (`stopping`, `stopped`) are in the file.
 */
export function flushLogs(logger: Logger): void {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as { flushSync?: () => void } | undefined;
  try {
    stream?.flushSync?.();
  } catch {
    // The file was never opened (a start that failed early): nothing to flush.
  }
}
