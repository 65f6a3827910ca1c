import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OutcomeRing } from '../../../services/node/indexer/outcome-ring.ts';
import type { DocOutcome } from '../../../services/node/shard-worker/apply-doc-op.ts';
import { EsError } from '../../../shared/errors/es-errors.ts';

const created = (version: number, seqNo: number): DocOutcome => ({ ok: true, result: 'created', version, seqNo, next: null, source: null });

test('an applied outcome is found by its offset, without the state it stored', () => {
  const ring = new OutcomeRing(8);
  ring.record(5, { ok: true, result: 'deleted', version: 3, seqNo: 5, next: { version: 3, seqNo: 5, deleted: true, routing: null, source: null }, source: null });
  assert.deepEqual(ring.get(5), { ok: true, result: 'deleted', version: 3, seqNo: 5, next: null, source: null });
  assert.equal(ring.get(4), undefined);
});

test('failures and updates keep their whole outcome', () => {
  const ring = new OutcomeRing(8);
  const conflict: DocOutcome = { ok: false, error: new EsError('version_conflict_engine_exception', 'conflict', 409) };
  const updated: DocOutcome = { ok: true, result: 'updated', version: 2, seqNo: 1, next: null, source: Buffer.from('{"a":1}') };
  ring.record(0, conflict);
  ring.record(1, updated);
  assert.equal(ring.get(0), conflict);
  assert.equal(ring.get(1), updated);
});

test('an offset is forgotten once its slot is reused, capacity ops later', () => {
  const ring = new OutcomeRing(4);
  for (let o = 0; o < 6; o++) ring.record(o, created(1, o));
  assert.equal(ring.get(0), undefined);
  assert.equal(ring.get(1), undefined);
  assert.deepEqual(ring.get(2), created(1, 2));
  assert.deepEqual(ring.get(5), created(1, 5));
});

test('a slot that held a failure holds a later success cleanly', () => {
  const ring = new OutcomeRing(2);
  ring.record(0, { ok: false, error: new EsError('x', 'y', 400) });
  ring.record(2, created(7, 2));
  assert.deepEqual(ring.get(2), created(7, 2));
});

test('an index op that replaced a document (updated, no source) is kept without an object, and read back the same', () => {
  const ring = new OutcomeRing(8);
  const replaced: DocOutcome = { ok: true, result: 'updated', version: 2, seqNo: 3, next: null, source: null };
  const noop: DocOutcome = { ok: true, result: 'noop', version: 2, seqNo: 3, next: null, source: null };
  ring.record(3, replaced);
  ring.record(4, noop);
  assert.equal(ring.objectCount, 0);
  assert.deepEqual(ring.get(3), replaced);
  assert.deepEqual(ring.get(4), noop);
  ring.record(5, { ok: true, result: 'updated', version: 3, seqNo: 5, next: null, source: Buffer.from('{}') });
  assert.equal(ring.objectCount, 1);
});
