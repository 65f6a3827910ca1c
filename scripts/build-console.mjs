#!/usr/bin/env node
/**
 * Builds the web console (console/: TypeScript, HTML, CSS) into one folder
 * of static files that the node serves at `/_console/`: index.html, app.js
 * (esbuild's bundle of console/src/main.ts, minified) and app.css. Nothing is
 * fetched at run time: the page loads only these files and talks to the
 * node's own REST API.
 *
 * `npm run build` calls buildConsole() for dist/console-app; tests call it
 * for the folder the node serves when it runs from the sources
 * (dist/console-app too, see services/node/rest/console-static.ts).
 */
import { copyFileSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CONSOLE_SOURCE = join(root, 'console');

/** Writes the console's files into `outDir` (created); returns their names and sizes in bytes. Synchronous, as build.mjs is. */
export function buildConsole(outDir) {
  let esbuild;
  try {
    esbuild = createRequire(join(root, 'package.json'))('esbuild');
  } catch {
    throw new Error('esbuild is not installed: run `npm install` first');
  }
  mkdirSync(outDir, { recursive: true });
  esbuild.buildSync({
    entryPoints: [join(CONSOLE_SOURCE, 'src', 'main.ts'), join(CONSOLE_SOURCE, 'app.css')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome110', 'firefox110', 'safari16'],
    outdir: outDir,
    entryNames: '[name]',
    logLevel: 'warning',
    legalComments: 'none',
  });
  // main.ts becomes main.js; the page loads app.js.
  renameSync(join(outDir, 'main.js'), join(outDir, 'app.js'));
  copyFileSync(join(CONSOLE_SOURCE, 'index.html'), join(outDir, 'index.html'));
  return readdirSync(outDir).map((name) => ({ name, bytes: statSync(join(outDir, name)).size }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ?? join(root, 'dist', 'console-app');
  try {
    for (const f of buildConsole(out)) process.stdout.write(`${f.name}\t${f.bytes} bytes\n`);
  } catch (err) {
    process.stderr.write(`build-console: ${err.message}\n`);
    process.exit(1);
  }
}
