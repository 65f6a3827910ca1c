/**
 * Search over several shards, with answers computed in the test from the
 * generated records (not by the code under test).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, http, type TestServer } from '../helpers/server.ts';
import { generatePassRecords, PASSINFO_INDEX_BODY, type PassRecord } from '../../bench/pass-records.ts';

let server: TestServer;
const records: PassRecord[] = [...generatePassRecords({ count: 3000, seed: 5, plates: 300 })];
const req = (method: string, path: string, body?: unknown) => http(server.url, method, path, body);

interface Hits {
  total: number;
  max_score: number | null;
  hits: { _id: string; _score: number | null; _source: PassRecord; sort?: unknown[] }[];
}
const search = async (body: unknown, path = '/passinfo/_search') => {
  const r = await req('POST', path, body);
  assert.equal(r.status, 200, r.text.slice(0, 500));
  return (r.body as { hits: Hits }).hits;
};

before(async () => {
  server = await startServer();
  const body = { ...PASSINFO_INDEX_BODY, settings: { ...PASSINFO_INDEX_BODY.settings, number_of_shards: 3 } };
  assert.equal((await req('PUT', '/passinfo', body)).status, 200);
  const lines: string[] = [];
  for (const r of records) lines.push(JSON.stringify({ index: { _type: 'passinfo', _id: r.event_id } }), JSON.stringify(r));
  const bulk = await req('POST', '/passinfo/_bulk?refresh=true', lines.join('\n') + '\n');
  assert.equal((bulk.body as { errors: boolean }).errors, false);
});
after(async () => {
  await server.stop();
});

const contains = (r: PassRecord, frag: string) => r.plate.toLowerCase().includes(frag.toLowerCase());

describe('queries', () => {
  test('match_all counts every document; size 0 returns no hits', async () => {
    const h = await search({ query: { match_all: {} }, size: 0 });
    assert.equal(h.total, records.length);
    assert.equal(h.hits.length, 0);
  });

  test('fuzzy plate search: an inner fragment matches anywhere in the plate (operator and)', async () => {
    const frag = records[10].plate.slice(2, 5);
    const expected = records.filter((r) => contains(r, frag)).length;
    const h = await search({ query: { match: { plate: { query: frag, operator: 'and' } } }, size: 5 });
    assert.equal(h.total, expected);
    for (const hit of h.hits) assert.ok(contains(hit._source, frag));
  });

  test('fuzzy plate search by prefix', async () => {
    const prefix = records[3].plate.slice(0, 3);
    const expected = records.filter((r) => contains(r, prefix)).length;
    const h = await search({ query: { match: { plate: { query: prefix, operator: 'and' } } }, size: 0 });
    assert.equal(h.total, expected);
  });

  test('several fragments separated by blanks all count', async () => {
    const p = records[20].plate;
    const f1 = p.slice(1, 3);
    const f2 = p.slice(4, 7);
    const expected = records.filter((r) => contains(r, f1) && contains(r, f2)).length;
    const h = await search({ query: { match: { plate: { query: `${f1} ${f2}`, operator: 'and' } } }, size: 0 });
    assert.equal(h.total, expected);
  });

  test('plate fragment + plate_category + pass_time range', async () => {
    const frag = records[7].plate.slice(3, 5);
    const from = '2026-10-03 00:00:00';
    const to = '2026-10-10 00:00:00';
    const expected = records.filter((r) => contains(r, frag) && r.plate_category === 1 && r.pass_time >= from && r.pass_time < to).length;
    const h = await search({
      query: {
        bool: {
          must: [{ match: { plate: { query: frag, operator: 'and' } } }],
          filter: [{ term: { plate_category: 1 } }, { range: { pass_time: { gte: from, lt: to } } }],
        },
      },
      size: 0,
    });
    assert.equal(h.total, expected);
  });

  test('trajectory: every pass of one plate sorted by time, sort values in epoch ms', async () => {
    const plate = records[0].plate;
    const mine = records.filter((r) => r.plate === plate).map((r) => r.pass_time).sort();
    const h = await search({ query: { term: { 'plate.keyword': plate } }, sort: [{ pass_time: 'asc' }], size: 1000 });
    assert.equal(h.total, mine.length);
    assert.deepEqual(
      h.hits.map((x) => x._source.pass_time),
      mine,
    );
    assert.equal(h.hits[0]._score, null);
    assert.equal(h.max_score, null);
    assert.equal(h.hits[0].sort?.[0], Date.parse(mine[0].replace(' ', 'T') + 'Z'));
  });

  test('terms, exists, ids, prefix, wildcard, must_not', async () => {
    const lands = ['L0001', 'L0002', 'L0003'];
    assert.equal((await search({ query: { terms: { land_id: lands } }, size: 0 })).total, records.filter((r) => lands.includes(r.land_id)).length);
    assert.equal((await search({ query: { exists: { field: 'plate' } }, size: 0 })).total, records.length);
    assert.equal((await search({ query: { ids: { values: [records[1].event_id, records[2].event_id, 'nope'] } }, size: 0 })).total, 2);
    assert.equal((await search({ query: { prefix: { land_id: 'L001' } }, size: 0 })).total, records.filter((r) => r.land_id.startsWith('L001')).length);
    assert.equal((await search({ query: { wildcard: { land_id: 'L00?1' } }, size: 0 })).total, records.filter((r) => /^L00.1$/.test(r.land_id)).length);
    assert.equal(
      (await search({ query: { bool: { must_not: [{ term: { plate_category: 1 } }] } }, size: 0 })).total,
      records.filter((r) => r.plate_category !== 1).length,
    );
  });

  test('sorting by a keyword then a number, with from/size paging', async () => {
    const sorted = [...records].sort((a, b) => (a.land_id < b.land_id ? -1 : a.land_id > b.land_id ? 1 : b.speed - a.speed));
    const h = await search({ query: { match_all: {} }, sort: [{ land_id: 'asc' }, { speed: 'desc' }], from: 10, size: 5 });
    assert.deepEqual(
      h.hits.map((x) => [x._source.land_id, x._source.speed]),
      sorted.slice(10, 15).map((r) => [r.land_id, r.speed]),
    );
  });

  test('URI search with q= and _count', async () => {
    const land = records[5].land_id;
    const expected = records.filter((r) => r.land_id === land).length;
    const r = await req('GET', `/passinfo/_search?q=land_id:${land}&size=0`);
    assert.equal((r.body as { hits: Hits }).hits.total, expected);
    const c = await req('GET', `/passinfo/_count?q=land_id:${land}`);
    assert.equal((c.body as { count: number }).count, expected);
  });

  test('_source filtering in search hits', async () => {
    const h = await search({ query: { match_all: {} }, _source: ['plate', 'land_*'], size: 1 });
    assert.deepEqual(Object.keys(h.hits[0]._source).sort(), ['land_id', 'land_picture', 'plate']);
  });
});

describe('errors', () => {
  test('an unknown query type is a 400 parsing_exception naming it', async () => {
    const r = await req('POST', '/passinfo/_search', { query: { foo: {} } });
    assert.equal(r.status, 400);
    const err = (r.body as { error: { type: string; reason: string } }).error;
    assert.equal(err.type, 'parsing_exception');
    assert.match(err.reason, /\[foo\]/);
  });

  test('from + size over max_result_window is refused, pointing to scroll', async () => {
    const r = await req('POST', '/passinfo/_search', { from: 9995, size: 10 });
    assert.equal(r.status, 400);
    assert.match(JSON.stringify(r.body), /Result window is too large, from \+ size must be less than or equal to: \[10000\] but was \[10005\]/);
  });

  test('sorting on a text field is refused with the fielddata message', async () => {
    const r = await req('POST', '/passinfo/_search', { sort: ['plate'] });
    assert.equal(r.status, 400);
    assert.match(JSON.stringify(r.body), /Fielddata is disabled on text fields by default/);
  });

  test('a missing index is 404 unless ignore_unavailable', async () => {
    assert.equal((await req('GET', '/nope/_search')).status, 404);
    const r = await req('GET', '/nope,passinfo/_search?ignore_unavailable=true&size=0');
    assert.equal(r.status, 200);
    assert.equal((r.body as { hits: Hits }).hits.total, records.length);
  });
});

describe('scroll', () => {
  test('scrolling with _doc returns every document exactly once, and ignores later writes', async () => {
    const first = await req('POST', '/passinfo/_search?scroll=1m', { sort: ['_doc'], size: 250 });
    let body = first.body as { _scroll_id: string; hits: Hits };
    const seen = new Set<string>();
    await req('PUT', '/passinfo/passinfo/late-doc?refresh=true', records[0]);
    while (body.hits.hits.length > 0) {
      for (const h of body.hits.hits) {
        assert.ok(!seen.has(h._id), `duplicate ${h._id}`);
        seen.add(h._id);
      }
      const next = await req('POST', '/_search/scroll', { scroll: '1m', scroll_id: body._scroll_id });
      assert.equal(next.status, 200);
      body = next.body as { _scroll_id: string; hits: Hits };
    }
    assert.equal(seen.size, records.length);
    assert.ok(!seen.has('late-doc'));
    const cleared = await req('DELETE', '/_search/scroll', { scroll_id: [body._scroll_id] });
    assert.equal(cleared.status, 200);
    const gone = await req('POST', '/_search/scroll', { scroll: '1m', scroll_id: body._scroll_id });
    assert.equal(gone.status, 404);
    await req('DELETE', '/passinfo/passinfo/late-doc?refresh=true');
  });

  test('pages prepared ahead change nothing: a sorted scroll with changing keep-alives reads every doc once, in order', async () => {
    // The node prepares each next page while the client reads; a request with another keep-alive cannot use it.
    const first = await req('POST', '/passinfo/_search?scroll=1m', { sort: [{ pass_time: 'asc' }, '_doc'], size: 97 });
    let body = first.body as { _scroll_id: string; hits: Hits & { hits: { sort: [number, number] }[] } };
    const seen: string[] = [];
    let last = -Infinity;
    for (let page = 0; body.hits.hits.length > 0; page++) {
      for (const h of body.hits.hits) {
        assert.ok(h.sort[0] >= last, 'ascending pass_time across pages');
        last = h.sort[0];
        seen.push(h._id);
      }
      const keepAlive = page % 3 === 0 ? '2m' : '1m';
      body = (await req('POST', '/_search/scroll', { scroll: keepAlive, scroll_id: body._scroll_id })).body as typeof body;
    }
    assert.equal(seen.length, records.length);
    assert.equal(new Set(seen).size, records.length);
  });

  test('a scroll cleared while its next page is being prepared is gone', async () => {
    const first = await req('POST', '/passinfo/_search?scroll=1m', { sort: ['_doc'], size: 50 });
    const id = (first.body as { _scroll_id: string })._scroll_id;
    const cleared = await req('DELETE', '/_search/scroll', { scroll_id: [id] });
    assert.equal((cleared.body as { num_freed: number }).num_freed > 0, true);
    assert.equal((await req('POST', '/_search/scroll', { scroll: '1m', scroll_id: id })).status, 404);
  });
});

describe('aggregations', () => {
  test('traffic count per checkpoint (terms on land_id)', async () => {
    // shard_size covers every checkpoint, so the top 5 are exact (terms counts are otherwise approximate, as in Elasticsearch).
    const r = await req('POST', '/passinfo/_search', { size: 0, aggs: { lands: { terms: { field: 'land_id', size: 5, shard_size: 500 } } } });
    const counts = new Map<string, number>();
    for (const rec of records) counts.set(rec.land_id, (counts.get(rec.land_id) ?? 0) + 1);
    const top = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5);
    const buckets = (r.body as { aggregations: { lands: { buckets: { key: string; doc_count: number }[] } } }).aggregations.lands.buckets;
    assert.deepEqual(
      buckets.map((b) => [b.key, b.doc_count]),
      top,
    );
  });

  test('traffic per day (date_histogram), keys in epoch ms', async () => {
    const r = await req('POST', '/passinfo/_search', { size: 0, aggs: { days: { date_histogram: { field: 'pass_time', interval: 'day' } } } });
    const perDay = new Map<string, number>();
    for (const rec of records) perDay.set(rec.pass_time.slice(0, 10), (perDay.get(rec.pass_time.slice(0, 10)) ?? 0) + 1);
    const buckets = (r.body as { aggregations: { days: { buckets: { key: number; key_as_string: string; doc_count: number }[] } } }).aggregations.days.buckets;
    assert.deepEqual(
      buckets.map((b) => [new Date(b.key).toISOString().slice(0, 10), b.doc_count]),
      [...perDay].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
    );
    assert.equal(buckets[0].key_as_string.length, 'yyyy-MM-dd HH:mm:ss'.length);
  });

  test('plates seen more than N times: terms on plate.keyword + bucket_selector on _count', async () => {
    const counts = new Map<string, number>();
    for (const rec of records) counts.set(rec.plate, (counts.get(rec.plate) ?? 0) + 1);
    const n = 20;
    const expected = [...counts].filter(([, c]) => c > n).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const r = await req('POST', '/passinfo/_search', {
      size: 0,
      aggs: {
        plates: {
          terms: { field: 'plate.keyword', size: 1000 },
          aggs: { frequent: { bucket_selector: { buckets_path: { c: '_count' }, script: `params.c > ${n}` } } },
        },
      },
    });
    assert.equal(r.status, 200, r.text.slice(0, 300));
    const buckets = (r.body as { aggregations: { plates: { buckets: { key: string; doc_count: number }[] } } }).aggregations.plates.buckets;
    assert.deepEqual(
      buckets.map((b) => [b.key, b.doc_count]),
      expected,
    );
  });

  test('aggregating on a text field is refused with the fielddata message', async () => {
    const r = await req('POST', '/passinfo/_search', { size: 0, aggs: { p: { terms: { field: 'plate' } } } });
    assert.equal(r.status, 400);
    assert.match(JSON.stringify(r.body), /Fielddata is disabled on text fields by default/);
  });
});
