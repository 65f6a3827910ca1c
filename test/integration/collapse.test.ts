/**
 * Field collapsing: one hit per plate, the latest pass of each, across
 * shards, with inner hits; expectations computed from the records.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';
import { generatePassRecords, PASSINFO_INDEX_BODY, type PassRecord } from '../../bench/pass-records.ts';

let server: TestServer;
const records: PassRecord[] = [...generatePassRecords({ count: 1500, seed: 21, plates: 40 })];
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);

interface Hit {
  _id: string;
  _source: PassRecord;
  fields: Record<string, unknown[]>;
  sort?: unknown[];
  inner_hits?: Record<string, { hits: { total: number; hits: { _source: PassRecord }[] } }>;
}

before(async () => {
  server = await startServer();
  assert.equal((await req('PUT', '/passinfo', { ...PASSINFO_INDEX_BODY, settings: { ...PASSINFO_INDEX_BODY.settings, number_of_shards: 3 } })).status, 200);
  const lines: string[] = [];
  for (const r of records) lines.push(JSON.stringify({ index: { _type: 'passinfo', _id: r.event_id } }), JSON.stringify(r));
  const bulk = await http(server.url, 'POST', '/passinfo/_bulk?refresh=true', lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
  assert.equal((bulk.body as { errors: boolean }).errors, false);
});
after(async () => {
  await server.stop();
});

/** The latest pass of each plate, latest first (ties by event id as the shards would break them is not needed: pass times are distinct enough). */
function latestPerPlate(recs: readonly PassRecord[]): PassRecord[] {
  const best = new Map<string, PassRecord>();
  for (const r of recs) {
    const b = best.get(r.plate);
    if (b === undefined || r.pass_time > b.pass_time) best.set(r.plate, r);
  }
  return [...best.values()].sort((a, b) => (a.pass_time < b.pass_time ? 1 : -1));
}

describe('collapse', () => {
  test('one hit per plate, its latest pass, across shards; hits.total counts passes', async () => {
    const r = await req('POST', '/passinfo/_search', { query: { match_all: {} }, collapse: { field: 'plate.keyword' }, sort: [{ pass_time: 'desc' }], size: 15 });
    assert.equal(r.status, 200, r.text);
    const body = r.body as { hits: { total: number; hits: Hit[] } };
    assert.equal(body.hits.total, records.length);
    const expected = latestPerPlate(records).slice(0, 15);
    assert.deepEqual(body.hits.hits.map((h) => h._source.event_id), expected.map((e) => e.event_id));
    for (const h of body.hits.hits) {
      assert.deepEqual(h.fields['plate.keyword'], [h._source.plate]);
      assert.equal(h.sort!.length, 1, 'the collapse value is not a sort value');
    }
  });

  test('paging with from, and collapsing on a numeric field', async () => {
    const expected = latestPerPlate(records);
    const r = await req('POST', '/passinfo/_search', { collapse: { field: 'plate.keyword' }, sort: [{ pass_time: 'desc' }], from: 10, size: 5 });
    assert.deepEqual((r.body as { hits: { hits: Hit[] } }).hits.hits.map((h) => h._source.event_id), expected.slice(10, 15).map((e) => e.event_id));
    const byType = await req('POST', '/passinfo/_search', { collapse: { field: 'event_type' }, size: 10 });
    const types = (byType.body as { hits: { hits: Hit[] } }).hits.hits.map((h) => h.fields.event_type![0]).sort();
    assert.deepEqual(types, [...new Set(records.map((x) => x.event_type))].sort());
  });

  test('inner_hits lists the passes of each group, sorted and sized as asked', async () => {
    const r = await req('POST', '/passinfo/_search', {
      query: { term: { plate_color: 1 } },
      collapse: { field: 'plate.keyword', inner_hits: { name: 'recent', size: 2, sort: [{ pass_time: 'desc' }] } },
      sort: [{ pass_time: 'desc' }],
      size: 3,
    });
    assert.equal(r.status, 200, r.text);
    for (const h of (r.body as { hits: { hits: Hit[] } }).hits.hits) {
      const mine = records.filter((x) => x.plate === h._source.plate && x.plate_color === 1).sort((a, b) => (a.pass_time < b.pass_time ? 1 : -1));
      const inner = h.inner_hits!.recent!.hits;
      assert.equal(inner.total, mine.length);
      assert.deepEqual(inner.hits.map((x) => x._source.event_id), mine.slice(0, 2).map((x) => x.event_id));
    }
  });

  test('refused: text fields, scroll, unknown keys', async () => {
    const text = await req('POST', '/passinfo/_search', { collapse: { field: 'plate' } });
    assert.equal(text.status, 400);
    assert.match(text.text, /unknown type for collapse field `plate`, only keywords and numbers are accepted/);
    const scroll = await req('POST', '/passinfo/_search?scroll=1m', { collapse: { field: 'plate.keyword' } });
    assert.equal(scroll.status, 400);
    assert.match(scroll.text, /cannot use `collapse` in a scroll context/);
    assert.equal((await req('POST', '/passinfo/_search', { collapse: { field: 'land_id', colour: 1 } })).status, 400);
  });
});
