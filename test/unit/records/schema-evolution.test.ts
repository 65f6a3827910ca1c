import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RecordCodec, loadSchema } from '../../../shared/records/avro-codec.ts';
import { docOpCodec, type DocOp } from '../../../shared/records/doc-op.ts';
import { metaEventCodec } from '../../../shared/records/meta-event.ts';

const op: DocOp = {
  request_id: 'n1:abc:0',
  item: 3,
  op: 'INDEX',
  index_uuid: 'uuid-1',
  type: '_doc',
  id: '42',
  routing: 'r1',
  source: Buffer.from('{"plate":"京A12345"}'),
  version: 7,
  version_type: 'EXTERNAL',
  if_seq_no: null,
  if_primary_term: null,
  update: null,
  timestamp: 1_790_000_000_000,
};

test('a DocOp round-trips through the current schema', () => {
  const back = docOpCodec.decode(docOpCodec.encode(op));
  assert.deepEqual({ ...back }, op);
});

test('a record written with the current schema is read by an evolved reader (a field added with a default)', () => {
  const written = docOpCodec.encode(op);
  const current = loadSchema('doc-op.avsc') as { fields: object[] };
  const evolved = { ...current, fields: [...current.fields, { name: 'trace_parent', type: 'string', default: 'none' }] };
  // The reader knows the current schema as the writer's version and is itself the next one.
  const reader = new RecordCodec<DocOp & { trace_parent: string }>(evolved as never, docOpCodec.version + 1, new Map([[docOpCodec.version, current as never]]));
  const read = reader.decode(written);
  assert.equal(read.trace_parent, 'none');
  assert.equal(read.id, '42');
  assert.equal(read.source!.toString(), '{"plate":"京A12345"}');
  assert.equal(read.version, 7);
});

test('a DocOp written before scripts (writer version 1) reads on: its update has no script and is no by-query update', () => {
  const current = loadSchema('doc-op.avsc') as { fields: { name: string; type: unknown }[] };
  const v1 = {
    ...current,
    fields: current.fields.map((f) => {
      if (f.name !== 'update') return f;
      const [nul, body] = f.type as [string, { fields: { name: string }[] }];
      return { ...f, type: [nul, { ...body, fields: body.fields.filter((x) => !['script', 'scripted_upsert', 'by_query'].includes(x.name)) }] };
    }),
  };
  const oldWriter = new RecordCodec<unknown>(v1 as never, 1);
  const written = oldWriter.encode({ ...op, op: 'UPDATE', source: null, update: { doc: Buffer.from('{"a":1}'), upsert: null, doc_as_upsert: false, detect_noop: true } });
  const read = docOpCodec.decode(written);
  assert.equal(read.update!.doc!.toString(), '{"a":1}');
  assert.equal(read.update!.script, null);
  assert.equal(read.update!.scripted_upsert, false);
  assert.equal(read.update!.by_query, false);
});

test('an unknown writer version is refused, not misread', () => {
  const written = docOpCodec.encode(op);
  written[1] = 9;
  assert.throws(() => docOpCodec.decode(written), /unknown writer schema version 9/);
});

test('versions above 2^53 are accepted (precision beyond 2^53 is not kept)', () => {
  const back = docOpCodec.decode(docOpCodec.encode({ ...op, version: 9.1e18 }));
  assert.equal(back.version, 9.1e18);
});

test('MetaEvent unions keep their branch', () => {
  const e = { request_id: 'x', timestamp: 1, event: { 'logsearch.PutMapping': { indices: ['u'], type: 't', mapping_json: '{}', dynamic: true } } };
  assert.deepEqual(JSON.parse(JSON.stringify(metaEventCodec.decode(metaEventCodec.encode(e as never)))), e);
});

test('a MetaEvent written before UpdateClusterSettings existed (writer version 1) reads on', () => {
  const schema = loadSchema('meta-event.avsc') as { fields: { name: string; type: unknown }[] };
  const v1 = {
    ...schema,
    fields: schema.fields.map((f) => (f.name === 'event' ? { ...f, type: (f.type as { name?: string }[]).filter((b) => b.name !== 'UpdateClusterSettings') } : f)),
  };
  const old = new RecordCodec(v1 as never, 1);
  const e = { request_id: 'x', timestamp: 1, event: { 'logsearch.SetIndexState': { indices: ['u'], closed: true } } };
  assert.deepEqual(JSON.parse(JSON.stringify(metaEventCodec.decode(old.encode(e as never)))), e);
  const settings = { request_id: 'y', timestamp: 2, event: { 'logsearch.UpdateClusterSettings': { persistent_json: '{}', transient_json: '{"a":"1"}' } } };
  assert.deepEqual(JSON.parse(JSON.stringify(metaEventCodec.decode(metaEventCodec.encode(settings as never)))), settings);
});

test('a MetaEvent written before index templates existed (writer version 2) reads on, and templates round-trip', () => {
  const schema = loadSchema('meta-event.avsc') as { fields: { name: string; type: unknown }[] };
  const v2 = {
    ...schema,
    fields: schema.fields.map((f) =>
      f.name === 'event' ? { ...f, type: (f.type as { name?: string }[]).filter((b) => b.name !== 'PutTemplate' && b.name !== 'DeleteTemplate') } : f,
    ),
  };
  const old = new RecordCodec(v2 as never, 2);
  const settings = { request_id: 'y', timestamp: 2, event: { 'logsearch.UpdateClusterSettings': { persistent_json: '{}', transient_json: '{"a":"1"}' } } };
  assert.deepEqual(JSON.parse(JSON.stringify(metaEventCodec.decode(old.encode(settings as never)))), settings);
  const put = { request_id: 'z', timestamp: 3, event: { 'logsearch.PutTemplate': { name: 't', create: true, template_json: '{"order":1}' } } };
  assert.deepEqual(JSON.parse(JSON.stringify(metaEventCodec.decode(metaEventCodec.encode(put as never)))), put);
  const del = { request_id: 'w', timestamp: 4, event: { 'logsearch.DeleteTemplate': { names: ['t*'] } } };
  assert.deepEqual(JSON.parse(JSON.stringify(metaEventCodec.decode(metaEventCodec.encode(del as never)))), del);
});

test('a MetaEvent written before stored scripts existed (writer version 3) reads on, and stored scripts round-trip', () => {
  const schema = loadSchema('meta-event.avsc') as { fields: { name: string; type: unknown }[] };
  const v3 = {
    ...schema,
    fields: schema.fields.map((f) =>
      f.name === 'event' ? { ...f, type: (f.type as { name?: string }[]).filter((b) => b.name !== 'PutStoredScript' && b.name !== 'DeleteStoredScript') } : f,
    ),
  };
  const old = new RecordCodec(v3 as never, 3);
  const del = { request_id: 'w', timestamp: 4, event: { 'logsearch.DeleteTemplate': { names: ['t*'] } } };
  assert.deepEqual(JSON.parse(JSON.stringify(metaEventCodec.decode(old.encode(del as never)))), del);
  const put = { request_id: 'z', timestamp: 5, event: { 'logsearch.PutStoredScript': { id: 's1', lang: 'painless', source: 'ctx._source.n += 1' } } };
  assert.deepEqual(JSON.parse(JSON.stringify(metaEventCodec.decode(metaEventCodec.encode(put as never)))), put);
  const gone = { request_id: 'v', timestamp: 6, event: { 'logsearch.DeleteStoredScript': { id: 's1' } } };
  assert.deepEqual(JSON.parse(JSON.stringify(metaEventCodec.decode(metaEventCodec.encode(gone as never)))), gone);
});

test('an UpdateSettings written before preserve_existing existed (writer version 4) reads as not preserving', () => {
  const schema = loadSchema('meta-event.avsc') as { fields: { name: string; type: unknown }[] };
  type Branch = { name?: string; fields?: { name: string }[] };
  const v4 = {
    ...schema,
    fields: schema.fields.map((f) =>
      f.name === 'event'
        ? { ...f, type: (f.type as Branch[]).map((b) => (b.name === 'UpdateSettings' ? { ...b, fields: b.fields!.filter((x) => x.name !== 'preserve_existing') } : b)) }
        : f,
    ),
  };
  const old = new RecordCodec(v4 as never, 4);
  const e = { request_id: 'x', timestamp: 1, event: { 'logsearch.UpdateSettings': { indices: ['u'], settings_json: '{"a":1}' } } };
  const read = metaEventCodec.decode(old.encode(e as never)) as unknown as { event: { 'logsearch.UpdateSettings': { preserve_existing: boolean; settings_json: string } } };
  assert.equal(read.event['logsearch.UpdateSettings'].preserve_existing, false);
  assert.equal(read.event['logsearch.UpdateSettings'].settings_json, '{"a":1}');
  const now = { request_id: 'y', timestamp: 2, event: { 'logsearch.UpdateSettings': { indices: ['u'], settings_json: '{}', preserve_existing: true } } };
  assert.deepEqual(JSON.parse(JSON.stringify(metaEventCodec.decode(metaEventCodec.encode(now as never)))), now);
});
