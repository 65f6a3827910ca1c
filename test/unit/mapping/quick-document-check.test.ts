/**
 * Mapping.passesQuickCheck: the write path skips parsing a document the quick
 * check passes, so it must never pass one the full check (strict JSON, then
 * Mapping.parse) refuses or would extend the mapping with.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Mapping } from '../../../shared/engine/mapping/mapping.ts';
import { bulkDocumentObject } from '../../../services/node/coordinator/document-check.ts';
import { generatePassRecords } from '../../../services/passinfo/pass-record-generator.ts';
import { PASSINFO } from './fixtures.ts';

const passinfo = Mapping.fromJSON('passinfo', PASSINFO, { analyzerExists: () => true });

/** A mapping with the types and shapes the quick check reads, and some it leaves to the parser. */
const wide = Mapping.fromJSON(
  '_doc',
  {
    properties: {
      k: { type: 'keyword', ignore_above: 5 },
      t: { type: 'text', fields: { raw: { type: 'keyword' }, n: { type: 'long' } } },
      l: { type: 'long' },
      i: { type: 'integer', coerce: false },
      s: { type: 'short' },
      b: { type: 'byte' },
      d: { type: 'double' },
      f: { type: 'float' },
      h: { type: 'half_float' },
      sf: { type: 'scaled_float', scaling_factor: 100 },
      bo: { type: 'boolean' },
      dt: { type: 'date', format: 'yyyy-MM-dd' },
      ip: { type: 'ip' },
      bin: { type: 'binary' },
      g: { type: 'geo_point' },
      gm: { type: 'geo_point', ignore_malformed: true },
      o: { properties: { a: { type: 'keyword' }, inner: { properties: { x: { type: 'integer' } } } } },
      off: { type: 'object', enabled: false },
      n: { type: 'nested', properties: { a: { type: 'keyword' } } },
      c: { type: 'keyword', copy_to: 'ct' },
      ct: { type: 'text' },
      al: { type: 'alias', path: 'k' },
      r: { type: 'integer_range' },
      st: { properties: { a: { type: 'keyword' } }, dynamic: 'strict' },
    },
  },
  { analyzerExists: () => true },
);

/** What the write path's full check says: accepted with no mapping update. */
function fullCheckAccepts(m: Mapping, doc: Buffer): boolean {
  try {
    return m.parse(bulkDocumentObject(doc), undefined, false).dynamicUpdate === null;
  } catch {
    return false;
  }
}

function agrees(m: Mapping, doc: Buffer): void {
  if (m.passesQuickCheck(doc)) assert.ok(fullCheckAccepts(m, doc), `quick check passed what the full check refuses: ${doc.toString('latin1')}`);
}

test('pass records pass the quick check, and the full check accepts each of them', () => {
  let n = 0;
  for (const r of generatePassRecords({ count: 2000 })) {
    const doc = Buffer.from(JSON.stringify(r));
    assert.equal(passinfo.passesQuickCheck(doc), true, doc.toString());
    assert.ok(fullCheckAccepts(passinfo, doc));
    n++;
  }
  assert.equal(n, 2000);
});

const PASSING = [
  '{}',
  ' \t\r\n{ "k" : "abc" }\r\n',
  '{"k":"abcdefgh"}', // over ignore_above: not indexed, not refused
  '{"k":["a","b"],"l":[]}',
  '{"t":"12","l":-0,"i":2147483647,"s":-32768,"b":127,"d":1.5e300,"f":-1.25E-3,"h":65504,"sf":1.234}',
  '{"l":"42","s":"7","d":"2.5","bo":"true","dt":"2020-01-02","ip":"10.0.0.1","bin":"aGVsbG8="}',
  '{"bo":false,"l":9007199254740993}',
  '{"g":{"lat":1.5,"lon":-2},"gm":{"lon":500,"lat":100}}',
  '{"g":"41.12,-71.34"}',
  '{"o":{"a":"x","inner":{"x":1}}}',
  '{"o":[{"a":"x"},{"a":"y","inner":{}}]}',
  '{"o":{"a":"甘M6UAG7 ünïcödé"}}',
];

test('documents of every type the quick check reads pass it, and the full check accepts them', () => {
  for (const text of PASSING) {
    const doc = Buffer.from(text);
    assert.equal(wide.passesQuickCheck(doc), true, text);
    assert.ok(fullCheckAccepts(wide, doc), text);
  }
});

const LEFT_TO_THE_PARSER = [
  // not JSON, or not as Jackson reads it
  '',
  '[]',
  '"x"',
  '{"k":"a",}',
  '{"k":"a"} x',
  '{"k":"a"}{',
  '{"k":"a"',
  "{'k':'a'}",
  '{"l":01}',
  '{"l":1.}',
  '{"l":.5}',
  '{"l":1e}',
  '{"l":+1}',
  '{"l":-}',
  '{"bo":tru}',
  '{"bo":True}',
  '{"k":"a" "t":"b"}',
  '{"k":"a\tb"}',
  '{"k":"a","k":"b"}',
  '{"o":{"a":"x","a":"y"}}',
  '\ufeff{"k":"a"}',
  // refused values
  '{"i":"12"}',
  '{"i":1.5}',
  '{"l":1e30}',
  '{"s":40000}',
  '{"b":128}',
  '{"h":70000}',
  '{"f":1e39}',
  '{"l":"abc"}',
  '{"bo":"yes"}',
  '{"bo":1}',
  '{"dt":"2020-13-45"}',
  '{"ip":"300.1.1.1"}',
  '{"bin":"***"}',
  '{"g":{"lat":100,"lon":0}}',
  '{"g":{"lat":1}}',
  '{"g":{"lat":1,"lon":2,"z":3}}',
  '{"g":{"lat":1,"lat":2}}',
  '{"t":"x","t":"y"}',
  '{"o":"flat"}',
  '{"k":{"a":1}}',
  '{"k":[["a"]]}',
  '{"t":"a","l":[1,"x"]}',
  '{"t":"abc"}'.replace('abc', 'x'.repeat(5)) + ' junk',
  // what only the parser decides: escapes, nulls, dynamic, metadata, dotted, special objects
  '{"k":"a\\"b"}',
  '{"k":null}',
  '{"new_field":1}',
  '{"_id":"1"}',
  '{"o.a":"x"}',
  '{"off":{"anything":1}}',
  '{"n":{"a":"x"}}',
  '{"c":"x"}',
  '{"al":"x"}',
  '{"r":{"gte":1}}',
  '{"st":{"b":"x"}}',
  '{"g":[1,2]}',
  '{"t":' + '['.repeat(3) + '"x"' + ']'.repeat(3) + '}',
];

test('what the quick check does not pass is left to the full check', () => {
  for (const text of LEFT_TO_THE_PARSER) assert.equal(wide.passesQuickCheck(Buffer.from(text)), false, text);
});

test('invalid UTF-8 inside a string is left to the full check', () => {
  const doc = Buffer.concat([Buffer.from('{"k":"a'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
  assert.equal(wide.passesQuickCheck(doc), false);
  const ok = Buffer.concat([Buffer.from('{"k":"a'), Buffer.from([0xc3, 0xa9]), Buffer.from('"}')]);
  assert.equal(wide.passesQuickCheck(ok), true);
});

test('a keyword term over 32,766 UTF-8 bytes is left to the full check (Lucene refuses it)', () => {
  const long = Buffer.from(JSON.stringify({ t: 'x', o: { a: 'é'.repeat(16_384) } }));
  assert.equal(wide.passesQuickCheck(long), false);
  assert.equal(fullCheckAccepts(wide, long), false);
  const fits = Buffer.from(JSON.stringify({ o: { a: 'é'.repeat(16_383) } }));
  assert.equal(wide.passesQuickCheck(fits), true);
});

test('the quick check and the full check agree on 30,000 documents with random byte edits', () => {
  let seed = 12345;
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const bases = [...PASSING.map((t) => [wide, Buffer.from(t)] as const), ...[...generatePassRecords({ count: 20 })].map((r) => [passinfo, Buffer.from(JSON.stringify(r))] as const)];
  const alphabet = Buffer.from('{}[]":,.-+eE0123456789 \\ntfalsru\u00e9x_kilo"');
  let passed = 0;
  for (let n = 0; n < 30_000; n++) {
    const [m, base] = bases[rand(bases.length)]!;
    const doc = Buffer.from(base);
    const edits = 1 + rand(2);
    let bytes: Buffer = doc;
    for (let e = 0; e < edits; e++) {
      const at = rand(bytes.length + 1);
      const b = alphabet[rand(alphabet.length)]!;
      const kind = rand(3);
      if (kind === 0 && at < bytes.length) bytes[at] = b;
      else if (kind === 1) bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from([b]), bytes.subarray(at)]);
      else bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
    }
    if (m.passesQuickCheck(bytes)) passed++;
    agrees(m, bytes);
  }
  // Many edits keep the document valid (a digit for a digit): the comparison is not only of refusals.
  assert.ok(passed > 1000, `only ${passed} edited documents passed`);
});
