import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyDocOp } from '../../../services/node/shard-worker/apply-doc-op.ts';
import type { DocOp } from '../../../shared/records/doc-op.ts';
import type { DocState } from '../../../shared/engine/store/doc-state.ts';

const coords = { index: 'i', uuid: 'u', shard: 0, type: '_doc', id: '1' };
const base: DocOp = {
  request_id: 'r',
  item: 0,
  op: 'INDEX',
  index_uuid: 'u',
  type: '_doc',
  id: '1',
  routing: null,
  source: Buffer.from('{"a":1}'),
  version: null,
  version_type: 'INTERNAL',
  if_seq_no: null,
  if_primary_term: null,
  update: null,
  timestamp: 0,
};
const live = (version: number, source = '{"a":1}'): DocState => ({ version, seqNo: 5, deleted: false, routing: null, source: Buffer.from(source) });
const tombstone = (version: number): DocState => ({ version, seqNo: 5, deleted: true, routing: null, source: null });

function ok(o: ReturnType<typeof applyDocOp>) {
  assert.ok(o.ok, `expected success, got ${!o.ok ? o.error.reason : ''}`);
  return o;
}
function err(o: ReturnType<typeof applyDocOp>) {
  assert.ok(!o.ok, 'expected a failure');
  return o.error;
}

test('index of a new id creates version 1 at the record offset', () => {
  const o = ok(applyDocOp(undefined, base, 17, coords));
  assert.equal(o.result, 'created');
  assert.equal(o.version, 1);
  assert.equal(o.seqNo, 17);
});

test('index over a live doc updates and increments the version', () => {
  const o = ok(applyDocOp(live(3), base, 18, coords));
  assert.equal(o.result, 'updated');
  assert.equal(o.version, 4);
});

test('index after a delete continues from the tombstone version', () => {
  const o = ok(applyDocOp(tombstone(4), base, 19, coords));
  assert.equal(o.result, 'created');
  assert.equal(o.version, 5);
});

test('internal version must match the current one', () => {
  const e = err(applyDocOp(live(2), { ...base, version: 1 }, 1, coords));
  assert.equal(e.status, 409);
  assert.equal(e.reason, '[_doc][1]: version conflict, current version [2] is different than the one provided [1]');
  assert.equal(ok(applyDocOp(live(2), { ...base, version: 2 }, 1, coords)).version, 3);
});

test('external: greater applies, equal or lower conflicts; external_gte accepts equal', () => {
  assert.equal(ok(applyDocOp(live(5), { ...base, version: 6, version_type: 'EXTERNAL' }, 1, coords)).version, 6);
  assert.match(err(applyDocOp(live(5), { ...base, version: 5, version_type: 'EXTERNAL' }, 1, coords)).reason, /higher or equal to the one provided \[5\]/);
  assert.equal(ok(applyDocOp(live(5), { ...base, version: 5, version_type: 'EXTERNAL_GTE' }, 1, coords)).version, 5);
  assert.match(err(applyDocOp(live(5), { ...base, version: 4, version_type: 'EXTERNAL_GTE' }, 1, coords)).reason, /higher than the one provided \[4\]/);
  assert.equal(ok(applyDocOp(undefined, { ...base, version: 0, version_type: 'EXTERNAL' }, 1, coords)).version, 0);
});

test('create conflicts with a live doc but not with a tombstone', () => {
  const e = err(applyDocOp(live(1), { ...base, op: 'CREATE' }, 1, coords));
  assert.equal(e.reason, '[_doc][1]: version conflict, document already exists (current version [1])');
  assert.equal(ok(applyDocOp(tombstone(2), { ...base, op: 'CREATE' }, 1, coords)).version, 3);
});

test('delete of a live doc bumps the version; of a missing one is not_found with version 1', () => {
  const d = ok(applyDocOp(live(1), { ...base, op: 'DELETE', source: null }, 1, coords));
  assert.equal(d.result, 'deleted');
  assert.equal(d.version, 2);
  assert.equal(d.next?.deleted, true);
  const m = ok(applyDocOp(undefined, { ...base, op: 'DELETE', source: null }, 1, coords));
  assert.equal(m.result, 'not_found');
  assert.equal(m.version, 1);
});

test('update: partial merge, noop detection, upsert, missing document', () => {
  const upd = (doc: string | null, extra: Partial<NonNullable<DocOp['update']>> = {}): DocOp => ({
    ...base,
    op: 'UPDATE',
    source: null,
    update: { doc: doc === null ? null : Buffer.from(doc), upsert: null, doc_as_upsert: false, detect_noop: true, script: null, scripted_upsert: false, by_query: false, ...extra },
  });
  const merged = ok(applyDocOp(live(1, '{"a":1,"o":{"x":1}}'), upd('{"o":{"y":2}}'), 9, coords));
  assert.equal(merged.result, 'updated');
  assert.deepEqual(JSON.parse(merged.next!.source!.toString()), { a: 1, o: { x: 1, y: 2 } });
  const noop = ok(applyDocOp(live(3, '{"a":1}'), upd('{"a":1}'), 9, coords));
  assert.equal(noop.result, 'noop');
  assert.equal(noop.version, 3);
  assert.equal(noop.next, null);
  assert.equal(err(applyDocOp(undefined, upd('{"a":1}'), 9, coords)).type, 'document_missing_exception');
  const up = ok(applyDocOp(undefined, upd('{"a":1}', { doc_as_upsert: true }), 9, coords));
  assert.equal(up.result, 'created');
  assert.equal(up.version, 1);
});

test('the same log applied to two copies gives identical states and outcomes', () => {
  const ops: DocOp[] = [
    base,
    { ...base, source: Buffer.from('{"a":2}') },
    { ...base, op: 'CREATE' },
    { ...base, op: 'DELETE', source: null },
    { ...base, op: 'CREATE', source: Buffer.from('{"b":1}') },
    { ...base, version: 99, version_type: 'EXTERNAL' },
  ];
  const run = () => {
    let state: DocState | undefined;
    return ops.map((op, i) => {
      const o = applyDocOp(state, op, i, coords);
      if (o.ok && o.next) state = o.next;
      return o.ok ? `${o.result}:${o.version}:${o.seqNo}` : `err:${o.error.reason}`;
    });
  };
  assert.deepEqual(run(), run());
  assert.deepEqual(run(), [
    'created:1:0',
    'updated:2:1',
    'err:[_doc][1]: version conflict, document already exists (current version [2])',
    'deleted:3:3',
    'created:4:4',
    'updated:99:5',
  ]);
});
