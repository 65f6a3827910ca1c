/**
 * Runs Elasticsearch's own REST tests (../shared/es-compat, or the folder
 * ES_COMPAT_DIR names) against a node started here on a fresh data
 * directory, and fails unless every failure is one that docs/compat.md lists
 * as impossible by design.
 *
 * The suite lives beside the repository, not in it: a clone of the
 * repository alone skips this step and says so. With ES_COMPAT_DIR set (CI
 * sets it) a missing suite is a failure.
 *
 *   npm run test:es-compat                 # the directories the resolved issues cover, of tests/ and tests-more/
 *   npm run test:es-compat -- --only search # pass-through options for the runner (tests/ unless --tests says)
 *   npm run test:es-compat -- --tests tests-more --only msearch
 */
import { cp, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { startServer } from '../helpers/server.ts';

const root = new URL('../../', import.meta.url).pathname;
const DEFAULT_SUITE = join(root, '../shared/es-compat');
const suiteDir = process.env.ES_COMPAT_DIR || DEFAULT_SUITE;

/** Directories whose tests must pass (the rest of the suite is still run when asked with --only). */
export const COVERED = [
  'info', 'ping', 'index', 'create', 'get', 'get_source', 'exists', 'delete', 'update', 'bulk', 'mget',
  'indices.create', 'indices.delete', 'indices.get_mapping', 'indices.put_mapping', 'indices.analyze',
  'indices.put_alias', 'indices.update_aliases', 'cluster.health',
  'search', 'scroll', 'count', 'search.aggregation',
];

/** Directories of the second set (`tests-more/`) whose tests must pass. */
export const COVERED_MORE: string[] = [
  'update_by_query', 'delete_by_query', 'reindex', 'explain', 'mtermvectors', 'search.highlight', 'search.inner_hits', 'msearch',
  'cat.aliases', 'cat.allocation', 'cat.count', 'cat.health', 'cat.indices', 'cat.nodes', 'cat.segments', 'cat.templates',
  'indices.stats', 'indices.get', 'indices.exists_template', 'indices.get_template', 'indices.put_template',
  'indices.delete_alias', 'indices.exists_type', 'cluster.state', 'indices.get_field_mapping', 'indices.get_settings',
  'indices.put_settings', 'indices.open', 'indices.rollover',
];

/** `FAIL <file> :: <test name>` lines that docs/compat.md explains. */
async function knownFailures(): Promise<Set<string>> {
  const text = await readFile(join(root, 'docs/compat.md'), 'utf8');
  const out = new Set<string>();
  for (const m of text.matchAll(/^\| `([^`]+ :: [^`]+)` \|/gm)) out.add(m[1]);
  return out;
}

async function main(): Promise<void> {
  if (!existsSync(join(suiteDir, 'run.mjs'))) {
    if (process.env.ES_COMPAT_DIR) {
      process.stderr.write(`es-compat: ES_COMPAT_DIR is ${suiteDir}, but no suite (run.mjs) is there\n`);
      process.exit(1);
    }
    process.stdout.write(
      `es-compat: skipped: Elasticsearch's REST test suite is not at ${DEFAULT_SUITE} (it lives beside the repository, not in it); ` +
        'set ES_COMPAT_DIR to its folder to run it\n',
    );
    return;
  }
  const work = await mkdtemp(join(tmpdir(), 'es-compat-'));
  // The suite's folder is read-only: run a copy that resolves js-yaml from our node_modules.
  await cp(suiteDir, join(work, 'suite'), { recursive: true, filter: (src) => !src.endsWith('/node_modules') });
  await symlink(join(root, 'node_modules'), join(work, 'suite', 'node_modules'));
  const server = await startServer();
  const args = process.argv.slice(2);
  // Pass-through options run one set as asked; without them each set runs its covered directories.
  const runs: string[][] = args.includes('--only') || args.includes('--tests')
    ? [args]
    : [
        ['--only', COVERED.join(',')],
        ...(COVERED_MORE.length > 0 ? [['--tests', 'tests-more', '--only', COVERED_MORE.join(',')]] : []),
      ].map((r) => [...r, ...args]);
  let output = '';
  for (const run of runs) {
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ['run.mjs', '--url', server.url, ...run], { cwd: join(work, 'suite') });
      child.stdout.on('data', (d: Buffer) => {
        output += d.toString();
        process.stdout.write(d);
      });
      child.stderr.on('data', (d: Buffer) => process.stderr.write(d));
      child.on('exit', resolve);
    });
    process.stdout.write(`es-compat: runner exit ${code} for ${run.join(' ')}\n`);
  }
  await server.stop();
  await rm(work, { recursive: true, force: true });
  const known = await knownFailures();
  const unexpected = output
    .split('\n')
    .filter((l) => l.startsWith('FAIL '))
    .map((l) => l.slice(5).split(' -- ')[0].replace(/ \(\d+ ms\)$/, ''))
    .filter((name) => !known.has(name));
  if (unexpected.length > 0) {
    process.stdout.write(`\nes-compat: ${unexpected.length} failure(s) not listed in docs/compat.md:\n${unexpected.map((u) => `  ${u}`).join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write('es-compat: every failure is listed in docs/compat.md\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
