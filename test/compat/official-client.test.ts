/**
 * The seed's flows through the official Elasticsearch JavaScript client
 * (@elastic/elasticsearch 6.x, the line that speaks the typed 6.x API)
 * against a running server.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@elastic/elasticsearch';
import { startServer, type TestServer } from '../helpers/server.ts';
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
    const external = await client.index({ index: 'passinfo', type: 'passinfo', id: 'ext', version: 100, versionType: 'external', body: rec });
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
