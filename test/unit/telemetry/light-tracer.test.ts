/**
 * Tracing into the console's span buffer alone (no OTLP endpoint, the
 * default) uses the light tracer: the same traces as the SDK's would make
 * (parents across awaits, a caller's traceparent continued, an append's
 * context reaching the apply span, failures), kept in the ring.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTracing, type Tracing } from '../../../shared/telemetry/tracing.ts';
import { spanBuffer } from '../../../shared/telemetry/span-buffer.ts';
import { currentTraceHeaders, inSpan, inSpanSync, runInSpan, SpanKind, startApplySpan, startSpanFrom } from '../../../shared/telemetry/spans.ts';

let tracing: Tracing | null;

before(async () => {
  tracing = await startTracing({ serviceName: 'logsearch', nodeName: 'n1', clusterName: 'c', bufferSize: 100 });
  assert.ok(tracing);
});
after(async () => {
  await tracing?.shutdown();
});

test('a request continues its caller trace; spans under it are its children across awaits, with their attributes and times', async () => {
  const caller = '4bf92f3577b34da6a3ce929d0e0e4736';
  const scoped = startSpanFrom('GET /{index}/_search', { traceparent: `00-${caller}-00f067aa0ba902b7-01` }, SpanKind.SERVER, { 'url.path': '/x/_search' })!;
  await runInSpan(scoped, () =>
    inSpan('query', { 'logsearch.index': 'x', 'logsearch.shard': 0 }, async (span) => {
      await new Promise((r) => setTimeout(r, 5));
      span?.setAttribute('logsearch.hits', 3);
      inSpanSync('reduce', {}, () => 1);
    }),
  );
  scoped.span.setAttribute('http.response.status_code', 200);
  scoped.span.end();
  const spans = spanBuffer()!.trace(caller);
  assert.deepEqual(
    spans.map((s) => s.name),
    ['GET /{index}/_search', 'query', 'reduce'],
  );
  const [server, query, reduce] = spans;
  assert.equal(server!.parentSpanId, '00f067aa0ba902b7');
  assert.equal(query!.parentSpanId, server!.spanId);
  assert.equal(reduce!.parentSpanId, query!.spanId);
  assert.deepEqual(query!.attributes, { 'logsearch.index': 'x', 'logsearch.shard': 0, 'logsearch.hits': 3 });
  assert.ok(query!.durationMs >= 4, `query took ${query!.durationMs} ms`);
  assert.ok(Math.abs(server!.startMs - Date.now()) < 5000);
  assert.equal(server!.node, 'n1');
  assert.equal(server!.service, 'logsearch');
  const list = spanBuffer()!.traces({ path: '/x/_search' });
  assert.equal(list[0]!.traceId, caller);
  assert.equal(list[0]!.status, 200);
});

test('the context an append sends with its records makes the apply span its child; a failure marks the span', async () => {
  let headers: Record<string, string> | undefined;
  let produceTrace = '';
  await assert.rejects(
    inSpan('produce', {}, async (span) => {
      headers = currentTraceHeaders();
      produceTrace = span!.spanContext().traceId;
      throw new Error('broker gone');
    }),
    /broker gone/,
  );
  assert.match(headers!.traceparent!, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  const apply = startApplySpan([{ headers: headers!, offset: 7 }], { 'logsearch.index': 'x' })!;
  apply.end();
  const spans = spanBuffer()!.trace(produceTrace);
  const produce = spans.find((s) => s.name === 'produce')!;
  assert.equal(produce.status, 2);
  assert.equal(produce.statusMessage, 'broker gone');
  assert.equal(produce.attributes['exception.message'], 'broker gone');
  const applied = spans.find((s) => s.name === 'apply')!;
  assert.equal(applied.parentSpanId, produce.spanId);
  assert.equal(applied.attributes['logsearch.offset.first'], 7);
});

test('a batch from several appends is a trace of its own, linked to each', () => {
  const a = { traceparent: '00-11111111111111111111111111111111-1111111111111111-01' };
  const b = { traceparent: '00-22222222222222222222222222222222-2222222222222222-01' };
  const span = startApplySpan([{ headers: a }, { headers: b }, { headers: a }], {})!;
  const traceId = span.spanContext().traceId;
  span.end();
  const [applied] = spanBuffer()!.trace(traceId);
  assert.equal(applied!.parentSpanId, null);
  assert.deepEqual(
    applied!.links.map((l) => l.traceId),
    ['11111111111111111111111111111111', '22222222222222222222222222222222'],
  );
});

test('the ring keeps the last spans only', () => {
  for (let i = 0; i < 150; i++) inSpanSync(`s${i}`, {}, () => i);
  const held = spanBuffer()!.traces({ limit: 1000 });
  assert.equal(held.reduce((n, t) => n + t.spans, 0), 100);
  assert.ok(held.some((t) => t.name === 's149'));
  assert.ok(!held.some((t) => t.name === 's0'));
});
