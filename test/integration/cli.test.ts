/**
 * The `logsearch` command line as a user types it: the bin in a child
 * process, running the compiled build (dist/, built first when stale).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SETTINGS } from '../../services/node/settings.ts';
import { validatePassRecord } from '../../services/passinfo/pass-record.ts';
import { http, startServer, tempDir, type TestServer } from '../helpers/server.ts';
import { runBin } from '../helpers/processes.ts';

let server: TestServer;
let dir: string;
before(async () => {
  server = await startServer();
  dir = await tempDir('logsearch-cli-');
});
after(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** A user-fixable mistake: exit 2 and one line on stderr, no stack trace. */
function assertOneLineError(r: { code: number | null; stderr: string }, message: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  const lines = r.stderr.trim().split('\n').filter((l) => !l.startsWith('logsearch: compiling') && !l.startsWith('logsearch: built'));
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, message);
}

test('--help names the commands; no command is a usage error', async () => {
  const help = await runBin(['--help']);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^usage: logsearch <command>/);
  assert.match(help.stdout, /^ {2}start /m);
  assert.match(help.stdout, /^ {2}passinfo /m);
  const none = await runBin([]);
  assert.equal(none.code, 2);
  assertOneLineError(await runBin(['serve']), /^logsearch: unknown command \[serve\]/);
});

test('start --help lists every setting with its default', async () => {
  const r = await runBin(['start', '--help']);
  assert.equal(r.code, 0, r.stderr);
  for (const s of SETTINGS) {
    const def = s.defaultShown ?? (s.default === '' ? 'none' : s.default);
    assert.ok(r.stdout.includes(`--${s.name} <`), `${s.name} missing from start --help`);
    assert.ok(r.stdout.includes(`(default: ${def})`), `default of ${s.name} missing`);
  }
});

test('an unknown flag or a bad value is a one-line error', async () => {
  assertOneLineError(await runBin(['start', '--htp.port', '9201']), /^logsearch start: unknown setting \[htp.port\].*did you mean \[http.port\]/);
  assertOneLineError(await runBin(['start', '--logger.level', 'verbose']), /invalid value \[verbose\] for setting \[logger.level\]/);
  assertOneLineError(await runBin(['start', '--cluster.session_timeout', 'soon']), /as a time value/);
  assertOneLineError(await runBin(['passinfo', 'import', 'x.ndjson', '--nope']), /^passinfo: Unknown option '--nope'/);
  assertOneLineError(await runBin(['passinfo', 'generate']), /generate needs --count/);
});

test('passinfo generate writes records that import loads, with plain progress lines off a terminal', async () => {
  const file = join(dir, 'passes.ndjson');
  const gen = await runBin(['passinfo', 'generate', '--count', '3000', '--seed', '5', '--out', file]);
  assert.equal(gen.code, 0, gen.stderr);
  assert.deepEqual(JSON.parse(gen.stdout), { file, records: 3000, bytes: readFileSync(file).length });
  assert.match(gen.stderr, /^100% {2}generated 3,000 of 3,000 .* done$/m);
  assert.doesNotMatch(gen.stderr, /\r/);
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  assert.equal(lines.length, 3000);
  assert.ok(lines.every((l) => validatePassRecord(JSON.parse(l)).ok));

  const imported = await runBin(['passinfo', 'import', file, '--es', server.url, '--shards', '2', '--replicas', '0']);
  assert.equal(imported.code, 0, imported.stderr);
  assert.equal((JSON.parse(imported.stdout) as { indexed: number }).indexed, 3000);
  assert.match(imported.stderr, /^100% {2}read .* done {2}\(indexed 3000, duplicates 0, rejected 0\)$/m);
  await http(server.url, 'POST', '/passinfo/_refresh');
  const count = await http(server.url, 'GET', '/passinfo/_count');
  assert.equal((count.body as { count: number }).count, 3000);
});

test('a port in use is one line and exit status 1, not a stack trace', async () => {
  const port = new URL(server.url).port;
  const r = await runBin(['start', '--http.port', port, '--path.data', join(dir, 'busy'), '--path.logs', join(dir, 'busy-logs'), '--node.processors', '1']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr.trim(), new RegExp(`^logsearch start: listen EADDRINUSE: address already in use 127\\.0\\.0\\.1:${port}$`, 'm'));
  assert.doesNotMatch(r.stderr, /^\s+at /m);
});

test('rebuild builds the new index from the log with the mapping file, moves the alias and prints the result; a refused document is exit 1 with its reason', async () => {
  const created = await http(server.url, 'PUT', '/cli-v1', { settings: { number_of_shards: 2 }, aliases: { cli: {} } });
  assert.equal(created.status, 200, created.text);
  const lines: string[] = [];
  for (let i = 0; i < 500; i++) lines.push(JSON.stringify({ index: { _type: '_doc', _id: String(i) } }), JSON.stringify({ title: `Title ${i}`, n: String(i) }));
  const bulk = await http(server.url, 'POST', '/cli/_bulk?refresh=true', lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
  assert.equal((bulk.body as { errors: boolean }).errors, false);
  const mapping = join(dir, 'mapping.json');
  await writeFile(mapping, JSON.stringify({ _doc: { properties: { title: { type: 'text', fields: { raw: { type: 'keyword' } } } } } }));
  const r = await runBin(['rebuild', '--url', server.url, '--index', 'cli', '--dest', 'cli-v2', '--mapping', mapping, '--alias', 'cli', '--shards', '3']);
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout.trim().split('\n').pop()!) as { dest: string; ops_replayed: number };
  assert.equal(result.dest, 'cli-v2');
  assert.equal(result.ops_replayed, 500);
  assert.match(r.stderr, /rebuilding \[cli\] into \[cli-v2\]/);
  assert.deepEqual((await http(server.url, 'GET', '/_alias/cli')).body, { 'cli-v2': { aliases: { cli: {} } } });
  const found = await http(server.url, 'POST', '/cli/_search', { query: { term: { 'title.raw': 'Title 7' } } });
  assert.equal((found.body as { hits: { total: number } }).hits.total, 1);

  await writeFile(mapping, JSON.stringify({ _doc: { properties: { title: { type: 'long' } } } }));
  const refused = await runBin(['rebuild', '--url', server.url, '--index', 'cli', '--dest', 'cli-v3', '--mapping', mapping]);
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /mapper_parsing_exception/);
  assertOneLineError(await runBin(['rebuild', '--index', 'cli']), /--index and --dest are required/);
});

test('passinfo rebuild builds passinfo-v2 from the log of the index behind the alias and moves the alias', async () => {
  const setup = await runBin(['passinfo', 'setup', '--es', server.url, '--shards', '2', '--replicas', '0']);
  assert.equal(setup.code, 0, setup.stderr);
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) lines.push(JSON.stringify({ index: { _type: 'passinfo', _id: `p${i}` } }), JSON.stringify({ plate: `京A${String(i).padStart(5, '0')}`, land_id: 'L0001', pass_time: '2026-10-01 08:00:00' }));
  const bulk = await http(server.url, 'POST', '/passinfo/_bulk?refresh=true', lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
  assert.equal((bulk.body as { errors: boolean }).errors, false);
  const mapping = join(dir, 'plate-raw.json');
  await writeFile(mapping, JSON.stringify({ mappings: { passinfo: { properties: { plate: { type: 'text', analyzer: 'plate_ngram', fields: { keyword: { type: 'keyword' }, raw: { type: 'keyword' } } } } } } }));
  const r = await runBin(['passinfo', 'rebuild', '--es', server.url, '--mapping', mapping]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual((await http(server.url, 'GET', '/_alias/passinfo')).body, { 'passinfo-v2': { aliases: { passinfo: {} } } });
  const found = await http(server.url, 'POST', '/passinfo/_search', { query: { term: { 'plate.raw': '京A00042' } } });
  assert.equal((found.body as { hits: { total: number } }).hits.total, 1);
});
