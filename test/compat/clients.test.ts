/**
 * The pass-record flows of the data APIs through the clients users have,
 * unchanged: the legacy `elasticsearch` 16 client with `apiVersion: '6.8'`,
 * `@elastic/elasticsearch` 6 and 7, and `@opensearch-project/opensearch` 2.
 * Each creates its index through a template, bulk-loads pass records, and
 * runs msearch, a highlighted plate-fragment search, update_by_query with a
 * script, delete_by_query and reindex with a script; the 7.x client also its
 * `helpers.bulk` (with `_type` in the action, as a 6.8 server requires) and
 * `helpers.scrollSearch`. Expectations are computed from the records.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import legacy from 'elasticsearch';
import { Client as Client6 } from '@elastic/elasticsearch';
import { Client as Client7 } from '@elastic/elasticsearch7';
import { Client as OpenSearchClient } from '@opensearch-project/opensearch';
import { startServer, type TestServer } from '../helpers/server.ts';
import { PASSINFO_INDEX_BODY, generatePassRecords, type PassRecord } from '../../bench/pass-records.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What the flows need of a client, each returning the response body. */
interface Api {
  putTemplate(name: string, body: Json): Promise<Json>;
  getTemplate(name: string): Promise<Json>;
  createIndex(index: string): Promise<Json>;
  bulk(body: unknown[]): Promise<Json>;
  search(index: string, body: Json): Promise<Json>;
  msearch(body: unknown[]): Promise<Json>;
  updateByQuery(index: string, body: Json): Promise<Json>;
  deleteByQuery(index: string, body: Json): Promise<Json>;
  reindex(body: Json): Promise<Json>;
  count(index: string): Promise<number>;
  close(): Promise<void>;
}

/** The clients that return `{ body }` (@elastic/elasticsearch 6 and 7, OpenSearch 2). */
function transportApi(c: Json): Api {
  const b = async (p: Promise<{ body: Json }>) => (await p).body;
  return {
    putTemplate: (name, body) => b(c.indices.putTemplate({ name, body })),
    getTemplate: (name) => b(c.indices.getTemplate({ name })),
    createIndex: (index) => b(c.indices.create({ index })),
    bulk: (body) => b(c.bulk({ body, refresh: 'true' })),
    search: (index, body) => b(c.search({ index, body })),
    msearch: (body) => b(c.msearch({ body })),
    updateByQuery: (index, body) => b(c.updateByQuery({ index, body, refresh: true, conflicts: 'proceed' })),
    deleteByQuery: (index, body) => b(c.deleteByQuery({ index, body, refresh: true })),
    reindex: (body) => b(c.reindex({ body, refresh: true })),
    count: async (index) => (await b(c.count({ index }))).count as number,
    close: async () => c.close(),
  };
}

/** The legacy client: promises of bodies. */
function legacyApi(c: Json): Api {
  return {
    putTemplate: (name, body) => c.indices.putTemplate({ name, body }),
    getTemplate: (name) => c.indices.getTemplate({ name }),
    createIndex: (index) => c.indices.create({ index }),
    bulk: (body) => c.bulk({ body, refresh: 'true' }),
    search: (index, body) => c.search({ index, body }),
    msearch: (body) => c.msearch({ body }),
    updateByQuery: (index, body) => c.updateByQuery({ index, body, refresh: true, conflicts: 'proceed' }),
    deleteByQuery: (index, body) => c.deleteByQuery({ index, body, refresh: true }),
    reindex: (body) => c.reindex({ body, refresh: true }),
    count: async (index) => (await c.count({ index })).count as number,
    close: async () => c.close(),
  };
}

let server: TestServer;
const records: PassRecord[] = [...generatePassRecords({ count: 400, seed: 31, plates: 60 })];

before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

const CLIENTS: { name: string; make: (url: string) => Api; type: string }[] = [
  { name: 'elasticsearch 16 (apiVersion 6.8)', type: 'legacy', make: (url) => legacyApi(new legacy.Client({ host: url, apiVersion: '6.8', log: [] })) },
  { name: '@elastic/elasticsearch 6', type: 'es6', make: (url) => transportApi(new Client6({ node: url })) },
  { name: '@elastic/elasticsearch 7', type: 'es7', make: (url) => transportApi(new Client7({ node: url })) },
  { name: '@opensearch-project/opensearch 2', type: 'os2', make: (url) => transportApi(new OpenSearchClient({ node: url })) },
];

for (const { name, make, type } of CLIENTS) {
  describe(`${name}: the pass-record flows`, () => {
    let api: Api;
    const index = `pass-${type}`;
    before(() => {
      api = make(server.url);
    });
    after(async () => {
      await api.close();
    });

    test('a template shapes the index a bulk load creates', async () => {
      const put = await api.putTemplate(`tpl-${type}`, { index_patterns: [`pass-${type}*`], order: 1, version: 3, ...PASSINFO_INDEX_BODY });
      assert.equal(put.acknowledged, true);
      const got = await api.getTemplate(`tpl-${type}`);
      assert.equal(got[`tpl-${type}`].version, 3);
      const body = records.flatMap((r) => [{ index: { _index: index, _type: 'passinfo', _id: r.event_id } }, r]);
      const bulk = await api.bulk(body);
      assert.equal(bulk.errors, false);
      assert.equal(await api.count(index), records.length);
      // The template's n-gram field: a plate fragment finds the plates that contain it.
      const plate = records[0]!.plate;
      const fragment = plate.slice(1, 4);
      const res = await api.search(index, { query: { match: { plate: { query: fragment, operator: 'and' } } }, highlight: { fields: { plate: {} } }, size: 100 });
      const expected = records.filter((r) => r.plate.includes(fragment));
      assert.ok(expected.length > 0);
      assert.equal(res.hits.total, expected.length);
      for (const h of res.hits.hits) assert.ok((h.highlight.plate[0] as string).includes(`<em>${fragment}</em>`), h.highlight.plate[0]);
    });

    test('msearch answers each search in order, an error item beside the others', async () => {
      const fast = records.filter((r) => r.speed > 100).length;
      const res = await api.msearch([
        { index },
        { query: { range: { speed: { gt: 100 } } }, size: 0 },
        { index: 'no-such-index' },
        { query: { match_all: {} } },
        { index },
        { size: 0, aggs: { plates: { cardinality: { field: 'plate.keyword' } } } },
      ]);
      assert.equal(res.responses.length, 3);
      assert.equal(res.responses[0].hits.total, fast);
      assert.equal(res.responses[1].error.type, 'index_not_found_exception');
      assert.equal(res.responses[1].status, 404);
      assert.equal(res.responses[2].aggregations.plates.value, new Set(records.map((r) => r.plate)).size);
    });

    test('update_by_query with a script, then delete_by_query, count what they did', async () => {
      const slow = records.filter((r) => r.speed < 40);
      const upd = await api.updateByQuery(index, { query: { range: { speed: { lt: 40 } } }, script: { source: 'ctx._source.speed += params.add', params: { add: 1000 } } });
      assert.equal(upd.updated, slow.length);
      assert.equal(upd.total, slow.length);
      const res = await api.search(index, { query: { range: { speed: { gte: 1000 } } }, size: 0 });
      assert.equal(res.hits.total, slow.length);
      const del = await api.deleteByQuery(index, { query: { range: { speed: { gte: 1000 } } } });
      assert.equal(del.deleted, slow.length);
      assert.equal(await api.count(index), records.length - slow.length);
    });

    test('reindex with a script copies and changes the records', async () => {
      const kept = records.filter((r) => r.speed >= 40);
      const res = await api.reindex({ source: { index }, dest: { index: `copy-${type}` }, script: { source: "ctx._source.plate_color = 99; if (ctx._source.speed > 110) { ctx.op = 'noop' }" } });
      const skipped = kept.filter((r) => r.speed > 110).length;
      assert.equal(res.total, kept.length);
      assert.equal(res.created, kept.length - skipped);
      assert.equal(res.noops, skipped);
      const copy = await api.search(`copy-${type}`, { query: { term: { plate_color: 99 } }, size: 0 });
      assert.equal(copy.hits.total, kept.length - skipped);
    });
  });
}

describe('@elastic/elasticsearch 7: helpers', () => {
  test('helpers.bulk with _type in the action, then helpers.scrollSearch reads every record back', async () => {
    const client = new Client7({ node: server.url });
    try {
      const stats = await client.helpers.bulk({
        datasource: records,
        onDocument: (r: PassRecord) => ({ index: { _index: 'helpers', _type: 'passinfo', _id: r.event_id } }) as never,
        refreshOnCompletion: 'helpers',
      });
      assert.equal(stats.successful, records.length);
      assert.equal(stats.failed, 0);
      const seen = new Set<string>();
      const scroll = client.helpers.scrollSearch<PassRecord>({ index: 'helpers', scroll: '1m', size: 37, body: { query: { match_all: {} } } });
      for await (const page of scroll) for (const h of page.body.hits.hits) seen.add(h._id);
      assert.equal(seen.size, records.length);
      assert.deepEqual([...seen].sort(), records.map((r) => r.event_id).sort());
    } finally {
      await client.close();
    }
  });
});
