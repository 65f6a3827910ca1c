/**
 * How a trace context travels: in transport envelopes (version 2 only when
 * there is one, so untraced frames stay readable by older nodes) and in log
 * record headers, from which each copy's apply span finds its parent.
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startTracing, type Tracing } from '../../../shared/telemetry/tracing.ts';
import { currentTraceHeaders, inSpan, startApplySpan } from '../../../shared/telemetry/spans.ts';
import { loadSchema, RecordCodec } from '../../../shared/records/avro-codec.ts';
import { envelopeCodec, type Envelope } from '../../../services/node/transport/envelope.ts';
import { TransportServer } from '../../../services/node/transport/transport-server.ts';
import { TransportClient } from '../../../services/node/transport/transport-client.ts';
import { FREE_CONTEXT } from '../../../services/node/transport/rpc-messages.ts';

const exporter = new InMemorySpanExporter();
let tracing: Tracing | null;

before(async () => {
  tracing = await startTracing({ serviceName: 'test', nodeName: 'n1', clusterName: 'c', exporter });
  assert.ok(tracing);
});
after(async () => {
  await tracing?.shutdown();
});
beforeEach(() => exporter.reset());

const spanNamed = (name: string): ReadableSpan => {
  const found = exporter.getFinishedSpans().filter((s) => s.name === name);
  assert.equal(found.length, 1, `one span [${name}]`);
  return found[0]!;
};

test("a transport request made in a span runs on the other side in a server span of the caller's trace", async () => {
  let seenInHandler: string | undefined;
  const server = new TransportServer();
  server.handle(FREE_CONTEXT, () => {
    seenInHandler = trace.getActiveSpan()?.spanContext().traceId;
    return { freed: true };
  });
  const port = await server.listen('127.0.0.1', 0);
  const client = new TransportClient();
  try {
    await inSpan('caller', {}, () => client.call({ name: 'peer', host: '127.0.0.1', port }, FREE_CONTEXT, { context_id: 7 }));
    const caller = spanNamed('caller');
    const handler = spanNamed(FREE_CONTEXT.name);
    assert.equal(handler.kind, SpanKind.SERVER);
    assert.equal(handler.spanContext().traceId, caller.spanContext().traceId);
    assert.equal(handler.parentSpanContext?.spanId, caller.spanContext().spanId);
    assert.equal(seenInHandler, caller.spanContext().traceId, 'the handler runs with the server span active');

    // Outside any span the request carries no context, and the other side makes no span of it.
    exporter.reset();
    await client.call({ name: 'peer', host: '127.0.0.1', port }, FREE_CONTEXT, { context_id: 8 });
    assert.equal(exporter.getFinishedSpans().length, 0);
  } finally {
    await client.close();
    await server.close();
  }
});

test('an envelope without a trace context is written as version 1, as nodes from before trace_context read it', () => {
  const env: Envelope = { id: 3, kind: 'REQUEST', method: 'm', payload: Buffer.from([1, 2]), error: null };
  const untraced = envelopeCodec.encode(env);
  assert.equal(untraced[1], 1);
  // The envelope schema as it was: every field but trace_context.
  const schema = loadSchema('rpc/envelope.avsc') as { fields: { name: string }[] };
  const old = new RecordCodec<Envelope>({ ...schema, fields: schema.fields.filter((f) => f.name !== 'trace_context') } as never, 1);
  assert.equal(old.decode(untraced).method, 'm');

  const traced = envelopeCodec.encode({ ...env, trace_context: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } });
  assert.equal(traced[1], 2);
  const back = envelopeCodec.decode(traced);
  assert.deepEqual({ ...back.trace_context }, { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
  assert.equal(envelopeCodec.decode(untraced).trace_context ?? null, null);
});

test('an applied batch is a child of the produce span its records came from; records of several appends make a root span linked to each', async () => {
  const headersOf = async (name: string): Promise<Record<string, string>> => {
    let h: Record<string, string> | undefined;
    await inSpan(name, {}, async () => {
      h = currentTraceHeaders();
    });
    assert.ok(h?.traceparent);
    return h;
  };
  const a = await headersOf('produce a');
  const b = await headersOf('produce b');
  const produceA = spanNamed('produce a');
  const produceB = spanNamed('produce b');

  const one = startApplySpan([{ headers: a, offset: 10 }, { headers: a, offset: 11 }], { 'logsearch.shard': 2 })!;
  one.end();
  const fromA = exporter.getFinishedSpans().at(-1)!;
  assert.equal(fromA.name, 'apply');
  assert.equal(fromA.kind, SpanKind.CONSUMER);
  assert.equal(fromA.parentSpanContext?.spanId, produceA.spanContext().spanId);
  assert.equal(fromA.spanContext().traceId, produceA.spanContext().traceId);
  assert.deepEqual(
    [fromA.attributes['logsearch.offset.first'], fromA.attributes['logsearch.offset.last'], fromA.attributes['messaging.batch.message_count'], fromA.attributes['logsearch.shard']],
    [10, 11, 2, 2],
  );

  const mixed = startApplySpan([{ headers: a }, { headers: {} }, { headers: b }, { headers: a }], {})!;
  mixed.end();
  const fromBoth = exporter.getFinishedSpans().at(-1)!;
  assert.equal(fromBoth.parentSpanContext, undefined);
  assert.deepEqual(
    fromBoth.links.map((l) => l.context.spanId),
    [produceA.spanContext().spanId, produceB.spanContext().spanId],
  );

  // Records appended with tracing off carry no context: their batch starts a trace of its own.
  const untraced = startApplySpan([{ headers: {} }], {})!;
  untraced.end();
  const alone = exporter.getFinishedSpans().at(-1)!;
  assert.equal(alone.parentSpanContext, undefined);
  assert.equal(alone.links.length, 0);
});
