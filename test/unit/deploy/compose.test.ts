/**
 * What compose/docker-compose.yml must hold for a deployment that keeps its
 * data and stops cleanly, checked in the parsed file (this machine has no
 * Docker; CI validates the file's syntax with docker-compose config).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

const root = new URL('../../../', import.meta.url);
const composeText = readFileSync(new URL('compose/docker-compose.yml', root), 'utf8');

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  init?: boolean;
  restart?: string;
  environment?: Record<string, string | number>;
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

const compose = parse(composeText, { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const services = compose.services;
const named = (prefix: string) => Object.keys(services).filter((n) => n.startsWith(prefix));
const kafkas = named('kafka-');
const searches = named('search-');

/** `${LOGSEARCH_BIND:-127.0.0.1}:9200:9200` as compose reads it without LOGSEARCH_BIND. */
const withDefaults = (port: string) => port.replace(/\$\{[A-Z_]+:-([^}]+)\}/g, '$1');

test('three brokers and three search nodes', () => {
  assert.equal(kafkas.length, 3);
  assert.equal(searches.length, 3);
});

test('every broker keeps its log in a named volume at its log directory', () => {
  for (const name of kafkas) {
    const s = services[name]!;
    const dir = String(s.environment?.KAFKA_LOG_DIRS);
    const volume = s.volumes?.find((v) => v.endsWith(`:${dir}`));
    assert.ok(volume, `${name} has no volume at ${dir}`);
    assert.ok(volume.split(':')[0]! in compose.volumes, `${name}'s volume is not a named volume`);
  }
});

test('every broker is reachable from the host: a HOST listener advertised as localhost on a published port', () => {
  for (const name of kafkas) {
    const s = services[name]!;
    const advertised = String(s.environment?.KAFKA_ADVERTISED_LISTENERS);
    const host = /HOST:\/\/localhost:(\d+)/.exec(advertised);
    assert.ok(host, `${name} advertises no listener for the host: ${advertised}`);
    assert.match(String(s.environment?.KAFKA_LISTENERS), /HOST:\/\/:19092/);
    assert.ok(s.ports?.map(withDefaults).includes(`127.0.0.1:${host[1]}:19092`), `${name} does not publish ${host[1]}`);
  }
});

test('published ports listen on 127.0.0.1 unless LOGSEARCH_BIND says otherwise', () => {
  for (const [name, s] of Object.entries(services)) {
    for (const port of s.ports ?? []) {
      assert.match(port, /^\$\{LOGSEARCH_BIND:-127\.0\.0\.1\}:\d+:\d+$/, `${name} publishes ${port}`);
    }
  }
});

test('search nodes run node itself under an init, with a health check, a restart policy and their own volume', () => {
  for (const name of searches) {
    const s = services[name]!;
    assert.equal(s.init, true, name);
    assert.equal(s.restart, 'unless-stopped', name);
    assert.ok(s.healthcheck, name);
    assert.equal(s.command, undefined, `${name} runs the image's entrypoint`);
    assert.ok(s.volumes?.some((v) => v === `${name}:/data`), name);
    for (const k of kafkas) assert.equal(s.depends_on?.[k]?.condition, 'service_healthy', `${name} waits for ${k}`);
  }
  const dockerfile = readFileSync(new URL('compose/Dockerfile', root), 'utf8');
  assert.match(dockerfile, /^ENTRYPOINT \["node", "dist\/services\/cli\/main\.js"\]$/m);
  assert.doesNotMatch(dockerfile, /npx|tsx|npm start/);
});

test('brokers have health checks and restart policies', () => {
  for (const name of kafkas) {
    assert.ok(services[name]!.healthcheck, name);
    assert.equal(services[name]!.restart, 'unless-stopped', name);
  }
});

test('a step creates the passinfo topic, and producer and ingest run after it', () => {
  const topics = services.topics!;
  const cmd = topics.command!.join(' ');
  assert.match(cmd, /kafka-topics\.sh .*--create --if-not-exists --topic passinfo/);
  for (const k of kafkas) assert.equal(topics.depends_on?.[k]?.condition, 'service_healthy');
  assert.deepEqual(services.producer!.command!.slice(0, 2), ['passinfo', 'produce']);
  assert.deepEqual(services.ingest!.command!.slice(0, 2), ['passinfo', 'ingest']);
  for (const app of ['producer', 'ingest']) {
    assert.equal(services[app]!.depends_on?.topics?.condition, 'service_completed_successfully', app);
    assert.equal(services[app]!.init, true, app);
    assert.ok(services[app]!.restart, app);
  }
  assert.equal(services.ingest!.depends_on?.['search-1']?.condition, 'service_healthy');
});

test("Jaeger's storage survives a restart, or the docs say it does not", () => {
  const jaeger = services.jaeger!;
  const storage = String(jaeger.environment?.SPAN_STORAGE_TYPE ?? 'memory');
  if (storage === 'memory') {
    const docs = readFileSync(new URL('docs/cluster.md', root), 'utf8');
    assert.match(docs, /Jaeger keeps traces in memory/);
  } else {
    assert.ok(jaeger.volumes && jaeger.volumes.length > 0);
  }
});
