/**
 * A get's answer packed by the shard worker (doc-states-batch.ts) unpacks to
 * the same documents: not found, deleted, live with a source (empty too),
 * live without one, routings, and sources past the first buffer's size.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DocStatesPacker, unpackDocStates } from '../../../services/node/shard-worker/doc-states-batch.ts';
import type { WireDocState } from '../../../services/node/shard-worker/protocol.ts';

test('packed get answers unpack to the documents they were made of, in order', () => {
  const big = new Uint8Array(100_000).fill(0x61);
  const docs: (WireDocState | null)[] = [
    null,
    { version: 3, seqNo: 17, deleted: true, routing: null, source: null },
    { version: 1, seqNo: 2 ** 40, deleted: false, routing: 'r1', source: Buffer.from('{"a":1}') },
    { version: 2, seqNo: 5, deleted: false, routing: null, source: new Uint8Array(0) },
    { version: 4, seqNo: 6, deleted: false, routing: null, source: null },
    { version: 5, seqNo: 7, deleted: false, routing: null, source: big },
    { version: 6, seqNo: 8, deleted: false, routing: 'é', source: Buffer.from('{"b":"京"}') },
  ];
  const packer = new DocStatesPacker(docs.length);
  for (const d of docs) packer.add(d, d?.source ?? null);
  const { packed, transfer } = packer.finish();
  assert.equal(transfer.length, 5);
  const back = unpackDocStates(structuredClone(packed, { transfer }));
  assert.deepEqual(
    back.map((d) => (d === null ? null : { ...d, source: d.source === null ? null : Buffer.from(d.source).toString('latin1') })),
    docs.map((d) => (d === null ? null : { ...d, source: d.source === null ? null : Buffer.from(d.source).toString('latin1') })),
  );
});

test('no routing array is sent when no document has a routing', () => {
  const packer = new DocStatesPacker(2);
  packer.add({ version: 1, seqNo: 1, deleted: false, routing: null }, Buffer.from('{}'));
  packer.add(null, null);
  assert.equal(packer.finish().packed.routings, null);
});
