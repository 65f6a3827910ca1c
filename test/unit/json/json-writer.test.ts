/**
 * The shared JSON byte writer (shared/json/json-writer.ts) that the fetch
 * phase and `_bulk`'s answer write into must give what JSON.stringify gives.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonWriter } from '../../../shared/json/json-writer.ts';

test('numbers are written as JSON.stringify writes them', () => {
  const values = [0, 1, 9, 10, 99, 100, 12_345, 999_999_999_999_999, 1e15, 2 ** 53 - 1, 2 ** 53, -1, -(2 ** 53 - 1), -0, 1.5, 9.2e18, NaN, Infinity];
  const out = new JsonWriter(1);
  values.forEach((n, k) => {
    if (k > 0) out.byte(0x2c);
    out.number(n);
  });
  assert.equal(out.take().toString('latin1'), values.map((n) => JSON.stringify(n)).join(','));
});

test('strings and UTF-16 units are written as JSON.stringify writes them, escapes and non-ASCII included', () => {
  const strings = ['', 'plain-id_1', 'quote"in', 'back\\slash', 'tab\there', '\u0000\u001f', 'é', '京A12345', '\ud83d\ude00', 'lone \ud800', 'x'.repeat(5000)];
  const out = new JsonWriter(1);
  for (const s of strings) {
    out.jsonString(s);
    out.byte(0x2c);
    out.jsonUnits(Uint16Array.from({ length: s.length }, (_, k) => s.charCodeAt(k)), s.length);
    out.byte(0x2c);
  }
  const expected = strings.map((s) => `${JSON.stringify(s)},${JSON.stringify(s)},`).join('');
  assert.equal(out.take().toString('utf8'), expected);
});

test('text, ASCII and raw bytes are appended in order as the buffer grows', () => {
  const out = new JsonWriter(1);
  out.ascii('{"a":');
  out.raw(Buffer.from('[1,2]'));
  out.text(',"b":"ü"}');
  assert.equal(out.take().toString('utf8'), '{"a":[1,2],"b":"ü"}');
  assert.equal(out.length, Buffer.byteLength('{"a":[1,2],"b":"ü"}'));
});
