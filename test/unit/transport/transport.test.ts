/**
 * The node-to-node transport on loopback: every RPC round-trips, requests
 * share one connection, remote EsErrors arrive intact, timeouts and
 * disconnects are Elasticsearch's transport errors, and a client reconnects
 * to a restarted server by itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EsError, versionConflictInternal } from '../../../shared/errors/es-errors.ts';
import { TransportServer } from '../../../services/node/transport/transport-server.ts';
import { TransportClient, type NodeAddress } from '../../../services/node/transport/transport-client.ts';
import {
  FREE_CONTEXT,
  NODE_STATUS,
  SHARD_FETCH,
  SHARD_GET,
  SHARD_QUERY,
  WAIT_APPLIED,
  type ShardQueryWireRequest,
  type ShardQueryWireResponse,
} from '../../../services/node/transport/rpc-messages.ts';
import { FrameDecoder, encodeFrame } from '../../../services/node/transport/frame.ts';

/** Avro decodes records as class instances: compare their data. */
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

async function serve(setup: (s: TransportServer) => void, port = 0, closeGraceMs = 1000): Promise<{ server: TransportServer; node: NodeAddress }> {
  const server = new TransportServer({ closeGraceMs });
  setup(server);
  const bound = await server.listen('127.0.0.1', port);
  return { server, node: { name: 'remote', host: '127.0.0.1', port: bound } };
}

const queryRequest: ShardQueryWireRequest = {
  index_uuid: 'uuid-1',
  shard: 3,
  body_json: '{"query":{"match":{"plate":"AB123"}}}',
  url_params_json: '{"size":5}',
  size: 5,
  after: { sort_values: [1.5, 'k', null, { decimal: '9223372036854775807' }], score: Number.NaN, doc: 7 },
  now_millis: 1_700_000_000_000,
  keep_alive_ms: 60_000,
  context_id: null,
};

const queryResponse: ShardQueryWireResponse = {
  context_id: 42,
  total_hits: 1234,
  max_score: 2.5,
  docs: Buffer.from(new Int32Array([5, 1, 9]).buffer),
  scores: Buffer.from(new Float32Array([2.5, 1.25, 0.5]).buffer),
  sort_values: [['a', 1], [null, -3], [{ decimal: '-9223372036854775808' }, 0]],
  terminated_early: null,
  aggs: Buffer.from([1, 2, 3]),
};

test('every RPC round-trips its request and response through the transport', async () => {
  const seen: unknown[] = [];
  const { server, node } = await serve((s) =>
    s
      .handle(SHARD_QUERY, (r) => (seen.push(r), queryResponse))
      .handle(SHARD_FETCH, (r) => (seen.push(r), { hits: ['{"_id":"1"}', '{"_id":"2","_source":{"a":"ü"}}'] }))
      .handle(FREE_CONTEXT, (r) => (seen.push(r), { freed: true }))
      .handle(SHARD_GET, (r) => (seen.push(r), { doc: { version: 3, seq_no: 17, deleted: false, routing: 'r1', source: Buffer.from('{"a":1}') }, applied_offset: 18, refreshed_offset: 12 }))
      .handle(WAIT_APPLIED, (r) => (seen.push(r), { applied: true, applied_offset: 99 }))
      .handle(NODE_STATUS, (r) => (seen.push(r), { node_name: 'n1', copies: [{ index_uuid: 'u', shard: 0, state: 'STARTED' as const, applied_offset: 5, doc_count: 4, recovery_type: 'existing_store', start_offset: 3, target_offset: 5, start_time: 1000, stop_time: 2000 }] })),
  );
  const client = new TransportClient();
  try {
    const q = await client.call(node, SHARD_QUERY, queryRequest);
    assert.deepEqual(plain(seen[0]), plain(queryRequest));
    assert.ok(Number.isNaN((seen[0] as ShardQueryWireRequest).after?.score));
    assert.equal(q.context_id, 42);
    assert.equal(q.total_hits, 1234);
    assert.deepEqual([...new Int32Array(new Uint8Array(q.docs).buffer)], [5, 1, 9]);
    assert.deepEqual(plain(q.sort_values), plain(queryResponse.sort_values));
    assert.deepEqual(q.aggs, Buffer.from([1, 2, 3]));

    const fetchReq = { index_uuid: 'u', shard: 1, context_id: 42, docs: Buffer.alloc(8), scores: Buffer.alloc(16), sort_values: [null, ['x', 2]], release: true };
    assert.deepEqual((await client.call(node, SHARD_FETCH, fetchReq)).hits, ['{"_id":"1"}', '{"_id":"2","_source":{"a":"ü"}}']);
    assert.deepEqual((await client.call(node, FREE_CONTEXT, { context_id: 42 })).freed, true);
    const got = await client.call(node, SHARD_GET, { index_uuid: 'u', shard: 0, id: 'doc-1' });
    assert.equal(got.doc?.seq_no, 17);
    assert.equal(got.doc?.routing, 'r1');
    assert.equal(got.doc?.source?.toString(), '{"a":1}');
    assert.equal(got.refreshed_offset, 12);
    assert.deepEqual({ ...(await client.call(node, WAIT_APPLIED, { index_uuid: 'u', shard: 0, offset: 99, timeout_ms: 1000 })) }, { applied: true, applied_offset: 99 });
    const status = await client.call(node, NODE_STATUS, {});
    assert.equal(status.node_name, 'n1');
    assert.deepEqual(
      { ...status.copies[0] },
      // rebuild_failure: the schema's default for a copy that is not being rebuilt.
      { index_uuid: 'u', shard: 0, state: 'STARTED', applied_offset: 5, doc_count: 4, recovery_type: 'existing_store', start_offset: 3, target_offset: 5, start_time: 1000, stop_time: 2000, rebuild_failure: null },
    );
    assert.equal(seen.length, 6);
  } finally {
    await client.close();
    await server.close();
  }
});

test('many concurrent requests share one connection and each gets its own answer, in any order', async () => {
  const { server, node } = await serve((s) =>
    s.handle(WAIT_APPLIED, async (r) => {
      // Answer later requests first.
      await new Promise((res) => setTimeout(res, 200 - r.offset));
      return { applied: true, applied_offset: r.offset * 10 };
    }),
  );
  const client = new TransportClient();
  try {
    const offsets = Array.from({ length: 200 }, (_, i) => i);
    const answers = await Promise.all(offsets.map((o) => client.call(node, WAIT_APPLIED, { index_uuid: 'u', shard: 0, offset: o, timeout_ms: 0 })));
    assert.deepEqual(answers.map((a) => a.applied_offset), offsets.map((o) => o * 10));
    assert.equal(server.openConnections, 1);
  } finally {
    await client.close();
    await server.close();
  }
});

test('an EsError thrown by a remote handler arrives with the same type, reason, status, extra and causes', async () => {
  const coords = { index: 'cars', uuid: 'u-1', shard: 2, type: '_doc', id: 'AB123' };
  const cause = new EsError('illegal_argument_exception', 'bad value', 400);
  cause.javaException = true;
  const { server, node } = await serve((s) =>
    s
      .handle(SHARD_GET, () => {
        throw versionConflictInternal(coords, 3, 1);
      })
      .handle(FREE_CONTEXT, () => {
        throw new EsError('query_shard_exception', 'failed to create query', 400, { index: 'cars', index_uuid: 'u-1' }, cause);
      })
      .handle(NODE_STATUS, () => {
        throw new TypeError('boom');
      }),
  );
  const client = new TransportClient();
  try {
    const expected = versionConflictInternal(coords, 3, 1);
    await assert.rejects(client.call(node, SHARD_GET, { index_uuid: 'u-1', shard: 2, id: 'AB123' }), (err: unknown) => {
      assert.ok(err instanceof EsError);
      assert.equal(err.type, expected.type);
      assert.equal(err.reason, expected.reason);
      assert.equal(err.status, 409);
      assert.deepEqual(err.extra, expected.extra);
      return true;
    });
    await assert.rejects(client.call(node, FREE_CONTEXT, { context_id: 1 }), (err: unknown) => {
      assert.ok(err instanceof EsError);
      assert.equal(err.type, 'query_shard_exception');
      assert.equal(err.causedBy?.type, 'illegal_argument_exception');
      assert.equal(err.causedBy?.reason, 'bad value');
      assert.equal(err.causedBy?.javaException, true);
      return true;
    });
    await assert.rejects(client.call(node, NODE_STATUS, {}), (err: unknown) => err instanceof EsError && err.type === 'exception' && err.reason === 'boom' && err.status === 500);
    await assert.rejects(client.call(node, WAIT_APPLIED, { index_uuid: 'u', shard: 0, offset: 1, timeout_ms: 0 }), (err: unknown) => {
      assert.ok(err instanceof EsError);
      assert.equal(err.type, 'action_not_found_transport_exception');
      assert.equal(err.reason, `No handler for action [${WAIT_APPLIED.name}]`);
      return true;
    });
  } finally {
    await client.close();
    await server.close();
  }
});

test('a response that does not come in time is a receive_timeout_transport_exception; the connection stays usable', async () => {
  let hang = true;
  const { server, node } = await serve((s) =>
    s.handle(FREE_CONTEXT, async () => {
      if (hang) await new Promise((res) => setTimeout(res, 300));
      return { freed: true };
    }),
  );
  const client = new TransportClient();
  try {
    await assert.rejects(client.call(node, FREE_CONTEXT, { context_id: 1 }, { timeoutMs: 50 }), (err: unknown) => {
      assert.ok(err instanceof EsError);
      assert.equal(err.type, 'receive_timeout_transport_exception');
      assert.match(err.reason, /^\[remote\]\[127\.0\.0\.1:\d+\]\[indices:data\/read\/search\[free_context\]\] request_id \[\d+\] timed out after \[\d+ms\]$/);
      return true;
    });
    hang = false;
    assert.equal((await client.call(node, FREE_CONTEXT, { context_id: 2 }, { timeoutMs: 1000 })).freed, true);
    // The late answer to the timed-out request is dropped without harm.
    await new Promise((res) => setTimeout(res, 350));
    assert.equal(server.openConnections, 1);
  } finally {
    await client.close();
    await server.close();
  }
});

test('the client reconnects by itself after the server restarts on the same port', async () => {
  const handlers = (s: TransportServer) => s.handle(FREE_CONTEXT, (r) => ({ freed: r.context_id === 7 }));
  const first = await serve(handlers);
  const client = new TransportClient({ connectTimeoutMs: 1000 });
  try {
    assert.equal((await client.call(first.node, FREE_CONTEXT, { context_id: 7 })).freed, true);
    await first.server.close();
    await assert.rejects(client.call(first.node, FREE_CONTEXT, { context_id: 7 }), (err: unknown) => err instanceof EsError && err.type === 'connect_transport_exception');
    const second = await serve(handlers, first.node.port);
    try {
      assert.equal((await client.call(first.node, FREE_CONTEXT, { context_id: 7 })).freed, true);
    } finally {
      await second.server.close();
    }
  } finally {
    await client.close();
  }
});

test('requests in flight when the connection drops fail with node_disconnected_exception', async () => {
  const { server, node } = await serve((s) => s.handle(WAIT_APPLIED, () => new Promise(() => {})), 0, 20);
  const server2 = server;
  const client = new TransportClient();
  try {
    const pending = client.call(node, WAIT_APPLIED, { index_uuid: 'u', shard: 0, offset: 1, timeout_ms: 0 });
    await new Promise((res) => setTimeout(res, 50));
    void server2.close();
    await assert.rejects(pending, (err: unknown) => err instanceof EsError && err.type === 'node_disconnected_exception');
  } finally {
    await client.close();
  }
});

test('a closed client refuses new requests with transport_exception', async () => {
  const client = new TransportClient();
  await client.close();
  await assert.rejects(client.call({ name: 'x', host: '127.0.0.1', port: 1 }, NODE_STATUS, {}), (err: unknown) => err instanceof EsError && err.type === 'transport_exception');
});

test('frames split across and packed into chunks are reassembled exactly', () => {
  const bodies = [Buffer.from('a'), Buffer.alloc(20_000, 7), Buffer.from('xyz')];
  const stream = Buffer.concat(bodies.map(encodeFrame));
  for (const step of [1, 3, 4096, stream.length]) {
    const dec = new FrameDecoder();
    const out: Buffer[] = [];
    for (let i = 0; i < stream.length; i += step) out.push(...dec.push(stream.subarray(i, i + step)));
    assert.deepEqual(out, bodies);
  }
});
