import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../services/node/config.ts';
import { parseByteSizeValue } from '../../../shared/engine/mapping/byte-size-value.ts';
import { SETTINGS } from '../../../services/node/settings.ts';

test('defaults: embedded log, 127.0.0.1:9200, data in ./data', () => {
  const c = loadConfig([], {});
  assert.equal(c.networkHost, '127.0.0.1');
  assert.equal(c.httpPort, 9200);
  assert.equal(c.pathData, './data');
  assert.equal(c.log, 'embedded');
  assert.equal(c.maxContentLength, 100 * 1024 * 1024);
});

test('YAML file < environment < flags', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
  const file = join(dir, 'logsearch.yml');
  writeFileSync(file, 'cluster:\n  name: from-yaml\nhttp.port: 9300\nnode.name: yaml-node\n');
  const c = loadConfig(['--config', file, '--http.port', '9400'], { LOGSEARCH_CLUSTER_NAME: 'from-env' });
  assert.equal(c.clusterName, 'from-env');
  assert.equal(c.httpPort, 9400);
  assert.equal(c.nodeName, 'yaml-node');
});

test('flag forms: --name value, --name=value, -E name=value; env with the setting name', () => {
  const c = loadConfig(['--path.data=/tmp/x', '-E', 'node.name=n1'], { 'http.port': '9555' });
  assert.equal(c.pathData, '/tmp/x');
  assert.equal(c.nodeName, 'n1');
  assert.equal(c.httpPort, 9555);
});

test('unknown settings and bad values are refused with a one-line error', () => {
  const refused = (argv: string[], message: RegExp) =>
    assert.throws(
      () => loadConfig(argv, {}),
      (err: Error) => err instanceof ConfigError && message.test(err.message) && !err.message.includes('\n'),
    );
  refused(['--htp.port', '1'], /^unknown setting \[htp.port\] on the command line; did you mean \[http.port\]\?/);
  refused(['--help'], /^unknown setting \[help\]/);
  refused(['--http.port', 'abc'], /invalid value \[abc\] for setting \[http.port\]/);
  refused(['--http.port', '70000'], /invalid value \[70000\] for setting \[http.port\]/);
  refused(['--log', 'zookeeper'], /invalid value \[zookeeper\] for setting \[log\]: one of \[embedded, kafka\]/);
  refused(['--logger.level', 'verbose'], /invalid value \[verbose\] for setting \[logger.level\]/);
  refused(['--node.processors', '0'], /at least 1/);
  refused(['--cluster.session_timeout', '10'], /failed to parse setting \[cluster.session_timeout\] with value \[10\] as a time value: unit is missing/);
  refused(['--http.max_content_length', 'lots'], /failed to parse setting \[http.max_content_length\] with value \[lots\] as a size in bytes/);
});

test('a setting in the YAML file that does not exist is refused, naming the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
  const file = join(dir, 'logsearch.yml');
  writeFileSync(file, 'cluster:\n  nmae: x\n');
  assert.throws(() => loadConfig(['--config', file], {}), new RegExp(`unknown setting \\[cluster.nmae\\] in ${file}; did you mean \\[cluster.name\\]`));
});

test('durations and sizes take every Elasticsearch unit', () => {
  assert.equal(loadConfig(['--cluster.session_timeout', '1h'], {}).sessionTimeoutMs, 3_600_000);
  assert.equal(loadConfig(['--cluster.session_timeout', '1500ms'], {}).sessionTimeoutMs, 1500);
  assert.equal(loadConfig(['--cluster.session_timeout', '2d'], {}).sessionTimeoutMs, 2 * 86_400_000);
  assert.equal(loadConfig(['--http.max_content_length', '1.5gb'], {}).maxContentLength, 1.5 * 1024 ** 3);
  assert.equal(loadConfig(['--http.max_content_length', '64k'], {}).maxContentLength, 65536);
});

test('byte sizes as Elasticsearch writes them', () => {
  assert.equal(parseByteSizeValue('100mb', 'x'), 104857600);
  assert.equal(parseByteSizeValue('1KB', 'x'), 1024);
  assert.equal(parseByteSizeValue('512b', 'x'), 512);
  assert.equal(parseByteSizeValue('0', 'x'), 0);
  assert.equal(parseByteSizeValue('-1', 'x'), -1);
  assert.throws(() => parseByteSizeValue('512', 'x'), /failed to parse setting \[x\] with value \[512\] as a size in bytes: unit is missing or unrecognized/);
  assert.throws(() => parseByteSizeValue('lots', 'x'), /unit is missing or unrecognized/);
  assert.throws(() => parseByteSizeValue('tenmb', 'x'), /failed to parse \[tenmb\]/);
});

test('config/logsearch.yml lists every setting, commented out, and as shipped changes nothing', () => {
  const text = readFileSync(new URL('../../../config/logsearch.yml', import.meta.url), 'utf8');
  const listed = [...text.matchAll(/^#([a-z_.-]+): /gm)].map((m) => m[1]);
  assert.deepEqual([...listed].sort(), SETTINGS.map((s) => s.name).sort());
  for (const s of SETTINGS) {
    // Each line, uncommented, is a value the setting takes.
    const line = text.split('\n').find((l) => l.startsWith(`#${s.name}: `))!;
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    writeFileSync(join(dir, 'one.yml'), line.slice(1));
    assert.doesNotThrow(() => loadConfig(['--config', join(dir, 'one.yml')], {}), line);
  }
  const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
  writeFileSync(join(dir, 'as-shipped.yml'), text);
  assert.deepEqual(loadConfig(['--config', join(dir, 'as-shipped.yml')], {}), loadConfig([], {}));
});

test("README.md's settings table lists every setting with the default the node uses", () => {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const rows = new Map([...readme.matchAll(/^\| `([a-z_.-]+)` \|([^|]*)\|/gm)].map((m) => [m[1]!, m[2]!.trim()]));
  for (const s of SETTINGS) {
    assert.ok(rows.has(s.name), `README.md has no row for ${s.name}`);
    if (s.defaultShown === undefined && s.default !== '') assert.equal(rows.get(s.name), `\`${s.default}\``, s.name);
  }
});
