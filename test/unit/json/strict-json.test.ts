import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStrictJson } from '../../../shared/json/strict-json.ts';

function reasonOf(text: string): string {
  try {
    parseStrictJson(text);
  } catch (err) {
    return (err as Error).message;
  }
  return 'parsed';
}

test('strings with escaped quotes, backslashes and colons hide no key and invent none', () => {
  const text = String.raw`{"a":"x\":\"y","b\\":"c:d\\","e":{"f\"":"\\\"","g":["h:\\\\",":"]}}`;
  assert.deepEqual(parseStrictJson(text), JSON.parse(text));
});

test('a key twice in one object is an error even when a string before it ends in escaped backslashes', () => {
  assert.match(reasonOf(String.raw`{"a":"x\\","b":1,"a":2}`), /Duplicate field 'a'/);
  assert.match(reasonOf(String.raw`{"q":"\"","o":{"k":1,"k":2}}`), /Duplicate field 'k'/);
});

test('the same key in two objects is no duplicate', () => {
  assert.deepEqual(parseStrictJson('{"a":{"k":1},"b":{"k":2}}'), { a: { k: 1 }, b: { k: 2 } });
});

test('an unterminated string is a parse error, not a hang', () => {
  assert.notEqual(reasonOf('{"a":"abc'), 'parsed');
  assert.notEqual(reasonOf(String.raw`{"a":"abc\"}`), 'parsed');
});

test('nesting deeper than 1,000 levels is refused, brackets inside strings not counted', () => {
  assert.notEqual(reasonOf('['.repeat(1001) + ']'.repeat(1001)), 'parsed');
  const inString = `{"a":"${'['.repeat(2000)}"}`;
  assert.deepEqual(parseStrictJson(inString), JSON.parse(inString));
});
