import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, parseByteSize } from '../../../services/node/config.ts';

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

test('unknown settings and bad values are refused with a clear error', () => {
  assert.throws(() => loadConfig(['--htp.port', '1'], {}), /unknown setting \[htp.port\]/);
  assert.throws(() => loadConfig(['--http.port', 'abc'], {}), /invalid http.port/);
  assert.throws(() => loadConfig(['--log', 'zookeeper'], {}), /log must be/);
});

test('byte sizes as Elasticsearch writes them', () => {
  assert.equal(parseByteSize('100mb', 'x'), 104857600);
  assert.equal(parseByteSize('1kb', 'x'), 1024);
  assert.equal(parseByteSize('512', 'x'), 512);
  assert.throws(() => parseByteSize('lots', 'x'), /failed to parse setting \[x\]/);
});
