/**
 * `logsearch start` (and `npm start`): runs one node with the configuration
 * from config/logsearch.yml, the environment and flags (config.ts), until
 * SIGTERM or SIGINT stops it: HTTP stops taking requests and answers those
 * in flight, the node closes its log and copies (releasing the data
 * directory's lock), the logs are flushed, and the process exits 0.
 */
import { fileURLToPath } from 'node:url';
import { loadConfig } from './config.ts';
import { flushLogs } from './logger.ts';
import { startEarlyThreads } from './shard-worker/early-threads.ts';
import { settingsHelp } from './settings.ts';

const START_USAGE = `usage: logsearch start [--setting value ...]

Runs a search node. Each setting comes from, in rising precedence: its
default, config/logsearch.yml (or --config FILE), the environment
(LOGSEARCH_HTTP_PORT=9201, or http.port=9201) and flags (--http.port 9201,
--http.port=9201, -E http.port=9201). Times take Elasticsearch's units
(500ms, 10s, 5m, 1h, 1d), sizes too (512kb, 100mb, 1gb).

settings:
`;

export function startHelp(): string {
  return `${START_USAGE}  --config <file>  (default: config/logsearch.yml when it exists)\n        a YAML file of settings (config/logsearch.yml shows every one)\n${settingsHelp()}\n`;
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** Runs a node until a signal stops it; resolves with the exit code. */
export async function runNode(argv: readonly string[]): Promise<number> {
  const args = argv[0] === 'start' ? argv.slice(1) : argv;
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(startHelp());
    return 0;
  }
  const config = loadConfig(args);
  // The shard workers load the engine while this thread loads the node (a restart's time is mostly module loading).
  startEarlyThreads(config.processors);
  const { Node } = await import('./node.ts');
  // Listening from the start: a signal that comes while the node starts stops it once started.
  let signalled: (signal: string) => void = () => undefined;
  const stopRequested = new Promise<string>((resolve) => (signalled = resolve));
  let stopping = false;
  const onSignal = (signal: string) => {
    if (stopping) {
      // A second signal: the user does not want to wait for the orderly stop.
      process.stderr.write(`logsearch: ${signal} again while stopping; exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    signalled(signal);
  };
  for (const s of SIGNALS) process.on(s, onSignal);
  const node = await Node.start(config);
  const signal = await stopRequested;
  node.logger.info({ signal }, 'stopping');
  let code = 0;
  try {
    await node.stop();
  } catch (err) {
    node.logger.error({ err }, 'error while stopping');
    code = 1;
  }
  flushLogs(node.logger);
  for (const s of SIGNALS) process.off(s, onSignal);
  return code;
}

// Run directly (`node --import tsx services/node/main.ts`, as the tests do).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  runNode(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
