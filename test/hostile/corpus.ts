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
}

/** Requests run once before the rows: the indices the rows read and write. */
export const SETUP: readonly { method: string; path: string; body?: unknown }[] = [
  { method: 'PUT', path: '/hostile', body: { settings: { number_of_shards: 1 } } },
  { method: 'PUT', path: '/hostile/_doc/1?refresh=true', body: { k: 'x', n: 1 } },
  { method: 'PUT', path: '/hostile-2', body: { settings: { number_of_shards: 1 } } },
];

const NDJSON = { 'content-type': 'application/x-ndjson' };
const TEXT = { 'content-type': 'text/plain' };

export const CASES: readonly HostileCase[] = [
  // ---- item 2: no request wipes the node ---------------------------------------------
  { name: 'DELETE / is not an index operation', method: 'DELETE', path: '/', status: 405, error: 'Incorrect HTTP method for uri [/] and method [DELETE]', header: ['allow', 'GET'] },
  { name: 'PUT / creates no index named ""', method: 'PUT', path: '/', body: {}, status: 405, error: 'allowed: [GET, HEAD]' },
  { name: 'POST / is not an index operation', method: 'POST', path: '/', body: {}, status: 405 },

  // ---- issue 13 item 1: routing ------------------------------------------------------
  { name: 'an endpoint this server lacks is not a document type', method: 'POST', path: '/fresh/_delete_by_query', body: { query: { match_all: {} } }, status: 400, error: 'no handler found for uri [/fresh/_delete_by_query] and method [POST]' },
  { name: '_update_by_query is not a type', method: 'POST', path: '/fresh/_update_by_query', status: 400, error: 'no handler found' },
  { name: '_flush of a missing index creates none', method: 'POST', path: '/fresh/_flush', status: 404, error: 'index_not_found_exception' },
  { name: '_forcemerge is not a type', method: 'POST', path: '/fresh/_forcemerge', status: 400, error: 'no handler found' },
  { name: '_rollover is not a type', method: 'POST', path: '/fresh/_rollover', status: 400, error: 'no handler found' },
  { name: '_cache/clear is not a type and id', method: 'POST', path: '/fresh/_cache/clear', status: 400, error: 'no handler found' },
  { name: '_validate/query is not a document get', method: 'GET', path: '/hostile/_validate/query', status: 400, error: 'no handler found' },
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

  // ---- item 10: X-Opaque-Id ----------------------------------------------------------
  { name: 'X-Opaque-Id is echoed', method: 'GET', path: '/', headers: { 'x-opaque-id': 'trace-me' }, status: 200, header: ['x-opaque-id', 'trace-me'] },
  { name: 'X-Opaque-Id is echoed on errors too', method: 'GET', path: '/missing-index/_search', headers: { 'x-opaque-id': 'e1' }, status: 404, error: 'index_not_found_exception', header: ['x-opaque-id', 'e1'] },
];
