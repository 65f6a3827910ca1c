import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EsError, renderError } from '../../../shared/errors/es-errors.ts';
import { parseSearchBody } from '../../../shared/dsl/query/search-body.ts';
import { SNAPSHOT, ctx } from './corpus.ts';
import { run } from './fixtures.ts';

function parseError(body: unknown): EsError {
  try {
    parseSearchBody(body, {});
  } catch (e) {
    assert.ok(e instanceof EsError, `not an EsError: ${String(e)}`);
    return e;
  }
  assert.fail('expected an error');
}

function shardError(body: unknown): EsError {
  try {
    run(SNAPSHOT, ctx(), body);
  } catch (e) {
    assert.ok(e instanceof EsError, `not an EsError: ${String(e)}`);
    return e;
  }
  assert.fail('expected an error');
}

describe('query DSL parse errors (400, Elasticsearch 6.8 texts)', () => {
  it('unknown query type, with the line and column of its body', () => {
    const e = parseError('{"query":{"foo":{}}}');
    assert.equal(e.status, 400);
    assert.equal(e.type, 'parsing_exception');
    assert.equal(e.reason, 'no [query] registered for [foo]');
    assert.deepEqual(e.extra, { line: 1, col: 17 });
  });

  it('locates errors in a pretty-printed body', () => {
    const e = parseError('{\n  "query": {\n    "bool": {\n      "must": { "nope": {} }\n    }\n  }\n}');
    assert.equal(e.reason, 'no [query] registered for [nope]');
    assert.deepEqual(e.extra, { line: 4, col: 25 });
  });

  it('a parsed object is located as compact JSON', () => {
    assert.deepEqual(parseError({ query: { foo: {} } }).extra, { line: 1, col: 17 });
  });

  it('match with two fields', () => {
    const e = parseError({ query: { match: { a: 'x', b: 'y' } } });
    assert.equal(e.type, 'parsing_exception');
    assert.equal(e.reason, "[match] query doesn't support multiple fields, found [a] and [b]");
  });

  it('term without an object after the query name', () => {
    const e = parseError({ query: { term: 'x' } });
    assert.equal(e.reason, '[term] query malformed, no start_object after query name');
  });

  it('unknown options of a query', () => {
    assert.equal(parseError({ query: { match: { a: { query: 'x', foo: 1 } } } }).reason, '[match] query does not support [foo]');
    assert.equal(parseError({ query: { range: { n: { gte: 1, foo: 1 } } } }).reason, '[range] query does not support [foo]');
    assert.equal(parseError({ query: { bool: { must: [], foo: {} } } }).reason, '[bool] query does not support [foo]');
    assert.equal(parseError({ query: { term: { a: { value: 'x', foo: 1 } } } }).reason, '[term] query does not support [foo]');
  });

  it('two queries in one clause', () => {
    const e = parseError({ query: { match_all: {}, term: { a: 'b' } } });
    assert.equal(e.reason, '[match_all] malformed query, expected [END_OBJECT] but found [FIELD_NAME]');
  });

  it('an empty clause', () => {
    const e = parseError({ query: { bool: { must: [{}] } } });
    assert.equal(e.type, 'illegal_argument_exception');
    assert.match(e.reason, /^query malformed, empty clause found at \[1:\d+\]$/);
  });

  it('a query missing its text', () => {
    assert.equal(parseError({ query: { match: { a: { operator: 'and' } } } }).reason, 'No text specified for text query');
  });

  it('unknown top-level keys of the search body', () => {
    const e = parseError({ match: { foo: 'bar' } });
    assert.equal(e.type, 'parsing_exception');
    assert.equal(e.reason, 'Unknown key for a START_OBJECT in [match].');
    assert.equal(parseError({ query: 'x' }).reason, 'Unknown key for a VALUE_STRING in [query].');
  });

  it('negative from and size', () => {
    assert.throws(() => parseSearchBody({}, { from: -2 }), /\[from\] parameter cannot be negative/);
    assert.throws(() => parseSearchBody({ size: -1 }, {}), /\[size\] parameter cannot be negative, found \[-1\]/);
  });

  it('malformed JSON', () => {
    assert.equal(parseError('{"query": {').type, 'json_parse_exception');
  });

  it('bad sort order and sort options', () => {
    assert.throws(() => parseSearchBody({ sort: [{ n: 'up' }] }, {}), /Unknown SortOrder \[up\]/);
    const e = parseError({ sort: [{ n: { order: 'asc', foo: 1 } }] });
    assert.equal(e.type, 'x_content_parse_exception');
    assert.match(e.reason, /\[field_sort\] unknown field \[foo\], parser not found/);
  });
});

describe('shard-level query errors', () => {
  it('a bad number on a numeric field is query_shard_exception caused by number_format_exception', () => {
    const e = shardError({ query: { term: { n: 'abc' } } });
    assert.equal(e.type, 'query_shard_exception');
    assert.equal(e.status, 400);
    assert.equal(e.reason, 'failed to create query: {\n  "term" : {\n    "n" : {\n      "value" : "abc",\n      "boost" : 1.0\n    }\n  }\n}');
    assert.equal(e.causedBy?.type, 'number_format_exception');
    assert.equal(e.causedBy?.reason, 'For input string: "abc"');
    const rendered = renderError(e);
    assert.equal(rendered.error.root_cause[0]!.type, 'query_shard_exception');
  });

  it('the reason prints the whole query with its defaults', () => {
    const e = shardError({ query: { bool: { filter: [{ range: { n: { gte: 'x' } } }] } } });
    assert.equal(
      e.reason,
      'failed to create query: {\n  "bool" : {\n    "filter" : [\n      {\n        "range" : {\n          "n" : {\n            "from" : "x",\n            "to" : null,\n            "include_lower" : true,\n            "include_upper" : true,\n            "boost" : 1.0\n          }\n        }\n      }\n    ],\n    "adjust_pure_negative" : true,\n    "boost" : 1.0\n  }\n}',
    );
  });

  it('out of range and bad booleans', () => {
    assert.equal(shardError({ query: { term: { n: '1e40' } } }).causedBy?.reason, 'Value [1e40] is out of range for a long');
    assert.equal(shardError({ query: { term: { flag: 'yes' } } }).causedBy?.reason, "Can't parse boolean value [yes], expected [true] or [false]");
  });

  it('a bad date', () => {
    const e = shardError({ query: { range: { date: { gte: 'not a date' } } } });
    assert.equal(e.type, 'query_shard_exception');
    assert.ok(e.causedBy !== null);
  });

  it('searching a field that is not indexed', () => {
    const e = shardError({ query: { term: { unindexed: 'x' } } });
    assert.equal(e.causedBy?.reason, 'Cannot search on field [unindexed] since it is not indexed.');
  });

  it('an unknown analyzer', () => {
    assert.equal(shardError({ query: { match: { title: { query: 'x', analyzer: 'nope' } } } }).causedBy?.reason, 'No analyzer found for [nope]');
  });

  it('prefix on a numeric field', () => {
    const e = shardError({ query: { prefix: { n: '1' } } });
    assert.equal(e.type, 'query_shard_exception');
    assert.equal(e.reason, 'Can only use prefix queries on keyword and text fields - not on [n] which is of type [long]');
  });

  it('a query_string syntax error', () => {
    const e = shardError({ query: { query_string: { query: 'title:(fox' } } });
    assert.equal(e.type, 'query_shard_exception');
    assert.equal(e.reason, 'Failed to parse query [title:(fox]');
    assert.equal(e.causedBy?.type, 'parse_exception');
    assert.match(e.causedBy!.reason, /^Cannot parse 'title:\(fox': /);
  });
});

describe('search body options kept for the caller', () => {
  it('rescore window and script_fields names', () => {
    const s = parseSearchBody({ rescore: [{ window_size: 10001, query: { rescore_query: { match_all: {} } } }], script_fields: { a: { script: '1' }, b: { script: '2' } } }, {});
    assert.equal(s.rescoreWindow, 10001);
    assert.deepEqual(s.scriptFields, ['a', 'b']);
    assert.equal(parseSearchBody({}, {}).rescoreWindow, null);
  });
  it('defaults: from 0, size 10, sort by score, source fetched', () => {
    const s = parseSearchBody(undefined, {});
    assert.equal(s.from, 0);
    assert.equal(s.size, 10);
    assert.equal(s.sort, null);
    assert.deepEqual(s.source, { fetch: true, includes: [], excludes: [] });
  });
});
