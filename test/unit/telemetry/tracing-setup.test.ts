/**
 * When a node traces: by default into its span buffer for the console, and
 * to an OTLP endpoint when one is configured (setting or the standard OTEL_*
 * variables). With neither nothing is registered; with an endpoint, the
 * node's spans reach the collector over OTLP/HTTP, flushed when it stops.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProxyTracerProvider, trace } from '@opentelemetry/api';
import { loadConfig } from '../../../services/node/config.ts';
import { jaegerUiUrl, otlpTracesUrl } from '../../../shared/telemetry/tracing.ts';
import { tracingEnabled } from '../../../shared/telemetry/spans.ts';
import { http, startServer } from '../../helpers/server.ts';

/** Whether anything is registered as OpenTelemetry's global tracer provider (the API's proxy delegates to it). */
function providerRegistered(): boolean {
  const proxy = trace.getTracerProvider();
  assert.ok(proxy instanceof ProxyTracerProvider);
  return proxy.getDelegateTracer('probe') !== undefined;
}

test('the OTLP traces URL: the setting, then OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, then OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces', () => {
  assert.equal(otlpTracesUrl('', {}), '');
  assert.equal(otlpTracesUrl('', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318' }), 'http://jaeger:4318/v1/traces');
  assert.equal(otlpTracesUrl('', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318/' }), 'http://jaeger:4318/v1/traces');
  assert.equal(
    otlpTracesUrl('', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/custom' }),
    'http://b:4318/custom',
  );
  assert.equal(otlpTracesUrl('http://c:4318', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/custom' }), 'http://c:4318/v1/traces');
  assert.equal(otlpTracesUrl('http://c:4318', { OTEL_SDK_DISABLED: 'true' }), '');
});

test("the console's Jaeger link, only when spans are exported: the setting as given, else Jaeger's UI port beside its OTLP port 4318", () => {
  assert.equal(jaegerUiUrl('', ''), '');
  assert.equal(jaegerUiUrl('http://localhost:16686', ''), '');
  assert.equal(jaegerUiUrl('', 'http://jaeger:4318/v1/traces'), 'http://jaeger:16686');
  assert.equal(jaegerUiUrl('', 'https://[::1]:4318/v1/traces'), 'https://[::1]:16686');
  assert.equal(jaegerUiUrl('', 'http://collector:4319/v1/traces'), '');
  assert.equal(jaegerUiUrl('http://localhost:16686/', 'http://jaeger:4318/v1/traces'), 'http://localhost:16686');
  assert.equal(jaegerUiUrl('https://tracing.example/jaeger', 'http://collector:4319/v1/traces'), 'https://tracing.example/jaeger');
  assert.equal(loadConfig([], {}).jaegerUiUrl, '');
  assert.equal(loadConfig(['--telemetry.otlp.endpoint', 'http://127.0.0.1:4318'], {}).jaegerUiUrl, 'http://127.0.0.1:16686');
  assert.equal(loadConfig(['--telemetry.jaeger.ui_url', 'http://localhost:16686'], { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318' }).jaegerUiUrl, 'http://localhost:16686');
});

test('node settings: telemetry.otlp.endpoint, the OTEL_* variables and OTEL_SERVICE_NAME', () => {
  const none = loadConfig([], {});
  assert.equal(none.otlpTracesEndpoint, '');
  assert.equal(none.serviceName, 'logsearch');
  assert.equal(loadConfig(['--telemetry.otlp.endpoint', 'http://jaeger:4318'], {}).otlpTracesEndpoint, 'http://jaeger:4318/v1/traces');
  assert.equal(loadConfig([], { LOGSEARCH_TELEMETRY_OTLP_ENDPOINT: 'http://j:4318' }).otlpTracesEndpoint, 'http://j:4318/v1/traces');
  const fromOtel = loadConfig([], { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318', OTEL_SERVICE_NAME: 'search-a' });
  assert.equal(fromOtel.otlpTracesEndpoint, 'http://jaeger:4318/v1/traces');
  assert.equal(fromOtel.serviceName, 'search-a');
});

test('by default a node traces into its span buffer for the console, with no endpoint', async () => {
  assert.equal(loadConfig([], {}).traceBufferSize, 10_000);
  const server = await startServer();
  try {
    assert.equal(tracingEnabled(), true);
    assert.equal((await http(server.url, 'GET', '/')).status, 200);
    const traces = (await http(server.url, 'GET', '/_console/api/traces?path=/')).body as { enabled: boolean; capacity: number; traces: { name: string }[] };
    assert.equal(traces.enabled, true);
    assert.equal(traces.capacity, 10_000);
    assert.ok(traces.traces.some((t) => t.name === 'GET /'), JSON.stringify(traces.traces));
  } finally {
    await server.stop();
  }
  assert.equal(tracingEnabled(), false, 'stopping the node stops its tracing');
});

test('without an endpoint and with no span buffer a node registers no tracer provider and makes no spans', async () => {
  const server = await startServer(['--telemetry.traces.buffer_size', '0']);
  try {
    assert.equal(tracingEnabled(), false);
    assert.equal(providerRegistered(), false);
    assert.equal(trace.getTracer('probe').startSpan('probe').isRecording(), false);
    assert.equal((await http(server.url, 'GET', '/')).status, 200);
  } finally {
    await server.stop();
  }
});

test('with an endpoint a node exports its spans over OTLP/HTTP, sends the last ones when it stops, and unregisters', async () => {
  const posts: { path: string; type: string; body: string }[] = [];
  const collector = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      posts.push({ path: req.url ?? '', type: String(req.headers['content-type']), body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  const port = (collector.address() as AddressInfo).port;
  try {
    const server = await startServer(['--telemetry.otlp.endpoint', `http://127.0.0.1:${port}`, '--cluster.name', 'traced-cluster']);
    try {
      assert.equal(tracingEnabled(), true);
      assert.equal(providerRegistered(), true);
      assert.equal((await http(server.url, 'PUT', '/exported')).status, 200);
      assert.equal((await http(server.url, 'GET', '/exported/_search')).status, 200);
      assert.equal(posts.length, 0, 'spans are batched, not sent one by one');
    } finally {
      await server.stop();
    }
    assert.equal(tracingEnabled(), false);
    assert.equal(providerRegistered(), false);
    assert.ok(posts.length >= 1, 'the stopping node flushed its spans');
    for (const p of posts) {
      assert.equal(p.path, '/v1/traces');
      assert.match(p.type, /^application\/json/);
    }
    const exported = posts.map((p) => JSON.parse(p.body) as OtlpTraces).flatMap((t) => t.resourceSpans);
    const resource = Object.fromEntries(exported[0]!.resource.attributes.map((a) => [a.key, a.value.stringValue]));
    assert.equal(resource['service.name'], 'logsearch');
    assert.equal(resource['node.name'], 'test-node');
    assert.equal(resource['cluster.name'], 'traced-cluster');
    const names = exported.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((x) => x.name)));
    assert.ok(names.includes('PUT /{index}'), names.join(', '));
    assert.ok(names.includes('GET /{index}/_search'), names.join(', '));
  } finally {
    await new Promise((r) => collector.close(r));
  }
});

/** The parts of OTLP's JSON encoding this test reads. */
interface OtlpTraces {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: { name: string }[] }[];
  }[];
}
