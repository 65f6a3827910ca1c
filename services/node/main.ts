/**
 * `npm start` / `logsearch start`: runs one node with the configuration from
 * config/logsearch.yml, the environment and flags (see config.ts).
 */
import { loadConfig } from './config.ts';
import { Node } from './node.ts';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === 'start') args.shift();
  const config = loadConfig(args);
  const node = await Node.start(config);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    node.logger.info({ signal }, 'stopping');
    node.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        node.logger.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`failed to start: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
