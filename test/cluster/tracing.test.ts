/**
 * Traces across a two-node cluster on mock Kafka, exported by the node
 * processes over OTLP/HTTP to a collector this test runs: a write's context
 * travels in the Kafka record headers to every copy's apply span, and a
 * search's shard query reaches the other node inside the transport envelope.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startCluster, type TestCluster } from '../helpers/cluster.ts';
import { http } from '../helpers/server.ts';

/** One span as the nodes export it (OTLP JSON encoding), with the node that made it. */
interface ExportedSpan {
  readonly node: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
}

/** OTLP's SPAN_KIND_SERVER. */
const KIND_SERVER = 2;

interface OtlpTraces {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number }[] }[];
  }[];
}

function startCollector(spans: ExportedSpan[]): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      for (const rs of (JSON.parse(body) as OtlpTraces).resourceSpans) {
        const node = rs.resource.attributes.find((a) => a.key === 'node.name')?.value.stringValue ?? '';
        for (const ss of rs.scopeSpans) {
          for (const s of ss.spans) spans.push({ node, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', name: s.name, kind: s.kind });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function spansWhen(spans: readonly ExportedSpan[], ready: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) assert.fail(`${what}; spans: ${spans.map((s) => `${s.node}:${s.name}`).join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const traceparent = (traceId: string) => ({ traceparent: `00-${traceId}-00f067aa0ba902b7-01` });

describe('tracing in a two-node cluster on mock Kafka', { timeout: 5 * 60_000 }, () => {
  const spans: ExportedSpan[] = [];
  let collector: Server;
  let c: TestCluster;
  const saved = { endpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT, delay: process.env.OTEL_BSP_SCHEDULE_DELAY };

  before(async () => {
    collector = await startCollector(spans);
    // The node processes inherit these: the standard variables, as compose sets them.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    process.env.OTEL_BSP_SCHEDULE_DELAY = '100';
    c = await startCluster({ nodes: 2 });
    await c.waitForHealth('green', { nodes: 2, timeoutMs: 90_000 });
    const created = await http(c.url(0), 'PUT', '/traced', { settings: { number_of_shards: 2, number_of_replicas: 1 } });
    assert.equal(created.status, 200, created.text);
    await c.waitForHealth('green', { nodes: 2, timeoutMs: 90_000 });
  });

  after(async () => {
    await c?.stop();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved.endpoint;
    process.env.OTEL_BSP_SCHEDULE_DELAY = saved.delay;
    if (saved.endpoint === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    if (saved.delay === undefined) delete process.env.OTEL_BSP_SCHEDULE_DELAY;
    await new Promise((r) => collector?.close(r));
  });

  test("a write's produce span is the parent of the apply span of each copy, on both nodes", async () => {
    const traceId = '5bf92f3577b34da6a3ce929d0e0e4736';
    const r = await http(c.url(0), 'PUT', '/traced/doc/1?refresh=true', { n: 1 }, traceparent(traceId));
    assert.equal(r.status, 201, r.text);
    const inTrace = () => spans.filter((s) => s.traceId === traceId);
    await spansWhen(spans, () => inTrace().filter((s) => s.name === 'apply').length >= 2, 'an apply span from each copy');
    const produce = inTrace().filter((s) => s.name === 'produce');
    assert.equal(produce.length, 1);
    assert.equal(produce[0]!.node, 'node-0');
    const applies = inTrace().filter((s) => s.name === 'apply');
    assert.deepEqual(applies.map((s) => s.node).sort(), ['node-0', 'node-1']);
    for (const a of applies) assert.equal(a.parentSpanId, produce[0]!.spanId, `apply on ${a.node}: context from the Kafka record headers`);
    const root = inTrace().find((s) => s.kind === KIND_SERVER && s.node === 'node-0');
    assert.equal(root?.name, 'PUT /{index}/{type}/{id}');
  });

  test("a shard query answered by the other node is a server span there, child of the coordinator's query span", async () => {
    // A preference string picks the same copies every time; among a few strings some pick node-1's copy of a shard.
    const traceIds = Array.from({ length: 8 }, (_, i) => `6bf92f3577b34da6a3ce929d0e0e473${i}`);
    for (const [i, id] of traceIds.entries()) {
      const r = await http(c.url(0), 'POST', `/traced/_search?preference=p${i}`, { query: { match_all: {} } }, traceparent(id));
      assert.equal(r.status, 200, r.text);
    }
    const remote = () => spans.filter((s) => traceIds.includes(s.traceId) && s.node === 'node-1' && s.kind === KIND_SERVER);
    await spansWhen(spans, () => remote().some((s) => s.name.includes('[phase/query]')), 'a query RPC served by node-1');
    // Each node exports on its own schedule: node-1's server span can arrive before the caller's span from node-0.
    const parentExported = (served: ExportedSpan) => spans.some((s) => s.spanId === served.parentSpanId);
    await spansWhen(spans, () => remote().every(parentExported), "the callers of node-1's server spans, exported by node-0");
    for (const served of remote()) {
      const caller = spans.find((s) => s.spanId === served.parentSpanId);
      assert.ok(caller, `the parent of ${served.name} on node-1 was exported`);
      assert.equal(caller.node, 'node-0');
      assert.equal(caller.traceId, served.traceId);
      // Query and fetch RPCs run in the shard's span; releasing an unused search context in the request's.
      if (served.name.includes('[phase/query]')) assert.equal(caller.name, 'query');
    }
  });
});
