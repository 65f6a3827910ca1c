/**
 * The bad-input corpus: one row per hostile or malformed request, with what
 * Elasticsearch 6.8 answers. corpus.test.ts sends every row to one node (in
 * order: a row may rely on the indices `setup` made) and checks the status,
 * the error, and that the node still answers `GET /` at once afterwards.
 *
 * To add a case, add a row. `error` is the `error.type` of an Elasticsearch
 * error body, or for the REST layer's own refusals (405, 406, no handler)
 * a piece of the `error` string.
 */

export interface HostileCase {
  /** What the row shows, as a test name. */
  readonly name: string;
  readonly method: string;
  readonly path: string;
  /** A JSON value (sent as application/json) or raw text. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly status: number;
  /** `error.type`, or a substring of a simple `error` string. */
  readonly error?: string;
  /** Header the response must carry, with a substring of its value. */
  readonly header?: readonly [string, string];
  /** The answer must come within this many milliseconds (rows that once held the node for seconds). */
  readonly maxMs?: number;
}

/** Requests run once before the rows: the indices the rows read and write. */
export const SETUP: readonly { method: string; path: string; body?: unknown }[] = [
  { method: 'PUT', path: '/hostile', body: { settings: { number_of_shards: 1 }, mappings: { _doc: { properties: { kw: { type: 'keyword' }, n: { type: 'long' } } } } } },
  { method: 'PUT', path: '/hostile/_doc/1?refresh=true', body: { k: 'x', n: 1 } },
  { method: 'PUT', path: '/hostile-2', body: { settings: { number_of_shards: 1 } } },
  { method: 'PUT', path: '/hostile/_doc/backtrack?refresh=true', body: { kw: `${'a'.repeat(40)}!`, ['a'.repeat(60)]: 1 } },
  {
    method: 'PUT',
    path: '/hostile-regex',
    body: {
      settings: {
        number_of_shards: 1,
        analysis: {
          analyzer: { split: { type: 'pattern', pattern: '(a+)+$' } },
          char_filter: { strip: { type: 'pattern_replace', pattern: '(a|aa)+$', replacement: '' } },
        },
      },
      mappings: {
        _doc: {
          dynamic_templates: [{ catastrophic: { match_pattern: 'regex', match: '(a+)+$', mapping: { type: 'keyword' } } }],
          properties: { text: { type: 'text', analyzer: 'split' } },
        },
      },
    },
  },
];

const NDJSON = { 'content-type': 'application/x-ndjson' };
const TEXT = { 'content-type': 'text/plain' };

export const CASES: readonly HostileCase[] = [
  // ---- item 2: no request wipes the node ---------------------------------------------
  { name: 'DELETE / is not an index operation', method: 'DELETE', path: '/', status: 405, error: 'Incorrect HTTP method for uri [/] and method [DELETE]', header: ['allow', 'GET'] },
  { name: 'PUT / creates no index named ""', method: 'PUT', path: '/', body: {}, status: 405, error: 'allowed: [GET, HEAD]' },
  { name: 'POST / is not an index operation', method: 'POST', path: '/', body: {}, status: 405 },

  // ---- issue 13 item 1: routing ------------------------------------------------------
  { name: '_delete_by_query is an endpoint, not a document type: a missing index is a 404 and is not created', method: 'POST', path: '/fresh/_delete_by_query', body: { query: { match_all: {} } }, status: 404, error: 'index_not_found_exception' },
  { name: '_update_by_query is not a type', method: 'POST', path: '/fresh/_update_by_query', status: 404, error: 'index_not_found_exception' },
  { name: '_flush of a missing index creates none', method: 'POST', path: '/fresh/_flush', status: 404, error: 'index_not_found_exception' },
  { name: '_forcemerge is not a type: a missing index is a 404', method: 'POST', path: '/fresh/_forcemerge', status: 404, error: 'index_not_found_exception' },
  { name: '_rollover is not a type: a missing alias is a 400', method: 'POST', path: '/fresh/_rollover', status: 400, error: 'illegal_argument_exception' },
  { name: '_cache/clear is not a type and id: a missing index is a 404', method: 'POST', path: '/fresh/_cache/clear', status: 404, error: 'index_not_found_exception' },
  { name: '_validate/query is an endpoint, not a document get', method: 'GET', path: '/nothing-here/_validate/query', status: 404, error: 'index_not_found_exception' },
  { name: 'a _-prefixed id in a URL is an endpoint, not a document', method: 'PUT', path: '/hostile/_doc/_explain', body: { a: 1 }, status: 400, error: 'no handler found' },
  { name: 'a _-prefixed index in a URL is not an index', method: 'PUT', path: '/_foo/_doc/1', body: { a: 1 }, status: 400, error: 'no handler found' },
  { name: 'the uri in the message keeps its query string', method: 'GET', path: '/a/b/c/d/e?x=1', status: 400, error: 'no handler found for uri [/a/b/c/d/e?x=1] and method [GET]' },
  { name: 'a known path with another method is a 405 with Allow', method: 'DELETE', path: '/_cluster/health', status: 405, error: 'allowed: [GET, HEAD]', header: ['allow', 'GET,HEAD'] },
  { name: 'PUT on a search path is a 405', method: 'PUT', path: '/hostile/_search', body: {}, status: 405, header: ['allow', 'GET,HEAD,POST'] },
  { name: 'OPTIONS lists the methods', method: 'OPTIONS', path: '/hostile/_doc/1', status: 200, header: ['allow', 'GET,HEAD,POST,PUT,DELETE'] },
  { name: 'an unsupported method on a known path is a 405', method: 'PATCH', path: '/hostile/_doc/1', body: {}, status: 405 },
  { name: 'a path that is not percent-encoding is a 400', method: 'GET', path: '/%zz/_search', status: 400, error: 'illegal_argument_exception' },

  // ---- item 4: Content-Type ----------------------------------------------------------
  { name: 'a text/plain alias change (cross-site) is a 406', method: 'POST', path: '/_aliases', body: '{"actions":[{"remove_index":{"index":"*"}}]}', headers: TEXT, status: 406, error: 'Content-Type header [text/plain] is not supported' },
  { name: 'a text/plain bulk is a 406', method: 'POST', path: '/_bulk', body: '{"delete":{"_index":"hostile","_type":"_doc","_id":"1"}}\n', headers: TEXT, status: 406, error: 'Content-Type header [text/plain] is not supported' },
  { name: 'a form-encoded write is a 406', method: 'PUT', path: '/hostile/_doc/2', body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' }, status: 406 },
  { name: 'a body without Content-Type is a 406', method: 'PUT', path: '/hostile/_doc/2', body: '{"a":1}', headers: { 'content-type': '' }, status: 406, error: 'Content-Type header' },
  { name: 'a Content-Type that does not parse is a 406, not a 500', method: 'POST', path: '/hostile/_search', body: '{}', headers: { 'content-type': 'garbage/;;;' }, status: 406, error: 'Content-Type header [garbage/;;;] is not supported' },
  { name: 'NDJSON is for _bulk only', method: 'POST', path: '/hostile/_search', body: '{}', headers: NDJSON, status: 406 },
  { name: 'YAML is not read here', method: 'POST', path: '/hostile/_search', body: 'query: {}', headers: { 'content-type': 'application/yaml' }, status: 406 },
  { name: 'NDJSON bulk is accepted', method: 'POST', path: '/_bulk', body: '{"index":{"_index":"hostile","_type":"_doc","_id":"3"}}\n{"a":1}\n', headers: NDJSON, status: 200 },
  { name: 'JSON with a charset is accepted', method: 'POST', path: '/hostile/_search', body: '{}', headers: { 'content-type': 'application/json; charset=UTF-8' }, status: 200 },
  { name: 'a GET without a body needs no Content-Type', method: 'GET', path: '/hostile/_search', status: 200 },

  // ---- item 5: user regular expressions run in linear time ------------------------------
  ...regexCases(),

  // ---- suggesters: bad suggestions are 4xx, hostile ones answer at once -----------------
  ...suggestCases(),

  // ---- item 7: depth and size limits, never "Maximum call stack size exceeded" ----------
  { name: 'a mapping deeper than index.mapping.depth.limit', method: 'PUT', path: '/deep-mapping', body: { mappings: { _doc: nestedMapping(25) } }, status: 400, error: 'mapper_parsing_exception' },
  { name: 'a mapping with more fields than index.mapping.total_fields.limit', method: 'PUT', path: '/wide-mapping', body: { mappings: { _doc: { properties: manyFields(1100) } } }, status: 400, error: 'mapper_parsing_exception' },
  { name: 'a document that adds more fields than the limit', method: 'PUT', path: '/hostile/_doc/wide', body: manyValues(1100), status: 400, error: 'illegal_argument_exception' },
  { name: 'a document whose objects nest deeper than the mapping depth', method: 'PUT', path: '/hostile/_doc/deep', body: nestedObject(30), status: 400, error: 'illegal_argument_exception' },
  { name: 'a document with arrays nested 100,000 deep', method: 'PUT', path: '/hostile/_doc/arrays', body: `{"a":${'['.repeat(100_000)}1${']'.repeat(100_000)}}`, status: 400, error: 'mapper_parsing_exception' },
  { name: 'a search body nested 200,000 deep', method: 'POST', path: '/hostile/_search', body: `{"query":${'['.repeat(200_000)}}`, status: 400, error: 'json_parse_exception' },
  { name: 'bool queries nested 800 deep', method: 'POST', path: '/hostile/_search', body: nestedBool(800), status: 400, error: 'json_parse_exception' },
  { name: 'bool queries nested beyond indices.query.bool.max_nested_depth (30)', method: 'POST', path: '/hostile/_search', body: nestedBool(31), status: 400, error: 'illegal_argument_exception' },
  { name: 'bool queries nested 30 deep are fine', method: 'POST', path: '/hostile/_search', body: nestedBool(29), status: 200 },
  { name: 'a bulk action line nested deep', method: 'POST', path: '/_bulk', body: `{"index":${'['.repeat(5000)}}\n`, headers: NDJSON, status: 400, error: 'json_parse_exception' },

  // ---- item 8: values and parameters Elasticsearch refuses --------------------------
  { name: 'a keyword over 32,766 bytes is an immense term', method: 'PUT', path: '/hostile/_doc/immense', body: { kw: 'x'.repeat(40_000) }, status: 400, error: 'illegal_argument_exception' },
  { name: 'an _id over 512 bytes (300 two-byte characters)', method: 'PUT', path: `/hostile/_doc/${encodeURIComponent('é'.repeat(300))}`, body: { a: 1 }, status: 400, error: 'action_request_validation_exception' },
  { name: 'an _id over 512 bytes in bulk refuses the request', method: 'POST', path: '/_bulk', body: `{"index":{"_index":"hostile","_type":"_doc","_id":"${'x'.repeat(600)}"}}\n{"a":1}\n`, headers: NDJSON, status: 400, error: 'action_request_validation_exception' },
  { name: 'an _id given as an object in bulk', method: 'POST', path: '/_bulk', body: '{"index":{"_index":"hostile","_type":"_doc","_id":{"a":1}}}\n{"a":1}\n', headers: NDJSON, status: 400, error: 'illegal_argument_exception' },
  { name: 'an unknown bulk metadata key', method: 'POST', path: '/_bulk', body: '{"index":{"_index":"hostile","_type":"_doc","_id":"9","foo":1}}\n{"a":1}\n', headers: NDJSON, status: 400, error: 'illegal_argument_exception' },
  { name: 'bulk "version":"abc"', method: 'POST', path: '/_bulk', body: '{"index":{"_index":"hostile","_type":"_doc","_id":"9","version":"abc"}}\n{"a":1}\n', headers: NDJSON, status: 400, error: 'illegal_argument_exception' },
  { name: 'version_type=force may no longer be used', method: 'PUT', path: '/hostile/_doc/9?version=5&version_type=force', body: { a: 1 }, status: 400, error: 'action_request_validation_exception' },
  { name: 'if_seq_no without if_primary_term', method: 'PUT', path: '/hostile/_doc/1?if_seq_no=0', body: { a: 1 }, status: 400, error: 'action_request_validation_exception' },
  { name: 'if_seq_no with version', method: 'PUT', path: '/hostile/_doc/1?if_seq_no=0&if_primary_term=1&version=2', body: { a: 1 }, status: 400, error: 'action_request_validation_exception' },
  { name: 'an unknown index setting', method: 'PUT', path: '/unknown-setting', body: { settings: { 'index.foo': 1 } }, status: 400, error: 'illegal_argument_exception' },
  { name: 'an unknown bare setting', method: 'PUT', path: '/unknown-setting', body: { settings: { foo: 1 } }, status: 400, error: 'illegal_argument_exception' },
  { name: 'an unknown setting in an update', method: 'PUT', path: '/hostile/_settings', body: { 'index.foo': 1 }, status: 400, error: 'illegal_argument_exception' },
  { name: 'a document with a key twice', method: 'PUT', path: '/hostile/_doc/dup', body: '{"a":1,"a":2}', status: 400, error: 'mapper_parsing_exception' },
  { name: 'a search body with a key twice', method: 'POST', path: '/hostile/_search', body: '{"query":{"match_all":{}},"query":{"match_all":{}}}', status: 400, error: 'json_parse_exception' },
  { name: 'a bulk document with a key twice fails its item', method: 'POST', path: '/_bulk', body: '{"index":{"_index":"hostile","_type":"_doc","_id":"dup"}}\n{"a":1,"a":2}\n', headers: NDJSON, status: 200 },
  { name: 'a body that is not UTF-8', method: 'PUT', path: '/hostile/_doc/utf8', body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), status: 400, error: 'mapper_parsing_exception' },
  { name: 'a search body that is not UTF-8', method: 'POST', path: '/hostile/_search', body: Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]), status: 400, error: 'json_parse_exception' },
  { name: 'a 2 MB document (read in slices) with a key twice', method: 'PUT', path: '/hostile/_doc/bigdup', body: `{"pad":"${'x'.repeat(2_000_000)}","a":1,"a":2}`, status: 400, error: 'mapper_parsing_exception' },
  { name: 'a 2 MB document (read in slices) nested 1,001 deep', method: 'PUT', path: '/hostile/_doc/bigdeep', body: `{"pad":"${'x'.repeat(2_000_000)}","a":${'['.repeat(1001)}${']'.repeat(1001)}}`, status: 400, error: 'mapper_parsing_exception' },
  { name: 'a 2 MB document (read in slices) that does not parse', method: 'PUT', path: '/hostile/_doc/bigbad', body: `{"pad":"${'x'.repeat(2_000_000)}","a":}`, status: 400, error: 'mapper_parsing_exception' },
  { name: 'Long.MAX_VALUE in a long field is accepted', method: 'PUT', path: '/hostile/_doc/longmax', body: '{"n":9223372036854775807}', status: 201 },
  { name: 'Long.MIN_VALUE in a long field is accepted', method: 'PUT', path: '/hostile/_doc/longmin', body: '{"n":-9223372036854775808}', status: 201 },
  { name: 'a body that is JSON null for an update', method: 'POST', path: '/hostile/_doc/1/_update', body: 'null', status: 400, error: 'parsing_exception' },

  // ---- item 9: scroll keep-alive -----------------------------------------------------
  { name: 'a scroll keep-alive above search.max_keep_alive', method: 'POST', path: '/hostile/_search?scroll=100000d', body: {}, status: 400, error: 'illegal_argument_exception' },
  { name: 'a scroll renewal above search.max_keep_alive', method: 'POST', path: '/_search/scroll', body: { scroll: '2d', scroll_id: 'x' }, status: 400, error: 'illegal_argument_exception' },

  // ---- item 10: X-Opaque-Id ----------------------------------------------------------
  { name: 'X-Opaque-Id is echoed', method: 'GET', path: '/', headers: { 'x-opaque-id': 'trace-me' }, status: 200, header: ['x-opaque-id', 'trace-me'] },
  { name: 'X-Opaque-Id is echoed on errors too', method: 'GET', path: '/missing-index/_search', headers: { 'x-opaque-id': 'e1' }, status: 404, error: 'index_not_found_exception', header: ['x-opaque-id', 'e1'] },
];

/** Suggestions that are malformed, aimed at prototypes, or meant to make a shard work for minutes. */
function suggestCases(): HostileCase[] {
  const search = (name: string, suggest: unknown, status: number, error?: string, maxMs?: number): HostileCase => ({
    name,
    method: 'POST',
    path: '/hostile/_search',
    body: { size: 0, suggest },
    status,
    ...(error === undefined ? {} : { error }),
    ...(maxMs === undefined ? {} : { maxMs }),
  });
  const many = Array.from({ length: 9 }, (_, i) => `x${i}`).join(' ');
  return [
    search('a suggestion named __proto__ is a name like any other', JSON.parse('{"__proto__":{"text":"x","term":{"field":"kw"}}}'), 200),
    search('suggest as an array', [], 400, 'parsing_exception'),
    search('a suggester type nobody knows', { s: { text: 'x', guess: { field: 'kw' } } }, 400, 'named_object_not_found_exception'),
    search('a term suggestion without a field', { s: { text: 'x', term: {} } }, 400, 'parse_exception'),
    search('a term suggestion with size 0', { s: { text: 'x', term: { field: 'kw', size: 0 } } }, 400, 'illegal_argument_exception'),
    search('a completion suggestion on a keyword field', { s: { prefix: 'x', completion: { field: 'kw' } } }, 400, 'search_phase_execution_exception'),
    search('a completion regex (a+)+$ answers at once', { s: { regex: '(a+)+$', completion: { field: 'kw' } } }, 400, 'search_phase_execution_exception', 2000),
    search(
      'a phrase suggestion with max_errors 9 and 100 candidates a word answers at once (more than 500,000 phrases would be a 400)',
      { s: { text: many, phrase: { field: 'k', max_errors: 9, shard_size: 100, confidence: 0, direct_generator: [{ field: 'k', size: 100, suggest_mode: 'always', min_word_length: 1 }] } } },
      200,
      undefined,
      5000,
    ),
    search('a term suggestion with max_edits 3', { s: { text: 'x', term: { field: 'kw', max_edits: 3 } } }, 400, 'illegal_argument_exception'),
  ];
}

/** Patterns that take a backtracking engine exponential time: here they answer at once, or are refused by name. */
function regexCases(): HostileCase[] {
  const a28 = `${'a'.repeat(28)}!`;
  const a40 = `${'a'.repeat(40)}!`;
  const analyze = (body: unknown): { method: string; path: string; body: unknown } => ({ method: 'POST', path: '/_analyze', body });
  return [
    { name: 'a pattern tokenizer (a+)+$ on 28 a\'s and a ! answers at once', ...analyze({ tokenizer: { type: 'pattern', pattern: '(a+)+$' }, text: a28 }), status: 200, maxMs: 2000 },
    { name: 'a pattern_replace (a|aa)+$ on 40 a\'s and a ! answers at once', ...analyze({ tokenizer: 'keyword', char_filter: [{ type: 'pattern_replace', pattern: '(a|aa)+$', replacement: 'x' }], text: a40 }), status: 200, maxMs: 2000 },
    { name: 'the index analyzer with (a+)+$ indexes a document at once', method: 'PUT', path: '/hostile-regex/_doc/1?refresh=true', body: { text: a40 }, status: 201, maxMs: 5000 },
    { name: 'the index char filter with (a|aa)+$ analyzes at once', method: 'POST', path: '/hostile-regex/_analyze', body: { tokenizer: 'keyword', char_filter: ['strip'], text: a40 }, status: 200, maxMs: 2000 },
    { name: 'a dynamic template regex (a+)+$ meets a field named 40 a\'s and a !', method: 'PUT', path: '/hostile-regex/_doc/2', body: { [a40]: 'v' }, status: 201, maxMs: 5000 },
    { name: 'a terms include regex (a+)+$ against a keyword of 40 a\'s and a !', method: 'POST', path: '/hostile/_search', body: { size: 0, aggs: { t: { terms: { field: 'kw', include: '(a+)+$' } } } }, status: 200, maxMs: 2000 },
    { name: 'a backreference is refused by name', ...analyze({ tokenizer: { type: 'pattern', pattern: '(a)\\1' }, text: 'aa' }), status: 400, error: 'illegal_argument_exception' },
    { name: 'an unbounded lookahead is refused', ...analyze({ tokenizer: 'keyword', char_filter: [{ type: 'pattern_replace', pattern: '(?=(a+)+$)a', replacement: '' }], text: a28 }), status: 400, error: 'illegal_argument_exception' },
    { name: 'an index analyzer with a backreference is refused at creation', method: 'PUT', path: '/regex-backref', body: { settings: { analysis: { tokenizer: { t: { type: 'pattern', pattern: '(\\w)\\1' } } } } }, status: 400, error: 'illegal_argument_exception' },
    { name: 'a pattern that does not parse is Java\'s pattern_syntax_exception', ...analyze({ tokenizer: { type: 'pattern', pattern: '(ab' }, text: 'ab' }), status: 400, error: 'pattern_syntax_exception' },
    { name: 'a terms include regex (a)\\1 is Lucene syntax: \\1 is the digit, no backreference', method: 'POST', path: '/hostile/_search', body: { size: 0, aggs: { t: { terms: { field: 'kw', include: '(a)\\1' } } } }, status: 200 },
    { name: '_source includes with many stars against a long field name', method: 'POST', path: '/hostile/_search', body: { _source: { includes: ['*a*a*a*a*a*a*a*a*b'] }, query: { match_all: {} } }, status: 200, maxMs: 2000 },
    { name: 'a long string of 200,000 digits and an x in a long field', method: 'PUT', path: '/hostile/_doc/digits', body: { n: `${'1'.repeat(200_000)}x` }, status: 400, error: 'mapper_parsing_exception', maxMs: 2000 },
  ];
}

function nestedMapping(depth: number): Record<string, unknown> {
  let m: Record<string, unknown> = { type: 'keyword' };
  for (let i = 0; i < depth; i++) m = { properties: { a: m } };
  return m;
}

function nestedObject(depth: number): Record<string, unknown> {
  let o: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < depth; i++) o = { o };
  return o;
}

function manyFields(n: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) out[`f${i}`] = { type: 'keyword' };
  return out;
}

function manyValues(n: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) out[`f${i}`] = i;
  return out;
}

/** A search body with `depth` bool queries, each inside the one before (as text: JSON.stringify would recurse as deep). */
function nestedBool(depth: number): string {
  return `{"query":${'{"bool":{"must":['.repeat(depth)}{"match_all":{}}${']}}'.repeat(depth)}}`;
}
