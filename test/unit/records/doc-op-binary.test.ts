import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RecordCodec, loadSchema } from '../../../shared/records/avro-codec.ts';
import { docOpCodec, docOpRoute, type DocOp } from '../../../shared/records/doc-op.ts';

/** avsc alone with the same schema: the reference the hand-written body must match byte for byte. */
const avsc = new RecordCodec<DocOp>(loadSchema('doc-op.avsc'), docOpCodec.version);

const base: DocOp = {
  request_id: 'n1:abc:0',
  item: 0,
  op: 'INDEX',
  index_uuid: 'Yx3kZ0pWQ9uW1f0a2b3c4d',
  type: 'passinfo',
  id: 'E16-00000001',
  routing: null,
  source: Buffer.from('{"plate":"京A12345","speed":50}'),
  version: null,
  version_type: 'INTERNAL',
  if_seq_no: null,
  if_primary_term: null,
  update: null,
  timestamp: 1_790_000_000_000,
};

/** Plain objects (avsc reads the update body as an instance of its record class). */
function plain(op: DocOp): DocOp {
  if (op.update === null) return { ...op };
  return { ...op, update: { ...op.update, script: op.update.script === null ? null : { ...op.update.script } } };
}

const cases: Record<string, DocOp> = {
  'a bulk index op': base,
  'a create with routing and an external version': { ...base, op: 'CREATE', routing: 'r1', version: 7, version_type: 'EXTERNAL' },
  'a delete with if_seq_no and a non-ASCII id': { ...base, op: 'DELETE', id: '京A·12345', source: null, if_seq_no: 123_456_789_012, if_primary_term: 1 },
  'an update with doc and upsert': {
    ...base,
    op: 'UPDATE',
    item: 4999,
    source: null,
    update: { doc: Buffer.from('{"a":1}'), upsert: Buffer.from('{"a":0}'), doc_as_upsert: true, detect_noop: false, script: null, scripted_upsert: false, by_query: false },
  },
  'an update with a doc only': {
    ...base,
    op: 'UPDATE',
    source: null,
    update: { doc: Buffer.from('{}'), upsert: null, doc_as_upsert: false, detect_noop: true, script: null, scripted_upsert: false, by_query: false },
  },
  'a scripted upsert with params': {
    ...base,
    op: 'UPDATE',
    source: null,
    update: {
      doc: null,
      upsert: Buffer.from('{"n":0}'),
      doc_as_upsert: false,
      detect_noop: true,
      script: { source: "ctx._source.n += params.k; ctx._source.tag = '京'", lang: 'painless', params_json: '{"k":2}' },
      scripted_upsert: true,
      by_query: false,
    },
  },
  'a by-query update with a version': {
    ...base,
    op: 'UPDATE',
    source: null,
    version: 3,
    update: { doc: null, upsert: null, doc_as_upsert: false, detect_noop: true, script: null, scripted_upsert: false, by_query: true },
  },
  'versions at the edges of the long range': { ...base, version: 9.2e18 - 2048, version_type: 'EXTERNAL_GTE', if_seq_no: 2 ** 53 + 2, if_primary_term: 2 ** 31 },
  'negative and small longs': { ...base, version: -3, version_type: 'FORCE', if_seq_no: -(2 ** 40), if_primary_term: -1, item: 63, timestamp: 0 },
  'a large negative long': { ...base, version: -(2 ** 62) },
  'an empty id and an empty source': { ...base, id: '', source: Buffer.alloc(0), request_id: '' },
  'characters outside the BMP': { ...base, id: 'plate-\u{1F697}', routing: '\u{20000}x' },
};

for (const [name, op] of Object.entries(cases)) {
  test(`${name}: the same bytes as avsc, and read back as avsc reads them`, () => {
    const mine = docOpCodec.encode(op);
    assert.deepEqual(mine, avsc.encode(op));
    assert.deepEqual(plain(docOpCodec.decode(mine)), plain(avsc.decode(mine)));
  });
}

test('a decoded op equals the one encoded', () => {
  for (const op of Object.values(cases)) assert.deepEqual(plain(docOpCodec.decode(docOpCodec.encode(op))), op);
});

test('a record cut short is refused, not misread', () => {
  const full = docOpCodec.encode(cases['an update with doc and upsert']);
  assert.throws(() => docOpCodec.decode(full.subarray(0, full.length - 3)));
});

test('docOpRoute reads the id, routing and kind of every kind of op without the rest, as the full decode does', () => {
  for (const [name, op] of Object.entries(cases)) {
    assert.deepEqual(docOpRoute(docOpCodec.encode(op)), { id: op.id, routing: op.routing, op: op.op }, name);
  }
});
