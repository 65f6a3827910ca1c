/**
 * `_bulk` action lines: quickActionLine reads the plain ones from their bytes
 * and must say exactly what readActionLine (the strict reading, with
 * Elasticsearch's errors) says, or leave the line to it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quickActionLine, readActionLine } from '../../../services/node/rest/routes/bulk-action-line.ts';

function quick(text: string): ReturnType<typeof quickActionLine> {
  const body = Buffer.from(text);
  return quickActionLine(body, 0, body.length);
}

function strict(text: string): ReturnType<typeof readActionLine> | 'refused' {
  try {
    return readActionLine(text, 1);
  } catch {
    return 'refused';
  }
}

const PLAIN = [
  '{"index":{}}',
  '{"index":{"_type":"passinfo","_id":"E16-00000000"}}',
  ' { "create" : { "_index" : "a" , "_id" : "1" } } \r',
  '{"delete":{"_index":"a","_type":"_doc","_id":"x","routing":"r","version":3,"version_type":"external"}}',
  '{"update":{"_id":"7","_routing":"r2","retry_on_conflict":3,"if_seq_no":5,"if_primary_term":1}}',
  '{"index":{"_id":12,"parent":"p","_version":-4,"_version_type":"external_gte","pipeline":"x","op_type":"create"}}',
  '{"index":{"_id":"é甘","routing":"","_parent":"q","versionType":"force"}}',
  '{"index":{"_id":-0}}',
];

test('plain action lines are read from their bytes as the strict reading reads them', () => {
  for (const text of PLAIN) {
    const q = quick(text);
    assert.notEqual(q, null, text);
    assert.deepEqual(q, strict(text), text);
  }
});

const LEFT_TO_THE_STRICT_READING = [
  '',
  '{}',
  '[]',
  '"index"',
  '{"index":{}',
  '{"index":{}}}',
  '{"index":{}} x',
  '{"index":{},"delete":{}}',
  '{"upsert":{}}',
  '{"index":[]}',
  '{"index":null}',
  '{"index":{"_id":"1","_id":"2"}}',
  '{"index":{"_id":"a\\"b"}}',
  '{"index":{"_id":"a\tb"}}',
  '{"index":{"_id":null}}',
  '{"index":{"_id":true}}',
  '{"index":{"_id":1.5}}',
  '{"index":{"_id":1e3}}',
  '{"index":{"_id":01}}',
  '{"index":{"_id":1234567890123456}}',
  '{"index":{"_id":{"a":1}}}',
  '{"index":{"version":"12"}}',
  '{"index":{"unknown":"x"}}',
  '{"index":{"_source":true}}',
  '{"index":{"fields":["a"]}}',
  '{"index":{"_id":"1",}}',
  '{"index":{"_id" "1"}}',
  "{'index':{}}",
];

test('anything else is left to the strict reading', () => {
  for (const text of LEFT_TO_THE_STRICT_READING) assert.equal(quick(text), null, text);
});

test('a line of a larger body is read between its offsets only', () => {
  const body = Buffer.from('{"index":{"_id":"1"}}\n{"a":1}\n');
  assert.deepEqual(quickActionLine(body, 0, 21), strict('{"index":{"_id":"1"}}'));
  assert.equal(quickActionLine(body, 0, 20), null);
});

test('random edits of action lines: the quick reading is null or the strict reading', () => {
  let seed = 7;
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const alphabet = Buffer.from('{}[]":,.-+e0123456789 \\t_idxnu');
  let read = 0;
  for (let n = 0; n < 20_000; n++) {
    let bytes = Buffer.from(PLAIN[rand(PLAIN.length)]!);
    const at = rand(bytes.length + 1);
    const b = alphabet[rand(alphabet.length)]!;
    const kind = rand(3);
    if (kind === 0 && at < bytes.length) bytes[at] = b;
    else if (kind === 1) bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from([b]), bytes.subarray(at)]);
    else bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
    if (!isUtf8Text(bytes)) continue;
    const q = quickActionLine(bytes, 0, bytes.length);
    if (q === null) continue;
    read++;
    assert.deepEqual(q, strict(bytes.toString('utf8')), bytes.toString('utf8'));
  }
  assert.ok(read > 1000, `only ${read} edited lines were read quickly`);
});

/** parseBulk refuses a body that is not UTF-8 before reading its lines. */
function isUtf8Text(b: Buffer): boolean {
  return Buffer.from(b.toString('utf8')).equals(b);
}
