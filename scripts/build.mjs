#!/usr/bin/env node
/**
 * `npm run build`: compiles the TypeScript sources (services/, shared/) to
 * dist/ with tsconfig.build.json and copies schemas/ beside them, so the
 * node runs as plain JavaScript (no TypeScript compiler at run time, in the
 * main thread or the shard workers).
 *
 * bin/logsearch.mjs calls ensureBuilt() before it runs anything: a dist/
 * older than the sources is built again first. The build goes to a
 * temporary folder that replaces dist/ only once it is complete. The web
 * console (console/) is bundled into dist/console-app (build-console.mjs).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConsole } from './build-console.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = join(root, 'dist');
/** Written last: when the build started and how many source files it saw. */
const STAMP = 'BUILD.json';
const SOURCE_DIRS = ['services', 'shared', 'schemas', 'console'];
const SOURCE_FILES = ['tsconfig.json', 'tsconfig.build.json'];

/** The newest modification time among the sources, and how many there are. */
function sources() {
  let newest = 0;
  let files = 0;
  const visit = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (/\.(ts|avsc|mjs|css|html)$/.test(entry.name)) {
        files++;
        newest = Math.max(newest, statSync(full).mtimeMs);
      }
    }
  };
  for (const dir of SOURCE_DIRS) if (existsSync(join(root, dir))) visit(join(root, dir));
  for (const file of SOURCE_FILES) if (existsSync(join(root, file))) newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
  return { newest, files };
}

/** `missing`, `stale` (a source changed, appeared or went since the build) or `fresh`. */
export function distState() {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(DIST, STAMP), 'utf8'));
  } catch {
    return 'missing';
  }
  if (!existsSync(join(root, 'services'))) return 'fresh'; // dist/ without sources: nothing to compare
  const now = sources();
  return now.newest > stamp.startedAt || now.files !== stamp.files ? 'stale' : 'fresh';
}

function typescriptCompiler() {
  try {
    return createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    return null;
  }
}

/** Compiles to dist/; tsc's messages go to stderr, so a command's stdout stays its answer. */
export function build() {
  const tsc = typescriptCompiler();
  if (tsc === null) throw new Error('TypeScript is not installed: run `npm install` first');
  const startedAt = Date.now();
  const { files } = sources();
  const tmp = join(root, `dist.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  const run = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', tmp], { cwd: root, stdio: ['ignore', 2, 2] });
  if (run.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`tsc failed (exit ${run.status ?? run.signal}); the messages above say where`);
  }
  cpSync(join(root, 'schemas'), join(tmp, 'schemas'), { recursive: true });
  try {
    buildConsole(join(tmp, 'console-app'));
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  writeFileSync(join(tmp, STAMP), `${JSON.stringify({ startedAt, files })}\n`);
  const old = join(root, `dist.old-${process.pid}`);
  if (existsSync(DIST)) renameSync(DIST, old);
  renameSync(tmp, DIST);
  rmSync(old, { recursive: true, force: true });
  return Date.now() - startedAt;
}

/**
 * dist/, compiled from the current sources: builds it when it is missing or
 * stale and TypeScript is installed. Says so on stderr, since it takes a
 * few seconds.
 */
export function ensureBuilt() {
  const state = distState();
  if (state === 'fresh') return DIST;
  if (typescriptCompiler() === null) {
    if (state === 'missing') throw new Error('dist/ is missing and TypeScript is not installed: run `npm install && npm run build`');
    process.stderr.write('logsearch: the sources changed since dist/ was built, and TypeScript is not installed to build it again; running the old build\n');
    return DIST;
  }
  process.stderr.write(`logsearch: compiling the sources to dist/ (${state === 'missing' ? 'no build yet' : 'they changed since the last build'}) ...\n`);
  const ms = build();
  process.stderr.write(`logsearch: built dist/ in ${(ms / 1000).toFixed(1)} s\n`);
  return DIST;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const ms = build();
    process.stdout.write(`built dist/ in ${(ms / 1000).toFixed(1)} s\n`);
  } catch (err) {
    process.stderr.write(`build: ${err.message}\n`);
    process.exit(1);
  }
}
