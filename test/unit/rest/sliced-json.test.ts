/**
 * The sliced JSON reader (services/node/rest/sliced-json.ts) reads what
 * JSON.parse reads, value for value, and refuses what parseStrictJson
 * refuses, with the same error types.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStrictJsonSliced } from '../../../services/node/rest/sliced-json.ts';
import { parseStrictJson } from '../../../shared/json/strict-json.ts';
import { EsError } from '../../../shared/errors/es-errors.ts';
import { strictJsonSteps } from '../../../shared/json/json-steps.ts';

/** Always the sliced path, whatever the size. */
const sliced = (text: string | Buffer) => parseStrictJsonSliced(Buffer.isBuffer(text) ? text : Buffer.from(text), 0);

let seed = 7;
function rnd(n: number): number {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
}

function randomValue(depth: number): unknown {
  switch (depth > 4 ? rnd(5) : rnd(7)) {
    case 0:
      return rnd(2) === 0;
    case 1:
      return null;
    case 2:
      return [0, -1, 1.5, -0.25e-7, 2 ** 64, Number.MAX_SAFE_INTEGER + 2, 1e308][rnd(7)];
    case 3:
      return ['', 'plain', 'quote " and \\ backslash', 'tab\tnewline\n', 'é 京 \u{1F600}', '\u0001\u001f', '__proto__'][rnd(7)];
    case 4:
      return `s${rnd(1000)}`;
    case 5:
      return Array.from({ length: rnd(4) }, () => randomValue(depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      const keys = ['a', 'b', 'constructor', 'prototype', 'k é', 'x.y', ''];
      for (let k = rnd(5); k > 0; k--) o[keys[rnd(keys.length)]!] = randomValue(depth + 1);
      return o;
    }
  }
}

test('numbers beyond double precision read as JSON.parse reads them', async () => {
  const text = '[9223372036854775807,12345678901234567890,9007199254740993,1e400,-0]';
  assert.deepEqual(await sliced(text), JSON.parse(text));
});

test('reads 500 generated documents exactly as JSON.parse does, whitespace and all', async () => {
  for (let n = 0; n < 500; n++) {
    const value = randomValue(0);
    const text = rnd(2) === 0 ? JSON.stringify(value) : JSON.stringify(value, null, rnd(2) === 0 ? 2 : '\t');
    assert.deepEqual(await sliced(text), JSON.parse(text), text);
  }
});

test('__proto__ is an own key, not the prototype', async () => {
  const v = (await sliced('{"__proto__":{"polluted":1},"a":{"__proto__":[1]}}')) as Record<string, unknown>;
  assert.deepEqual(Object.keys(v), ['__proto__', 'a']);
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.deepEqual(Object.getOwnPropertyDescriptor(v, '__proto__')?.value, { polluted: 1 });
});

test('a 3 MB body takes the sliced path by default and agrees with parseStrictJson', async () => {
  const doc = { items: Array.from({ length: 40_000 }, (_, i) => ({ name: `item-${i}`, value: i, tags: ['x', 'y'], inner: { a: i / 3 } })) };
  const raw = Buffer.from(JSON.stringify(doc));
  assert.ok(raw.length > 1 << 20);
  assert.deepEqual(await parseStrictJsonSliced(raw), parseStrictJson(raw));
});

async function refusal(text: string | Buffer): Promise<EsError> {
  try {
    await sliced(text);
  } catch (err) {
    assert.ok(err instanceof EsError, String(err));
    return err;
  }
  assert.fail(`accepted ${String(text)}`);
}

test('refuses what parseStrictJson refuses, as json_parse_exception', async () => {
  const bad = ['{"a":1,"a":2}', '{"o":{"k":1,"k":1}}', '{"a":1,}', '[1,]', '{"a" 1}', '{a:1}', "{'a':1}", '[01]', '[1.]', '[-]', '[1e]', 'tru', 'nul', '{"a":1} x', '"\u0001"', '{', '[', '', '  '];
  for (const text of bad) {
    const e = await refusal(text);
    assert.equal(e.type, 'json_parse_exception', text);
    assert.throws(() => parseStrictJson(text), EsError, `parseStrictJson accepts ${text}`);
  }
  assert.match((await refusal('{"a":1,"a":2}')).reason, /^Duplicate field 'a'/);
});

test('nesting: 1,000 levels are read, 1,001 refused with Jackson\'s message', async () => {
  assert.deepEqual(await sliced('['.repeat(1000) + ']'.repeat(1000)), JSON.parse('['.repeat(1000) + ']'.repeat(1000)));
  const e = await refusal('['.repeat(1001) + ']'.repeat(1001));
  assert.match(e.reason, /^Document nesting depth \(1001\) exceeds the maximum allowed \(1000/);
});

test('bytes that are not UTF-8 are refused, naming the byte', async () => {
  const e = await refusal(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]));
  assert.equal(e.type, 'json_parse_exception');
  assert.match(e.reason, /Invalid UTF-8 start byte 0xff/);
});

/** Steps the reader takes for `text` (yields of the generator). */
function stepsOf(text: string): { value: unknown; steps: number } {
  const gen = strictJsonSteps(Buffer.from(text));
  let steps = 0;
  for (;;) {
    const r = gen.next();
    if (r.done === true) return { value: r.value, steps };
    steps++;
  }
}

test('a 4 MB string value is read in steps of 64 K characters, not in one', () => {
  const text = JSON.stringify({ analyzer: 'standard', text: 'lorem ipsum dolor sit amet '.repeat(150_000) });
  const { value, steps } = stepsOf(text);
  assert.deepEqual(value, JSON.parse(text));
  assert.ok(steps >= 60, `${steps} steps`);
});

test('long strings read as JSON.parse reads them: escapes across step bounds, many escapes, long keys', async () => {
  const run = 65_536;
  const texts = [
    JSON.stringify(['a'.repeat(run - 1) + '"' + 'b'.repeat(run + 1) + '\\']),
    JSON.stringify(['a'.repeat(run) + '\n' + 'é'.repeat(run + 3) + '\u0001']),
    JSON.stringify({ ['k'.repeat(3 * run)]: 'v'.repeat(2 * run + 1), x: '\t'.repeat(20_000) }),
    `["${'\\u0041'.repeat(30_000)}${'z'.repeat(run * 2)}"]`,
  ];
  for (const text of texts) {
    assert.deepEqual(await sliced(text), JSON.parse(text));
    assert.ok(stepsOf(text).steps >= 1);
  }
});

test('a long string refused as parseStrictJson refuses it: a control character past the first steps, no end', async () => {
  for (const text of [`["${'a'.repeat(200_000)}\u0001"]`, `["${'a'.repeat(200_000)}`, `["${'a'.repeat(200_000)}\\`]) {
    const e = await refusal(text);
    assert.equal(e.type, 'json_parse_exception');
    assert.throws(() => parseStrictJson(text), EsError);
  }
  assert.match((await refusal(`["${'a'.repeat(200_000)}\u0001"]`)).reason, /CTRL-CHAR, code 1.*position 200002/);
});
