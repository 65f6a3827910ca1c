/**
 * Tracing of REST requests against a started node (DESIGN.md section 7),
 * with spans collected in memory: one trace per request, a server span named
 * after the route, and its children for the shard phases of a search and
 * for the produce and apply of a write.
 */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startTracing, type Tracing } from '../../shared/telemetry/tracing.ts';
import { startServer, http, type TestServer } from '../helpers/server.ts';

const exporter = new InMemorySpanExporter();
let tracing: Tracing | null;
let server: TestServer;
const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => http(server.url, method, path, body, headers);

const parentOf = (s: ReadableSpan): string | undefined => s.parentSpanContext?.spanId;
const idOf = (s: ReadableSpan): string => s.spanContext().spanId;
const traceOf = (s: ReadableSpan): string => s.spanContext().traceId;

/** The finished spans once `ready` holds: some spans (apply) end just after the response is sent. */
async function spansWhen(ready: (spans: ReadableSpan[]) => boolean, timeoutMs = 5000): Promise<ReadableSpan[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const spans = exporter.getFinishedSpans();
    if (ready(spans)) return spans;
    if (Date.now() > deadline) assert.fail(`spans expected did not come; got ${spans.map((s) => s.name).join(', ')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function serverSpan(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((s) => s.kind === SpanKind.SERVER && s.name === name);
  assert.equal(found.length, 1, `one server span [${name}] expected among ${spans.map((s) => s.name).join(', ')}`);
  return found[0]!;
}

before(async () => {
  tracing = await startTracing({ serviceName: 'logsearch-test', nodeName: 'test-node', clusterName: 'test', exporter });
  assert.ok(tracing, 'tracing starts with an exporter');
  server = await startServer();
  const created = await req('PUT', '/traced', { settings: { number_of_shards: 3, number_of_replicas: 0 } });
  assert.equal(created.status, 200, created.text);
  const lines: string[] = [];
  for (let i = 0; i < 30; i++) lines.push(JSON.stringify({ index: { _type: 'doc', _id: String(i) } }), JSON.stringify({ n: i, tag: i % 2 ? 'odd' : 'even' }));
  const bulk = await req('POST', '/traced/_bulk?refresh=true', lines.join('\n') + '\n');
  assert.equal((bulk.body as { errors: boolean }).errors, false, bulk.text.slice(0, 300));
});

after(async () => {
  await server.stop();
  await tracing?.shutdown();
});

beforeEach(() => exporter.reset());

describe('a search', () => {
  test('is one trace: a server span named after the route, with query and fetch per shard and a reduce under it', async () => {
    const r = await req('POST', '/traced/_search', { query: { term: { tag: 'odd' } }, sort: [{ n: 'asc' }], size: 4, aggs: { tags: { terms: { field: 'tag.keyword' } } } });
    assert.equal(r.status, 200, r.text);
    const spans = await spansWhen((s) => s.some((x) => x.kind === SpanKind.SERVER));
    const root = serverSpan(spans, 'POST /{index}/_search');
    assert.equal(parentOf(root), undefined, 'a request without traceparent starts a trace');
    assert.equal(root.attributes['http.request.method'], 'POST');
    assert.equal(root.attributes['http.route'], '/{index}/_search');
    assert.equal(root.attributes['http.response.status_code'], 200);
    assert.equal(root.attributes['url.path'], '/traced/_search');

    const inTrace = spans.filter((s) => traceOf(s) === traceOf(root));
    const children = (name: string) => inTrace.filter((s) => s.name === name && parentOf(s) === idOf(root));
    const queries = children('query');
    assert.deepEqual(queries.map((s) => s.attributes['logsearch.shard']).sort(), [0, 1, 2]);
    for (const q of queries) assert.equal(q.attributes['logsearch.index'], 'traced');
    assert.equal(children('reduce').length, 1);
    assert.equal(children('reduce aggregations').length, 1);
    // The 4 odd numbers first in order (1, 3, 5, 7) lie on at least one shard; only shards with hits on the page are fetched.
    const fetches = children('fetch');
    assert.ok(fetches.length >= 1 && fetches.length <= 3, `fetch spans: ${fetches.length}`);
    assert.equal(fetches.reduce((n, s) => n + Number(s.attributes['logsearch.hits']), 0), 4);
  });

  test('a scroll page has query and fetch spans per shard, also when it was prepared ahead while the client read the one before', async () => {
    const opened = await req('POST', '/traced/_search?scroll=1m', { sort: ['_doc'], size: 5 });
    assert.equal(opened.status, 200, opened.text);
    const first = await spansWhen((s) => s.some((x) => x.name === 'scroll page ahead'));
    const root = serverSpan(first, 'POST /{index}/_search');
    const ahead = first.find((s) => s.name === 'scroll page ahead')!;
    assert.equal(parentOf(ahead), idOf(root), 'the next page is prepared in the trace of the request it follows');
    const underAhead = (name: string) => first.filter((s) => s.name === name && parentOf(s) === idOf(ahead));
    assert.deepEqual(underAhead('query').map((s) => s.attributes['logsearch.shard']).sort(), [0, 1, 2]);
    assert.ok(underAhead('fetch').length >= 1);

    exporter.reset();
    // The prepared page has been taken: this request computes the third page's queries itself or ahead, both traced.
    const page2 = await req('POST', '/_search/scroll', { scroll: '1m', scroll_id: (opened.body as { _scroll_id: string })._scroll_id });
    assert.equal(page2.status, 200, page2.text);
    const second = await spansWhen((s) => s.some((x) => x.name === 'scroll page ahead') && s.filter((x) => x.name === 'query').length >= 3);
    const scrollRoot = serverSpan(second, 'POST /_search/scroll');
    const third = second.find((s) => s.name === 'scroll page ahead')!;
    assert.equal(traceOf(third), traceOf(scrollRoot));
    assert.deepEqual(second.filter((s) => s.name === 'query' && parentOf(s) === idOf(third)).map((s) => s.attributes['logsearch.shard']).sort(), [0, 1, 2]);
    await req('DELETE', '/_search/scroll/_all');
  });

  test("continues the caller's trace when the request carries a traceparent", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    const r = await req('GET', '/traced/_search?q=tag:even', undefined, { traceparent: `00-${traceId}-${parentId}-01` });
    assert.equal(r.status, 200);
    const spans = await spansWhen((s) => s.some((x) => x.kind === SpanKind.SERVER));
    const root = serverSpan(spans, 'GET /{index}/_search');
    assert.equal(traceOf(root), traceId);
    assert.equal(parentOf(root), parentId);
    assert.ok(spans.some((s) => s.name === 'query' && traceOf(s) === traceId));
  });

  test('a failed request is still one server span, with its status code; a 4xx does not fail the span', async () => {
    const r = await req('POST', '/missing-index/_search', {});
    assert.equal(r.status, 404);
    const spans = await spansWhen((s) => s.some((x) => x.kind === SpanKind.SERVER));
    const root = serverSpan(spans, 'POST /{index}/_search');
    assert.equal(root.attributes['http.response.status_code'], 404);
    assert.notEqual(root.status.code, 2 /* ERROR */);
  });
});

describe('a write', () => {
  test('routes, produces and applies in the trace of its request: server → write shard → produce → apply', async () => {
    const r = await req('PUT', '/traced/doc/w1?refresh=true', { n: 100, tag: 'new' });
    assert.equal(r.status, 201, r.text);
    const spans = await spansWhen((s) => s.some((x) => x.name === 'apply') && s.some((x) => x.kind === SpanKind.SERVER));
    const root = serverSpan(spans, 'PUT /{index}/{type}/{id}');
    assert.equal(root.attributes['http.response.status_code'], 201);
    const inTrace = spans.filter((s) => traceOf(s) === traceOf(root));
    const one = (name: string): ReadableSpan => {
      const found = inTrace.filter((s) => s.name === name);
      assert.equal(found.length, 1, `one [${name}] span in the trace, got ${found.length}`);
      return found[0]!;
    };
    const write = one('write shard');
    const produce = one('produce');
    const apply = one('apply');
    assert.equal(parentOf(write), idOf(root));
    assert.equal(parentOf(produce), idOf(write));
    assert.equal(parentOf(apply), idOf(produce), 'the context travelled with the log record');
    assert.equal(produce.kind, SpanKind.PRODUCER);
    assert.equal(apply.kind, SpanKind.CONSUMER);
    assert.equal(write.attributes['logsearch.index'], 'traced');
    assert.equal(produce.attributes['messaging.destination.partition.id'], String(write.attributes['logsearch.shard']));
    assert.equal(apply.attributes['logsearch.shard'], write.attributes['logsearch.shard']);
    assert.equal(apply.attributes['logsearch.offset.first'], produce.attributes['logsearch.offset.first']);
    assert.equal(apply.attributes['messaging.batch.message_count'], 1);
  });

  test('a bulk makes one produce and one apply span per shard it touches, not one per document', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 40; i++) lines.push(JSON.stringify({ index: { _type: 'doc', _id: `b${i}` } }), JSON.stringify({ n: i }));
    const r = await req('POST', '/traced/_bulk', lines.join('\n') + '\n');
    assert.equal((r.body as { errors: boolean }).errors, false);
    const applied = (spans: readonly ReadableSpan[]) =>
      spans.filter((s) => s.name === 'apply').reduce((n, s) => n + Number(s.attributes['messaging.batch.message_count']), 0);
    const spans = await spansWhen((s) => applied(s) >= 40 && s.some((x) => x.kind === SpanKind.SERVER));
    const root = serverSpan(spans, 'POST /{index}/_bulk');
    const inTrace = spans.filter((s) => traceOf(s) === traceOf(root));
    const produces = inTrace.filter((s) => s.name === 'produce');
    assert.equal(produces.length, 3);
    // Each shard's records arrive in one batch here; a follower may split a batch, never merge two appends into one parent.
    const applies = inTrace.filter((s) => s.name === 'apply');
    assert.ok(applies.length >= 3 && applies.length < 40, `apply spans: ${applies.length}`);
    assert.equal(applied(applies), 40);
    for (const a of applies) assert.ok(produces.some((p) => idOf(p) === parentOf(a)));
  });
});
