/**
 * `_bulk` response items written as bytes (routes/bulk-response.ts) must be
 * byte for byte the generic serialiser's JSON of writeResponse's object.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BulkItemWriter } from '../../../services/node/rest/routes/bulk-response.ts';
import { JsonWriter } from '../../../shared/json/json-writer.ts';
import { writeResponse, writeStatus } from '../../../services/node/rest/routes/documents.ts';
import type { WriteSuccess } from '../../../services/node/coordinator/write-coordinator.ts';

function success(over: Partial<WriteSuccess>): WriteSuccess {
  return {
    ok: true, index: 'logs', type: '_doc', id: '1', version: 1, result: 'created', seqNo: 0,
    shardsTotal: 2, shardsSuccessful: 1, source: null, forcedRefresh: false, ...over,
  };
}

const CASES: WriteSuccess[] = [
  success({}),
  success({ id: 'E16-00000000', version: 7, result: 'updated', seqNo: 123_456_789, forcedRefresh: true }),
  success({ id: 'é甘😀', index: 'ünï', type: 't"q', result: 'deleted' }),
  success({ id: 'a"b\\c\nd\u0001\u007f', result: 'not_found', shardsTotal: 0, shardsSuccessful: 0 }),
  success({ id: '\ud800', version: 9_007_199_254_740_991, seqNo: 1e15 }),
  success({ id: '', version: 10, seqNo: -1, result: 'noop' }),
  success({ id: 'x'.repeat(600), index: 'i'.repeat(300) }),
];

test('a successful item is the generic JSON of writeResponse, whatever its id, index, numbers and result', () => {
  const items = new BulkItemWriter();
  for (const action of ['index', 'create', 'delete']) {
    const out = new JsonWriter(16);
    const expected: string[] = [];
    CASES.forEach((r, k) => {
      if (k > 0) out.byte(0x2c);
      items.success(out, action, r, writeStatus(r));
      expected.push(JSON.stringify({ [action]: { ...writeResponse(r), status: writeStatus(r) } }));
    });
    assert.equal(out.take().toString('utf8'), expected.join(','));
  }
});
