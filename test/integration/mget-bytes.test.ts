/**
 * `_mget` writes plain documents as bytes (rest/get-json.ts) and reads and
 * sends 250 at a time, the next slice read while one is rendered
 * (routes/bulk.ts): its body must be byte for byte what the generic renderer
 * gives, i.e. each item exactly the body of the equivalent GET, for found,
 * missing, deleted, routed, filtered and failed items, across slices.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);

interface Spec {
  _index: string;
  _type?: string;
  _id: string;
  routing?: string;
  _source?: boolean | string[];
  stored_fields?: string[];
}

before(async () => {
  server = await startServer();
  assert.equal((await req('PUT', '/mb', { settings: { number_of_shards: 3 }, mappings: { _doc: { properties: { s: { type: 'keyword', store: true } } } } })).status, 200);
  assert.equal((await req('PUT', '/nosrc', { mappings: { _doc: { _source: { enabled: false } } } })).status, 200);
  let bulk = '';
  for (let i = 0; i < 40; i++) {
    // Sources as sent: key order, spacing, a long beyond 2^53 and non-ASCII text survive as bytes.
    bulk += `{"index":{"_index":"mb","_type":"_doc","_id":"d${i}"${i % 5 === 0 ? ',"routing":"r1"' : ''}}}\n`;
    bulk += `{ "z" : ${i}, "a":12345678901234567890, "s":"é京😀 ${i}" , "n":{"x":[1,2]}}\n`;
  }
  bulk += '{"index":{"_index":"nosrc","_type":"_doc","_id":"h"}}\n{"a":1}\n';
  bulk += '{"delete":{"_index":"mb","_type":"_doc","_id":"d3"}}\n';
  const r = await req('POST', '/_bulk', bulk + '\n');
  assert.equal(r.status, 200, r.text);
  assert.equal((r.body as { errors: boolean }).errors, false, r.text);
});
after(async () => {
  await server.stop();
});

/** The variants an item may take: every renderer branch. */
function variants(): Spec[] {
  const out: Spec[] = [];
  for (let i = 0; i < 40; i++) {
    const routing = i % 5 === 0 ? { routing: 'r1' } : {};
    out.push({ _index: 'mb', _id: `d${i}`, ...routing });
  }
  out.push({ _index: 'mb', _id: 'missing' });
  out.push({ _index: 'mb', _id: 'd3' }); // deleted
  out.push({ _index: 'mb', _type: 'other', _id: 'd1' }); // another type
  out.push({ _index: 'mb', _id: 'd1', _source: false });
  out.push({ _index: 'mb', _id: 'd2', _source: ['a', 'n.x'] });
  out.push({ _index: 'mb', _id: 'd4', stored_fields: ['s'] });
  out.push({ _index: 'nosrc', _id: 'h' });
  out.push({ _index: 'nope', _id: 'x' }); // no such index: an error item
  return out;
}

/** The path of the GET equivalent to `s` (with the request's own query `q`). */
function getPath(s: Spec, q: Record<string, string>): string {
  const params = new URLSearchParams(q);
  if (s.routing !== undefined) params.set('routing', s.routing);
  if (s._source !== undefined) params.set('_source', Array.isArray(s._source) ? s._source.join(',') : String(s._source));
  if (s.stored_fields !== undefined) params.set('stored_fields', s.stored_fields.join(','));
  const qs = params.toString();
  return `/${s._index}/${s._type ?? '_doc'}/${s._id}${qs === '' ? '' : `?${qs}`}`;
}

/** The item `s` must be in an `_mget` body: the GET's body, or for an error, the error in Elasticsearch's item form. */
async function expectedItem(s: Spec, q: Record<string, string>): Promise<string> {
  const r = await req('GET', getPath(s, q));
  const body = r.body as { error?: unknown };
  if (body.error !== undefined) return `{"_index":${JSON.stringify(s._index)},"_type":"_all","_id":${JSON.stringify(s._id)},"error":${JSON.stringify(body.error)}}`;
  assert.ok(r.status === 200 || r.status === 404, r.text);
  return r.text;
}

async function assertSameBytes(q: Record<string, string>, count: number): Promise<void> {
  const kinds = variants();
  const expected = await Promise.all(kinds.map((s) => expectedItem(s, q)));
  // A prime stride mixes the variants across the slices of 250.
  const order = Array.from({ length: count }, (_, i) => (i * 7) % kinds.length);
  const qs = new URLSearchParams(q).toString();
  const r = await req('POST', `/_mget${qs === '' ? '' : `?${qs}`}`, { docs: order.map((k) => kinds[k]) });
  assert.equal(r.status, 200);
  const want = `{"docs":[${order.map((k) => expected[k]).join(',')}]}`;
  if (r.text !== want) {
    const at = [...r.text].findIndex((c, i) => c !== want[i]);
    assert.fail(`differs at ${at}: got ${r.text.slice(at - 80, at + 80)}\nwant ${want.slice(at - 80, at + 80)}`);
  }
}

test('an _mget of 2,600 mixed items is byte for byte the equivalent GETs, across read and send slices', async () => {
  await assertSameBytes({}, 2600);
});

test('with _source=false on the request, every item is the GET with _source=false', async () => {
  await assertSameBytes({ _source: 'false' }, 600);
});

test('with source filtering on the request (the generic renderer), items are the filtered GETs', async () => {
  await assertSameBytes({ _source_includes: 'z,s' }, 600);
});
