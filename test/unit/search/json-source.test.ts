/**
 * The request body as the DSL parsers read it (json-source.ts): values as
 * JSON.parse gives them, and the line and column where a value, a field name
 * or a container starts, as error messages report them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readJsonSource, jsonSourceOf, type JsonMap } from '../../../shared/dsl/query/json-source.ts';

const text = [
  '{',
  '  "query" : {',
  '    "bool": { "filter": [ {"term": {"plate": "京a12"}},',
  '      { "terms": { "land_id": ["L0001",  "L0002", "L\\u0030\\"3"] } } ] }',
  '  },',
  '  "size": 10, "from": -0.5e3, "big": 123456789012345678901,',
  '  "t": true, "f": false, "n": null, "__proto__": {"x": 1}, "size": 20, "esc\\"aped": "a\\nb"',
  '}',
].join('\n');

describe('json-source', () => {
  const src = readJsonSource(text);
  const root = src.root as JsonMap;
  const query = root.query as JsonMap;
  const bool = query.bool as JsonMap;
  const filter = bool.filter as JsonMap[];
  const terms = filter[1]!.terms as JsonMap;
  const lands = terms.land_id as string[];

  it('reads the values JSON.parse reads, big integers as bigints and __proto__ as data', () => {
    const plain = JSON.parse(text.replace('123456789012345678901', '0')) as Record<string, unknown>;
    assert.deepEqual({ ...root, big: 0 }, plain);
    assert.equal(root.big, 123456789012345678901n);
    assert.equal(Object.getPrototypeOf(root), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(root, '__proto__')?.value, { x: 1 });
    assert.deepEqual(lands, ['L0001', 'L0002', 'L0"3']);
    assert.equal(root['esc"aped'], 'a\nb');
    assert.equal(root.size, 20);
  });

  /** Line and column of the `nth` occurrence of `needle` in the text, counted here independently. */
  const where = (needle: string, nth = 0, body = text) => {
    let at = -1;
    for (let i = 0; i <= nth; i++) at = body.indexOf(needle, at + 1);
    assert.ok(at >= 0, needle);
    const before = body.slice(0, at).split('\n');
    return { line: before.length, col: before[before.length - 1]!.length + 1 };
  };

  it('locates values, field names and containers by line and column', () => {
    assert.deepEqual(src.of(root), { line: 1, col: 1 });
    assert.deepEqual(src.keyAt(root, 'query'), where('"query"'));
    assert.deepEqual(src.at(root, 'query'), where('{', 1));
    assert.deepEqual(src.at(bool, 'filter'), where('['));
    assert.deepEqual(src.at(filter, 0), where('{"term"'));
    assert.deepEqual(src.at(filter, 1), where('{ "terms"'));
    assert.deepEqual(src.of(lands), where('["L0001"'));
    assert.deepEqual(src.at(lands, 1), where('"L0002"'));
    assert.deepEqual(src.at(lands, 2), where('"L\\u0030'));
    assert.deepEqual(src.at(root, 'from'), where('-0.5e3'));
    assert.deepEqual(src.keyAt(root, 'esc"aped'), where('"esc'));
    // A key twice names its last value, the one kept.
    assert.deepEqual(src.at(root, 'size'), where('20'));
    // Nothing there: the container's own start.
    assert.deepEqual(src.at(lands, 7), where('["L0001"'));
    assert.deepEqual(src.at(bool, 'must'), where('{ "filter"'));
    assert.deepEqual(src.keyAt(bool, 'must'), where('{ "filter"'));
    assert.deepEqual(src.of({}), { line: 1, col: 1 });
  });

  it('locates a parsed body as its compact JSON', () => {
    const s = jsonSourceOf({ a: [1, { b: 'x' }] });
    const a = (s.root as JsonMap).a as JsonMap[];
    const compact = '{"a":[1,{"b":"x"}]}';
    assert.deepEqual(s.at(a, 1), where('{"b"', 0, compact));
    assert.deepEqual(s.keyAt(a[1]!, 'b'), where('"b"', 0, compact));
  });

  it('fails as Jackson does, with the line and column of the fault', () => {
    assert.throws(() => readJsonSource('{\n  "a": [1, 2,\n  }'), /Unexpected character \('}' \(code 125\)\)[\s\S]*line: 3, column: 3/);
    assert.throws(() => readJsonSource('{"a": "x\ny"}'), /Illegal character in a string[\s\S]*line: 1, column: 12/);
    assert.throws(() => readJsonSource('{"a": tru}'), /Unexpected character \('t'/);
  });
});
