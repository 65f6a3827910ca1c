import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filterSource } from '../../../shared/engine/search/source-filter.ts';

const SOURCE = Buffer.from('{"include":{"field1":"v1","field2":"v2"},"count":1,"bigint":72057594037927936,"list":[{"a":1,"b":2},{"a":3}],"tags":["x","y"]}');

describe('_source filtering', () => {
  it('passes the source through unchanged without includes or excludes', () => {
    assert.equal(filterSource(SOURCE, [], []), SOURCE.toString());
  });

  it('includes a path and everything below it', () => {
    assert.equal(filterSource(SOURCE, ['include'], []), '{"include":{"field1":"v1","field2":"v2"}}');
    assert.equal(filterSource(SOURCE, ['include.field1'], []), '{"include":{"field1":"v1"}}');
  });

  it('keeps integers beyond 2^53 exact', () => {
    assert.equal(filterSource(SOURCE, ['bigint'], []), '{"bigint":72057594037927936}');
    assert.equal(filterSource(SOURCE, [], ['include', 'list', 'tags']), '{"count":1,"bigint":72057594037927936}');
  });

  it('supports wildcards in includes and excludes, excludes winning', () => {
    assert.equal(filterSource(SOURCE, ['include'], ['*.field2']), '{"include":{"field1":"v1"}}');
    assert.equal(filterSource(SOURCE, ['inc*'], []), '{"include":{"field1":"v1","field2":"v2"}}');
    assert.equal(filterSource(SOURCE, ['*'], ['count', 'bigint', 'list', 'tags']), '{"include":{"field1":"v1","field2":"v2"}}');
  });

  it('filters objects inside arrays and drops the ones left empty', () => {
    assert.equal(filterSource(SOURCE, ['list.b'], []), '{"list":[{"b":2}]}');
    assert.equal(filterSource(SOURCE, ['tags'], []), '{"tags":["x","y"]}');
  });

  it('excludes inside arrays of objects', () => {
    assert.equal(
      filterSource(SOURCE, [], ['list.a', 'include', 'bigint', 'tags']),
      '{"count":1,"list":[{"b":2}]}',
    );
  });

  it('returns an empty object when nothing matches', () => {
    assert.equal(filterSource(SOURCE, ['nope'], []), '{}');
  });

  it('keeps escapes and unicode in strings', () => {
    const src = '{"a":"line\\nbreak \\"q\\" \\u00e9","b":1.50}';
    assert.equal(filterSource(src, ['a', 'b'], []), '{"a":"line\\nbreak \\"q\\" é","b":1.50}');
  });
});
