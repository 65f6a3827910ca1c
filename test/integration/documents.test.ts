import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);

before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

describe('documents', () => {
  test('index creates with version 1 and 201, re-index updates with version 2 and 200', async () => {
    const a = await req('PUT', '/docs1/_doc/1', { title: 'first' });
    assert.equal(a.status, 201);
    assert.deepEqual(
      { ...(a.body as object), _seq_no: 0 },
      {
        _index: 'docs1',
        _type: '_doc',
        _id: '1',
        _version: 1,
        result: 'created',
        _shards: { total: 2, successful: 1, failed: 0 },
        _seq_no: 0,
        _primary_term: 1,
      },
    );
    const b = await req('PUT', '/docs1/_doc/1', { title: 'second' });
    assert.equal(b.status, 200);
    assert.equal((b.body as { _version: number })._version, 2);
    assert.equal((b.body as { result: string }).result, 'updated');
  });

  test('realtime get sees a write before any refresh', async () => {
    await req('PUT', '/docs2', { settings: { refresh_interval: '-1' } });
    await req('PUT', '/docs2/_doc/7', { n: 7 });
    const g = await req('GET', '/docs2/_doc/7');
    assert.equal(g.status, 200);
    const body = g.body as Record<string, unknown>;
    assert.equal(body.found, true);
    assert.deepEqual(body._source, { n: 7 });
    assert.equal(body._version, 1);
  });

  test('missing document is found:false with 404, HEAD 404', async () => {
    await req('PUT', '/docs3', {});
    const g = await req('GET', '/docs3/_doc/none');
    assert.equal(g.status, 404);
    assert.deepEqual(g.body, { _index: 'docs3', _type: '_doc', _id: 'none', found: false });
    const h = await req('HEAD', '/docs3/_doc/none');
    assert.equal(h.status, 404);
  });

  test('internal version mismatch is a 409 version_conflict_engine_exception', async () => {
    await req('PUT', '/docs4/_doc/1', { a: 1 });
    const r = await req('PUT', '/docs4/_doc/1?version=5', { a: 2 });
    assert.equal(r.status, 409);
    const err = (r.body as { error: { type: string; reason: string; index: string } }).error;
    assert.equal(err.type, 'version_conflict_engine_exception');
    assert.equal(err.reason, '[_doc][1]: version conflict, current version [1] is different than the one provided [5]');
    assert.equal(err.index, 'docs4');
    assert.equal((r.body as { status: number }).status, 409);
  });

  test('external versions apply only when greater; equal is a conflict', async () => {
    assert.equal((await req('PUT', '/docs5/_doc/1?version=10&version_type=external', { a: 1 })).status, 201);
    const same = await req('PUT', '/docs5/_doc/1?version=10&version_type=external', { a: 2 });
    assert.equal(same.status, 409);
    assert.match((same.body as { error: { reason: string } }).error.reason, /current version \[10\] is higher or equal to the one provided \[10\]/);
    const higher = await req('PUT', '/docs5/_doc/1?version=11&version_type=external', { a: 3 });
    assert.equal((higher.body as { _version: number })._version, 11);
  });

  test('_create on an existing id is a 409 and leaves the document unchanged', async () => {
    await req('PUT', '/docs6/_doc/1/_create', { a: 1 });
    const r = await req('PUT', '/docs6/_doc/1/_create', { a: 2 });
    assert.equal(r.status, 409);
    assert.match((r.body as { error: { reason: string } }).error.reason, /document already exists \(current version \[1\]\)/);
    const g = await req('GET', '/docs6/_doc/1');
    assert.deepEqual((g.body as { _source: unknown })._source, { a: 1 });
  });

  test('delete bumps the version; re-index after delete continues from it', async () => {
    await req('PUT', '/docs7/_doc/1', { a: 1 });
    const d = await req('DELETE', '/docs7/_doc/1');
    assert.equal(d.status, 200);
    assert.equal((d.body as { result: string }).result, 'deleted');
    assert.equal((d.body as { _version: number })._version, 2);
    const again = await req('DELETE', '/docs7/_doc/1');
    assert.equal(again.status, 404);
    assert.equal((again.body as { result: string }).result, 'not_found');
    const re = await req('PUT', '/docs7/_doc/1', { a: 2 });
    assert.equal((re.body as { _version: number })._version, 4);
    assert.equal((re.body as { result: string }).result, 'created');
  });

  test('update merges a partial document, detects noops, upserts', async () => {
    await req('PUT', '/docs8/_doc/1', { a: 1, obj: { x: 1, y: 2 } });
    const u = await req('POST', '/docs8/_doc/1/_update', { doc: { b: 2, obj: { y: 3 } } });
    assert.equal(u.status, 200);
    assert.equal((u.body as { _version: number })._version, 2);
    const g = await req('GET', '/docs8/_doc/1');
    assert.deepEqual((g.body as { _source: unknown })._source, { a: 1, obj: { x: 1, y: 3 }, b: 2 });
    const noop = await req('POST', '/docs8/_doc/1/_update', { doc: { b: 2 } });
    assert.equal((noop.body as { result: string }).result, 'noop');
    assert.equal((noop.body as { _version: number })._version, 2);
    const missing = await req('POST', '/docs8/_doc/2/_update', { doc: { a: 1 } });
    assert.equal(missing.status, 404);
    assert.equal((missing.body as { error: { type: string } }).error.type, 'document_missing_exception');
    const upsert = await req('POST', '/docs8/_doc/2/_update', { doc: { a: 1 }, doc_as_upsert: true });
    assert.equal(upsert.status, 201);
    assert.equal((upsert.body as { result: string }).result, 'created');
  });

  test('POST without id generates a 20-character id', async () => {
    const r = await req('POST', '/docs9/_doc', { a: 1 });
    assert.equal(r.status, 201);
    const id = (r.body as { _id: string })._id;
    assert.equal(id.length, 20);
    assert.equal((await req('GET', `/docs9/_doc/${id}`)).status, 200);
  });

  test('malformed JSON body is a 400 with an Elasticsearch error', async () => {
    const r = await http(server.url, 'PUT', '/docs10/_doc/1', '{"a": ', { 'content-type': 'application/json' });
    assert.equal(r.status, 400);
    const body = r.body as { error: { type: string; root_cause: unknown[] }; status: number };
    assert.equal(body.status, 400);
    assert.equal(body.error.type, 'mapper_parsing_exception');
    assert.ok(Array.isArray(body.error.root_cause));
  });

  test('a body over http.max_content_length is refused with 413', async () => {
    const small = await startServer(['--http.max_content_length', '1kb']);
    try {
      const r = await http(small.url, 'PUT', '/big/_doc/1', { text: 'x'.repeat(4096) });
      assert.equal(r.status, 413);
    } finally {
      await small.stop();
    }
  });
});

describe('bulk and mget', () => {
  test('a failing bulk item does not affect the others; errors flag set', async () => {
    await req('PUT', '/bulk1/_doc/2/_create', { pre: true });
    const body =
      [
        '{"index":{"_index":"bulk1","_type":"_doc","_id":"1"}}',
        '{"a":1}',
        '{"create":{"_index":"bulk1","_type":"_doc","_id":"2"}}',
        '{"a":2}',
        '{"update":{"_index":"bulk1","_type":"_doc","_id":"1"}}',
        '{"doc":{"b":1}}',
        '{"delete":{"_index":"bulk1","_type":"_doc","_id":"3"}}',
      ].join('\n') + '\n';
    const r = await req('POST', '/_bulk', body);
    assert.equal(r.status, 200);
    const b = r.body as { errors: boolean; items: Record<string, { status: number; result?: string; error?: { type: string } }>[] };
    assert.equal(b.errors, true);
    assert.deepEqual(
      b.items.map((it) => Object.keys(it)[0]),
      ['index', 'create', 'update', 'delete'],
    );
    assert.equal(b.items[0].index.status, 201);
    assert.equal(b.items[1].create.status, 409);
    assert.equal(b.items[1].create.error?.type, 'version_conflict_engine_exception');
    assert.equal(b.items[2].update.status, 200);
    assert.equal(b.items[3].delete.status, 404);
    const g = await req('GET', '/bulk1/_doc/1');
    assert.deepEqual((g.body as { _source: unknown })._source, { a: 1, b: 1 });
  });

  test('bad documents in the middle of a bulk fail only their items, with the mapper errors; the others are indexed and map their new fields', async () => {
    await req('PUT', '/bulk4', { mappings: { _doc: { properties: { n: { type: 'long' }, k: { type: 'keyword' } } } } });
    const docs = [
      '{"n":1,"k":"a"}',
      '{"n":2,"k":"b","k":"c"}', // a key twice
      '{"n":3,"k":', // not JSON
      '[1,2]', // not an object
      '{"n":"four","k":"d"}', // refused by the mapping
      '{"n":5,"k":"e","added":true}', // a new field: a dynamic mapping update
      '{"n":6,"k":"f\\"g"}', // an escape: the full check's, accepted
    ];
    const body = docs.map((d, i) => `{"index":{"_id":"${i}"}}\n${d}`).join('\n') + '\n';
    const r = await req('POST', '/bulk4/_doc/_bulk?refresh=true', body);
    assert.equal(r.status, 200);
    type Item = { index: { _id: string; status: number; error?: { type: string; reason: string; caused_by?: { type: string; reason: string } } } };
    const b = r.body as { errors: boolean; items: Item[] };
    assert.equal(b.errors, true);
    assert.deepEqual(
      b.items.map((it) => [it.index._id, it.index.status]),
      [['0', 201], ['1', 400], ['2', 400], ['3', 400], ['4', 400], ['5', 201], ['6', 201]],
    );
    const [, dup, broken, array, refused] = b.items.map((it) => it.index.error);
    assert.equal(dup?.type, 'mapper_parsing_exception');
    assert.equal(dup?.reason, 'failed to parse');
    assert.equal(dup?.caused_by?.type, 'json_parse_exception');
    assert.match(dup?.caused_by?.reason ?? '', /^Duplicate field 'k'/);
    assert.equal(broken?.type, 'mapper_parsing_exception');
    assert.equal(broken?.caused_by?.type, 'json_parse_exception');
    assert.equal(array?.type, 'mapper_parsing_exception');
    assert.equal(array?.reason, 'failed to parse');
    assert.equal(refused?.type, 'mapper_parsing_exception');
    assert.equal(refused?.reason, 'failed to parse field [n] of type [long]');
    const m = await req('GET', '/bulk4/_mapping');
    const props = (m.body as { bulk4: { mappings: { _doc: { properties: Record<string, { type: string }> } } } }).bulk4.mappings._doc.properties;
    assert.equal(props.added?.type, 'boolean');
    const s = await req('POST', '/bulk4/_search', { sort: ['n'], size: 10 });
    const hits = (s.body as { hits: { hits: { _id: string; _source: unknown }[] } }).hits.hits;
    assert.deepEqual(
      hits.map((h) => [h._id, h._source]),
      [['0', { n: 1, k: 'a' }], ['5', { n: 5, k: 'e', added: true }], ['6', { n: 6, k: 'f"g' }]],
    );
  });

  test('a bulk of several slices applies the items on one document in request order, and answers each item in place', async () => {
    // 2,501 items: three slices of the write path, appended while the earlier ones are still being applied.
    const lines: string[] = [];
    for (let i = 0; i < 1200; i++) {
      lines.push('{"index":{"_index":"bulk3","_type":"_doc","_id":"same"}}', JSON.stringify({ n: i }));
      lines.push(`{"index":{"_index":"bulk3","_type":"_doc","_id":"d${i}"}}`, JSON.stringify({ n: i }));
      if (i % 12 === 0) lines.push(`{"delete":{"_index":"bulk3","_type":"_doc","_id":"d${i}"}}`);
    }
    lines.push('{"update":{"_index":"bulk3","_type":"_doc","_id":"same"}}', '{"doc":{"last":true}}');
    const r = await req('POST', '/_bulk', lines.join('\n') + '\n');
    assert.equal(r.status, 200);
    const b = r.body as { errors: boolean; items: Record<string, { _id: string; _version: number; result: string; status: number }>[] };
    assert.equal(b.errors, false);
    assert.equal(b.items.length, 2501);
    const same = b.items.filter((it) => Object.values(it)[0]!._id === 'same').map((it) => Object.values(it)[0]!);
    assert.deepEqual(
      same.map((it) => it._version),
      Array.from({ length: 1201 }, (_, k) => k + 1),
    );
    assert.deepEqual(
      b.items.filter((it) => 'delete' in it).map((it) => [it.delete!._id, it.delete!.result]),
      Array.from({ length: 100 }, (_, k) => [`d${k * 12}`, 'deleted']),
    );
    const g = await req('GET', '/bulk3/_doc/same');
    assert.deepEqual((g.body as { _source: unknown })._source, { n: 1199, last: true });
    await req('POST', '/bulk3/_refresh');
    const c = await req('GET', '/bulk3/_count');
    assert.equal((c.body as { count: number }).count, 1 + 1200 - 100);
  });

  test('a bulk of many slices: a problem in its last slice refuses it whole, items failing alone answer in place', async () => {
    // 6,000 items (six slices of the write path, more than are in flight at once), built from the body's bytes slice by slice.
    const lines: string[] = [];
    for (let i = 0; i < 6000; i++) {
      if (i % 1000 === 999) lines.push('{"index":{"_index":"bulk6","_type":"_doc","_id":""}}', '{"n":-1}');
      else lines.push(`{"index":{"_index":"bulk6","_type":"_doc","_id":"d${i}"}}`, JSON.stringify({ n: i }));
    }
    const tooLong = `{"index":{"_index":"bulk6","_type":"_doc","_id":"${'x'.repeat(513)}"}}\n{"n":0}\n`;
    const refused = await req('POST', '/_bulk', lines.join('\n') + '\n' + tooLong);
    assert.equal(refused.status, 400);
    assert.equal((refused.body as { error: { type: string } }).error.type, 'action_request_validation_exception');
    assert.equal((await req('HEAD', '/bulk6')).status, 404);

    const r = await req('POST', '/_bulk', lines.join('\n') + '\n');
    assert.equal(r.status, 200);
    const b = r.body as { errors: boolean; items: { index: { _id: string; status: number; _seq_no?: number; error?: { type: string } } }[] };
    assert.equal(b.errors, true);
    assert.equal(b.items.length, 6000);
    b.items.forEach((it, i) => {
      if (i % 1000 === 999) {
        assert.deepEqual([it.index._id, it.index.status, it.index.error?.type], ['', 400, 'illegal_argument_exception']);
      } else {
        assert.deepEqual([it.index._id, it.index.status], [`d${i}`, 201]);
      }
    });
    await req('POST', '/bulk6/_refresh');
    const c = await req('GET', '/bulk6/_count');
    assert.equal((c.body as { count: number }).count, 6000 - 6);
  });

  test('a bulk body without the final newline is refused', async () => {
    const r = await req('POST', '/_bulk', '{"index":{"_index":"bulk2","_type":"_doc","_id":"1"}}\n{"a":1}');
    assert.equal(r.status, 400);
    assert.equal((r.body as { error: { type: string } }).error.type, 'illegal_argument_exception');
  });

  test('mget with docs and ids forms', async () => {
    await req('PUT', '/mget1/_doc/1', { a: 1 });
    await req('PUT', '/mget1/_doc/2', { a: 2 });
    const r = await req('POST', '/mget1/_doc/_mget', { ids: ['1', '2', '3'] });
    const docs = (r.body as { docs: { _id: string; found: boolean }[] }).docs;
    assert.deepEqual(
      docs.map((d) => [d._id, d.found]),
      [
        ['1', true],
        ['2', true],
        ['3', false],
      ],
    );
    const r2 = await req('POST', '/_mget', { docs: [{ _index: 'mget1', _type: '_doc', _id: '2' }] });
    assert.deepEqual((r2.body as { docs: { _source: unknown }[] }).docs[0]._source, { a: 2 });
  });
});

describe('indices, mappings, aliases, health', () => {
  test('creating an existing index is a 400 resource_already_exists_exception', async () => {
    assert.equal((await req('PUT', '/idx1')).status, 200);
    const r = await req('PUT', '/idx1');
    assert.equal(r.status, 400);
    assert.equal((r.body as { error: { type: string } }).error.type, 'resource_already_exists_exception');
  });

  test('a missing index is a 404 index_not_found_exception', async () => {
    const r = await req('GET', '/nope/_doc/1');
    assert.equal(r.status, 404);
    const err = (r.body as { error: Record<string, unknown> }).error;
    assert.equal(err.type, 'index_not_found_exception');
    assert.equal(err.reason, 'no such index');
    assert.equal(err['resource.id'], 'nope');
  });

  test('dynamic mapping maps a string as text with a keyword sub-field', async () => {
    await req('PUT', '/dyn1/_doc/1', { name: 'abc', n: 5 });
    const m = await req('GET', '/dyn1/_mapping');
    assert.deepEqual(m.body, {
      dyn1: {
        mappings: {
          _doc: {
            properties: {
              n: { type: 'long' },
              name: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
            },
          },
        },
      },
    });
  });

  test('a conflicting mapping change is refused with illegal_argument_exception', async () => {
    await req('PUT', '/map1', { mappings: { t: { properties: { a: { type: 'long' } } } } });
    const r = await req('PUT', '/map1/_mapping/t', { properties: { a: { type: 'text' } } });
    assert.equal(r.status, 400);
    assert.equal((r.body as { error: { type: string } }).error.type, 'illegal_argument_exception');
  });

  test('a second mapping type is refused', async () => {
    await req('PUT', '/map2', { mappings: { t1: {} } });
    const r = await req('PUT', '/map2/t2/1', { a: 1 });
    assert.equal(r.status, 400);
    assert.match((r.body as { error: { reason: string } }).error.reason, /more than 1 type/);
  });

  test('reads and writes go through an alias that points to one index', async () => {
    await req('PUT', '/al1', {});
    await req('POST', '/_aliases', { actions: [{ add: { index: 'al1', alias: 'al1-alias' } }] });
    assert.equal((await req('PUT', '/al1-alias/_doc/1', { v: 1 })).status, 201);
    const g = await req('GET', '/al1-alias/_doc/1');
    assert.equal((g.body as { _index: string })._index, 'al1');
    const aliases = await req('GET', '/al1/_alias');
    assert.deepEqual(aliases.body, { al1: { aliases: { 'al1-alias': {} } } });
  });

  test('one node with number_of_replicas 1 is yellow; 0 replicas is green', async () => {
    await req('PUT', '/h1', { settings: { number_of_shards: 2, number_of_replicas: 1 } });
    const y = await req('GET', '/_cluster/health/h1');
    assert.equal((y.body as { status: string }).status, 'yellow');
    assert.equal((y.body as { active_primary_shards: number }).active_primary_shards, 2);
    assert.equal((y.body as { unassigned_shards: number }).unassigned_shards, 2);
    await req('PUT', '/h1/_settings', { index: { number_of_replicas: 0 } });
    const g = await req('GET', '/_cluster/health/h1?wait_for_status=green&timeout=1s');
    assert.equal(g.status, 200);
    assert.equal((g.body as { status: string }).status, 'green');
  });

  test('the seed n-gram analyzer gives 28 tokens for a 7-character plate, with a deprecation warning', async () => {
    const r = await req('PUT', '/plates', {
      settings: {
        analysis: {
          analyzer: { plate_ngram: { type: 'custom', tokenizer: 'ng' } },
          tokenizer: { ng: { type: 'ngram', min_gram: 1, max_gram: 8, token_chars: ['letter', 'digit'] } },
        },
      },
    });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('warning') ?? '', /max_gram and min_gram/);
    const a = await req('POST', '/plates/_analyze', { analyzer: 'plate_ngram', text: '京A12345' });
    const tokens = (a.body as { tokens: { token: string }[] }).tokens;
    assert.equal(tokens.length, 28);
    assert.ok(tokens.some((t) => t.token === '京A1234'));
  });

  test('GET / reports a 6.8 version', async () => {
    const r = await req('GET', '/');
    const body = r.body as { version: { number: string; lucene_version: string }; tagline: string };
    assert.match(body.version.number, /^6\.8\./);
    assert.equal(body.tagline, 'You Know, for Search');
  });

  test('_cat/indices lists indices as text and JSON', async () => {
    await req('PUT', '/cat1/_doc/1?refresh=true', { a: 1 });
    const json = await req('GET', '/_cat/indices/cat1?format=json');
    const rows = json.body as { index: string; 'docs.count': string; health: string }[];
    assert.equal(rows[0].index, 'cat1');
    assert.equal(rows[0]['docs.count'], '1');
    const text = await req('GET', '/_cat/indices/cat1?v');
    assert.match(text.text, /^health status index/);
  });

  test('_cat/indices counts a write as soon as refresh=true, wait_for or _refresh answered', async () => {
    const count = async () => ((await req('GET', '/_cat/indices/cat2?format=json')).body as { 'docs.count': string }[])[0]['docs.count'];
    for (let i = 1; i <= 30; i++) {
      const refresh = ['true', 'wait_for', 'false'][i % 3];
      assert.equal((await req('PUT', `/cat2/_doc/${i}?refresh=${refresh}`, { i })).status, 201);
      if (refresh === 'false') assert.equal((await req('POST', '/cat2/_refresh')).status, 200);
      assert.equal(await count(), String(i), `after write ${i} (refresh=${refresh})`);
    }
  });
});

describe('active shard counts', () => {
  test('wait_for_active_shards=all on one node with a replica answers 503 after the timeout', async () => {
    await req('PUT', '/wfas', { settings: { number_of_replicas: 1 } });
    const r = await req('PUT', '/wfas/_doc/1?wait_for_active_shards=all&timeout=100ms', { a: 1 });
    assert.equal(r.status, 503);
    const err = (r.body as { error: { type: string; reason: string } }).error;
    assert.equal(err.type, 'unavailable_shards_exception');
    assert.match(err.reason, /Not enough active copies to meet shard count of \[ALL\] \(have 1, needed 2\)/);
    assert.equal((await req('GET', '/wfas/_doc/1')).status, 404);
    assert.equal((await req('PUT', '/wfas/_doc/1?wait_for_active_shards=1', { a: 1 })).status, 201);
  });

  test('consistency=quorum needs a majority once an index has more than two copies', async () => {
    await req('PUT', '/quorum', { settings: { number_of_replicas: 2 } });
    assert.equal((await req('PUT', '/quorum/_doc/1?consistency=quorum&timeout=50ms', { a: 1 })).status, 503);
    await req('PUT', '/quorum1', { settings: { number_of_replicas: 1 } });
    assert.equal((await req('PUT', '/quorum1/_doc/1?consistency=quorum', { a: 1 })).status, 201);
  });
});
