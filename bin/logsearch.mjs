#!/usr/bin/env node
// `logsearch <command>` (`npx logsearch --help`). Runs the compiled CLI from
// dist/ in this very process, so SIGTERM and SIGINT reach the node itself;
// compiles dist/ first when the sources changed since the last build.
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from '../scripts/build.mjs';

let dist;
try {
  dist = ensureBuilt();
} catch (err) {
  process.stderr.write(`logsearch: ${err.message}\n`);
  process.exit(1);
}
const { main } = await import(pathToFileURL(`${dist}/services/cli/main.js`).href);
process.exit(await main(process.argv.slice(2)));
