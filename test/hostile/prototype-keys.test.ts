/**
 * Issue 11, item 1: `__proto__`, `constructor` and `prototype` are ordinary
 * keys of request JSON. Elasticsearch stores a field named `__proto__` like
 * any other; here such keys once polluted Object.prototype through a partial
 * update, after which the first write to a new index never answered, and the
 * op in the log did it again after every restart.
 *
 * The node runs in this process, so the test sees Object.prototype itself.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startServer, tempDir, http, type TestServer } from '../helpers/server.ts';
import { mergePartialDoc } from '../../services/node/shard-worker/partial-update.ts';

/** As JSON text: an object literal with `__proto__` in JS source would set a prototype, not make a key. */
const HOSTILE_JSON = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"polluted":"yes"}}';

let dir: string;
let server: TestServer;
let baseline: string[];
const req = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => http(server.url, method, path, body, headers);
/** Sends JSON text as is. */
const raw = (method: string, path: string, text: string, type = 'application/json') => http(server.url, method, path, text, { 'content-type': type });

function prototypeKeys(): string[] {
  return Object.getOwnPropertyNames(Object.prototype).sort();
}

function assertClean(step: string): void {
  assert.deepEqual(prototypeKeys(), baseline, `Object.prototype changed after ${step}`);
  const probe: Record<string, unknown> = {};
  assert.equal(probe.polluted, undefined, `a plain object inherits a polluted key after ${step}`);
  assert.equal(probe.properties, undefined, `a plain object inherits "properties" after ${step}`);
}

before(async () => {
  baseline = prototypeKeys();
  dir = await tempDir('proto-keys-');
  server = await startServer(['--node.processors', '1'], dir);
});
after(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('__proto__, constructor and prototype are ordinary keys', () => {
  test('the merge a copy applies from the log keeps them as keys (replaying an old record is harmless)', () => {
    const merged = mergePartialDoc(Buffer.from('{"k":"x","constructor":1}'), Buffer.from(`{"obj":${HOSTILE_JSON},"__proto__":{"p":"y"},"constructor":{"a":1}}`));
    assertClean('a merge');
    assert.equal(merged?.toString(), `{"k":"x","constructor":{"a":1},"obj":${HOSTILE_JSON},"__proto__":{"p":"y"}}`);
    assert.equal(mergePartialDoc(Buffer.from('{"__proto__":{"p":"y"}}'), Buffer.from('{"__proto__":{"p":"y"}}')), null, 'the same keys again are a noop');
  });

  test('a document holding them is indexed, stored and read back as sent', async () => {
    const r = await raw('PUT', '/p1/_doc/1?refresh=true', `{"k":"x","obj":${HOSTILE_JSON},"__proto__":{"top":"level"}}`);
    assert.equal(r.status, 201, r.text);
    assertClean('an index request');
    const g = await req('GET', '/p1/_doc/1');
    assert.equal(g.status, 200);
    assert.match(g.text, /"__proto__":\{"top":"level"\}/);
    assert.match(g.text, /"obj":\{"__proto__":\{"polluted":"yes"\},"constructor":\{"prototype":\{"polluted":"yes"\}\},"prototype":\{"polluted":"yes"\}\}/);
  });

  test('the dynamic mapping holds fields named __proto__, constructor and prototype', async () => {
    const m = await req('GET', '/p1/_mapping');
    assert.equal(m.status, 200);
    assertClean('a mapping read');
    assert.match(m.text, /"__proto__":\{"properties":\{"top":\{"type":"text"/);
    assert.match(m.text, /"constructor":\{"properties":\{"prototype":\{"properties":\{"polluted"/);
  });

  test('a partial update merges them as keys', async () => {
    await raw('PUT', '/p1/_doc/2', '{"k":"x"}');
    const u = await raw('POST', '/p1/_doc/2/_update', `{"doc":${HOSTILE_JSON}}`);
    assert.equal(u.status, 200, u.text);
    assertClean('a partial update');
    const g = await req('GET', '/p1/_doc/2');
    assert.match(g.text, /"_source":\{"k":"x","__proto__":\{"polluted":"yes"\},"constructor":\{"prototype":\{"polluted":"yes"\}\},"prototype":\{"polluted":"yes"\}\}/);
    // The same partial document again changes nothing: a noop.
    const again = await raw('POST', '/p1/_doc/2/_update', `{"doc":${HOSTILE_JSON}}`);
    assert.equal((again.body as { result: string }).result, 'noop');
  });

  test('upserts and doc_as_upsert store them', async () => {
    const a = await raw('POST', '/p1/_doc/3/_update', `{"doc":{"a":1},"upsert":${HOSTILE_JSON}}`);
    assert.equal(a.status, 201, a.text);
    const b = await raw('POST', '/p1/_doc/4/_update', `{"doc":${HOSTILE_JSON},"doc_as_upsert":true}`);
    assert.equal(b.status, 201, b.text);
    assertClean('upserts');
    assert.match((await req('GET', '/p1/_doc/3')).text, /"_source":\{"__proto__":\{"polluted":"yes"\}/);
    assert.match((await req('GET', '/p1/_doc/4')).text, /"_source":\{"__proto__":\{"polluted":"yes"\}/);
  });

  test('bulk index, create and update actions store them', async () => {
    const lines = [
      '{"index":{"_index":"p1","_type":"_doc","_id":"5"}}',
      HOSTILE_JSON,
      '{"create":{"_index":"p1","_type":"_doc","_id":"6"}}',
      HOSTILE_JSON,
      '{"update":{"_index":"p1","_type":"_doc","_id":"1"}}',
      `{"doc":{"obj":{"__proto__":{"more":"x"}}}}`,
      '{"update":{"_index":"p1","_type":"_doc","_id":"7"}}',
      `{"doc":${HOSTILE_JSON},"doc_as_upsert":true}`,
    ];
    const r = await raw('POST', '/_bulk?refresh=true', lines.join('\n') + '\n', 'application/x-ndjson');
    assert.equal(r.status, 200, r.text);
    assert.equal((r.body as { errors: boolean }).errors, false, r.text);
    assertClean('a bulk request');
    const g = await req('GET', '/p1/_doc/1');
    assert.match(g.text, /"obj":\{"__proto__":\{"polluted":"yes","more":"x"\}/);
  });

  test('_source filtering and filter_path select them by name', async () => {
    const g = await req('GET', '/p1/_doc/1?_source_includes=__proto__,obj.constructor.*');
    assert.equal(g.status, 200);
    assertClean('_source filtering');
    assert.deepEqual(JSON.parse(g.text)._source, JSON.parse('{"__proto__":{"top":"level"},"obj":{"constructor":{"prototype":{"polluted":"yes"}}}}'));
    const s = await req('GET', '/p1/_search?q=__proto__.top:level&filter_path=hits.hits._source.__proto__,hits.hits._source.obj.prototype');
    assert.equal(s.status, 200);
    assertClean('filter_path');
    assert.deepEqual(JSON.parse(s.text), JSON.parse('{"hits":{"hits":[{"_source":{"__proto__":{"top":"level"},"obj":{"prototype":{"polluted":"yes"}}}}]}}'));
    const ex = await req('GET', '/p1/_doc/2?filter_path=-_source.__proto__,-_source.constructor');
    assertClean('filter_path excludes');
    assert.deepEqual(JSON.parse(ex.text)._source, JSON.parse('{"k":"x","prototype":{"polluted":"yes"}}'));
  });

  test('searches and aggregations on them, aggregations named after them', async () => {
    const body =
      '{"size":0,"query":{"term":{"__proto__.top.keyword":"level"}},' +
      '"aggs":{"__proto__":{"terms":{"field":"__proto__.top.keyword"}},"constructor":{"max":{"field":"obj.x"}},"prototype":{"terms":{"field":"k.keyword"},"aggs":{"__proto__":{"value_count":{"field":"k.keyword"}}}}}}';
    const s = await raw('POST', '/p1/_search', body);
    assert.equal(s.status, 200, s.text);
    assertClean('a search with aggregations');
    assert.match(s.text, /"hits":\{"total":1,/);
    assert.match(s.text, /"__proto__":\{"doc_count_error_upper_bound":0,"sum_other_doc_count":0,"buckets":\[\{"key":"level","doc_count":1\}\]\}/);
    assert.match(s.text, /"constructor":\{"value":null\}/);
  });

  test('index creation with mappings, settings, analyzers and aliases named after them', async () => {
    const body =
      '{"settings":{"number_of_shards":1,"analysis":{"tokenizer":{"__proto__":{"type":"standard"}},"analyzer":{"constructor":{"type":"custom","tokenizer":"__proto__","filter":["lowercase"]},"prototype":{"type":"custom","tokenizer":"whitespace"}}}},' +
      '"mappings":{"_doc":{"properties":{"__proto__":{"type":"text","analyzer":"constructor"},"constructor":{"properties":{"prototype":{"type":"keyword"}}}}}},' +
      '"aliases":{"constructor":{},"prototype":{"filter":{"term":{"constructor.prototype":"x"}}}}}';
    const c = await raw('PUT', '/p2', body);
    assert.equal(c.status, 200, c.text);
    assertClean('index creation');
    const pm = await raw('PUT', '/p2/_mapping/_doc', '{"properties":{"prototype":{"properties":{"__proto__":{"type":"long"}}}}}');
    assert.equal(pm.status, 200, pm.text);
    assertClean('a mapping update');
    const i = await raw('PUT', '/constructor/_doc/1?refresh=true', '{"__proto__":"Quick Fox","constructor":{"prototype":"x"},"prototype":{"__proto__":5}}');
    assert.equal(i.status, 201, i.text);
    assertClean('a write through an alias');
    const a = await raw('POST', '/p2/_analyze', '{"analyzer":"constructor","text":"Quick Fox"}');
    assert.deepEqual((a.body as { tokens: { token: string }[] }).tokens.map((t) => t.token), ['quick', 'fox']);
    const s = await raw('POST', '/prototype/_search', '{"query":{"match":{"__proto__":"fox"}}}');
    assert.equal((s.body as { hits: { total: number } }).hits.total, 1, s.text);
    const settings = await req('GET', '/p2/_settings');
    assert.match(settings.text, /"tokenizer":\{"__proto__":\{"type":"standard"\}/);
    const mapping = await req('GET', '/p2/_mapping');
    assert.match(mapping.text, /"prototype":\{"properties":\{"__proto__":\{"type":"long"\}/);
    assertClean('reading settings and mappings');
  });

  test('after all of it a new index takes writes, and a restart replays the log without harm', async () => {
    const w = await req('PUT', '/fresh-after/_doc/1', { n: 1 });
    assert.equal(w.status, 201, w.text);
    const h = await req('GET', '/_cluster/health?wait_for_status=yellow&timeout=5s');
    assert.equal((h.body as { status: string }).status, 'yellow');

    await server.stop();
    server = await startServer(['--node.processors', '1'], dir);
    assertClean('a restart');
    const health = await req('GET', '/_cluster/health?wait_for_status=yellow&timeout=30s');
    assert.equal((health.body as { status: string }).status, 'yellow', health.text);
    const g = await req('GET', '/p1/_doc/2');
    assert.match(g.text, /"_source":\{"k":"x","__proto__":\{"polluted":"yes"\}/);
    const g1 = await req('GET', '/p1/_doc/1');
    assert.match(g1.text, /"obj":\{"__proto__":\{"polluted":"yes","more":"x"\}/);
    const w2 = await req('PUT', '/fresh-after-restart/_doc/1', { n: 1 });
    assert.equal(w2.status, 201, w2.text);
  });
});
