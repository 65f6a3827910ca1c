/**
 * The seed's flows through the official Elasticsearch JavaScript client
 * (@elastic/elasticsearch 6.x, the line that speaks the typed 6.x API)
 * against a running server.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@elastic/elasticsearch';
import { http, startServer, type TestServer } from '../helpers/server.ts';
import { PASSINFO_INDEX_BODY, generatePassRecords } from '../../bench/pass-records.ts';

let server: TestServer;
let client: Client;

before(async () => {
  server = await startServer();
  client = new Client({ node: server.url });
});
after(async () => {
  await client.close();
  await server.stop();
});

describe('official client: the seed flows', () => {
  test('info reports a 6.8 server', async () => {
    const { body } = await client.info();
    assert.match(body.version.number, /^6\.8\./);
  });

  test('create the n-gram index with the passinfo mapping', async () => {
    const { body, warnings } = await client.indices.create({ index: 'passinfo', body: PASSINFO_INDEX_BODY });
    assert.equal(body.acknowledged, true);
    assert.ok(warnings && warnings.some((w: string) => w.includes('max_gram')));
    const { body: mapping } = await client.indices.getMapping({ index: 'passinfo' });
    assert.equal(mapping.passinfo.mappings.passinfo.properties.plate.fields.keyword.type, 'keyword');
  });

  test('index, get, update with versions, delete', async () => {
    const rec = { ...generatePassRecords({ count: 1 }).next().value! };
    const created = await client.index({ index: 'passinfo', type: 'passinfo', id: rec.event_id, body: rec });
    assert.equal(created.statusCode, 201);
    assert.equal(created.body._version, 1);
    const got = await client.get({ index: 'passinfo', type: 'passinfo', id: rec.event_id });
    assert.equal(got.body._source.plate, rec.plate);
    const updated = await client.update({ index: 'passinfo', type: 'passinfo', id: rec.event_id, body: { doc: { speed: 999 } } });
    assert.equal(updated.body._version, 2);
    await assert.rejects(
      client.index({ index: 'passinfo', type: 'passinfo', id: rec.event_id, version: 1, body: rec }),
      (err: { statusCode?: number; body?: { error?: { type?: string } } }) =>
        err.statusCode === 409 && err.body?.error?.type === 'version_conflict_engine_exception',
    );
    const external = await client.index({ index: 'passinfo', type: 'passinfo', id: 'ext', version: 100, version_type: 'external', body: rec });
    assert.equal(external.body._version, 100);
    const deleted = await client.delete({ index: 'passinfo', type: 'passinfo', id: rec.event_id });
    assert.equal(deleted.body.result, 'deleted');
    await assert.rejects(client.get({ index: 'passinfo', type: 'passinfo', id: rec.event_id }), (err: { statusCode?: number }) => err.statusCode === 404);
  });

  test('bulk and mget', async () => {
    const recs = [...generatePassRecords({ count: 500, seed: 9 })];
    const body = recs.flatMap((r) => [{ index: { _index: 'passinfo', _type: 'passinfo', _id: r.event_id } }, r]);
    const { body: bulk } = await client.bulk({ body, refresh: 'true' });
    assert.equal(bulk.errors, false);
    assert.equal(bulk.items.length, 500);
    const { body: mget } = await client.mget({ index: 'passinfo', type: 'passinfo', body: { ids: recs.slice(0, 10).map((r) => r.event_id) } });
    assert.deepEqual(
      mget.docs.map((d: { _source: { plate: string } }) => d._source.plate),
      recs.slice(0, 10).map((r) => r.plate),
    );
    await client.indices.refresh({ index: 'passinfo' });
    const { body: count } = await client.count({ index: 'passinfo' });
    assert.equal(count.count, 501);
  });
});

describe('official client: search and scroll', () => {
  const COUNT = 100_000;

  test(`a scroll loop reads a ${COUNT}-document index in full, with no loss or duplicate`, async () => {
    await client.indices.create({
      index: 'scrolled',
      body: { settings: { number_of_shards: 5, number_of_replicas: 0, refresh_interval: -1 }, mappings: { _doc: { properties: { n: { type: 'long' } } } } },
    });
    for (let start = 0; start < COUNT; start += 10_000) {
      const body: unknown[] = [];
      for (let n = start; n < start + 10_000; n++) body.push({ index: { _index: 'scrolled', _type: '_doc', _id: `d${n}` } }, { n });
      const { body: res } = await client.bulk({ body });
      assert.equal(res.errors, false);
    }
    await client.indices.refresh({ index: 'scrolled' });

    const seen = new Uint8Array(COUNT);
    let duplicates = 0;
    let read = 0;
    let { body } = await client.search({ index: 'scrolled', scroll: '1m', size: 2000, body: { sort: ['_doc'] } });
    assert.equal(body.hits.total, COUNT);
    while (body.hits.hits.length > 0) {
      for (const h of body.hits.hits as { _source: { n: number } }[]) {
        if (seen[h._source.n]) duplicates++;
        seen[h._source.n] = 1;
        read++;
      }
      ({ body } = await client.scroll({ scroll_id: body._scroll_id, scroll: '1m' }));
    }
    await client.clearScroll({ body: { scroll_id: body._scroll_id } });
    assert.equal(duplicates, 0);
    assert.equal(read, COUNT);
    assert.equal(seen.reduce((a, b) => a + b, 0), COUNT);
  });

  test('match, bool filters and sorting through the client', async () => {
    const { body } = await client.search({
      index: 'scrolled',
      body: { query: { bool: { filter: [{ range: { n: { gte: 10, lt: 20 } } }] } }, sort: [{ n: 'desc' }], size: 3 },
    });
    assert.equal(body.hits.total, 10);
    assert.deepEqual(
      body.hits.hits.map((h: { _id: string }) => h._id),
      ['d19', 'd18', 'd17'],
    );
  });

  test('aggregations through the client', async () => {
    const { body } = await client.search({
      index: 'scrolled',
      body: { size: 0, query: { range: { n: { lt: 1000 } } }, aggs: { s: { stats: { field: 'n' } }, big: { range: { field: 'n', ranges: [{ to: 500 }, { from: 500 }] } } } },
    });
    assert.equal(body.aggregations.s.count, 1000);
    assert.equal(body.aggregations.s.sum, (999 * 1000) / 2);
    assert.deepEqual(
      body.aggregations.big.buckets.map((b: { doc_count: number }) => b.doc_count),
      [500, 500],
    );
  });

  test('search_type=count answers the search response: hits.total and aggregations, no hits', async () => {
    const query = { range: { n: { lt: 1000 } } };
    const { body } = await client.search({
      index: 'scrolled',
      // The 6.x client's types list only the search types 6.8 has; the request goes out as written.
      search_type: 'count' as 'query_then_fetch',
      body: { query, size: 5, aggs: { s: { stats: { field: 'n' } } } },
    });
    assert.equal(body.count, undefined);
    assert.equal(body.hits.total, 1000);
    assert.deepEqual(body.hits.hits, []);
    assert.equal(body.aggregations.s.count, 1000);
    assert.equal(body.aggregations.s.max, 999);
    assert.equal(body._shards.total, 5);
    // max_score as a search of size 0 gives it.
    const { body: sizeZero } = await client.search({ index: 'scrolled', body: { query, size: 0 } });
    assert.equal(body.hits.max_score, sizeZero.hits.max_score);
  });

  test('search_type=count on every search path, GET and POST', async () => {
    const paths = ['/_search', '/scrolled/_search', '/scrolled/_doc/_search'];
    for (const path of paths) {
      for (const method of ['GET', 'POST']) {
        const res = await http(server.url, method, `${path}?search_type=count&q=n:[10 TO 19]`);
        assert.equal(res.status, 200, `${method} ${path}`);
        const hits = (res.body as { hits: { total: number; hits: unknown[] } }).hits;
        assert.equal(hits.total, 10, `${method} ${path}`);
        assert.deepEqual(hits.hits, [], `${method} ${path}`);
      }
    }
  });

  test('search_type=count with scroll is a 400 that says why', async () => {
    const res = await http(server.url, 'POST', '/scrolled/_search?search_type=count&scroll=1m', { query: { match_all: {} } });
    assert.equal(res.status, 400);
    const error = (res.body as { error: { type: string; reason: string } }).error;
    assert.equal(error.type, 'illegal_argument_exception');
    assert.match(error.reason, /search_type=count.*cannot be scrolled/);
  });
});
