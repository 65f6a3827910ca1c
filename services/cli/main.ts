/**
 * `logsearch <command>`: the project's one command line (bin/logsearch.mjs
 * runs the compiled form of this file). Each command answers `--help`;
 * errors a user can fix are one line on stderr and exit status 2.
 */
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../node/config.ts';
import { ES_VERSION } from '../node/version.ts';

interface Command {
  readonly name: string;
  readonly args: string;
  readonly summary: string;
  /** Resolves with the exit status. Loaded on use: `passinfo` does not load the node, nor `start` kafkajs's producer. */
  run(argv: readonly string[]): Promise<number>;
}

const COMMANDS: readonly Command[] = [
  {
    name: 'start',
    args: '[--setting value ...]',
    summary: 'run a search node (every setting with its default: logsearch start --help)',
    run: async (argv) => (await import('../node/main.ts')).runNode(argv),
  },
  {
    name: 'rebuild',
    args: '--index <name> --dest <name> [--mapping file] [--alias name]',
    summary: 'build an index again from its log with a new mapping, then move the alias (docs/rebuild.md)',
    run: async (argv) => (await import('./rebuild-command.ts')).runRebuild(argv),
  },
  {
    name: 'passinfo',
    args: '<command> [flags]',
    summary: 'the pass-record application: generate, import, produce, ingest, serve, the queries',
    run: async (argv) => (await import('../passinfo/cli.ts')).runPassinfo([...argv]),
  },
];

function usage(): string {
  const w = Math.max(...COMMANDS.map((c) => `${c.name} ${c.args}`.length));
  return [
    'usage: logsearch <command> [options]',
    '',
    'An Elasticsearch 6.8 compatible search engine on a commit log.',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${`${c.name} ${c.args}`.padEnd(w)}  ${c.summary}`),
    '',
    '`logsearch <command> --help` describes a command; README.md and docs/ the rest.',
    '',
  ].join('\n');
}

export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    if (name === 'help' && rest[0] !== undefined) return main([rest[0], '--help']);
    process.stdout.write(usage());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V') {
    process.stdout.write(`logsearch (Elasticsearch ${ES_VERSION.number} API)\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    process.stderr.write(`logsearch: unknown command [${name}]; commands: ${COMMANDS.map((c) => c.name).join(', ')} (logsearch --help)\n`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`logsearch ${name}: ${err.message}\n`);
      return 2;
    }
    // A system call that failed (a port in use, a folder not writable) is the machine's state, not a bug: no stack.
    if (err instanceof Error && typeof (err as NodeJS.ErrnoException).syscall === 'string') {
      process.stderr.write(`logsearch ${name}: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`logsearch ${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}

// Run from the sources: `node --import tsx services/cli/main.ts --help`.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
