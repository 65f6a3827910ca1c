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

describe('includes naming top-level fields (read without building the document)', () => {
  // The same filter with a pattern that matches nothing added goes the general way: both must agree.
  const general = (text: string, includes: string[]) => filterSource(text, [...includes, 'no-such-*'], []);
  const sources = [
    '{"land_id":"L0007","speed":52,"plate":"京A12345","pass_time":"2026-10-01 08:00:00"}',
    ' { "speed" : 52.50 , "land_id" : "L\\u0030\\"7" , "big": 12345678901234567890123 }\n',
    '{"land_id":{"a":1},"speed":[1,{"x":"}"}],"land":{"id":2}}',
    '{"speed":-0.5e-3,"land_id":null,"ok":true,"no":false,"empty":""}',
    '{"land_id":"a","land_id":"b","speed":1}',
    '{"land_id.x":1,"speed":2}',
    '{"s":"\\ud83d\\ude00 \\n tab\\t","speed":7,"land_id":"路\\/口"}',
    '{}',
    '[1,2]',
    '{"speed":1,"nested":{"speed":2,"list":[{"land_id":"x"}]},"land_id":"L1"}',
  ];
  it('keeps exactly what the general filter keeps, in source order, numbers as written', () => {
    for (const text of sources) {
      for (const includes of [['land_id'], ['speed', 'land_id'], ['land'], ['missing'], ['s', 'speed'], ['land_id', 'ok', 'no', 'empty']]) {
        assert.equal(filterSource(text, includes, []), general(text, includes), `${text} with ${includes.join(',')}`);
      }
    }
    assert.equal(filterSource(sources[0]!, ['speed', 'land_id'], []), '{"land_id":"L0007","speed":52}');
    assert.equal(filterSource(sources[1]!, ['big', 'land_id'], []), '{"land_id":"L0\\"7","big":12345678901234567890123}');
  });
});
