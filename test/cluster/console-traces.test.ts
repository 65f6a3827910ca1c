/**
 * The console's trace view in a three-node cluster on mock Kafka: a write
 * applies on every copy, each on its own node, and the node asked for the
 * trace gathers the spans every node keeps (NODE_ADMIN `trace_spans`). A
 * node that does not answer is named, and the others' spans still come.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startCluster, type TestCluster } from '../helpers/cluster.ts';
import { http } from '../helpers/server.ts';
import { buildConsole, launch, skipReason } from '../console/browser.ts';

interface Span {
  readonly spanId: string;
  readonly parentSpanId: string | null;
  readonly name: string;
  readonly node: string;
  readonly attributes: Record<string, unknown>;
}
interface TraceAnswer {
  readonly found: boolean;
  readonly spans: Span[];
  readonly nodes: { name: string; spans: number; buffer: boolean }[];
  readonly failed_nodes: { name: string; reason: string }[];
}

const traceparent = (traceId: string) => ({ traceparent: `00-${traceId}-00f067aa0ba902b7-01` });

async function traceWhen(url: string, id: string, ready: (t: TraceAnswer) => boolean, timeoutMs = 30_000): Promise<TraceAnswer> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  while (Date.now() < deadline) {
    const r = await http(url, 'GET', `/_console/api/traces/${id}`);
    last = r.body;
    if (r.status === 200 && ready(r.body as TraceAnswer)) return r.body as TraceAnswer;
    await new Promise((res) => setTimeout(res, 200));
  }
  assert.fail(`trace ${id} never got there: ${JSON.stringify(last)}`);
}

describe('the console gathers a trace from every node', { timeout: 5 * 60_000 }, () => {
  let c: TestCluster;

  before(async () => {
    c = await startCluster({ nodes: 3, sessionTimeout: '30s', nodeFlags: () => ['--telemetry.traces.buffer_size', '2000'] });
    await c.waitForHealth('green', { nodes: 3, timeoutMs: 90_000, via: 'every' });
    const created = await http(c.url(0), 'PUT', '/spread', { settings: { number_of_shards: 1, number_of_replicas: 2 } });
    assert.equal(created.status, 200, created.text);
    await c.waitForHealth('green', { nodes: 3, activeShards: 3, timeoutMs: 90_000, via: 'every' });
  });

  after(async () => {
    await c?.stop();
  });

  test('a write with a copy on each node: one apply span per copy, each from its own node, all children of the produce', async () => {
    const id = '7bf92f3577b34da6a3ce929d0e0e4736';
    const put = await http(c.url(0), 'PUT', '/spread/_doc/1?refresh=true', { n: 1 }, traceparent(id));
    assert.equal(put.status, 201, put.text);
    const t = await traceWhen(c.url(0), id, (a) => a.spans.filter((s) => s.name === 'apply').length >= 3);
    const applies = t.spans.filter((s) => s.name === 'apply');
    assert.deepEqual(applies.map((s) => s.node).sort(), ['node-0', 'node-1', 'node-2']);
    const produce = t.spans.filter((s) => s.name === 'produce');
    assert.equal(produce.length, 1);
    for (const a of applies) {
      assert.equal(a.parentSpanId, produce[0]!.spanId, `apply on ${a.node}`);
      assert.equal(a.attributes['logsearch.index'], 'spread');
    }
    assert.deepEqual(t.failed_nodes, []);
    assert.deepEqual(t.nodes.map((n) => n.name).sort(), ['node-0', 'node-1', 'node-2']);
    for (const n of t.nodes) assert.ok(n.buffer && n.spans >= 1, `${n.name} answered with its spans`);
    // Any node gathers the same trace.
    const viaOther = await traceWhen(c.url(2), id, (a) => a.spans.filter((s) => s.name === 'apply').length >= 3);
    assert.equal(viaOther.spans.length, t.spans.length);
  });

  test('the trace page shows an apply row from each node', { skip: skipReason() }, async () => {
    buildConsole();
    let browser: Browser | undefined;
    try {
      browser = await launch();
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(`${c.url(1)}/_console/#/traces/7bf92f3577b34da6a3ce929d0e0e4736`);
      await page.locator('#waterfall').waitFor();
      const applies = await page.locator('#waterfall .span-row[data-name="apply"] summary .span-meta').allInnerTexts();
      assert.equal(applies.length, 3, applies.join(' | '));
      assert.deepEqual(applies.map((m) => /node-\d/.exec(m)?.[0]).sort(), ['node-0', 'node-1', 'node-2']);
      assert.match(await page.locator('#trace-nodes').innerText(), /Spans from node-\d \(\d+\), node-\d \(\d+\), node-\d \(\d+\)/);
    } finally {
      await browser?.close();
    }
  });

  test('a node that does not answer is named, and the spans of the others still come', async () => {
    const id = '8bf92f3577b34da6a3ce929d0e0e4736';
    const put = await http(c.url(0), 'PUT', '/spread/_doc/2?refresh=true', { n: 2 }, traceparent(id));
    assert.equal(put.status, 201, put.text);
    await traceWhen(c.url(0), id, (a) => a.spans.filter((s) => s.name === 'apply').length >= 3);
    c.pause(2);
    try {
      const started = Date.now();
      const r = await http(c.url(0), 'GET', `/_console/api/traces/${id}`);
      const took = Date.now() - started;
      assert.equal(r.status, 200, r.text);
      const t = r.body as TraceAnswer;
      assert.deepEqual(
        t.failed_nodes.map((f) => f.name),
        ['node-2'],
      );
      assert.match(t.failed_nodes[0]!.reason, /timed out/);
      assert.deepEqual(t.spans.filter((s) => s.name === 'apply').map((s) => s.node).sort(), ['node-0', 'node-1']);
      assert.ok(took < 5000, `answered in ${took} ms`);
    } finally {
      c.resume(2);
    }
  });
});
